"""A short coverage-guided fuzzing run of each target (the long run is in docs/reliability.md)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO

pytest.importorskip("atheris", reason="atheris has wheels for x86-64 Linux only")
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("target, runs", [("hook", 3000), ("cards", 3000), ("index", 400)])
def test_short_fuzz_run_finds_no_crash(target: str, runs: int, tmp_path) -> None:  # type: ignore[no-untyped-def]
    result = subprocess.run(
        [sys.executable, "-m", "tests.fuzz.targets", target, f"-atheris_runs={runs}", "-rss_limit_mb=2048",
         f"-artifact_prefix={tmp_path}/"],
        cwd=REPO, capture_output=True, timeout=600, check=False,
        # gov's own code instrumented, not all of numpy and the standard library (targets.instrument)
        env={**os.environ, "GOV_RUNTIME_DIR": str(tmp_path / "rt"), "GOV_FUZZ_INSTRUMENT": "gov"},
    )
    tail = result.stderr.decode(errors="replace")[-3000:]
    assert result.returncode == 0, tail
    assert f"Done {runs} runs" in tail or "DONE" in tail.upper()
