"""Shadowed surfaces: trigger and example lines that route first to another document.

Each surface is routed as a prompt against the corpus with itself left out: its scores
are rows of the surface-by-surface cosines (by meaning and by words) that the overlap
rule computes anyway, with the surface's own column masked, pooled per document as the
operating point pools, fused, ranked and gated by the router's own kernel
(:func:`gov.core.routing.select.rank_many`, the point's gate, background or confidence,
and second-route rule; the index's head is left out, as it was fitted on these very
lines). A surface is shadowed when that route delivers other documents and not its own;
one the router would abstain on is not (nobody takes it). A line's words are also scored
against each document's body words, as routing scores a prompt (an example line is never in
its own document's body words; a trigger is). Nothing is embedded or rebuilt:
a document with one surface left out is scored on the rest of its stored vectors. Without
the head the finding is about words and meaning alone: a rebuilt index's head, fitted on the
document's other lines and passages, can still bring a shadowed line home.

Every example line is checked (its document keeps its trigger). A trigger is checked only
when its document has at least ``min_examples`` examples to stand for it: without its
trigger a document is only its examples, concrete prompts, and a handful of them lose to
the abstract triggers of other documents by style alone, not because anything is wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ..index.neighbours import Layout
from ..routing.confidence import logistic_many
from ..routing.point import OperatingPoint
from ..routing.select import rank_many
from ..scoring.pooling import SurfaceGroups, mix_bodies

if TYPE_CHECKING:
    from ..routing.background import Background


@dataclass(frozen=True)
class Shadow:
    """Surface ``surface`` of document ``owner`` ranks ``taker`` first."""

    surface: int
    owner: int
    taker: int
    taker_score: float
    own_score: float
    own_rank: int | None  # 1-based place of the owner among the candidates (None: not one)


class ShadowFinder:
    """Routes every surface from the blocks of the surface-by-surface cosines."""

    def __init__(self, layout: Layout, point: OperatingPoint,
                 body_vectors: NDArray[np.float32] | None = None,
                 body_present: NDArray[np.bool_] | None = None,
                 vectors: NDArray[np.float32] | None = None,
                 families: NDArray[np.int32] | None = None, min_examples: int = 3,
                 background: Background | None = None,
                 body_words: Callable[[int, int], NDArray[np.float64]] | None = None) -> None:
        self.layout = layout
        # Surfaces start:stop -> their body-words scores per document (as routing adds them).
        self.body_words = body_words
        self.background = background
        self.families = families
        self.min_examples = min_examples
        self.point = point
        self.groups = SurfaceGroups(layout.starts, layout.surfaces)
        self.bodies = (body_vectors, body_present, vectors) \
            if body_vectors is not None and point.body_surfaces > 0.0 else None
        self.shadows: list[Shadow] = []

    def _semantic(self, start: int, stop: int, sims: NDArray[np.float32]) -> NDArray[Any]:
        """Each row's pooled meaning score per document, its own surface left out."""
        rows = np.arange(stop - start)
        columns = rows + start
        owners = self.layout.owners[start:stop]
        masked = np.array(sims, dtype=np.float32)
        masked[rows, columns] = -np.inf
        best = self.groups.best(masked)
        pool = self.point.semantic_pool
        if pool == "max":
            pooled = best.astype(np.float64)
        else:
            masked[rows, columns] = 0.0
            totals = self.groups.total(masked)
            counts = np.broadcast_to(self.layout.counts.astype(np.float64), totals.shape).copy()
            counts[rows, owners] -= 1.0
            mean = totals / np.maximum(counts, 1.0)
            pooled = mean if pool == "mean" else (mean + best) / 2.0
        pooled[rows, owners] = np.where(self.layout.counts[owners] > 1,
                                        pooled[rows, owners], 0.0)
        if self.bodies is not None:
            body_vectors, present, vectors = self.bodies
            assert body_vectors is not None and present is not None and vectors is not None
            body = vectors[start:stop] @ np.asarray(body_vectors).T
            # A body counts as ``body_surfaces`` surfaces beside the document's own (one
            # fewer for the document whose surface is left out), as routing mixes it.
            surfaces = np.broadcast_to(self.layout.counts.astype(np.float64),
                                       pooled.shape).copy()
            surfaces[rows, owners] -= 1.0
            weight = self.point.body_surfaces / (surfaces + self.point.body_surfaces)
            pooled = np.asarray(mix_bodies(pooled, body, np.asarray(present)[None, :], weight))
        return pooled

    def visit(self, start: int, stop: int, meaning: NDArray[np.float32] | None,
              words: NDArray[np.float32] | None) -> None:
        """Route the surfaces ``start:stop`` (one block of whole documents)."""
        rows = np.arange(stop - start)
        owners = self.layout.owners[start:stop]
        lexical = np.zeros((stop - start, self.layout.documents))
        if words is not None:
            masked = np.array(words, dtype=np.float64)
            masked[rows, rows + start] = 0.0
            lexical = self.groups.best(masked)
        if self.body_words is not None:
            lexical = lexical + self.body_words(start, stop)
        semantic = self._semantic(start, stop, meaning) if meaning is not None else None
        point = self.point
        ranked = rank_many(lexical, semantic, point, families=self.families)
        routed = ranked.top1 >= 0
        if point.gate == "background":
            if self.background is not None and semantic is not None:
                top = self.background.gate_scores(lexical, semantic, point).max(axis=1)
                routed &= top >= self.background.threshold(point)[0]
        elif (point.confidence_weights and point.min_confidence is not None
              and semantic is not None):
            confidence = logistic_many(point.confidence_weights, ranked.features)
            routed &= confidence >= point.min_confidence
        second = (routed & (point.top_k > 1) & (ranked.top2 >= 0)
                  & (ranked.fused2 >= point.second_ratio * ranked.fused1))
        counts = self.layout.counts[owners]
        trigger = self.layout.starts[owners] == np.arange(start, stop)
        checked = np.where(trigger, counts - 1 >= self.min_examples, counts > 1)
        lost = (checked & routed & (ranked.top1 != owners)
                & ~(second & (ranked.top2 == owners)))
        if not lost.any():
            return
        from ..routing.fusion import fuse

        fused = fuse(lexical[lost], None if semantic is None else semantic[lost], self.point).fused
        for index, row in enumerate(np.flatnonzero(lost).tolist()):
            own = int(owners[row])
            values = fused[index]
            own_score = float(values[own])
            place = int((values > own_score).sum()) + 1 if own_score > 0 else None
            self.shadows.append(Shadow(start + row, own, int(ranked.top1[row]),
                                       float(ranked.fused1[row]), own_score, place))
