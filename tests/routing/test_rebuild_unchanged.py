"""A rebuild of an unchanged corpus keeps the previous index (nothing embedded, measured or
fitted); any change a build would see (a document, an option, the point) builds afresh."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import numpy as np
import pytest

from gov.core.corpus.reader import load_corpus
from gov.core.index.stored import open_stored
from gov.core.routing.indexes import build_index
from gov.core.routing.point import default_operating_point
from tests.conftest import POLICIES
from tests.fake_encoder import HashedWordsEncoder

pytestmark = pytest.mark.slow  # two builds a test (each fits the background gate): seconds


def _arrays(path: Path) -> dict[str, np.ndarray]:
    stored = open_stored(path)
    return {name: np.array(stored.array(name)) for name in stored.raw_header["arrays"]}


@pytest.fixture
def built(tmp_path: Path, fake_encoder: HashedWordsEncoder) -> tuple[Path, Path]:
    corpus = tmp_path / "corpus"
    shutil.copytree(POLICIES, corpus)
    index = tmp_path / "index"
    build_index(load_corpus([corpus], warn=lambda _m: None), previous=None).write(index)
    return corpus, index


def test_an_unchanged_corpus_keeps_the_previous_index(
        built: tuple[Path, Path], fake_encoder: HashedWordsEncoder,
        monkeypatch: pytest.MonkeyPatch) -> None:
    import gov.core.routing.indexes as indexes

    corpus, index = built
    before = _arrays(index)
    fake_encoder.embedded.clear()
    monkeypatch.setattr(indexes, "fit_background", lambda *_a: pytest.fail("refitted"))
    (corpus / "deploy.md").touch()  # a newer time, the same content
    again = build_index(load_corpus([corpus], warn=lambda _m: None), previous=index)
    assert fake_encoder.embedded == []
    assert again.header.build["kept"] and again.header.background is not None
    assert again.header.build["reused_vectors"] == again.header.build["surfaces"]
    assert again.arrays.keys() == before.keys()
    assert all(np.array_equal(again.arrays[name], before[name]) for name in before)
    stamps = {stamp.path: stamp for stamp in again.header.corpus.stamps}
    assert stamps[next(p for p in stamps if p.endswith("deploy.md"))].mtime_ns == \
        (corpus / "deploy.md").stat().st_mtime_ns  # this read's stamps, so it is not stale
    again.write(index)
    assert not open_stored(index).is_stale()


@pytest.mark.parametrize("change", ["document", "bodies", "families", "point", "lexical", "code"])
def test_any_change_a_build_sees_builds_afresh(built: tuple[Path, Path],
                                               fake_encoder: HashedWordsEncoder,
                                               change: str, monkeypatch: pytest.MonkeyPatch,
                                               ) -> None:
    import gov.core.index.build as building

    corpus, index = built
    options: dict[str, object] = {}
    if change == "code":  # gov's own files changed, under the same version number
        stamp = building.code_stamp()
        monkeypatch.setattr(building, "code_stamp", lambda: stamp + 1)
    elif change == "document":
        first = sorted(corpus.glob("*.md"))[0]
        first.write_text(first.read_text() + "\nOne more paragraph about rollbacks.\n")
    elif change == "bodies":
        options["bodies"] = False
    elif change == "families":
        options["families"] = "none"
    elif change == "point":
        point = default_operating_point()
        options["operating_point"] = dataclasses.replace(point, hub_weight=point.hub_weight + 0.1,
                                                         source="test")
    else:
        options["lexical_only"] = True
    again = build_index(load_corpus([corpus], warn=lambda _m: None), previous=index,
                        **options)  # type: ignore[arg-type]
    assert not again.header.build.get("kept")


def test_an_index_built_by_other_code_is_rebuilt_when_a_command_names_its_corpus(
        built: tuple[Path, Path], fake_encoder: HashedWordsEncoder,
        monkeypatch: pytest.MonkeyPatch) -> None:
    import gov.core.routing.indexes as indexes

    corpus, index = built
    _, rebuilt = indexes.ensure_index([corpus], index)
    assert not rebuilt  # the same corpus, by the same code: kept
    monkeypatch.setattr(indexes, "code_stamp", lambda: 12345)  # as after an upgrade
    _, rebuilt = indexes.ensure_index([corpus], index)
    assert rebuilt
    assert open_stored(index).header.build["code"] != 12345  # built by the code installed
