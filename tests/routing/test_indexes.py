"""Indexes for routing: the point an index routes with, and refreshing a stale one (what an
index keeps on a rebuild is mechanics: the stand-in encoder; the default point's route is quality:
the real model)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from gov.core.corpus.reader import load_corpus
from gov.core.routing.indexes import build_index, ensure_index, load_index
from gov.core.routing.point import default_operating_point
from tests.conftest import POLICIES
from tests.fake_encoder import HashedWordsEncoder


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
    os.utime(new, (old, old))
    assert load_index(target).is_stale()


def test_an_index_with_bodies_routes_with_the_default_measured_with_bodies(bodies_index: Path,
                                                                          example_index: Path) -> None:
    shipped = default_operating_point(bodies=True)
    assert shipped.body_weight > 0 and shipped.provenance["corpus_id"] == "examples/policies"
    with_bodies = load_index(bodies_index)
    assert with_bodies.operating_point.id == shipped.id
    assert load_index(example_index).operating_point.body_weight == 0.0
    routed = with_bodies.route("rotate the stripe key that leaked", record=False)
    assert routed.names == ["secrets-management"]


def test_a_rebuild_for_a_changed_corpus_keeps_bodies(tmp_path: Path,
                                                    fake_encoder: HashedWordsEncoder) -> None:
    corpus = tmp_path / "policies"
    shutil.copytree(POLICIES, corpus)
    target = tmp_path / "idx"
    build_index(load_corpus([corpus], warn=lambda _m: None), bodies=True).write(target)
    fresh, rebuilt = ensure_index([corpus], target, warn=lambda _m: None)
    assert not rebuilt and fresh.scorer.body_vectors is not None
    page = corpus / "deployment.md"
    page.write_text(page.read_text() + "\nEvery rollback is announced in the deploys channel.\n")
    again, rebuilt = ensure_index([corpus], target, warn=lambda _m: None)
    assert rebuilt and again.scorer.body_vectors is not None
    assert again.header.bodies["reused"] == 21  # only the edited document is re-embedded
    assert again.operating_point.body_weight > 0  # and it keeps the default measured with bodies
