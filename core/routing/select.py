"""Selection: rank the fused candidates, gate on confidence, take at most ``top_k``.

Scoring a prompt happens once; selection is a cheap function of the scores and an
operating point, so calibration can score a labelled set once and select under many
points. :func:`rank` orders one prompt's candidates; :func:`rank_many` gives the two best
of many prompts at once, with the same order and ties; both fuse through
:func:`gov.core.routing.fusion.fuse` and compute confidence features through
:func:`gov.core.routing.confidence.features`.

Families (documents with the same ``**Family:**``, and with ``gov index --families auto``
clusters of near-duplicates) take at most one route: a candidate whose family already has
a better-ranked document is passed over, so the family's best document stands for it and
the second route goes to another family.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from .confidence import features, logistic_many
from .fusion import Fused, fuse
from .remarks import vetoes

if TYPE_CHECKING:
    from .background import Background
    from .point import OperatingPoint

FloatArray = NDArray[np.float64]


class Candidate(NamedTuple):
    """A selected document (its position) with its fused score and the raw scores that
    counted (``None`` where that scorer did not)."""

    doc: int
    fused: float
    lexical: float | None
    semantic: float | None


class Ranked(NamedTuple):
    """One prompt's candidates best first, the fusion behind them, and the confidence."""

    order: NDArray[np.intp]
    fusion: Fused
    confidence: float | None


def _best_of_families(order: NDArray[np.intp], families: NDArray[np.integer[Any]]
                      ) -> NDArray[np.intp]:
    """``order`` without the documents whose family came earlier in it."""
    _, first = np.unique(families[order], return_index=True)
    kept: NDArray[np.intp] = order[np.sort(first)]
    return kept


def rank(lexical: FloatArray, semantic: NDArray[np.floating[Any]] | None,
         point: OperatingPoint, learned: FloatArray | None = None,
         limit: int | None = None, families: NDArray[np.integer[Any]] | None = None) -> Ranked:
    """One prompt's candidates best first, ties broken by the semantic (else lexical) score;
    with ``families`` (a family id per document), only each family's best.

    With ``limit``, only the first ``limit`` candidates are guaranteed (those tied with the
    last of them come too): a large corpus admits thousands, and sorting them all would
    cost a route a millisecond for nothing.
    """
    fusion = fuse(lexical, semantic, point, learned)
    fused = fusion.fused
    admitted = np.flatnonzero(fused > 0.0)
    if admitted.size == 0:
        return Ranked(admitted, fusion, None)
    candidates = admitted
    if limit is not None and admitted.size > 4 * limit + 16:
        values = fused[admitted]
        cut = np.partition(values, values.size - limit)[values.size - limit]
        candidates = admitted[values >= cut]
    order = _ordered(candidates, fused, semantic, lexical)
    if families is not None:
        order = _best_of_families(order, families)
        if limit is not None and order.size < limit and candidates.size < admitted.size:
            order = _best_of_families(_ordered(admitted, fused, semantic, lexical), families)
    confidence = None
    # The confidence model is fitted on semantic features; lexical-only (degraded) routing
    # is gated by the floors alone rather than by a model that cannot see its inputs. Under
    # the background gate, confidence comes from the background (see ``select``).
    if point.confidence_weights and semantic is not None and point.gate == "confidence":
        row = features(lexical[None, :], semantic[None, :],
                       None if learned is None else learned[None, :], fused[None, :],
                       order[:1])
        confidence = float(logistic_many(point.confidence_weights, row)[0])
    return Ranked(order, fusion, confidence)


def _ordered(candidates: NDArray[np.intp], fused: FloatArray,
             semantic: NDArray[np.floating[Any]] | None, lexical: FloatArray) -> NDArray[np.intp]:
    tiebreak = semantic[candidates] if semantic is not None else lexical[candidates]
    return candidates[np.lexsort((-tiebreak, -fused[candidates]))]


# What each guard of the background gate measured, as an abstention's reason names it.
GUARD_SOURCES = {"bank": "prompts no document governs",
                 "examples": "the corpus's own example lines",
                 "orphans": "the corpus's example lines scored against other documents"}


class Gate(NamedTuple):
    """What the background gate read for one prompt: its best gate score, the threshold in
    force, and which guard set it ("bank", "examples" or "orphans")."""

    top: float
    threshold: float
    guard: str


class Selection(NamedTuple):
    """The routes chosen (none: abstained), the confidence, the rule that decided, and the
    background gate's reading when it decided."""

    chosen: list[Candidate]
    confidence: float | None
    reason: str
    gate: Gate | None = None


