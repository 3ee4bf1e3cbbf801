"""Near-duplicate documents: pairs whose routing surfaces, or whose triggers, say the same thing.

A document's *coverage* by another is the mean, over its surfaces, of each one's best
cosine with the other's surfaces. Two documents are near-duplicates by meaning when each
covers the other (the smaller of the two coverages) at least ``overlap_meaning`` by
their embeddings; by words, the same with their TF-IDF vectors. For documents with only a
trigger (most skills) coverage is the cosine of the triggers; for documents with examples
it takes every surface, so it misses two documents whose triggers say the same thing
while their example lines differ. Triggers are therefore also compared alone: two
documents are near-duplicates by their triggers when the triggers' cosine is at least
``overlap_trigger_meaning`` ("trigger-meaning"), or their content words, weighted by how
rare each is among the triggers and in any order, overlap at least
``overlap_trigger_words`` ("trigger-words", when the caller gives the trigger texts),
unless the examples tell the two apart: a document whose example lines are closer to its
own other lines than to the other document, by ``overlap_examples_apart`` on average, is
not the other's duplicate (templated triggers such as "The user's request is about: X"
differ by one word and are told apart by their examples). Two documents with no examples
have nothing to tell a template from a duplicate but words: with the trigger texts, a pair
by meaning under ``overlap_trigger_meaning`` holds only when their triggers share at least
``overlap_template_words`` of their rarity-weighted words ("Cursor rules for Angular
development with TypeScript" is not "... for Solid.js development with TypeScript").

The same comparison of triggers finds *narrower copies*: a trigger whose content words
are (nearly, ``subsumed_words``) all in another's longer trigger, and close to it in
meaning (``subsumed_meaning``), governs nothing the other does not (:class:`Narrower`,
``gov lint``'s subsumed rule).

The work is one matrix product of the surfaces with themselves, taken in row blocks so
memory stays flat whatever the corpus size (:func:`exact_pairs`), and only pairs over a
threshold are kept; the trigger-by-trigger cosines are read from the same blocks.
Past a few tens of thousands of surfaces the exact product is minutes of work: an index
with an approximate-search graph answers from each surface's nearest surfaces instead
(:func:`graph_pairs`). ``gov lint`` reports the pairs and their clusters (families);
``gov index --families auto`` turns the clusters into routing families.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .near_pairs import (
    Cosines,
    FloatMatrix,
    Found,
    Layout,
    LexicalColumns,
    Narrower,
    Pair,
    Thresholds,
)
from .trigger_pairs import (
    TriggerCandidates,
    candidates_for,
    examples_apart,
    row_cosines,
    template_filter,
    trigger_relations,
)
from .trigger_words import TriggerWords, content_words

__all__ = [
    "BLOCK_BYTES",
    "Cosines",
    "FloatMatrix",
    "Found",
    "Layout",
    "LexicalColumns",
    "Narrower",
    "Pair",
    "PairFinder",
    "Thresholds",
    "TriggerCandidates",
    "TriggerWords",
    "block_bounds",
    "clusters",
    "content_words",
    "dense_rows",
    "detect",
    "exact_pairs",
    "examples_apart",
    "family_ids",
    "graph_detect",
    "graph_pairs",
    "merge",
    "mutual",
    "row_cosines",
    "sparse_rows",
    "template_filter",
    "trigger_relations",
]

# A block of the surface-by-surface matrix holds about this many bytes.
BLOCK_BYTES = 64 * 1024 * 1024


def block_bounds(layout: Layout, row_bytes: int, budget: int = BLOCK_BYTES
                 ) -> list[tuple[int, int]]:
    """Row ranges ``[start, stop)`` of whole documents, each within ``budget`` bytes."""
    rows = max(1, budget // max(row_bytes, 1))
    bounds = []
    doc = 0
    while doc < layout.documents:
        first = doc
        start = int(layout.starts[doc])
        while doc < layout.documents and (doc == first or int(layout.starts[doc])
                                          + int(layout.counts[doc]) - start <= rows):
            doc += 1
        stop = int(layout.starts[doc - 1] + layout.counts[doc - 1])
        bounds.append((start, stop))
    return bounds


def dense_rows(vectors: FloatMatrix) -> Callable[[int, int], FloatMatrix]:
    """Cosines of surface embeddings (unit vectors): one block of ``V @ V.T``."""
    matrix = np.asarray(vectors, dtype=np.float32)
    return lambda start, stop: matrix[start:stop] @ matrix.T


def sparse_rows(col_ptr: NDArray[Any], col_rows: NDArray[Any], col_data: NDArray[Any],
                surfaces: int) -> Callable[[int, int], FloatMatrix]:
    """Cosines of TF-IDF surface vectors (l2-normalised, stored by column): one block."""
    from scipy.sparse import csc_matrix

    terms = int(np.asarray(col_ptr).size) - 1
    matrix = csc_matrix((np.asarray(col_data), np.asarray(col_rows), np.asarray(col_ptr)),
                        shape=(surfaces, terms)).tocsr()
    transposed = matrix.T.tocsc()
    return lambda start, stop: np.asarray((matrix[start:stop] @ transposed).toarray(),
                                          dtype=np.float32)


class PairFinder:
    """Accumulates, block by block, each document's coverage by every other, where it is
    over the threshold of one signal."""

    def __init__(self, layout: Layout, signal: str, threshold: float) -> None:
        self.layout = layout
        self.signal = signal
        self.threshold = threshold
        self.directed: dict[tuple[int, int], float] = {}

    def add(self, start: int, stop: int, sims: FloatMatrix) -> None:
        """Take one block: rows ``start:stop`` of the surface-by-surface cosines."""
        layout = self.layout
        sims = np.array(sims, dtype=np.float32)  # own copy: own documents are masked
        docs = np.unique(layout.owners[start:stop])
        for doc in docs.tolist():
            first, count = int(layout.starts[doc]), int(layout.counts[doc])
            sims[first - start:first - start + count, first:first + count] = -1.0
        best = _best_per_document(sims, layout)  # rows x documents
        summed = np.add.reduceat(best, layout.starts[docs] - start, axis=0)
        coverage = summed / layout.counts[docs][:, None]
        for row, column in zip(*np.nonzero(coverage >= self.threshold), strict=True):
            self.directed[(int(docs[row]), int(column))] = float(coverage[row, column])

    def pairs(self) -> dict[tuple[int, int], float]:
        """``(a, b) -> coverage`` (the smaller direction) for every pair over the threshold."""
        return mutual(self.directed, self.threshold)


def mutual(directed: dict[tuple[int, int], float], threshold: float
           ) -> dict[tuple[int, int], float]:
    """Pairs whose coverage is over ``threshold`` both ways, at the smaller one."""
    found = {}
    for (a, b), forward in directed.items():
        backward = directed.get((b, a))
        if a < b and backward is not None and min(forward, backward) >= threshold:
            found[(a, b)] = min(forward, backward)
    return found


def _best_per_document(sims: FloatMatrix, layout: Layout) -> FloatMatrix:
    """Each row's highest cosine per document (``np.maximum.reduceat`` over columns)."""
    return np.maximum.reduceat(sims, layout.starts, axis=1)


