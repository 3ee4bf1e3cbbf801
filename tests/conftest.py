"""Shared fixtures: the example corpus, an index built from it once, and a CLI runner."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
POLICIES = EXAMPLES / "policies"


def gov_on_path(folder: Path, base: dict[str, str]) -> dict[str, str]:
    """``base`` with a ``gov`` first on PATH that runs this checkout's entry point."""
    wrapper = folder / "gov"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m gov.cli.entry "$@"\n')
    wrapper.chmod(0o755)
    return {**base, "PATH": f"{folder}{os.pathsep}{base.get('PATH', '')}", "PYTHONPATH": str(REPO)}


def run_gov(*args: str, input: bytes | str | None = None, env: dict[str, str] | None = None,
            cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    """Run the real ``gov`` entry point in a fresh process."""
    full_env = {**os.environ, "NO_COLOR": "1", **(env or {})}
    full_env.pop("GOV_INDEX", None) if env is None or "GOV_INDEX" not in env else None
    data = input.encode() if isinstance(input, str) else input
    return subprocess.run(
        [sys.executable, "-m", "gov.cli.entry", *args],
        input=data,
        capture_output=True,
        env=full_env,
        cwd=cwd,
        timeout=timeout,
        check=False,
    )


@pytest.fixture(scope="session", autouse=True)
def _private_folders(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A runtime folder (short: a socket path has at most 107 bytes) and a cache folder for
    the whole run, set before any session fixture builds an index (so their embedding
    caches are the suite's, never the user's); warm servers started in it are stopped at
    the end."""
    import shutil
    import tempfile

    runtime = Path(tempfile.mkdtemp(prefix="gov-test-rt-"))
    cache = tmp_path_factory.mktemp("cache")
    folders = {"GOV_RUNTIME_DIR": str(runtime), "GOV_CACHE_DIR": str(cache)}
    with pytest.MonkeyPatch.context() as patch:
        for name, value in folders.items():
            patch.setenv(name, value)
        yield folders
    from gov.core.serving.protocol import send

    for sock in runtime.glob("*.sock"):
        send({"op": "stop"}, 2.0, sock)
    shutil.rmtree(runtime, ignore_errors=True)


@pytest.fixture(autouse=True)
def _isolated(_private_folders: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs apart from the person running the suite: its own runtime folder
    (never their warm server), its own cache folder, no telemetry log of theirs. A test
    that needs one of these sets it itself."""
    for name, value in _private_folders.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("GOV_TELEMETRY_PATH", raising=False)


@pytest.fixture(scope="session")
def example_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example corpus indexed once with the real model."""
    from gov.core.corpus.reader import load_corpus
    from gov.core.routing.indexes import build_index

    path = tmp_path_factory.mktemp("index") / "index"
    build_index(load_corpus([POLICIES], warn=lambda _m: None)).write(path)
    return path
