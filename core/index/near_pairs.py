"""The near-duplicate detector's records: when two documents are near-duplicates
(:class:`Thresholds`), how surfaces group into documents (:class:`Layout`), and what it
finds (:class:`Pair`, :class:`Narrower`, :class:`Found`). The detector is
``index/neighbours.py``; triggers compared alone are ``index/trigger_pairs.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

FloatMatrix = NDArray[np.float32]
LexicalColumns = tuple[NDArray[Any], NDArray[Any], NDArray[Any]]  # col_ptr, col_rows, col_data
# Cosines between two sets of surfaces (rows, columns).
Cosines = Callable[[NDArray[np.int64], NDArray[np.int64]], NDArray[np.float64]]


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
