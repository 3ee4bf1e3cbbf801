"""Every telemetry test starts with telemetry off: no explicit sink, no environment."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gov.core import telemetry


@pytest.fixture(autouse=True)
def telemetry_off(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(telemetry.ENV_PATH, raising=False)
    telemetry.reset_sink()
    yield
    telemetry.reset_sink()