def _background_gate(lexical: FloatArray, semantic: NDArray[np.floating[Any]],
                     learned: FloatArray | None, point: OperatingPoint, background: Background,
                     order: NDArray[np.intp], fused: FloatArray,
                     families: NDArray[np.integer[Any]] | None = None
                     ) -> tuple[Gate, float | None]:
    """The gate's reading and the confidence of the first route (a logistic over how rare
    the score is among the bank, the ranking margin, the head's probability for the first
    route's family and the head's mass on any document)."""
    top = float(background.gate_scores(lexical, semantic, point).max())
    threshold, guard = background.threshold(point)
    confidence = None
    if point.confidence_weights and order.size:
        second = fused[order[1]] if order.size > 1 else 0.0
        row = background_features(background, np.array([top]), fused[order[:1]],
                                  np.array([second]),
                                  None if learned is None else learned[None, :],
                                  order[:1], families)
        confidence = float(logistic_many(point.confidence_weights, row)[0])
    return Gate(top, threshold, guard), confidence


def background_features(background: Background, tops: NDArray[Any], fused1: NDArray[Any],
                        fused2: NDArray[Any], learned: NDArray[Any] | None,
                        top1: NDArray[np.intp],
                        families: NDArray[np.integer[Any]] | None = None) -> FloatArray:
    """The background gate's confidence features, a row per prompt: how rare its best gate
    score is among the bank's; the fused margin of its first route over its second (0 when
    none; with families the second is already another family's); the head's probability
    for the first route's family (its document alone without families; 0 without a head);
    and the head's mass on any document, 1 less its "none" class (1 without a head): a
    prompt that looks like the bank's generic prompts near it leaves its mass on "none".

    ``learned`` is the head's (or a learned classifier's) probabilities, prompts by
    documents, ``top1`` each prompt's first document (-1: none)."""
    n = np.asarray(tops).shape[0]
    has = np.asarray(top1) >= 0
    first = np.maximum(np.asarray(top1), 0)
    if learned is None:
        head = np.zeros(n)
        mass = np.ones(n)
    else:
        probabilities = np.asarray(learned, dtype=np.float64)
        if families is None:
            head = probabilities[np.arange(n), first]
        else:
            ids = np.asarray(families)
            head = np.where(ids[None, :] == ids[first][:, None], probabilities, 0.0).sum(axis=1)
        head = np.where(has, head, 0.0)
        mass = probabilities.sum(axis=1)
    return np.stack([background.rarities(tops), np.asarray(fused1, dtype=np.float64)
                     - np.asarray(fused2, dtype=np.float64), head, mass], axis=1)


