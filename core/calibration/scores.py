"""Every labelled prompt's per-document scores, computed once: what selection needs.

Scoring (TF-IDF, embeddings) is the slow part of a route and does not depend on the
operating point, so calibration scores each labelled prompt once; the semantic matrix is
kept under every pooling of surface similarities and, with body vectors, beside the body
similarities, so the grid can try each without scoring again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ..errors import InputError
from ..routing.point import POOLS
from ..scoring.learned import LearnedArrays
from ..scoring.pooling import mix_bodies
from .labelled import Labelled

if TYPE_CHECKING:
    from ..routing.router import Router

# With body summaries: how many surfaces the grid tries counting a body as.
BODY_SURFACES = (0.5, 1.0, 2.0)
Progress = Callable[[str], None]


@dataclass
class Scores:
    """Every prompt's per-document scores: what selection needs, computed once."""

    lexical: NDArray[np.float64]
    semantic: NDArray[np.float64] | None
    learned: NDArray[np.float64] | None = None
    # The semantic matrix under each pooling of surface similarities (``semantic`` is "max").
    pooled: dict[str, NDArray[np.float64]] = field(default_factory=dict)
    # With body summaries: each prompt's similarity to each document's summary, which
    # documents have one, and how many surfaces each document has (a body counts as
    # ``body_surfaces`` more).
    body: NDArray[np.float64] | None = None
    has_body: NDArray[np.bool_] | None = None
    surface_counts: NDArray[np.int64] | None = None
    # Routing families of the index (a family id per document), as selection passes them.
    families: NDArray[np.int32] | None = None
    # Each prompt's remark probability (the index's probe; None: no probe), as a route reads it.
    remarks: NDArray[np.float64] | None = None

    def with_pool(self, pool: str, body_surfaces: float = 0.0) -> Scores:
        semantic = self.pooled.get(pool, self.semantic)
        if (semantic is not None and body_surfaces > 0.0 and self.body is not None
                and self.has_body is not None and self.surface_counts is not None):
            weight = body_surfaces / (self.surface_counts.astype(np.float64) + body_surfaces)
            semantic = mix_bodies(semantic, self.body, self.has_body[None, :], weight[None, :])
        return Scores(self.lexical, semantic, self.learned, self.pooled, self.body,
                      self.has_body, self.surface_counts, self.families, self.remarks)

    def body_choices(self) -> tuple[float, ...]:
        """The body_surfaces values the grid tries: none without body summaries."""
        return (0.0, *BODY_SURFACES) if self.body is not None else (0.0,)


def score(router: Router, labelled: Labelled, learn: bool = False,
          progress: Progress | None = None) -> tuple[Scores, LearnedArrays | None]:
    """Score every prompt once; with ``learn``, cross-fit and return what to keep."""
    if progress:
        progress(f"scoring {len(labelled.prompts)} prompts")
    lexical, vectors = router.score_many(labelled.prompts)
    if vectors is None:
        if learn:
            raise InputError("learning needs the embedding model: the index has no embeddings "
                             "or the model could not load")
        return Scores(lexical, None, families=router.families), None
    scorer = router.scorer
    body = scorer.body_similarities(vectors)
    body64 = None if body is None else body.astype(np.float64)
    has_body = scorer.body_present if body is not None else None
    sims = scorer.surface_similarities(vectors).astype(np.float64)
    remarks = router.background.remarks(vectors) if router.background is not None else None
    if not learn:
        pooled = {pool: scorer.groups.pool(sims, pool).astype(np.float64) for pool in POOLS}
        # The index's head (or a classifier the point carries) is a signal like any other.
        head = scorer.learned_probabilities(vectors)
        return (Scores(lexical, pooled["max"], head, pooled, body64, has_body,
                       scorer.groups.counts, router.families, remarks), None)
    from .crossfit import cross_fit

    learned_probabilities, pooled, learned = cross_fit(router, labelled, vectors, sims,
                                                       progress)
    return (Scores(lexical, pooled["max"], learned_probabilities, pooled, body64, has_body,
                   scorer.groups.counts, router.families, remarks), learned)
