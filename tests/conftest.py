"""Shared fixtures: the example corpus, an index built from it once, and a CLI runner."""

from __future__ import annotations

import os
import subprocess
import sys
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


@pytest.fixture(scope="session")
def example_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example corpus indexed once with the real model."""
    from gov.core.corpus.reader import load_corpus
    from gov.core.routing.indexes import build_index

    path = tmp_path_factory.mktemp("index") / "index"
    build_index(load_corpus([POLICIES], warn=lambda _m: None)).write(path)
    return path


@pytest.fixture(scope="session")
def bodies_index(tmp_path_factory: pytest.TempPathFactory, example_index: Path) -> Path:
    """The example corpus indexed with body evidence (``gov index --bodies``), real model."""
    from gov.core.corpus.reader import load_corpus
    from gov.core.routing.indexes import build_index

    path = tmp_path_factory.mktemp("bodies") / "index"
    build_index(load_corpus([POLICIES], warn=lambda _m: None), previous=example_index,
                bodies=True).write(path)
    return path