def select(lexical: FloatArray, semantic: NDArray[np.floating[Any]] | None,
           point: OperatingPoint, learned: FloatArray | None = None,
           background: Background | None = None,
           families: NDArray[np.integer[Any]] | None = None,
           remark: float | None = None) -> Selection:
    """Pick at most ``top_k`` documents, or none, at most one per family, and say why.

    ``learned`` is a classifier's probability per document: the index's head, or what
    ``gov calibrate --learn`` learned. ``background`` is the index's background statistics;
    a point whose gate is "background" abstains below their threshold (without them, or
    without meaning scores, the floors alone decide). ``remark`` is the prompt's remark
    probability (``remarks.py``): at or over the point's ``remark_veto`` it abstains.
    """
    order, (fused, lex_ok, sem_ok), confidence = rank(lexical, semantic, point, learned,
                                                      limit=point.top_k, families=families)
    gate = None
    if point.gate == "background" and background is not None and semantic is not None:
        gate, confidence = _background_gate(lexical, semantic, learned, point, background,
                                            order, fused, families)
        if not clears(gate.top, gate.threshold):
            return Selection([], confidence, f"abstained: best gate score {gate.top:.3f} is under "
                             f"the threshold {gate.threshold:.3f} set by "
                             f"{GUARD_SOURCES[gate.guard]}", gate)
    if remark is not None and vetoes(remark, point.remark_veto):
        return Selection([], confidence, f"abstained: the prompt reads as a remark, not a "
                         f"request (remark probability {remark:.3f}, the point's veto "
                         f"{point.remark_veto:.3f})", gate)
    if order.size == 0:
        return Selection([], confidence, "abstained: no document clears a floor "
                         f"(lexical {point.lexical_floor:g}, semantic {point.semantic_floor:g})",
                         gate)
    # Under either gate, a route whose confidence (the chance its first document is right)
    # is under the point's floor abstains: a score that clears the background can still be a
    # near miss, split between documents no one of which the head believes in.
    if (confidence is not None and point.min_confidence is not None
            and not clears(confidence, point.min_confidence)):
        cleared = (f"best gate score {gate.top:.3f} clears the threshold {gate.threshold:.3f}, "
                   "but " if gate is not None else "")
        return Selection([], confidence, f"abstained: {cleared}confidence {confidence:.3f} is "
                         f"under the point's floor {point.min_confidence:.3f}", gate)
    # A raw score is reported where it counted: under RRF where its floor admitted the
    # document, under weighted fusion wherever it carries weight.
    weighted = point.fusion == "weighted"
    chosen: list[Candidate] = []
    second = ""
    for doc in order[: point.top_k]:
        index = int(doc)
        if chosen:
            refusal = second_refusal(chosen[0].fused, float(fused[index]),
                                     None if learned is None else float(learned[index]),
                                     point.second_ratio, point.second_learned_floor)
            if refusal is not None:
                second = f"; no second route: {refusal}"
                break
        lex_counts = lex_ok[index] or (weighted and point.lexical_weight > 0
                                       and lexical[index] > 0)
        sem_counts = semantic is not None and (sem_ok[index] or (
            weighted and point.semantic_weight > 0))
        chosen.append(Candidate(
            doc=index,
            fused=float(fused[index]),
            lexical=float(lexical[index]) if lex_counts else None,
            semantic=float(semantic[index]) if semantic is not None and sem_counts else None,
        ))
    floor = (f" and its confidence {confidence:.3f} the point's floor {point.min_confidence:.3f}"
             if confidence is not None and point.min_confidence is not None else "")
    if gate is not None:
        reason = (f"routed: best gate score {gate.top:.3f} clears the threshold {gate.threshold:.3f}"
                  + floor)
    elif semantic is None:
        reason = "routed on words alone: the best document clears the lexical floor"
    else:
        reason = "routed: the best document clears a floor" + floor
    return Selection(chosen, confidence, reason + second, gate)


class RankedMany(NamedTuple):
    """The two best candidates of many prompts at once, as calibration needs them."""

    top1: NDArray[np.intp]  # -1: no candidate
    top2: NDArray[np.intp]
    fused1: FloatArray
    fused2: FloatArray
    features: FloatArray  # confidence features of the top candidate, one row per prompt


def rank_many(lexical: FloatArray, semantic: FloatArray | None, point: OperatingPoint,
              learned: FloatArray | None = None,
              families: NDArray[np.integer[Any]] | None = None) -> RankedMany:
    """:func:`rank` for a matrix of prompts (rows) by documents: the same order and ties,
    and the same passing over of a family's further documents."""
    n = lexical.shape[0]
    fused = fuse(lexical, semantic, point, learned).fused
    tiebreak = semantic if semantic is not None else lexical
    order = np.lexsort((-tiebreak, -fused), axis=-1)
    rows = np.arange(n)

    def nth(columns: NDArray[np.intp] | None) -> tuple[NDArray[np.intp], FloatArray]:
        if columns is None:
            return np.full(n, -1, dtype=np.intp), np.zeros(n)
        top = order[rows, columns].astype(np.intp)
        value = fused[rows, top]
        top = np.where((value > 0.0) & (columns >= 0), top, -1)
        return top, np.where(top >= 0, value, 0.0)

    first = np.zeros(n, dtype=np.intp) if order.shape[1] else None
    second: NDArray[np.intp] | None = None
    if order.shape[1] > 1 and families is None:
        second = np.ones(n, dtype=np.intp)
    elif order.shape[1] > 1 and families is not None:
        family = np.asarray(families)[order]
        other = family != family[:, :1]
        second = np.where(other.any(axis=1), np.argmax(other, axis=1), -1).astype(np.intp)
    top1, fused1 = nth(first)
    top2, fused2 = nth(second)
    return RankedMany(top1, top2, fused1, fused2,
                      features(lexical, semantic, learned, fused, top1))


# -- the decision rules, over one prompt's scores or many prompts' at once -----------------
# ``select`` (a route), calibration's grid and held-out folds, and the explanation all decide
# through these, so a rule changed here changes every one of them.


def clears(score: Any, bar: Any) -> Any:
    """Whether a score clears a bar (the gate's threshold, a confidence floor): at or above
    it. Scalars or arrays (broadcast)."""
    return score >= bar


