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
    # Two documents with unrelated triggers and the same four examples cover each other
    # (4 of 5 surfaces match); with unrelated examples, they do not.
    rng = np.random.default_rng(2)
    t1, t2, e1, e2, e3, e4, e5, e6, e7, e8 = unit(rng.normal(size=(10, 64)))
    owners = np.repeat([0, 1], 5)
    kinds = np.array([TRIGGER, EXAMPLE, EXAMPLE, EXAMPLE, EXAMPLE] * 2)
    layout = nb.Layout.of(owners, kinds, 2)
    thresholds = nb.Thresholds(0.8, 0.8)
    same = np.stack([t1, e1, e2, e3, e4, t2, e1, e2, e3, e4])
    different = np.stack([t1, e1, e2, e3, e4, t2, e5, e6, e7, e8])
    (pair,) = nb.exact_pairs(layout, same, None, thresholds)
    assert set(pair.scores) == {"meaning"} and pair.scores["meaning"] >= 0.8
    assert nb.exact_pairs(layout, different, None, thresholds) == []


def test_triggers_that_say_the_same_thing_pair_whatever_the_examples() -> None:
    # The same trigger over unrelated example lines: coverage is low, but the triggers
    # alone say the same thing and the examples do not tell the documents apart.
    rng = np.random.default_rng(2)
    trigger, e1, e2, e3, e4, e5, e6 = unit(rng.normal(size=(7, 384)))
    owners = np.repeat([0, 1], 4)
    layout = nb.Layout.of(owners, np.array([TRIGGER, EXAMPLE, EXAMPLE, EXAMPLE] * 2), 2)
    vectors = np.stack([trigger, e1, e2, e3, trigger, e4, e5, e6])
    (pair,) = nb.exact_pairs(layout, vectors, None, nb.Thresholds(0.8, 0.8))
    assert set(pair.scores) == {"trigger-meaning"}
    assert pair.scores["trigger-meaning"] == pytest.approx(1.0, abs=1e-5)
    # Only over the trigger threshold.
    assert nb.exact_pairs(layout, vectors, None, nb.Thresholds(
        0.8, 0.8, overlap_trigger_meaning=1.01)) == []


def test_examples_that_tell_two_documents_apart_undo_a_template_trigger() -> None:
    # "The user's request is about: X" against "... about: Y": one trigger, but each
    # document's examples gather around its own subject, far from the other's.
    rng = np.random.default_rng(7)
    trigger, own_a, own_b = unit(rng.normal(size=(3, 384)))
    near_a = unit(own_a + 0.05 * rng.normal(size=(3, 384)))  # cosine about 0.6 to the
    near_b = unit(own_b + 0.05 * rng.normal(size=(3, 384)))  # subject, 0 to the others'
    owners = np.repeat([0, 1], 4)
    layout = nb.Layout.of(owners, np.array([TRIGGER, EXAMPLE, EXAMPLE, EXAMPLE] * 2), 2)
    vectors = np.concatenate([trigger[None], near_a, trigger[None], near_b]).astype(np.float32)
    assert nb.exact_pairs(layout, vectors, None, nb.Thresholds(0.8, 0.8)) == []
    cosines = nb.row_cosines(vectors, None, layout.surfaces)
    assert nb.examples_apart(layout, cosines, 0, 1, 0.08)
    # A margin no examples reach: the triggers decide again.
    assert [set(p.scores) for p in nb.exact_pairs(layout, vectors, None, nb.Thresholds(
        0.8, 0.8, overlap_examples_apart=2.0))] == [{"trigger-meaning"}]


def test_content_words_ignore_order_function_words_and_plurals() -> None:
    a = nb.content_words("Deploying, releasing or rolling back a service in production, "
                         "including canary and blue-green rollouts.")
    b = nb.content_words("Releasing, deploying or rolling back services in production, "
                         "including blue-green and canary rollouts.")
    assert a == b
    assert "the" not in nb.content_words("the release") and "or" not in a
    words = nb.TriggerWords(["deploy the service", "deploy a service", "order a laptop"])
    # Rarer words weigh more: "laptop" (one trigger) over "deploy" (two).
    assert words.weights[2].sum() > words.weights[0].sum()
    shared = words.shared(np.array([0, 0]), np.array([1, 2]))
    assert shared[0] == pytest.approx(words.totals[0]) and shared[1] == 0.0


