"""Triggers compared alone, for the near-duplicate detector (``index/neighbours.py``).

Two documents are near-duplicates by their triggers when the triggers' cosine is at least
``overlap_trigger_meaning``, or their rarity-weighted content words overlap at least
``overlap_trigger_words``, unless their example lines tell the two apart
(:func:`examples_apart`); a trigger whose words are nearly all in another's, close in
meaning, is a narrower copy (:func:`trigger_relations`). Two trigger-only documents alike
by meaning must also share their rarer words, so a shared template is not a duplicate
(:func:`template_filter`). The candidate pairs are read from the detector's blocks
(:class:`TriggerCandidates`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .near_pairs import Cosines, FloatMatrix, Layout, LexicalColumns, Narrower, Thresholds
from .trigger_words import TriggerWords

# Without embeddings, trigger pairs whose TF-IDF cosine is under this are not compared.
WORDS_FLOOR = 0.2


class TriggerCandidates:
    """Pairs of documents whose triggers are alike enough to compare, read from the blocks
    of the surface-by-surface cosines (a trigger is its document's first surface)."""

    def __init__(self, layout: Layout, floor: float) -> None:
        self.layout = layout
        self.floor = floor
        self.parts: list[tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]] = []

    def add(self, start: int, stop: int, sims: FloatMatrix) -> None:
        layout = self.layout
        docs = np.unique(layout.owners[start:stop])
        block = np.asarray(sims)[layout.starts[docs] - start][:, layout.starts]
        rows, others = np.nonzero(block >= self.floor)
        mine = docs[rows]
        keep = mine < others
        self.take(mine[keep], others[keep], block[rows[keep], others[keep]])

    def take(self, a: NDArray[Any], b: NDArray[Any], cosine: NDArray[Any]) -> None:
        self.parts.append((np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64),
                           np.asarray(cosine, dtype=np.float64)))

    def arrays(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
        """Each pair once (``a < b``), with its trigger cosine."""
        if not self.parts:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, np.zeros(0)
        a, b, cosine = (np.concatenate(part) for part in zip(*self.parts, strict=True))
        key = a * np.int64(max(self.layout.documents, 1)) + b
        _, first = np.unique(key, return_index=True)
        return a[first], b[first], cosine[first]


def examples_apart(layout: Layout, cosines: Cosines, a: int, b: int, margin: float) -> bool:
    """Whether the example lines of ``a`` or of ``b`` tell it from the other: on average
    each is closer (its best cosine) to its own document's other surfaces than to the other
    document's, by at least ``margin``. A document without examples tells nothing."""
    for mine, other in ((a, b), (b, a)):
        count = int(layout.counts[mine])
        if count < 2:
            continue
        rows = np.arange(int(layout.starts[mine]), int(layout.starts[mine]) + count)
        theirs = np.arange(int(layout.starts[other]),
                           int(layout.starts[other]) + int(layout.counts[other]))
        own = np.array(cosines(rows[1:], rows), dtype=np.float64)
        own[np.arange(count - 1), np.arange(1, count)] = -np.inf
        cross = np.asarray(cosines(rows[1:], theirs), dtype=np.float64)
        if float((own.max(axis=1) - cross.max(axis=1)).mean()) >= margin:
            return True
    return False


def trigger_relations(layout: Layout, candidates: TriggerCandidates, thresholds: Thresholds,
                      cosines: Cosines, words: TriggerWords | None, by_meaning: bool
                      ) -> tuple[dict[str, dict[tuple[int, int], float]], list[Narrower]]:
    """Near-duplicates by their triggers alone ("trigger-meaning", "trigger-words"), and
    narrower copies, among the candidate pairs (``by_meaning``: their cosines are of
    embeddings, else of TF-IDF vectors)."""
    a, b, cosine = candidates.arrays()
    found: dict[str, dict[tuple[int, int], float]] = {"trigger-meaning": {},
                                                      "trigger-words": {}}
    narrower: list[Narrower] = []
    if a.size == 0:
        return found, narrower
    meaning = (cosine >= thresholds.overlap_trigger_meaning if by_meaning
               else np.zeros(a.size, dtype=bool))
    overlap = within_a = within_b = np.zeros(a.size)
    if words is not None:
        shared = words.shared(a, b)
        total_a, total_b = words.totals[a], words.totals[b]
        union = total_a + total_b - shared
        overlap = np.divide(shared, union, out=np.zeros_like(shared), where=union > 0)
        within_a = np.divide(shared, total_a, out=np.zeros_like(shared), where=total_a > 0)
        within_b = np.divide(shared, total_b, out=np.zeros_like(shared), where=total_b > 0)
    by_words = overlap >= thresholds.overlap_trigger_words
    for k in np.flatnonzero(meaning | by_words).tolist():
        pair = (int(a[k]), int(b[k]))
        if examples_apart(layout, cosines, *pair, thresholds.overlap_examples_apart):
            continue
        if meaning[k]:
            found["trigger-meaning"][pair] = float(cosine[k])
        if by_words[k]:
            found["trigger-words"][pair] = float(overlap[k])
    if words is None or not by_meaning:
        return found, narrower
    duplicates = set(found["trigger-meaning"]) | set(found["trigger-words"])
    close = cosine >= thresholds.subsumed_meaning
    least = thresholds.subsumed_words
    for k in np.flatnonzero(close & ((within_a >= least) ^ (within_b >= least))).tolist():
        pair = (int(a[k]), int(b[k]))
        if pair in duplicates:
            continue
        narrow, broad, inside = ((pair[0], pair[1], within_a[k]) if within_a[k] >= least
                                 else (pair[1], pair[0], within_b[k]))
        narrower.append(Narrower(narrow, broad, float(inside), float(cosine[k])))
    narrower.sort(key=lambda item: (-item.meaning, item.narrow, item.broad))
    return found, narrower


def template_filter(layout: Layout, pairs: dict[tuple[int, int], float],
                    words: TriggerWords | None, thresholds: Thresholds
                    ) -> dict[tuple[int, int], float]:
    """The pairs by coverage of meaning, less those of two trigger-only documents that are
    under the trigger threshold and share too few of their rarer words (a template)."""
    if words is None or not pairs:
        return pairs
    keys = list(pairs)
    a = np.asarray([key[0] for key in keys], dtype=np.int64)
    b = np.asarray([key[1] for key in keys], dtype=np.int64)
    shared = words.shared(a, b)
    union = words.totals[a] + words.totals[b] - shared
    overlap = np.divide(shared, union, out=np.zeros_like(shared), where=union > 0)
    score = np.asarray([pairs[key] for key in keys])
    bare = (layout.counts[a] == 1) & (layout.counts[b] == 1)
    keep = ~bare | (score >= thresholds.overlap_trigger_meaning) | (
        overlap >= thresholds.overlap_template_words)
    return {key: pairs[key] for key, kept in zip(keys, keep.tolist(), strict=True) if kept}


def row_cosines(vectors: FloatMatrix | None, lexical: LexicalColumns | None,
                surfaces: int) -> Cosines:
    """Cosines between any two sets of surfaces: by meaning when there are embeddings,
    else by words."""
    if vectors is not None:
        matrix = np.asarray(vectors, dtype=np.float32)
        return lambda rows, columns: np.asarray(matrix[rows] @ matrix[columns].T,
                                                dtype=np.float64)
    if lexical is None:
        return lambda rows, columns: np.zeros((rows.size, columns.size))
    from scipy.sparse import csc_matrix

    col_ptr, col_rows, col_data = lexical
    sparse = csc_matrix((np.asarray(col_data), np.asarray(col_rows), np.asarray(col_ptr)),
                        shape=(surfaces, int(np.asarray(col_ptr).size) - 1)).tocsr()
    return lambda rows, columns: np.asarray((sparse[rows] @ sparse[columns].T).toarray(),
                                            dtype=np.float64)


def candidates_for(layout: Layout, thresholds: Thresholds, by_meaning: bool) -> TriggerCandidates:
    floor = (min(thresholds.overlap_trigger_meaning, thresholds.subsumed_meaning)
             if by_meaning else WORDS_FLOOR)
    return TriggerCandidates(layout, floor)