def merge(found: dict[str, dict[tuple[int, int], float]]) -> list[Pair]:
    """Pairs from every signal, one per document pair, most alike first."""
    pairs: dict[tuple[int, int], Pair] = {}
    for signal, scores in found.items():
        for (a, b), value in scores.items():
            pairs.setdefault((a, b), Pair(a, b)).scores[signal] = value
    return sorted(pairs.values(), key=lambda p: (-p.similarity, p.a, p.b))


def clusters(pairs: Sequence[Pair], documents: int) -> list[list[int]]:
    """Connected groups of two or more documents (union-find over the pairs), each sorted,
    in order of their first document."""
    root, join = _union_find(documents)
    for pair in pairs:
        join(pair.a, pair.b)
    groups: dict[int, list[int]] = {}
    for node in range(documents):
        groups.setdefault(root(node), []).append(node)
    return sorted((g for g in groups.values() if len(g) > 1), key=lambda g: g[0])


def detect(layout: Layout, vectors: FloatMatrix | None, lexical: LexicalColumns | None,
           thresholds: Thresholds, *, texts: Sequence[str] | None = None,
           budget: int = BLOCK_BYTES,
           visit: Callable[[int, int, FloatMatrix, FloatMatrix | None], None] | None = None,
           ) -> Found:
    """Every near-duplicate pair, from the exact blocked products (meaning when ``vectors``
    are given, words when ``lexical``, the TF-IDF matrix by column, is), with the triggers
    also compared alone (by their words too when ``texts``, each document's trigger, are
    given), and the narrower copies.

    ``visit(start, stop, meaning, words)`` also sees every block (``gov lint`` routes each
    surface from the same blocks), so the product is taken once.
    """
    finders: list[tuple[PairFinder, Callable[[int, int], FloatMatrix]]] = []
    if vectors is not None:
        finders.append((PairFinder(layout, "meaning", thresholds.overlap_meaning),
                        dense_rows(vectors)))
    if lexical is not None:
        finders.append((PairFinder(layout, "words", thresholds.overlap_words),
                        sparse_rows(*lexical, layout.surfaces)))
    candidates = candidates_for(layout, thresholds, vectors is not None)
    for start, stop in block_bounds(layout, layout.surfaces * 4 * (len(finders) + 2), budget):
        blocks = [rows(start, stop) for _, rows in finders]
        for (finder, _), sims in zip(finders, blocks, strict=True):
            finder.add(start, stop, sims)
        if blocks:
            candidates.add(start, stop, blocks[0])
        if visit is not None:
            meaning = blocks[0] if vectors is not None else None
            words = blocks[-1] if lexical is not None else None
            visit(start, stop, meaning, words)  # type: ignore[arg-type]
    found: dict[str, dict[tuple[int, int], float]] = {
        finder.signal: finder.pairs() for finder, _ in finders}
    bags = TriggerWords(texts) if texts is not None else None
    if "meaning" in found:
        found["meaning"] = template_filter(layout, found["meaning"], bags, thresholds)
    triggers, narrower = trigger_relations(
        layout, candidates, thresholds, row_cosines(vectors, lexical, layout.surfaces),
        bags, vectors is not None)
    found.update({signal: pairs for signal, pairs in triggers.items() if pairs})
    return Found(merge(found), narrower)


