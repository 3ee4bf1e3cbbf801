"""With a HOME it cannot write, onnxruntime once printed a coloured warning (it could not
store a telemetry device id) on the hook's stderr; the hook's stderr is gov's own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gov.core.encode import bundle
from tests.conftest import gov_env, run_gov

UNWRITABLE_HOME = "/proc"  # not writable, even by root


def _env(tmp_path: Path) -> dict[str, str | None]:
    return {"HOME": UNWRITABLE_HOME, "GOV_CACHE_DIR": str(bundle.cache_dir()),
            "XDG_CACHE_HOME": None, "ORT_DISABLE_TELEMETRY": None,
            "GOV_RUNTIME_DIR": str(tmp_path / "run")}


@pytest.mark.slow
@pytest.mark.model
def test_loading_the_encoder_prints_nothing_with_an_unwritable_home(tmp_path: Path) -> None:
    code = ("from gov.core.encode.embedding import OnnxEncoder\n"
            "print(OnnxEncoder().embed(['rotate the keys']).shape)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120,
                          env=gov_env(_env(tmp_path)), check=False)
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.strip().startswith(b"(1, ")
    assert done.stderr == b"", done.stderr[-500:]


@pytest.mark.slow
@pytest.mark.model
def test_the_in_process_hook_keeps_stderr_empty_with_an_unwritable_home(
        example_index: Path, tmp_path: Path) -> None:
    payload = json.dumps({"prompt": "how do I roll back a deployment", "cwd": str(tmp_path)})
    done = run_gov("hook", "claude-code", "-i", str(example_index), "--serve", "never",
                   input=payload, env=_env(tmp_path))
    assert done.returncode == 0
    assert b"onnxruntime" not in done.stderr and b"\x1b[" not in done.stderr, done.stderr
    assert done.stderr == b"", done.stderr
