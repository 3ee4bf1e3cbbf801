"""The index's head refitted with a few labelled prompts as further rows.

The head (``routing/background.py``) is a classifier over embeddings fitted at build: each
document's surfaces and body passages as its class, the screened background bank as "none".
A few labels are the rows it lacks: each labelled governed prompt as a further row of every
document it names, each ungoverned one as a further "none" row. The refit is the build's own
fit (``background._fit_head``) over those rows; what it returns is saved in
``STEM.learned.npz`` as the classifier (its last row "none"), which a route reads instead of
the index's head.

Two things of the build are not stored in the index and are stood in for: the bank is
embedded again (through the embedding cache, as the build embedded it) and screened against
the stored surfaces as the build screened it; each document's body passages are stood in for
by its stored body vector (their mean: the same row where a document has one passage, as on
the intent sets). Whatever this changes is in what the held-out folds judge: the refit is
kept only when it gains there over the index's own head.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np
from numpy.typing import NDArray

from ..scoring.learned import softmax_rows

if TYPE_CHECKING:
    from ..index.bodies import Passages
    from ..routing.router import Router
    from ..scoring.scorer import Scorer


# Each labelled prompt counts as this many rows of the refit (5 was tried on CLINC150 dev at
# 50 labels: no better on the test half, docs/quality.md).
LABEL_ROWS = 1


@dataclass(frozen=True)
class HeadRows:
    """What the build fitted the head on, as far as calibration can see it again."""

    surfaces: NDArray[np.float32]
    surface_doc: NDArray[np.int64]
    documents: int
    passages: Passages | None
    bank: NDArray[np.float32]


@dataclass(frozen=True)
class _Stored:
    surface_doc: NDArray[np.int64]


@dataclass(frozen=True)
class _Surfaces:
    """What ``_fit_head`` reads of a scorer: the surfaces (the labelled prompts among them)
    and their owners."""

    embeddings: NDArray[np.float32]
    stored: _Stored
    documents: int


def head_rows(router: Router) -> HeadRows | None:
    """The head's rows for ``router``'s index; ``None`` when the index has no head to refit
    (built without one, too many documents, or no embeddings)."""
    from ..encode.cache import embed_missing
    from ..encode.embedding import model_sha256
    from ..index.bodies import Passages
    from ..routing.background import SCREEN_COSINE, bank_prompts

    scorer = router.scorer
    stored = scorer.stored
    if (scorer.embeddings is None or not stored.has_array("head_weights")
            or stored.model_id is None):
        return None
    prompts = list(dict.fromkeys(bank_prompts()))
    found, _ = embed_missing(prompts, stored.model_id,
                             model_sha256=model_sha256(stored.model_id),
                             dim=int(scorer.embeddings.shape[1]), cache=True)
    bank = np.stack([found[text] for text in prompts]).astype(np.float32)
    near = scorer.surface_similarities(bank).max(axis=1)
    passages = None
    if scorer.body_vectors is not None and scorer.body_present is not None:
        owners = np.flatnonzero(scorer.body_present).astype(np.int64)
        passages = Passages(np.asarray(scorer.body_vectors, dtype=np.float32)[owners], owners)
    return HeadRows(np.asarray(scorer.embeddings, dtype=np.float32),
                    np.asarray(stored.surface_doc, dtype=np.int64), scorer.documents,
                    passages, np.ascontiguousarray(bank[near < SCREEN_COSINE]))


def refit(rows: HeadRows, vectors: NDArray[np.float32], docs: NDArray[np.int64],
          ungoverned: NDArray[np.float32]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """The head fitted as the build fits it, with ``vectors`` as further rows of ``docs``
    and ``ungoverned`` as further bank ("none") rows: its weights and bias, one row per
    document and the last for "none"."""
    from ..routing.background import _fit_head

    vectors = np.repeat(vectors, LABEL_ROWS, axis=0)
    docs = np.repeat(docs, LABEL_ROWS)
    ungoverned = np.repeat(ungoverned, LABEL_ROWS, axis=0)
    surfaces = _Surfaces(np.vstack([rows.surfaces, vectors]).astype(np.float32),
                         _Stored(np.concatenate([rows.surface_doc, docs]).astype(np.int64)),
                         rows.documents)
    bank = np.vstack([rows.bank, ungoverned]).astype(np.float32)
    return _fit_head(cast("Scorer", surfaces), rows.passages, bank)


def probabilities(head: tuple[NDArray[np.float32], NDArray[np.float32]],
                  vectors: NDArray[np.float32], documents: int) -> NDArray[np.float64]:
    """Each prompt's probability per document under ``head`` (the "none" row only takes
    probability away), as ``Scorer.learned_probabilities`` gives a route."""
    weights, bias = head
    logits = vectors.astype(np.float64) @ weights.T.astype(np.float64) + bias.astype(np.float64)
    return np.asarray(softmax_rows(logits)[:, :documents], dtype=np.float64)