def test_words_alone_pair_reordered_triggers_and_find_narrower_copies() -> None:
    texts = ["Deploying, releasing or rolling back a service in production, including "
             "canary and blue-green rollouts.",
             "Releasing, deploying or rolling back services in production, including "
             "blue-green and canary rollouts.",
             "Rolling back a service in production.",
             "Ordering a new laptop or monitor for a new starter."]
    layout = nb.Layout.of(np.arange(4), np.full(4, TRIGGER, dtype=np.int8), 4)
    # Meaning as a model would see it: 0 ~ 1 (0.85, under the trigger threshold), 2 close
    # to both (0.7), 3 apart.
    gram = np.array([[1.0, 0.85, 0.7, 0.1], [0.85, 1.0, 0.7, 0.1],
                     [0.7, 0.7, 1.0, 0.1], [0.1, 0.1, 0.1, 1.0]])
    vectors = np.linalg.cholesky(gram).astype(np.float32)
    found = nb.detect(layout, vectors, None, nb.Thresholds(), texts=texts)
    assert [(p.a, p.b, set(p.scores)) for p in found.pairs] == [(0, 1, {"meaning",
                                                                       "trigger-words"})]
    assert found.pairs[0].scores["trigger-words"] == pytest.approx(1.0)
    assert sorted((n.narrow, n.broad) for n in found.narrower) == [(2, 0), (2, 1)]
    assert all(n.words == pytest.approx(1.0) and n.meaning == pytest.approx(0.7, abs=1e-4)
               for n in found.narrower)
    # Not close enough in meaning: no narrower copy, however the words fall.
    assert nb.detect(layout, vectors, None, nb.Thresholds(subsumed_meaning=0.75),
                     texts=texts).narrower == []
    # Without the texts, words are not compared: 0.85 by meaning is no pair of triggers.
    assert nb.exact_pairs(layout, vectors, None, nb.Thresholds(overlap_meaning=0.9)) == []


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


def test_a_shared_template_is_not_a_duplicate_of_documents_without_examples() -> None:
    texts = ["Cursor rules for Angular development with TypeScript integration.",
             "Cursor rules for Svelte development with TypeScript integration.",
             "Cursor rules for Next.js development with TypeScript integration.",
             "Cursor rules for TypeScript development with Next.js integration."]
    # Twenty other documents of the same template, so that its words are common, as in a
    # library where most triggers share it.
    subjects = ["Django", "Flask", "Rails", "Laravel", "Spring", "Phoenix", "Gin", "Echo",
                "Fiber", "Actix", "Rocket", "Axum", "Ktor", "Vapor", "Nest", "Koa", "Hapi",
                "Sails", "Meteor", "Remix"]
    texts += [f"Cursor rules for {name} development with {other} integration."
              for name, other in zip(subjects, subjects[1:] + subjects[:1], strict=True)]
    documents = len(texts)
    layout = nb.Layout.of(np.arange(documents), np.full(documents, TRIGGER, dtype=np.int8),
                          documents)
    # The four templated triggers are alike by meaning as a model sees them (0.87), under
    # the trigger bar; the others are apart.
    gram = np.full((documents, documents), 0.05)
    gram[:4, :4] = 0.87
    np.fill_diagonal(gram, 1.0)
    vectors = np.linalg.cholesky(gram).astype(np.float32)
    thresholds = nb.Thresholds()
    # Words unknown: every pair by meaning stands (routing's view without the texts).
    assert len(nb.exact_pairs(layout, vectors, None, thresholds)) == 6
    # With the texts, only the pair that says the same words is a near-duplicate.
    pairs = nb.exact_pairs(layout, vectors, None, thresholds, texts=texts)
    assert [(p.a, p.b) for p in pairs] == [(2, 3)]
    assert set(pairs[0].scores) == {"meaning", "trigger-words"}
