"""Indexes for routing: the point an index routes with, and refreshing a stale one (what an
index keeps on a rebuild is mechanics: the stand-in encoder; the default point's route is quality:
the real model)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from gov.core.corpus.reader import load_corpus
from gov.core.routing.indexes import build_index, ensure_index, load_index
from gov.core.routing.point import default_operating_point
from tests.conftest import POLICIES
from tests.fake_encoder import HashedWordsEncoder


@pytest.mark.slow
def test_stale_index_is_detected_and_refreshed(tmp_path: Path, fake_encoder: HashedWordsEncoder) -> None:
    corpus_dir = tmp_path / "policies"
    shutil.copytree(POLICIES, corpus_dir)
    target = tmp_path / "index"
    loaded, rebuilt = ensure_index([corpus_dir], target)
    assert rebuilt and not loaded.is_stale()
    again, rebuilt_again = ensure_index([corpus_dir], target)
    assert not rebuilt_again
    new = corpus_dir / "pairing.md"
    new.write_text("# Pairing\n\n**Agent-trigger:** Pair programming sessions and mob reviews.\n")
    assert again.is_stale()
    refreshed, rebuilt_third = ensure_index([corpus_dir], target)
    assert rebuilt_third and "pairing" in refreshed.names
    old = time.time() - 100
    os.utime(new, (old, old))  # a new file time, the same content: a checkout, not an edit
    assert not load_index(target).is_stale()
    new.write_text(new.read_text().replace("mob reviews", "mob programming"))
    assert load_index(target).is_stale()


def test_bodies_are_on_by_default_and_the_default_counts_each_as_a_surface(
        example_index: Path, tmp_path: Path) -> None:
    assert default_operating_point().body_surfaces == 1.0
    assert load_index(example_index).scorer.body_vectors is not None
    path = tmp_path / "plain"
    build_index(load_corpus([POLICIES], warn=lambda _m: None), previous=example_index,
                bodies=False).write(path)
    plain = load_index(path)
    assert plain.scorer.body_vectors is None and plain.header.bodies is None
    assert plain.route("roll back last night's release", record=False).names  # still routes


def test_a_rebuild_for_a_changed_corpus_keeps_bodies(bodies_index: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "policies"
    shutil.copytree(POLICIES, corpus)
    target = tmp_path / "idx"
    build_index(load_corpus([corpus], warn=lambda _m: None), previous=bodies_index).write(target)
    fresh, rebuilt = ensure_index([corpus], target, warn=lambda _m: None)
    assert not rebuilt and fresh.scorer.body_vectors is not None
    page = corpus / "deployment.md"
    page.write_text(page.read_text() + "\nEvery rollback is announced in the deploys channel.\n")
    again, rebuilt = ensure_index([corpus], target, warn=lambda _m: None)
    assert rebuilt and again.scorer.body_vectors is not None
    assert again.header.bodies["passages"] - again.header.bodies["passages_cached"] <= 1
