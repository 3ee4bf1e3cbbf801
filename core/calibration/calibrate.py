"""``calibrate_index``: labelled prompts in, the operating point that routes them best out.

Scores every labelled prompt once (:mod:`gov.core.calibration.scores`, cross-fitted when
learning), searches the grid (:mod:`gov.core.calibration.grid`), and, when a point
survives the gate, finishes it with its provenance and saves it (and what it learned,
beside it). ``gov calibrate`` parses, calls this, and renders the result.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..routing.point import OperatingPoint, save_operating_point
from ..scoring.learned import save_learned
from . import grid
from .labelled import Labelled
from .scores import Scores, score

if TYPE_CHECKING:
    from ..routing.router import Router
    from ..scoring.learned import LearnedArrays

# Under this many labelled prompts, a label-free (background) point is moved, not refitted:
# a full grid fitted on a few dozen prompts learns their noise.
FEW_LABELS = 200


@dataclass
class CalibrationRun:
    """What ``calibrate_index`` found: the grid, the finished point (``None``: no point
    survived the gate), where it was written, and how long each half took."""

    result: grid.Calibration
    point: OperatingPoint | None
    written: list[Path]
    unknown_names: list[str]
    score_seconds: float
    grid_seconds: float
    # With few labels: the one-line decision ("25 labels, 8 ungoverned: kept the default
    # gate; ...").
    summary: str | None = None


def calibrate_index(
    router: Router,
    labelled: Labelled,
    *,
    out: str | Path | None = None,
    corpus_id: str | None = None,
    max_fa: float = 0.0,
    learn: bool = False,
    lexical_floors: Sequence[float] = grid.LEXICAL_FLOORS,
    semantic_floors: Sequence[float] = grid.SEMANTIC_FLOORS,
    confidence: bool = True,
    refit: bool = False,
    progress: Callable[[str], None] | None = None,
) -> CalibrationRun:
    """Choose the point for ``router``'s index from ``labelled``; write it to ``out``.

    With fewer than ``FEW_LABELS`` prompts a background-gated point is moved, not refitted,
    unless ``refit`` asks for the full grid.

    ``learn`` keeps the labelled positives as surfaces and a classifier, saved as
    ``STEM.learned.npz`` beside ``out`` (so it needs ``out``).
    """
    if learn and out is None:
        raise UsageError("learn=True needs out: what it learns is saved beside the point")
    target = Path(out) if out is not None else None
    known = set(router.names)
    unknown = sorted({n for names in labelled.expected for n in names} - known)
    label_free = router.operating_point
    if (len(labelled.prompts) < FEW_LABELS and not refit and label_free.gate == "background"
            and router.background is not None):
        few = _few(router, labelled, target, corpus_id, max_fa, learn, progress, unknown)
        if few is not None:
            return few
    started = time.perf_counter()
    scores, learned = score(router, labelled, learn=learn, progress=progress)
    scored = time.perf_counter() - started
    started = time.perf_counter()
    result = None
    if label_free.gate == "background" and router.background is not None and not refit:
        result = grid.nudge(router.names, labelled, scores, base=label_free,
                            background=router.background, max_fa=max_fa)
    # Few labels move the label-free point; a full grid runs with more, or when moving it
    # cannot meet the gate at all.
    if result is None or result.winner is None or len(labelled.prompts) >= FEW_LABELS:
        result = _full_grid(router, labelled, scores, result, max_fa=max_fa,
                            lexical_floors=lexical_floors, semantic_floors=semantic_floors,
                            confidence=confidence)
    searched = time.perf_counter() - started
    point, written = _finish(router, labelled, result, learned, target, corpus_id)
    return CalibrationRun(result, point, written, unknown, scored, searched)


def _full_grid(router: Router, labelled: Labelled, scores: Scores,
               moved: grid.Calibration | None, *, max_fa: float,
               lexical_floors: Sequence[float], semantic_floors: Sequence[float],
               confidence: bool) -> grid.Calibration:
    """The full grid, merged with the moved label-free point when there is one (the
    better winner kept), with notes saying how ``max_fa`` was held."""
    # --max-fa is a promise about unseen prompts: the grid's gate is the most false
    # alarms among these negatives whose upper bound still keeps it.
    from .fa_bound import LEVEL, allowed_false_alarms, negatives_needed

    allowed = allowed_false_alarms(labelled.negatives, max_fa)
    gate_fa = 0.0 if allowed is None else (allowed + 0.5) / labelled.negatives
    full = grid.calibrate(router.names, labelled, scores, max_fa=gate_fa,
                          lexical_floors=lexical_floors, semantic_floors=semantic_floors,
                          confidence=confidence)
    if moved is not None:
        winner = moved.winner
        if full.winner is not None and grid.better(full.winner, winner):
            winner = full.winner
        notes = list(full.notes)
        if moved.winner is None and len(labelled.prompts) < FEW_LABELS:
            notes.append("few labels: no moved point met the gate, so the full grid ran "
                         "(a grid fitted on few prompts learns their noise; check it "
                         "on prompts it did not see)")
        full = grid.Calibration(moved.rows + full.rows, winner, full.rule, max_fa,
                                full.negatives, full.positives,
                                moved.evaluated + full.evaluated, notes)
    full.max_fa = max_fa
    if allowed is None and max_fa > 0:
        needed = negatives_needed(labelled.negatives, 0, max_fa)
        full.notes.append(f"{labelled.negatives} ungoverned labels cannot show false alarms "
                          f"<= {max_fa:g} at the {LEVEL} upper bound: the grid held "
                          f"them to none; label about {needed} more ungoverned prompts")
    elif allowed is not None:
        full.notes.append(f"--max-fa {max_fa:g} kept at the {LEVEL} upper bound: at "
                          f"most {allowed} of {labelled.negatives} ungoverned labels may "
                          "route")
    return full


def _finish(router: Router, labelled: Labelled, result: grid.Calibration,
            learned: LearnedArrays | None, target: Path | None,
            corpus_id: str | None, provenance: dict[str, str] | None = None
            ) -> tuple[OperatingPoint | None, list[Path]]:
    """The winner as a finished operating point (``provenance`` added to its own), written
    to ``target`` with what it learned beside it; ``(None, [])`` when no point survived the
    gate."""
    point = None
    written: list[Path] = []
    if result.winner is not None:
        learned_file = learned_info = None
        if learned is not None and target is not None:
            learned_path = target.with_name(target.stem + ".learned.npz")
            learned_file = learned_path.name
            learned_info = learned.info(save_learned(learned, learned_path))
            written.append(learned_path)
        header = router.header
        point = grid.finish_point(
            result, model_id=router.model_id,
            corpus_id=corpus_id or " ".join(header.roots) or "unnamed",
            corpus_size=len(router.names), separability=header.separability,
            labelled=labelled, learned_file=learned_file, learned_info=learned_info)
        point.provenance.update(provenance or {})
        if target is not None:
            save_operating_point(point, target)
            written.insert(0, target)
    return point, written


def _few(router: Router, labelled: Labelled, target: Path | None, corpus_id: str | None,
         max_fa: float, learn: bool, progress: Callable[[str], None] | None,
         unknown: list[str]) -> CalibrationRun | None:
    """Few labels: example lines and the gate, each only as far as held-out folds support
    (:mod:`gov.core.calibration.few`); ``None`` when the prompts cannot be embedded.
    ``unknown``: the labelled names the index does not hold."""
    from . import few

    started = time.perf_counter()
    if progress:
        progress(f"scoring {len(labelled.prompts)} prompts")
    lexical, vectors = router.score_many(labelled.prompts)
    if vectors is None:
        return None
    scored = time.perf_counter() - started
    started = time.perf_counter()
    decided = few.calibrate_few(router, labelled, max_fa=max_fa, lexical=lexical,
                                vectors=vectors)
    result = few.calibration_of(decided, max_fa, labelled)
    if learn:
        result.notes.append("few labels: --learn keeps what the held-out folds kept (the "
                            "example lines, and the head refitted with the labels)")
    searched = time.perf_counter() - started
    arrays = few.learned_of(router, decided) if target is not None else None
    point, written = _finish(router, labelled, result, arrays, target, corpus_id, {
        "few_labels": decided.summary,
        "figures": ("held out: each labelled prompt scored with the other folds' example "
                    "lines, the head their labels refit, and the gate they chose")})
    return CalibrationRun(result, point, written, unknown, scored, searched, decided.summary)