def second_refusal(fused1: float, fused2: float, learned2: float | None, ratio: float,
                   learned_floor: float) -> str | None:
    """Why the second candidate may not be a second route (None: it may): its fused score
    under ``ratio`` of the first's, or (with a classifier) its probability under
    ``learned_floor``."""
    if fused2 < ratio * fused1:
        return f"under {ratio:g} of the first's fused score"
    if learned2 is not None and learned_floor > 0.0 and learned2 < learned_floor:
        return f"its classifier probability {learned2:.3f} is under {learned_floor:.3f}"
    return None


def second_routes(has2: NDArray[np.bool_], fused1: FloatArray, fused2: FloatArray,
                  learned2: FloatArray, ratio: float, learned_floor: float
                  ) -> NDArray[np.bool_]:
    """:func:`second_refusal` for many prompts: which take their second candidate
    (``has2``: there is one; ``learned2``: its classifier probability, 0 without one)."""
    return np.asarray(has2 & (fused2 >= ratio * fused1) & (learned2 >= learned_floor),
                      dtype=bool)


def first_route_columns(has1: NDArray[np.bool_], scores: FloatArray, cuts: FloatArray,
                        confident: NDArray[np.bool_], floored: NDArray[np.bool_]
                        ) -> NDArray[np.bool_]:
    """Who routes under many settings at once, prompts by settings: a prompt with a
    candidate whose score (the gate's best, or the confidence) clears the setting's cut and,
    where the setting keeps a confidence floor (``floored``), that cleared it
    (``confident``)."""
    return np.asarray(has1[:, None] & clears(scores[:, None], cuts[None, :])
                      & (confident[:, None] | ~floored[None, :]), dtype=bool)


class RoutedMany(NamedTuple):
    """Many prompts' two best candidates and which of them route at all under a point."""

    ranked: RankedMany
    routed: NDArray[np.bool_]


def route_many(lexical: FloatArray, semantic: FloatArray | None, point: OperatingPoint,
               learned: FloatArray | None = None,
               families: NDArray[np.integer[Any]] | None = None,
               background: Background | None = None,
               remarks: NDArray[np.float64] | None = None) -> RoutedMany:
    """:func:`select`'s decision whether to route, for a matrix of prompts: a candidate, the
    background gate (with ``background`` under a background point), the remark veto (with
    ``remarks``, each prompt's remark probability), then the confidence floor."""
    many = rank_many(lexical, semantic, point, learned, families)
    routed = many.top1 >= 0
    if remarks is not None:
        routed &= ~vetoes(remarks, point.remark_veto)
    if point.gate == "background" and background is not None and semantic is not None:
        tops = background.gate_scores(lexical, semantic, point).max(axis=1)
        routed &= clears(tops, background.threshold(point)[0])
        if point.confidence_weights and point.min_confidence is not None:
            row = background_features(background, tops, many.fused1, many.fused2, learned,
                                      many.top1, families)
            routed &= clears(logistic_many(point.confidence_weights, row), point.min_confidence)
    elif (point.confidence_weights and point.min_confidence is not None
          and semantic is not None):
        routed &= clears(logistic_many(point.confidence_weights, many.features),
                         point.min_confidence)
    return RoutedMany(many, routed)


def deciding_rule(routed: bool, gate: Gate | None, confidence: float | None,
                  floor: float | None, remark: bool = False) -> str:
    """Which rule decided a route, as an explanation names it: "routed", or for an
    abstention "gate" (the best gate score under the threshold), "remark" (the prompt reads
    as a remark: ``remark``), "confidence" (cleared, but under the confidence floor) or
    "floors"."""
    if routed:
        return "routed"
    if gate is not None and not clears(gate.top, gate.threshold):
        return "gate"
    if remark:
        return "remark"
    if confidence is not None and floor is not None and not clears(confidence, floor):
        return "confidence"
    return "floors"


def nearest_documents(lexical: FloatArray, semantic: NDArray[np.floating[Any]] | None,
            order: NDArray[np.intp], gate_scores: FloatArray | None, limit: int
            ) -> NDArray[np.intp]:
    """The documents an explanation lists, nearest first: by the score the background gate
    compared when there is one, else the route's own order, else (none admitted) by the raw
    score the floors compared."""
    if gate_scores is not None:
        return np.argsort(-gate_scores, kind="stable")[:limit]
    if order.size == 0:
        return np.argsort(-(semantic if semantic is not None else lexical),
                          kind="stable")[:limit]
    return order[:limit]