def exact_pairs(layout: Layout, vectors: FloatMatrix | None, lexical: LexicalColumns | None,
                thresholds: Thresholds, budget: int = BLOCK_BYTES,
                visit: Callable[[int, int, FloatMatrix, FloatMatrix | None], None] | None = None,
                texts: Sequence[str] | None = None) -> list[Pair]:
    """The near-duplicate pairs of :func:`detect` (exact blocked products)."""
    return detect(layout, vectors, lexical, thresholds, texts=texts, budget=budget,
                  visit=visit).pairs


def graph_detect(layout: Layout, vectors: FloatMatrix, nearest: Any, thresholds: Thresholds,
                 batch: int = 1024, texts: Sequence[str] | None = None) -> Found:
    """Near-duplicate pairs by meaning from each surface's nearest surfaces in the
    approximate-search graph (``nearest.search``): a surface's best cosine with a document
    the graph does not name counts as 0, so coverage is a lower bound. Triggers are
    compared alone where the graph names one trigger among another's nearest surfaces."""
    documents = np.int64(layout.documents)
    keys: list[NDArray[np.int64]] = []
    values: list[NDArray[np.float64]] = []
    candidates = candidates_for(layout, thresholds, True)
    for first in range(0, layout.surfaces, batch):
        rows = np.arange(first, min(first + batch, layout.surfaces))
        found = nearest.search(vectors[rows])
        width = max((hits.size for hits in found), default=0)
        if width == 0:
            continue
        hits = np.full((rows.size, width), -1, dtype=np.int64)
        for row, row_hits in enumerate(found):
            hits[row, : row_hits.size] = row_hits
        mine = layout.owners[rows]
        theirs = np.where(hits >= 0, layout.owners[np.maximum(hits, 0)], -1)
        keep = (hits >= 0) & (theirs != mine[:, None])
        sims = np.einsum("rkd,rd->rk", vectors[np.maximum(hits, 0)], vectors[rows])
        row_of = np.broadcast_to(rows[:, None], hits.shape)[keep]
        doc, sim = theirs[keep], sims[keep].astype(np.float64)
        # Trigger against trigger: both rows are their documents' first surfaces.
        both = ((layout.starts[layout.owners[row_of]] == row_of)
                & (layout.starts[doc] == hits[keep]) & (sim >= candidates.floor))
        low, high = (np.minimum(layout.owners[row_of], doc)[both],
                     np.maximum(layout.owners[row_of], doc)[both])
        candidates.take(low, high, sim[both])
        # Each surface's best cosine per other document, then summed per document pair.
        per_surface = row_of.astype(np.int64) * documents + doc
        order = np.lexsort((-sim, per_surface))
        first_of = np.concatenate(([True], per_surface[order][1:] != per_surface[order][:-1]))
        chosen = order[first_of]
        keys.append(layout.owners[row_of[chosen]] * documents + doc[chosen])
        values.append(sim[chosen])
    pairs: dict[str, dict[tuple[int, int], float]] = {}
    if keys:
        pair_keys, inverse = np.unique(np.concatenate(keys), return_inverse=True)
        totals = np.bincount(inverse, weights=np.concatenate(values))
        owners, others = pair_keys // documents, pair_keys % documents
        coverage = totals / layout.counts[owners]
        over = coverage >= thresholds.overlap_meaning
        directed = {(int(a), int(b)): float(c)
                    for a, b, c in zip(owners[over], others[over], coverage[over], strict=True)}
        pairs["meaning"] = mutual(directed, thresholds.overlap_meaning)
    words = TriggerWords(texts) if texts is not None else None
    if "meaning" in pairs:
        pairs["meaning"] = template_filter(layout, pairs["meaning"], words, thresholds)
    triggers, narrower = trigger_relations(
        layout, candidates, thresholds, row_cosines(vectors, None, layout.surfaces),
        words, True)
    pairs.update({signal: found for signal, found in triggers.items() if found})
    return Found(merge(pairs), narrower)


def graph_pairs(layout: Layout, vectors: FloatMatrix, nearest: Any, thresholds: Thresholds,
                batch: int = 1024, texts: Sequence[str] | None = None) -> list[Pair]:
    """The near-duplicate pairs of :func:`graph_detect`."""
    return graph_detect(layout, vectors, nearest, thresholds, batch, texts).pairs


def family_ids(declared: Sequence[str | None], groups: Sequence[Sequence[int]] = ()
               ) -> NDArray[np.int32]:
    """A family id per document: documents with the same declared family, or in one of
    ``groups`` (clusters of near-duplicates), share one; every other document is its own."""
    documents = len(declared)
    root, join = _union_find(documents)
    first_of: dict[str, int] = {}
    for position, family in enumerate(declared):
        if family:
            join(first_of.setdefault(family, position), position)
    for group in groups:
        for member in group[1:]:
            join(group[0], member)
    return np.asarray([root(node) for node in range(documents)], dtype=np.int32)


def _union_find(size: int) -> tuple[Callable[[int], int], Callable[[int, int], None]]:
    """``root`` and ``join`` over ``size`` nodes; a group's root is its lowest node."""
    parent = list(range(size))

    def root(node: int) -> int:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    def join(a: int, b: int) -> None:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    return root, join
