"""A few labels, used where they are safest first, and only as far as held-out folds support.

With fewer than ``FEW_LABELS`` labelled prompts a fitted point learns their noise, so
``gov calibrate`` starts from the label-free point and takes at most three steps away from it:

1. **example lines**: every labelled governed prompt becomes an example surface of its
   document (kept in ``STEM.learned.npz``);
2. **the head**: the index's classifier refitted with the labelled prompts as further rows
   (ungoverned ones as further "none" rows; :mod:`gov.core.calibration.head`), saved in the
   same file as the classifier a route reads;
3. **the gate**: the bank share, orphan and confidence floors (``grid.evaluate_row`` with the
   background), chosen on the other folds under the false-alarm promise and kept only when
   the held-out fold gains more than one standard error.

Each step is judged on prompts it did not see (5 folds by prompt hash: each prompt is scored
with the other folds' example lines and the head their labels refit, and the gate each fold
would choose is tried on it), by
top-1 on the governed prompts less the false-alarm rate on the ungoverned ones.

``--max-fa`` is a promise about unseen prompts: a false-alarm rate counts as kept only when
its one-sided Clopper-Pearson upper bound (``CONFIDENCE``) from the ungoverned labels is
under it; with too few ungoverned labels the gate stays as shipped and the summary says how
many more would be needed. Second routes stay as the label-free point has them unless
labels name two documents for a prompt (and then only as the moved gate's rule has them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ..scoring.learned import LearnedArrays
from ..scoring.pooling import mix_bodies
from .crossfit import FOLDS, fold_of, positives
from .fa_bound import LEVEL, allowed_false_alarms, fa_upper, negatives_needed
from .grid import Calibration, expected_matrix
from .head import head_rows, probabilities, refit
from .held_out import Gain, Routed, first_routes, gain
from .labelled import Labelled
from .metrics import f1_score
from .row import Outcome, evaluate_row
from .scores import Scores

if TYPE_CHECKING:
    from ..routing.background import Background
    from ..routing.point import OperatingPoint
    from ..routing.router import Router

# Prompts naming two or more documents it takes before labels may change the second route.
MULTI_LABELS = 5


@dataclass
class Examples:
    """Labelled governed prompts as example surfaces: vectors, owning documents, texts, and
    the fold of the prompt each came from."""

    vectors: NDArray[np.float32]
    docs: NDArray[np.int64]
    texts: list[str]
    folds: NDArray[np.int64]

    @classmethod
    def none(cls, dim: int) -> Examples:
        return cls(np.zeros((0, dim), dtype=np.float32), np.zeros(0, dtype=np.int64), [],
                   np.zeros(0, dtype=np.int64))


def examples_of(index_names: Sequence[str], labelled: Labelled,
                vectors: NDArray[np.float32]) -> Examples:
    """Every labelled governed prompt as an example of each document it names."""
    rows, docs = positives(index_names, labelled)
    folds = np.array([fold_of(labelled.prompts[r]) for r in rows], dtype=np.int64)
    return Examples(np.ascontiguousarray(vectors[rows], dtype=np.float32),
                    np.asarray(docs, dtype=np.int64), [labelled.prompts[r] for r in rows], folds)


def example_scores(router: Router, point: OperatingPoint, lexical: NDArray[np.float64],
                   vectors: NDArray[np.float32], examples: Examples,
                   exclude: NDArray[np.bool_] | None = None,
                   head: NDArray[np.float64] | None = None) -> Scores:
    """Prompts' scores under ``point`` with ``examples`` as further surfaces of their
    documents, as a route with them would score (the point's pooling and body weight);
    ``exclude[i, j]``: prompt i does not see example j (its own fold's); ``head``: the
    prompts' probabilities under a refitted head (else the index's own)."""
    scorer = router.scorer
    groups = scorer.groups
    sims = scorer.surface_similarities(vectors).astype(np.float64)
    n, documents = lexical.shape
    counts = np.broadcast_to(groups.counts.astype(np.float64), (n, documents)).copy()
    best = groups.best(sims)
    total = groups.total(sims)
    if examples.docs.size:
        near = (vectors @ examples.vectors.T).astype(np.float64)
        seen = np.ones_like(near, dtype=bool) if exclude is None else ~exclude
        owner = np.zeros((examples.docs.size, documents))
        owner[np.arange(examples.docs.size), examples.docs] = 1.0
        total = total + np.where(seen, near, 0.0) @ owner
        counts = counts + seen.astype(np.float64) @ owner
        masked = np.where(seen, near, -np.inf)
        for doc in np.unique(examples.docs):
            best[:, doc] = np.maximum(best[:, doc], masked[:, examples.docs == doc].max(axis=1))
    mean = total / counts
    pooled = {"max": best, "mean": mean, "max_mean": (best + mean) / 2}
    semantic = pooled[point.semantic_pool]
    body = scorer.body_similarities(vectors)
    if body is not None and point.body_surfaces > 0.0 and scorer.body_present is not None:
        weight = point.body_surfaces / (counts + point.body_surfaces)
        semantic = mix_bodies(semantic, body.astype(np.float64), scorer.body_present[None, :],
                              weight)
    if head is None:
        head = scorer.learned_probabilities(vectors)
    remarks = router.background.remarks(vectors) if router.background is not None else None
    return Scores(lexical, semantic, head, {point.semantic_pool: semantic},
                  families=router.families, remarks=remarks)


@dataclass
class FewLabels:
    """What the few-label path decided: the point (with or without example lines), the
    example surfaces kept, the evidence, and the one-line summary."""

    point: OperatingPoint
    examples: Examples
    kept_examples: bool
    moved_gate: bool
    # The head refitted with the labels (weights, bias; last row "none"), or None: the
    # index's own head is kept.
    head: tuple[NDArray[np.float32], NDArray[np.float32]] | None
    expected_top1: float
    expected_error: float
    false_alarms: int
    negatives: int
    fa_bound: float
    needed: int | None
    summary: str
    notes: list[str]
    outcome: Outcome


def _moved(base: OperatingPoint, scores: Scores, expected: NDArray[np.bool_], max_fa: float,
           background: Background, rows: NDArray[np.bool_], multi: bool
           ) -> OperatingPoint | None:
    """The gate the labelled ``rows`` choose under the promise (None: they cannot keep it)."""
    positive = expected[rows].any(axis=1)
    negatives = int((~positive).sum())
    allowed = allowed_false_alarms(negatives, max_fa)
    if allowed is None or not positive.any():
        return None
    subset = _rows(scores, rows)
    outcome, _ = evaluate_row(base, subset, expected[rows], (allowed + 0.5) / negatives,
                              False, background)
    if not outcome.passes_gate:
        return None
    point = outcome.point
    if not multi:  # second routes only where labels show two documents
        point = point.with_params(top_k=base.top_k, second_ratio=base.second_ratio,
                                  second_learned_floor=base.second_learned_floor)
    return point


def _head_step(router: Router, lexical: NDArray[np.float64], vectors: NDArray[np.float32],
               examples: Examples, folds: NDArray[np.int64], positive: NDArray[np.bool_],
               expected: NDArray[np.bool_], current: Routed, scores: Scores, notes: list[str]
               ) -> tuple[tuple[NDArray[np.float32], NDArray[np.float32]] | None, Routed, Scores]:
    """The head step: each fold's prompts scored by the head refitted with the other folds'
    labels; kept (refitted on every label) only when the held-out folds gain."""
    rows = head_rows(router)
    if rows is None:
        return None, current, scores
    names = router.names
    background = router.background
    base = router.operating_point
    crossed_head = np.zeros_like(lexical)
    for fold in range(FOLDS):
        held = folds == fold
        if not held.any():
            continue
        trained = examples.folds != fold
        fitted = refit(rows, examples.vectors[trained], examples.docs[trained],
                       vectors[~positive & ~held])
        crossed_head[held] = probabilities(fitted, vectors[held], len(names))
    refitted_scores = replace(scores, learned=crossed_head)
    with_head = first_routes(base, refitted_scores, expected, background)
    head_step = gain(with_head, current, positive)
    if head_step.utility > 0.0:
        return (refit(rows, examples.vectors, examples.docs, vectors[~positive]), with_head,
                refitted_scores)
    notes.append(f"the head refitted with the labels left out: on held-out folds it "
                 f"changed top-1 by {head_step.top1:+.3f} and false alarms by "
                 f"{head_step.false_alarms:+.3f}")
    return None, current, scores


def _gate_step(base: OperatingPoint, scores: Scores, expected: NDArray[np.bool_],
               positive: NDArray[np.bool_], folds: NDArray[np.int64], max_fa: float,
               multi: bool, current: Routed, notes: list[str],
               background: Background | None = None) -> tuple[bool, OperatingPoint, Routed]:
    """The gate step: moved on the other folds, tried on each fold in turn; kept only when
    it gains by more than its error and keeps the false-alarm promise."""
    moved_gate = False
    point = base
    negatives = int((~positive).sum())
    can_move = (base.gate == "background" and background is not None
                and allowed_false_alarms(negatives, max_fa) is not None)
    if can_move and background is not None:
        routed = current.routed.copy()
        correct = current.correct.copy()
        for fold in range(FOLDS):
            held = folds == fold
            if not held.any():
                continue
            moved = _moved(base, scores, expected, max_fa, background, ~held, multi)
            if moved is None:
                continue
            trial = first_routes(moved, _rows(scores, held), expected[held], background)
            routed[held], correct[held] = trial.routed, trial.correct
        candidate = Routed(routed, correct)
        moved_step = gain(candidate, current, positive)
        fa_now = int(current.routed[~positive].sum())
        fa_moved = int(candidate.routed[~positive].sum())
        promise_now = fa_upper(fa_now, negatives) <= max_fa
        promise_moved = fa_upper(fa_moved, negatives) <= max_fa
        if promise_moved and (moved_step.utility > moved_step.error or not promise_now):
            final = _moved(base, scores, expected, max_fa, background,
                           np.ones(expected.shape[0], dtype=bool), multi)
            if final is not None:
                moved_gate, point, current = True, final, candidate
        if not moved_gate:
            notes.append(f"the gate each fold chose changed held-out top-1 by "
                         f"{moved_step.top1:+.3f} and false alarms by "
                         f"{moved_step.false_alarms:+.3f}: not enough to move it")
    return moved_gate, point, current


def calibrate_few(router: Router, labelled: Labelled, *, max_fa: float,
                  lexical: NDArray[np.float64], vectors: NDArray[np.float32]) -> FewLabels:
    """Decide, by cross-validation within the labels, how far to move from the label-free
    point (``lexical`` and ``vectors``: the labelled prompts', scored once)."""
    base = router.operating_point
    names = router.names
    expected = expected_matrix(names, labelled)
    positive = np.asarray(expected.any(axis=1), dtype=bool)
    negatives = int((~positive).sum())
    folds = np.array([fold_of(p) for p in labelled.prompts], dtype=np.int64)
    examples = examples_of(names, labelled, vectors)
    background = router.background
    plain = example_scores(router, base, lexical, vectors, Examples.none(vectors.shape[1]))
    crossed = example_scores(router, base, lexical, vectors, examples,
                             folds[:, None] == examples.folds[None, :])
    default = first_routes(base, plain, expected, background)
    with_examples = first_routes(base, crossed, expected, background)
    notes: list[str] = []
    step = gain(with_examples, default, positive)
    kept_examples = bool(examples.docs.size) and step.utility >= 0.0
    current, scores = (with_examples, crossed) if kept_examples else (default, plain)
    if examples.docs.size and not kept_examples:
        notes.append(f"example lines left out: on held-out folds they changed top-1 by "
                     f"{step.top1:+.3f} and false alarms by {step.false_alarms:+.3f}")
    head, current, scores = _head_step(router, lexical, vectors, examples, folds, positive,
                                       expected, current, scores, notes)
    multi = sum(1 for names_ in labelled.expected if len(names_) > 1) >= MULTI_LABELS
    moved_gate, point, current = _gate_step(base, scores, expected, positive, folds, max_fa,
                                            multi, current, notes, router.background)
    overall = gain(current, default, positive)
    fa_count = int(current.routed[~positive].sum())
    bound = fa_upper(fa_count, negatives)
    needed = negatives_needed(negatives, fa_count, max_fa)
    outcome = _outcome(point, current, expected, positive, bound <= max_fa)
    summary = _summary(len(labelled.prompts), negatives, moved_gate, kept_examples,
                       int(examples.docs.size), head is not None, overall, fa_count, bound,
                       needed, max_fa)
    return FewLabels(point, examples, kept_examples, moved_gate, head, overall.top1,
                     overall.top1_error, fa_count, negatives, bound, needed, summary, notes,
                     outcome)


def _rows(scores: Scores, rows: NDArray[np.bool_]) -> Scores:
    return Scores(scores.lexical[rows], None if scores.semantic is None else scores.semantic[rows],
                  None if scores.learned is None else scores.learned[rows],
                  families=scores.families,
                  remarks=None if scores.remarks is None else scores.remarks[rows])


def _outcome(point: OperatingPoint, routed: Routed, expected: NDArray[np.bool_],
             positive: NDArray[np.bool_], keeps_promise: bool) -> Outcome:
    """The held-out figures of the chosen step as a grid row (first routes only)."""
    positives = int(positive.sum())
    negatives = int((~positive).sum())
    routes = int(routed.routed.sum())
    correct = int(routed.correct.sum())
    labels = int(expected.sum())
    precision = correct / routes if routes else None
    recall = correct / labels if labels else None
    metrics: dict[str, float | None] = {
        "false_alarm_rate": (float(routed.routed[~positive].sum()) / negatives
                             if negatives else None),
        "top1": correct / positives if positives else None,
        "recall": recall,
        "precision": precision,
        "f1": f1_score(precision, recall),
        "silent_rate": (float((positive & ~routed.routed).sum()) / positives
                        if positives else None),
        "routes_per_prompt": routes / len(positive) if len(positive) else 0.0,
    }
    return Outcome(point, metrics, routes, keeps_promise)


def _summary(prompts: int, negatives: int, moved_gate: bool, kept_examples: bool,
             example_lines: int, kept_head: bool, overall: Gain, fa_count: int, bound: float,
             needed: int | None, max_fa: float) -> str:
    """One line: what was kept, what was added, what it is expected to do, and the promise."""
    gate = "moved the gate" if moved_gate else "kept the default gate"
    added = (f"added {example_lines} example line{'s' if example_lines != 1 else ''}"
             if kept_examples else "added no example lines")
    if kept_head:
        added += "; refitted the head"
    line = (f"{prompts} labels, {negatives} ungoverned: {gate}; {added}; expected top-1 "
            f"{overall.top1:+.2f} ± {overall.top1_error:.2f}")
    if bound <= max_fa:
        line += f"; false alarms ≤ {bound:.2f} at {LEVEL} ({fa_count} of {negatives})"
    elif needed is None:
        line += (f"; false alarms {fa_count} of {negatives} ungoverned: over --max-fa "
                 f"{max_fa:g} at this rate")
    elif negatives == 0:
        line += (f"; --max-fa {max_fa:g} unproven (no ungoverned labels): label about "
                 f"{needed} ungoverned prompts")
    else:
        line += (f"; --max-fa {max_fa:g} unproven ({fa_count} of {negatives} ungoverned "
                 f"routed, bound {bound:.2f}): label about {needed} more ungoverned prompts")
    return line


def learned_arrays(router: Router, examples: Examples,
                   head: tuple[NDArray[np.float32], NDArray[np.float32]] | None = None
                   ) -> LearnedArrays:
    """The example lines to save beside the point, with ``head`` (refitted with the labels)
    as the classifier, else the index's own head."""
    names = list(router.names)
    classifier = router.scorer.classifier
    dim = examples.vectors.shape[1]
    classifier_names: list[str]
    if head is not None:
        weights = np.asarray(head[0], dtype=np.float32)
        bias = np.asarray(head[1], dtype=np.float32)
        classifier_names = names
        abstain = True
    elif classifier is None:
        weights = np.zeros((0, dim), dtype=np.float32)
        bias = np.zeros(0, dtype=np.float32)
        classifier_names = []
        abstain = False
    else:
        weights = np.asarray(classifier[0], dtype=np.float32)
        bias = np.asarray(classifier[1], dtype=np.float32)
        classifier_names = [names[int(c)] for c in classifier[2]]
        abstain = weights.shape[0] > len(classifier_names)
    return LearnedArrays(examples.vectors, [names[int(d)] for d in examples.docs],
                         list(examples.texts), weights, bias, classifier_names, abstain)


def learned_of(router: Router, few: FewLabels) -> LearnedArrays | None:
    """What the few-label path saves beside the point: the kept example lines and the head
    (refitted, or the index's own); ``None`` when it kept neither step."""
    if not few.kept_examples and few.head is None:
        return None
    examples = few.examples if few.kept_examples else Examples.none(few.examples.vectors.shape[1])
    return learned_arrays(router, examples, few.head)


def calibration_of(few: FewLabels, max_fa: float, labelled: Labelled) -> Calibration:
    """The decision as the calibration result the CLI renders (one row: the chosen step)."""
    relaxed = "" if max_fa == 0 else f" (--max-fa {max_fa:g})"
    rule = ("few labels: example lines first, then the head refitted with them, then the "
            "gate, each kept only where held-out folds gain; the false-alarm promise is kept "
            "at the "
            f"{LEVEL} upper bound{relaxed}")
    return Calibration([few.outcome], few.outcome, rule, max_fa, labelled.negatives,
                       len(labelled.prompts) - labelled.negatives, 2 + FOLDS,
                       [few.summary, *few.notes])
