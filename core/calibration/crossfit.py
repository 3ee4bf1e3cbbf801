"""Cross-fitted learning: labelled positives as surfaces, and a classifier over embeddings.

With ``learn``, the labelled positives become further surfaces of their documents and
train a linear classifier over embeddings (the negatives, when there are some, train a
"no document" class). Both are cross-fitted: each prompt is scored by surfaces and a
classifier that never saw it (prompts are split into folds by a hash of their text), so
the figures calibration reports are not memorised ones; what is kept then uses every
positive.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ..errors import InputError
from ..scoring.learned import LearnedArrays, fit_classifier, softmax_rows
from .labelled import Labelled

if TYPE_CHECKING:
    from ..routing.router import Router

FOLDS = 5
Progress = Callable[[str], None]


def fold_of(prompt: str, folds: int = FOLDS) -> int:
    """The fold a prompt falls in: fixed by its text, so reruns split alike."""
    digest = hashlib.sha256(prompt.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") % folds


def cross_fit(router: Router, labelled: Labelled, vectors: NDArray[np.float32],
              base_sims: NDArray[np.float64], progress: Progress | None = None,
              ) -> tuple[NDArray[np.float64], dict[str, NDArray[np.float64]], LearnedArrays]:
    """Cross-fitted classifier probabilities, the semantic matrix under each pooling with
    other folds' positives as surfaces, and what to keep (fitted on every positive)."""
    scorer = router.scorer
    names = list(router.names)
    rows, owners = positives(names, labelled)
    if not rows:
        raise InputError("learning needs labelled positives that name documents of the index")
    assert scorer.embeddings is not None
    documents = len(names)
    learned_vectors = vectors[rows]
    learned_owner = np.asarray(owners, dtype=np.int64)
    prompt_fold = np.array([fold_of(p) for p in labelled.prompts])
    surface_fold = prompt_fold[rows]
    pooled = _pooled(router, vectors, base_sims, learned_vectors, learned_owner, prompt_fold,
                     surface_fold)
    base_vectors = np.asarray(scorer.embeddings, dtype=np.float32)
    base_owner = np.asarray(router.stored.surface_doc, dtype=np.int64)
    # The negatives train a "no document" class (index ``documents``), cross-fitted alike.
    negative_rows = np.array([r for r, expected in enumerate(labelled.expected) if not expected],
                             dtype=np.int64)
    abstain = negative_rows.size > 0
    classes = documents + (1 if abstain else 0)
    base_vectors = np.vstack([base_vectors, vectors[negative_rows]]) if abstain else base_vectors
    base_owner = np.concatenate([base_owner, np.full(negative_rows.size, documents)])
    base_fold = np.concatenate([np.full(scorer.embeddings.shape[0], -1),
                                prompt_fold[negative_rows]])
    probabilities = np.zeros((len(labelled.prompts), documents), dtype=np.float64)
    for fold in range(FOLDS):
        held = prompt_fold == fold
        if not held.any():
            continue
        if progress:
            progress(f"learning: classifier for fold {fold + 1} of {FOLDS}")
        keep = surface_fold != fold
        base_keep = base_fold != fold
        weights, bias = fit_classifier(
            np.vstack([base_vectors[base_keep], learned_vectors[keep]]),
            np.concatenate([base_owner[base_keep], learned_owner[keep]]), classes)
        logits = (vectors[held] @ weights.T + bias).astype(np.float64)
        probabilities[held] = softmax_rows(logits)[:, :documents]
    if progress:
        progress("learning: classifier on every positive")
    weights, bias = fit_classifier(np.vstack([base_vectors, learned_vectors]),
                                   np.concatenate([base_owner, learned_owner]), classes)
    learned = LearnedArrays(
        vectors=np.ascontiguousarray(learned_vectors, dtype=np.float32),
        names=[names[o] for o in owners],
        texts=[labelled.prompts[r] for r in rows],
        classifier_weights=weights,
        classifier_bias=bias,
        classifier_names=names,
        abstain_class=abstain,
    )
    return probabilities, pooled, learned


def positives(names: Sequence[str], labelled: Labelled) -> tuple[list[int], list[int]]:
    """Each labelled positive that names a document of the index, as (prompt row, document
    position) pairs: the learned surfaces and their owners."""
    position = {name: i for i, name in enumerate(names)}
    rows: list[int] = []
    owners: list[int] = []
    for row, expected in enumerate(labelled.expected):
        for name in sorted(expected):
            if name in position:
                rows.append(row)
                owners.append(position[name])
    return rows, owners


def _pooled(router: Router, vectors: NDArray[np.float32], base_sims: NDArray[np.float64],
            learned_vectors: NDArray[np.float32], learned_owner: NDArray[np.int64],
            prompt_fold: NDArray[np.int64], surface_fold: NDArray[np.int64],
            ) -> dict[str, NDArray[np.float64]]:
    """The semantic matrix under each pooling with the learned surfaces added. Each prompt
    meets only other folds' positives, so no prompt is scored against itself: the nearest
    one per document for "max", and their sum and count for "mean"."""
    documents = len(router.names)
    sims = (vectors @ learned_vectors.T).astype(np.float64)
    same_fold = prompt_fold[:, None] == surface_fold[None, :]
    owner_matrix = np.zeros((learned_owner.size, documents))
    owner_matrix[np.arange(learned_owner.size), learned_owner] = 1.0
    learned_sum = np.where(same_fold, 0.0, sims) @ owner_matrix
    fold_counts = np.zeros((FOLDS, documents))
    np.add.at(fold_counts, (surface_fold, learned_owner), 1.0)
    learned_count = fold_counts.sum(axis=0)[None, :] - fold_counts[prompt_fold]
    sims[same_fold] = -1.0
    learned_best = np.full((vectors.shape[0], documents), -1.0)
    for document in np.unique(learned_owner):
        learned_best[:, document] = sims[:, learned_owner == document].max(axis=1)
    groups = router.scorer.groups
    base_count = groups.counts.astype(np.float64)
    best = np.maximum(groups.best(base_sims), learned_best)
    mean = (groups.total(base_sims) + learned_sum) / (
        base_count[None, :] + learned_count)
    return {"max": best, "mean": mean, "max_mean": (best + mean) / 2}
