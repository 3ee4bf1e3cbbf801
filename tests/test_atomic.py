"""Atomic file replacement: a full device keeps the previous file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def test_real_full_device_keeps_the_previous_file(tmp_path: Path) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    from gov.core.atomic import atomic_writer

    target = tmp_path / "point.json"
    target.write_text("old")
    with pytest.raises(OSError), atomic_writer(target) as handle, open("/dev/full", "wb") as full:
        handle.write(b"new")
        full.write(b"x" * 100_000)
        full.flush()
    assert target.read_text() == "old"
