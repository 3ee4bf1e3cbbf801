"""The approximate-search graph (gov index --ann): exact scores for the documents it reaches,
the same routes as exact search on a small corpus, recall against exact search, clear errors."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from gov.core.corpus.reader import load_corpus
from gov.core.errors import IndexBuildError, IndexLoadError
from gov.core.routing.indexes import build_index, load_index
from tests.conftest import EXAMPLES, POLICIES

# Not importorskip: importing usearch before onnxruntime crashes (see core/index/ann.py).
pytestmark = pytest.mark.skipif(importlib.util.find_spec("usearch") is None,
                                reason="usearch is not installed (pip install 'gov[ann]')")


PROMPTS = [json.loads(line)["prompt"] for line in (EXAMPLES / "labelled.jsonl").read_text().splitlines()]


def _ann_index(tmp_path: Path, fake_index: Path, candidates: int | None = None) -> Path:
    path = tmp_path / "ann-index"
    built = build_index(load_corpus([POLICIES], warn=lambda _m: None), previous=fake_index,
                        ann=True, ann_candidates=candidates)
    built.write(path)
    return path


@pytest.mark.slow
def test_routes_match_exact_search_when_the_graph_reaches_every_document(
        tmp_path: Path, fake_index: Path) -> None:
    path = _ann_index(tmp_path, fake_index)
    approximate, exact = load_index(path), load_index(path, exact=True)
    assert approximate.scorer.nearest is not None and exact.scorer.nearest is None
    assert approximate.header.ann["backend"] == "usearch"
    routed = approximate.route_many(PROMPTS, record=False)
    reference = exact.route_many(PROMPTS, record=False)
    assert [r.names for r in routed] == [r.names for r in reference]
    assert any(r.names for r in routed)
    # One prompt at a time takes the graph's single-query path.
    assert [approximate.route(p, record=False).names for p in PROMPTS[:10]] == [
        r.names for r in reference[:10]]


@pytest.mark.slow
@pytest.mark.parametrize("pool", ["max", "mean", "max_mean"])
def test_reached_documents_score_exactly_and_the_rest_score_zero(
        tmp_path: Path, fake_index: Path, pool: str) -> None:
    path = _ann_index(tmp_path, fake_index, candidates=3)
    approximate, exact = load_index(path), load_index(path, exact=True)
    vectors = approximate.scorer.embed(PROMPTS[:20])
    assert vectors is not None
    near = approximate.scorer.semantic(vectors, pool=pool)
    full = exact.scorer.semantic(vectors, pool=pool)
    reached = near != 0.0
    # Three surfaces reach at most three documents, scored over all their surfaces.
    assert reached.any(axis=1).all() and (reached.sum(axis=1) <= 3).all()
    np.testing.assert_allclose(near[reached], full[reached], atol=1e-5)
    # The nearest surface's document is always among them.
    best_doc = exact.stored.surface_doc[np.argmax(vectors @ np.asarray(exact.scorer.embeddings).T, axis=1)]
    assert reached[np.arange(len(best_doc)), best_doc].all()


@pytest.mark.slow
def test_learned_surfaces_count_for_reached_documents(tmp_path: Path, fake_index: Path) -> None:
    path = _ann_index(tmp_path, fake_index, candidates=4)
    approximate, exact = load_index(path), load_index(path, exact=True)
    vectors = approximate.scorer.embed(PROMPTS[:6])
    assert vectors is not None
    names = [approximate.names[0], approximate.names[1]]
    for index in (approximate, exact):
        index.scorer.set_learned(vectors[:2], names, PROMPTS[:2])
    near = approximate.scorer.semantic(vectors, pool="max")
    full = exact.scorer.semantic(vectors, pool="max")
    # The first prompt is its own learned surface of document 0: similarity 1, both ways.
    assert near[0, 0] == pytest.approx(1.0, abs=1e-5) and full[0, 0] == pytest.approx(1.0, abs=1e-5)
    reached = near != 0.0
    np.testing.assert_allclose(near[reached], full[reached], atol=1e-5)


@pytest.mark.slow
def test_graph_recall_at_2_against_exact_search() -> None:
    from gov.core.index.ann import NearestSurfaces, build

    rng = np.random.default_rng(7)
    centres = rng.normal(size=(200, 64))
    vectors = centres[rng.integers(0, 200, 5000)] + 0.6 * rng.normal(size=(5000, 64))
    vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    queries = centres[rng.integers(0, 200, 300)] + 0.6 * rng.normal(size=(300, 64))
    queries = (queries / np.linalg.norm(queries, axis=1, keepdims=True)).astype(np.float32)
    blob, info = build(vectors, candidates=2)
    graph = NearestSurfaces(blob, info, "test", vectors.shape)
    truth = np.argsort(-(queries @ vectors.T), axis=1)[:, :2]
    found = graph.search(queries)
    recall = np.mean([len(set(t) & set(f.tolist())) / 2 for t, f in zip(truth, found, strict=True)])
    assert recall >= 0.9


@pytest.mark.slow
def test_missing_usearch_is_a_clear_error(tmp_path: Path, fake_index: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    path = _ann_index(tmp_path, fake_index)
    monkeypatch.setitem(sys.modules, "usearch", None)
    monkeypatch.setitem(sys.modules, "usearch.index", None)
    with pytest.raises(IndexLoadError, match="usearch is not installed") as caught:
        load_index(path)
    assert caught.value.hint is not None and "gov[ann]" in caught.value.hint
    assert load_index(path, exact=True).route(PROMPTS[0], record=False) is not None
    with pytest.raises(IndexBuildError, match=r"gov\[ann\]"):
        build_index(load_corpus([POLICIES], warn=lambda _m: None), previous=fake_index, ann=True)
