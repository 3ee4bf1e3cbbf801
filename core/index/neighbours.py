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

import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

# A block of the surface-by-surface matrix holds about this many bytes.
BLOCK_BYTES = 64 * 1024 * 1024
FloatMatrix = NDArray[np.float32]

# Words that say nothing of what a trigger is about (any order, any corpus).
_FUNCTION_WORDS = """
a about above across after again against all also am an and any are as at be been before
being below between both but by can could did do does doing down during each either etc
for from further had has have having he her here hers him his how however i if in into
is it its itself just may me might more most must my no nor not of off on once only or
other our ours out over own per same shall she should so some such than that the their
theirs them then there these they this those through to too under until up upon us very
via was we were what whatever when whenever where whether which while who whom whose why
will with within without would yet you your yours
"""
FUNCTION_WORDS = frozenset(_FUNCTION_WORDS.split())
_WORD_RE = re.compile(r"(?u)\b\w\w+\b")
_SUFFIXES = (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""))


def _stem(word: str) -> str:
    """A light stem, so that "services", "service" and "deploying", "deploy" meet."""
    if not word.endswith("ss"):
        for suffix, replacement in _SUFFIXES:
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                word = word[: len(word) - len(suffix)] + replacement
                break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def content_words(text: str) -> frozenset[str]:
    """A trigger's content words, stemmed, in no order."""
    return frozenset(_stem(word) for word in _WORD_RE.findall(text.lower().replace("_", " "))
                     if word not in FUNCTION_WORDS)


class TriggerWords:
    """Each document's trigger as a bag of content words, each weighted by its rarity among
    the triggers (smoothed inverse document frequency), so that a template every trigger
    shares counts little and the words that name the subject count most."""

    def __init__(self, texts: Sequence[str]) -> None:
        from scipy.sparse import csr_matrix

        vocabulary: dict[str, int] = {}
        rows: list[int] = []
        columns: list[int] = []
        for document, text in enumerate(texts):
            for word in sorted(content_words(text)):
                rows.append(document)
                columns.append(vocabulary.setdefault(word, len(vocabulary)))
        documents = len(texts)
        frequency = np.bincount(np.asarray(columns, dtype=np.int64), minlength=len(vocabulary))
        idf = np.log((1.0 + documents) / (1.0 + frequency)) + 1.0
        self.weights = csr_matrix((idf[columns], (rows, columns)),
                                  shape=(documents, len(vocabulary)))
        self.totals = np.asarray(self.weights.sum(axis=1), dtype=np.float64).ravel()

    def shared(self, a: NDArray[np.int64], b: NDArray[np.int64]) -> NDArray[np.float64]:
        """The weight of the words each pair ``a[k]``, ``b[k]`` has in common."""
        if a.size == 0:
            return np.zeros(0)
        theirs = self.weights[b].copy()
        theirs.data[:] = 1.0
        return np.asarray(self.weights[a].multiply(theirs).sum(axis=1), dtype=np.float64).ravel()



@dataclass(frozen=True)
class Thresholds:
    """When two documents are near-duplicates: the least coverage (0 to 1) by each signal,
    the least likeness of their triggers alone, and when a trigger is a narrower copy."""

    overlap_meaning: float = 0.80
    overlap_words: float = 0.80
    # Triggers alone: cosine of the embeddings; rarity-weighted overlap of content words.
    overlap_trigger_meaning: float = 0.90
    overlap_trigger_words: float = 0.80
    # Examples tell two documents apart when their lines are closer to their own document
    # than to the other by this much on average (cosine).
    overlap_examples_apart: float = 0.08
    # Two trigger-only documents alike by meaning under overlap_trigger_meaning are
    # near-duplicates only when their triggers share this much of their words (weighted by
    # rarity): templated triggers ("Cursor rules for X development with Y") are alike by
    # meaning whatever X is.
    overlap_template_words: float = 0.5
    # A narrower copy: this share of its trigger's content words (weighted by rarity) in
    # the other's trigger, and at least this cosine between the two triggers.
    subsumed_words: float = 0.90
    subsumed_meaning: float = 0.60

    def to_json(self) -> dict[str, float]:
        return {name: float(value) for name, value in asdict(self).items()}


@dataclass
class Pair:
    """Two documents (positions, ``a < b``) and their coverage per signal ("meaning",
    "words") where it is over the threshold."""

    a: int
    b: int
    scores: dict[str, float] = field(default_factory=dict)

    @property
    def similarity(self) -> float:
        return max(self.scores.values())


@dataclass(frozen=True)
class Narrower:
    """Document ``narrow``'s trigger is a narrower copy of document ``broad``'s: ``words``
    of its content words (weighted by rarity) are in the other's trigger, whose cosine
    with it is ``meaning``."""

    narrow: int
    broad: int
    words: float
    meaning: float


@dataclass
class Found:
    """What the detector found: near-duplicate pairs and narrower copies."""

    pairs: list[Pair]
    narrower: list[Narrower] = field(default_factory=list)


@dataclass(frozen=True)
class Layout:
    """How surfaces group into documents: each surface's owner and kind, each document's
    first surface and surface count."""

    owners: NDArray[np.int64]
    kinds: NDArray[np.int8]
    starts: NDArray[np.int64]
    counts: NDArray[np.int64]

    @classmethod
    def of(cls, owners: NDArray[Any], kinds: NDArray[Any], documents: int) -> Layout:
        owner = np.asarray(owners, dtype=np.int64)
        counts = np.bincount(owner, minlength=documents).astype(np.int64)
        starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
        return cls(owner, np.asarray(kinds, dtype=np.int8), starts, counts)

    @property
    def documents(self) -> int:
        return int(self.starts.size)

    @property
    def surfaces(self) -> int:
        return int(self.owners.size)

    def trigger_rows(self) -> NDArray[np.int64]:
        """Each document's trigger surface (its first)."""
        return self.starts


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


LexicalColumns = tuple[NDArray[Any], NDArray[Any], NDArray[Any]]  # col_ptr, col_rows, col_data
Cosines = Callable[[NDArray[np.int64], NDArray[np.int64]], NDArray[np.float64]]
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


def _candidates(layout: Layout, thresholds: Thresholds, by_meaning: bool) -> TriggerCandidates:
    floor = (min(thresholds.overlap_trigger_meaning, thresholds.subsumed_meaning)
             if by_meaning else WORDS_FLOOR)
    return TriggerCandidates(layout, floor)


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
    candidates = _candidates(layout, thresholds, vectors is not None)
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
    candidates = _candidates(layout, thresholds, True)
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
