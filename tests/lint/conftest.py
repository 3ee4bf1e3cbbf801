"""The planted corpus (one of each problem lint must find), linted once with the real model."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
PLANTED = HERE / "fixtures" / "planted"


@pytest.fixture(scope="session")
def lint_cache(_private_folders: dict[str, str]) -> Iterator[Path]:
    """The test session's own cache folder (the bank's vectors land there), the one every
    other build of the session shares: what one build embedded, the next reads back."""
    folder = Path(_private_folders["GOV_CACHE_DIR"])
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GOV_CACHE_DIR", str(folder))
        yield folder


@pytest.fixture(scope="session")
def planted_index(lint_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The planted corpus indexed once (lint uses an index that is fresh for its corpus)."""
    from gov.core.corpus.reader import load_corpus
    from gov.core.routing.indexes import build_index

    path = tmp_path_factory.mktemp("planted-index") / "index"
    build_index(load_corpus([PLANTED], warn=lambda _m: None)).write(path)
    return path


@pytest.fixture
def planted_copy(tmp_path: Path) -> Path:
    """A copy of the planted corpus to edit."""
    target = tmp_path / "planted"
    shutil.copytree(PLANTED, target)
    return target
