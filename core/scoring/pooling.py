"""Per-document pooling of per-surface scores, fast enough for 100,000 documents per route.

Surfaces are stored grouped by document (``starts[d]`` is document d's first surface).
``np.maximum.reduceat`` and ``np.add.reduceat`` over 150,000 surfaces cost about 1.3 ms
each per prompt; most documents have one or two surfaces, so the best score is the first
surface's, raised by a gather for each further position (0.3 ms), and the sum is one
weighted ``bincount`` (0.25 ms). The results equal the reduceat ones.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

# Past this many surfaces in one document, one reduceat beats a gather per position.
MAX_GATHERS = 32


class SurfaceGroups:
    """The grouping of ``total`` surfaces into documents, prepared once per index."""

    def __init__(self, starts: NDArray[np.int64], total: int) -> None:
        self.starts = np.asarray(starts, dtype=np.int64)
        self.counts = np.diff(np.append(self.starts, total)).astype(np.int64)
        self.owner = np.repeat(np.arange(self.starts.size, dtype=np.int64), self.counts)
        longest = int(self.counts.max()) if self.counts.size else 0
        self.gather = bool(self.counts.size) and int(self.counts.min()) >= 1 and longest <= MAX_GATHERS
        # For each position k past the first: the documents that have one, and its column.
        self.steps: list[tuple[NDArray[np.intp], NDArray[np.int64]]] = []
        if self.gather:
            for k in range(1, longest):
                docs = np.flatnonzero(self.counts > k)
                self.steps.append((docs, self.starts[docs] + k))

    @classmethod
    def of_owners(cls, owner: NDArray[np.integer[Any]], groups: int) -> SurfaceGroups:
        """The grouping of surfaces sorted by owner (``owner[i]`` is surface i's group)."""
        counts = np.bincount(owner, minlength=groups)
        return cls(np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64), int(owner.size))

    def best(self, scores: NDArray[Any]) -> NDArray[Any]:
        """Each document's highest surface score; ``scores`` is 1-d or (rows, surfaces)."""
        if not scores.size:
            return scores
        if not self.gather:
            return np.maximum.reduceat(scores, self.starts, axis=-1)
        out = scores[..., self.starts]
        for docs, columns in self.steps:
            out[..., docs] = np.maximum(out[..., docs], scores[..., columns])
        return out

    def total(self, scores: NDArray[Any]) -> NDArray[np.float64]:
        """Each document's summed surface score, in float64; ``scores`` is 1-d or 2-d."""
        if scores.ndim == 1:
            return np.bincount(self.owner, weights=scores, minlength=self.starts.size
                               ).astype(np.float64, copy=False)
        out = np.empty((scores.shape[0], self.starts.size), dtype=np.float64)
        for row in range(scores.shape[0]):
            out[row] = np.bincount(self.owner, weights=scores[row], minlength=self.starts.size)
        return out

    def mean(self, scores: NDArray[Any], dtype: Any = np.float64) -> NDArray[Any]:
        """Each document's mean surface score, summed in float64 and stored as ``dtype``
        one row at a time (a batch of 32 prompts at 100,000 documents makes no temporaries
        of the whole batch)."""
        if scores.ndim == 1:
            return np.asarray(self.total(scores) / self.counts, dtype=dtype)
        out = np.empty((scores.shape[0], self.starts.size), dtype=dtype)
        for row in range(scores.shape[0]):
            out[row] = np.bincount(self.owner, weights=scores[row], minlength=self.starts.size
                                   ) / self.counts
        return out

    def pool(self, scores: NDArray[Any], pool: str) -> NDArray[np.float32]:
        """"max" (the nearest surface), "mean" (close to the cosine with the document's
        centroid, deaf to one lucky surface) or "max_mean" (the two averaged)."""
        if pool == "max":
            return np.asarray(self.best(scores), dtype=np.float32)
        mean = self.mean(scores, np.float32)
        if pool == "mean":
            return mean
        mean += self.best(scores)
        mean /= 2
        return mean


def mix_bodies(scores: NDArray[Any], body: NDArray[Any], present: NDArray[np.bool_],
               weight: float | NDArray[Any]) -> NDArray[Any]:
    """(1 - weight) * score + weight * body similarity where ``present`` (a document has a
    body; ``weight`` may differ per document); elsewhere the score as it was. Calibration
    and routing both mix through here."""
    return np.where(present, (1.0 - weight) * scores + weight * body, scores)
