"""Admission floors and fusion: one kernel for one prompt and for a matrix of prompts.

A document is a candidate when its lexical or semantic score clears its floor. Reciprocal
rank fusion (RRF) adds ``weight / (k + rank)`` per signal over the documents that signal
admitted (the learned classifier ranks every admitted document); weighted fusion adds
``weight * score``. A route fuses one row (``shape (documents,)``); calibration fuses
every labelled prompt at once (``shape (prompts, documents)``); both go through
:func:`fuse`, so they cannot disagree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from .point import OperatingPoint

FloatArray = NDArray[np.float64]
Admitted = NDArray[np.bool_]


class Fused(NamedTuple):
    """The fused score per document (0: not a candidate) and what each floor admitted."""

    fused: FloatArray
    lexical_ok: Admitted
    semantic_ok: Admitted


def _rank_contribution(scores: NDArray[Any], admitted: Admitted, k: float, weight: float,
                       fused: FloatArray) -> None:
    """Add ``weight / (k + rank)`` to ``fused`` where admitted, ranking by score (ties by
    position). One row sorts only its admitted documents (a large corpus admits few of
    its 100,000); a matrix sorts each row whole, in one call."""
    if weight <= 0.0 or not admitted.any():
        return
    if scores.ndim == 1:
        indices = np.flatnonzero(admitted)
        order = indices[np.argsort(-scores[indices], kind="stable")]
        fused[order] += weight / (k + np.arange(1, order.size + 1, dtype=np.float64))
        return
    rows = np.arange(scores.shape[0])[:, None]
    order = np.argsort(np.where(admitted, -scores, np.inf), axis=1, kind="stable")
    rank = np.empty_like(order)
    rank[rows, order] = np.arange(1, order.shape[1] + 1)
    fused += np.where(admitted, weight / (k + rank), 0.0)


def fuse(lexical: FloatArray, semantic: NDArray[Any] | None, point: OperatingPoint,
         learned: FloatArray | None = None) -> Fused:
    """Fuse one prompt's (1-d) or many prompts' (2-d) per-document scores under ``point``."""
    lex_ok = (lexical >= point.lexical_floor) & (lexical > 0.0)
    sem = semantic.astype(np.float64, copy=False) if semantic is not None else None
    sem_ok = ((sem >= point.semantic_floor) & (sem > 0.0) if sem is not None
              else np.zeros_like(lex_ok))
    admitted = lex_ok | sem_ok
    fused = np.zeros(lexical.shape, dtype=np.float64)
    use_learned = learned is not None and point.learned_weight > 0.0
    if point.fusion == "weighted":
        if point.lexical_weight > 0.0:
            fused += point.lexical_weight * lexical
        if sem is not None and point.semantic_weight > 0.0:
            fused += point.semantic_weight * sem
        if use_learned:
            assert learned is not None
            fused += point.learned_weight * learned
        # A candidate keeps a positive score so "0 means not a candidate" stays true.
        return Fused(np.where(admitted, np.maximum(fused, 1e-12), 0.0), lex_ok, sem_ok)
    _rank_contribution(lexical, lex_ok, point.rrf_k, point.lexical_weight, fused)
    if sem is not None:
        _rank_contribution(sem, sem_ok, point.rrf_k, point.semantic_weight, fused)
    if use_learned:
        assert learned is not None
        _rank_contribution(learned, admitted, point.rrf_k, point.learned_weight, fused)
    return Fused(fused, lex_ok, sem_ok)
