"""Building an index: separability, re-embedding only what changed, refusals, and a failed
write that keeps the previous index."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from gov.core.corpus.reader import load_corpus
from gov.core.errors import IndexBuildError
from gov.core.index.build import separability
from gov.core.routing.indexes import build_index
from tests.conftest import POLICIES
from tests.fake_encoder import HashedWordsEncoder


def test_separability_is_max_minus_min_cosine_between_documents() -> None:
    vectors = np.array([[1.0, 0.0], [0.0, 1.0], [np.sqrt(0.5), np.sqrt(0.5)]], dtype=np.float32)
    # Pairs: 0, 0.707, 0.707 -> spread 0.707.
    assert separability(vectors) == pytest.approx(np.sqrt(0.5), abs=1e-6)
    assert separability(vectors[:1]) is None


@pytest.mark.slow
def test_rebuild_reembeds_only_changed_documents(tmp_path: Path, fake_encoder: HashedWordsEncoder) -> None:
    corpus_dir = tmp_path / "policies"
    shutil.copytree(POLICIES, corpus_dir)
    target = tmp_path / "index"
    first = build_index(load_corpus([corpus_dir]))
    first.write(target)
    assert first.header.build["reused_vectors"] == 0
    doc = corpus_dir / "testing.md"
    doc.write_text(doc.read_text().replace("**Agent-trigger:** ", "**Agent-trigger:** Flaky CI, "))
    embedded = len(fake_encoder.embedded)
    second = build_index(load_corpus([corpus_dir]), previous=target)
    surfaces = second.header.build["surfaces"]
    assert second.header.build["reused_vectors"] == surfaces - 1
    trigger = next(d.trigger for d in load_corpus([corpus_dir]).documents if d.name == "testing")
    assert fake_encoder.embedded[embedded:] == [trigger]  # the changed surface, and only it


def test_empty_corpus_cannot_be_indexed(tmp_path: Path) -> None:
    from gov.core.errors import IndexBuildError

    (tmp_path / "a.md").write_text("# no trigger\n")
    with pytest.raises(IndexBuildError, match="no routable documents"):
        build_index(load_corpus([tmp_path], warn=lambda _m: None))


@pytest.mark.slow
@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES])
def test_failed_write_keeps_the_previous_index(fake_index: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    target = tmp_path / "index"
    target.write_bytes(fake_index.read_bytes())
    before = target.read_bytes()
    built = build_index(load_corpus([POLICIES], warn=lambda _m: None), previous=target)

    def failing_fsync(_fd: int) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(IndexBuildError) as caught:
        built.write(target)
    assert os.strerror(code) in str(caught.value) and "unchanged" in str(caught.value)
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["index"]  # no temp file left behind
