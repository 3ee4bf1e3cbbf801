"""Near-duplicate document pairs from one blocked product of the surfaces with themselves:
the blocks change nothing, coverage takes every surface, the graph path agrees on pairs
the graph reaches, and families are the clusters joined with declared families."""

from __future__ import annotations

import importlib.util
import itertools

import numpy as np
import pytest

from gov.core.index import neighbours as nb
from gov.core.index.surfaces import EXAMPLE, TRIGGER


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def corpus(rng: np.random.Generator, documents: int = 40, dim: int = 32
           ) -> tuple[nb.Layout, np.ndarray]:
    """Random documents of 1-4 surfaces; documents 2k+1 copy document 2k with a little
    noise for the first ten pairs (near-duplicates)."""
    counts = rng.integers(1, 5, documents)
    for pair in range(0, 20, 2):
        counts[pair + 1] = counts[pair]
    owners = np.repeat(np.arange(documents), counts)
    kinds = np.where(np.concatenate([[True], owners[1:] != owners[:-1]]), TRIGGER, EXAMPLE)
    vectors = rng.normal(size=(owners.size, dim))
    layout = nb.Layout.of(owners, kinds, documents)
    for pair in range(0, 20, 2):
        a, b = layout.starts[pair], layout.starts[pair + 1]
        count = layout.counts[pair]
        vectors[b:b + count] = vectors[a:a + count] + rng.normal(scale=0.15, size=(count, dim))
    return layout, unit(vectors)


def test_blocks_of_any_size_find_the_same_pairs() -> None:
    layout, vectors = corpus(np.random.default_rng(1))
    thresholds = nb.Thresholds(overlap_meaning=0.8, overlap_words=0.8)
    whole = nb.exact_pairs(layout, vectors, None, thresholds, budget=1 << 30)
    tiny = nb.exact_pairs(layout, vectors, None, thresholds, budget=1)  # one document a block
    assert [(p.a, p.b) for p in whole] == [(p.a, p.b) for p in tiny]
    assert {(p.a, p.b) for p in whole} == {(k, k + 1) for k in range(0, 20, 2)}
    for a, b in zip(whole, tiny, strict=True):
        assert a.scores["meaning"] == pytest.approx(b.scores["meaning"], abs=1e-5)


def test_coverage_takes_every_surface_both_ways() -> None:
    # Two documents with the same trigger but unrelated examples are not near-duplicates;
    # with the same examples too, they are.
    rng = np.random.default_rng(2)
    trigger, e1, e2, e3, e4 = unit(rng.normal(size=(5, 16)))
    owners = np.array([0, 0, 0, 1, 1, 1])
    kinds = np.array([TRIGGER, EXAMPLE, EXAMPLE] * 2)
    layout = nb.Layout.of(owners, kinds, 2)
    thresholds = nb.Thresholds(0.8, 0.8)
    different = np.stack([trigger, e1, e2, trigger, e3, e4])
    same = np.stack([trigger, e1, e2, trigger, e1, e2])
    assert nb.exact_pairs(layout, different, None, thresholds) == []
    (pair,) = nb.exact_pairs(layout, same, None, thresholds)
    assert pair.scores["meaning"] == pytest.approx(1.0, abs=1e-5)


def test_words_are_compared_from_the_tfidf_columns() -> None:
    from gov.core.encode.tfidf import fit

    texts = ["rotate the database credentials every ninety days",
             "rotate database credentials every ninety days",
             "order a new laptop for the new starter"]
    lexical = fit(texts)
    layout = nb.Layout.of(np.arange(3), np.zeros(3, dtype=np.int8), 3)
    pairs = nb.exact_pairs(layout, None, (lexical.col_ptr, lexical.col_rows, lexical.col_data),
                           nb.Thresholds(0.8, 0.8))
    assert [(p.a, p.b, set(p.scores)) for p in pairs] == [(0, 1, {"words"})]


def test_every_block_is_visited_once_with_its_rows() -> None:
    layout, vectors = corpus(np.random.default_rng(3))
    seen: list[tuple[int, int]] = []

    def visit(start: int, stop: int, meaning: np.ndarray | None, words: np.ndarray | None) -> None:
        assert words is None and meaning is not None
        assert meaning.shape == (stop - start, layout.surfaces)
        np.testing.assert_allclose(meaning, vectors[start:stop] @ vectors.T, atol=1e-5)
        seen.append((start, stop))

    nb.exact_pairs(layout, vectors, None, nb.Thresholds(), budget=4096, visit=visit)
    assert len(seen) > 1
    assert seen[0][0] == 0 and seen[-1][1] == layout.surfaces
    assert all(a[1] == b[0] for a, b in itertools.pairwise(seen))
    # Blocks hold whole documents.
    assert all(start in set(layout.starts.tolist()) for start, _ in seen)


class ExactNearest:
    """The approximate-search interface answered exactly (the k nearest surfaces)."""

    def __init__(self, vectors: np.ndarray, k: int) -> None:
        self.vectors, self.k = vectors, k

    def search(self, queries: np.ndarray) -> list[np.ndarray]:
        sims = queries @ self.vectors.T
        return [np.argsort(-row)[: self.k] for row in sims]


def test_the_graph_path_finds_the_pairs_its_neighbours_reach() -> None:
    layout, vectors = corpus(np.random.default_rng(4))
    thresholds = nb.Thresholds(0.8, 0.8)
    exact = {(p.a, p.b): p.scores["meaning"] for p in nb.exact_pairs(layout, vectors, None,
                                                                     thresholds)}
    graph = {(p.a, p.b): p.scores["meaning"]
             for p in nb.graph_pairs(layout, vectors, ExactNearest(vectors, 16), thresholds)}
    assert graph.keys() == exact.keys()
    for key, value in graph.items():
        assert value == pytest.approx(exact[key], abs=1e-5)


def test_the_graph_path_with_a_real_usearch_graph() -> None:
    # Not importorskip: importing usearch before onnxruntime crashes (see core/index/ann.py).
    if importlib.util.find_spec("usearch") is None:
        pytest.skip("usearch is not installed (pip install 'gov[ann]')")
    from gov.core.index import ann

    layout, vectors = corpus(np.random.default_rng(5), documents=120)
    blob, info = ann.build(vectors, candidates=32)
    nearest = ann.NearestSurfaces(blob, info, "test", vectors.shape)
    thresholds = nb.Thresholds(0.8, 0.8)
    exact = {(p.a, p.b) for p in nb.exact_pairs(layout, vectors, None, thresholds)}
    graph = {(p.a, p.b) for p in nb.graph_pairs(layout, vectors, nearest, thresholds)}
    # An approximate graph (built on several threads, so not the same twice) may miss a
    # pair, never invent one: every pair it finds is a true one, and it finds nearly all.
    assert graph <= exact and len(exact) >= 8
    assert len(graph) >= 0.9 * len(exact), (len(graph), len(exact))


def test_clusters_and_families() -> None:
    pairs = [nb.Pair(0, 1, {"meaning": 0.9}), nb.Pair(1, 2, {"meaning": 0.85}),
             nb.Pair(4, 5, {"words": 0.95})]
    assert nb.clusters(pairs, 7) == [[0, 1, 2], [4, 5]]
    ids = nb.family_ids(["ops", None, None, "ops", None, None, "data"], nb.clusters(pairs, 7))
    assert ids[0] == ids[1] == ids[2] == ids[3]  # a cluster joined with a declared family
    assert ids[4] == ids[5] != ids[0]
    assert len({int(ids[6]), int(ids[0]), int(ids[4])}) == 3
