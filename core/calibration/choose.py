"""``gov label``: which prompts a person should label first, and the sheet they fill in.

A label teaches most where gov is unsure: a prompt whose best score sits near the gate (is
it governed at all?) or one split between two documents (which one?). Labels also teach
more spread across documents than piled on one, and a near-copy of a prompt already chosen
teaches nothing new. :func:`choose` ranks the prompts by the first two and picks greedily
under the last two; :func:`sheet_rows` writes each with gov's best guesses and an empty
``expected`` that ``gov calibrate`` skips until someone fills it in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ..errors import InputError
from ..routing.fusion import fuse

if TYPE_CHECKING:
    from ..routing.router import Router

# Two prompts closer than this (cosine of their embeddings) are near-copies.
NEAR_COPY = 0.9
# How many guesses a sheet row shows.
GUESSES = 3
# The largest prompts file or sheet read.
PROMPTS_LIMIT = 64 * 1024 * 1024
# What each earlier pick of the same best document takes off a prompt's value.
SPREAD = 0.35


@dataclass
class Candidates:
    """Every prompt's standing under the router's point: its best documents with their
    fused scores, its best gate score and the threshold, and why it is worth a label."""

    prompts: list[str]
    guesses: NDArray[np.intp]  # (prompts, GUESSES), -1 where fewer candidates
    fused: NDArray[np.float64]  # (prompts, GUESSES)
    gate: NDArray[np.float64] | None  # each prompt's best gate score (None: no gate)
    threshold: float | None
    value: NDArray[np.float64]
    near_gate: NDArray[np.float64]
    split: NDArray[np.float64]
    vectors: NDArray[np.float32] | None


def standing(router: Router, prompts: Sequence[str]) -> Candidates:
    """Score every prompt once and say how much its label would teach (``value``: nearness
    to the gate plus how evenly it is split between its two best documents, each 0 to 1)."""
    from .few import Examples, example_scores

    point = router.operating_point
    lexical, vectors = router.score_many(prompts)
    n = len(prompts)
    if vectors is not None:
        scores = example_scores(router, point, lexical, vectors, Examples.none(vectors.shape[1]))
        semantic, learned = scores.semantic, scores.learned
    else:
        semantic, learned = None, None
    fused = fuse(lexical, semantic, point, learned).fused
    take = min(GUESSES, fused.shape[1])
    order = np.argsort(-fused, axis=1, kind="stable")[:, :take]
    best = np.take_along_axis(fused, order, axis=1)
    guesses = np.where(best > 0.0, order, -1)
    if take < GUESSES:
        pad = GUESSES - take
        guesses = np.hstack([guesses, np.full((n, pad), -1)])
        best = np.hstack([best, np.zeros((n, pad))])
    first, second = best[:, 0], best[:, 1]
    split = np.where(first > 0.0, second / np.where(first > 0.0, first, 1.0), 0.0)
    gate = threshold = None
    near_gate = np.zeros(n)
    background = router.background
    if point.gate == "background" and background is not None and semantic is not None:
        gate = background.gate_scores(lexical, semantic, point).max(axis=1).astype(np.float64)
        threshold = background.threshold(point)[0]
        scale = float(np.std(gate)) or 1.0
        near_gate = np.exp(-np.abs(gate - threshold) / (0.5 * scale))
    value = near_gate + np.clip(split, 0.0, 1.0)
    return Candidates(list(prompts), guesses, best, gate, threshold, value, near_gate, split,
                      vectors)


def choose(candidates: Candidates, k: int) -> list[int]:
    """The ``k`` prompts (positions) whose labels would teach most: greedily the highest
    value, less ``SPREAD`` for each earlier pick with the same best document, never a
    near-copy of an earlier pick (or of an identical text)."""
    n = len(candidates.prompts)
    value = candidates.value.copy()
    top = candidates.guesses[:, 0]
    picked: list[int] = []
    available = np.ones(n, dtype=bool)
    seen_texts: set[str] = set()
    for row, prompt in enumerate(candidates.prompts):
        key = " ".join(prompt.lower().split())
        if key in seen_texts or not key:
            available[row] = False
        seen_texts.add(key)
    penalty = np.zeros(n)
    vectors = candidates.vectors
    while len(picked) < k and available.any():
        score = np.where(available, value - penalty, -np.inf)
        row = int(np.argmax(score))
        picked.append(row)
        available[row] = False
        if top[row] >= 0:
            penalty[top == top[row]] += SPREAD
        if vectors is not None:
            available &= (vectors @ vectors[row]) < NEAR_COPY
    return picked


def why(candidates: Candidates, row: int, names: Sequence[str]) -> str:
    """Why this prompt was chosen, in a few words."""
    first, second = candidates.guesses[row, 0], candidates.guesses[row, 1]
    reasons = []
    if candidates.gate is not None and candidates.threshold is not None:
        gate, threshold = float(candidates.gate[row]), candidates.threshold
        if candidates.near_gate[row] >= 0.5:
            side = "over" if gate >= threshold else "under"
            reasons.append(f"near the gate ({gate:.3f}, just {side} {threshold:.3f})")
    if first >= 0 and second >= 0 and candidates.split[row] >= 0.8:
        reasons.append(f"between {names[first]} and {names[second]}")
    return "; ".join(reasons) or "spread: a document few other picks reach"


def sheet_rows(router: Router, candidates: Candidates, picked: Sequence[int],
               records: Sequence[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The labelling sheet: each picked prompt (its input fields kept), gov's guesses with
    their fused scores, whether gov routes it now, why it was picked, and ``expected``
    null (a list of names once labelled, [] for a prompt no document governs)."""
    names = router.names
    rows = []
    for row in picked:
        guesses = [{"name": names[int(doc)], "score": round(float(score), 4)}
                   for doc, score in zip(candidates.guesses[row], candidates.fused[row],
                                         strict=True) if doc >= 0]
        out: dict[str, Any] = dict(records[row]) if records is not None else {}
        out["prompt"] = candidates.prompts[row]
        out["guesses"] = guesses
        if candidates.gate is not None and candidates.threshold is not None:
            out["gate"] = {"score": round(float(candidates.gate[row]), 4),
                           "threshold": round(candidates.threshold, 4)}
        out["why"] = why(candidates, row, names)
        out.setdefault("expected", None)
        rows.append(out)
    return rows


def read_prompts(path: Path) -> tuple[list[str], list[dict[str, Any]] | None]:
    """A file of real prompts: plain text (one per line) or JSONL with a ``prompt`` field
    (each record kept, so its other fields pass through to the sheet). Duplicates and blank
    lines are dropped; a bad record is an error naming the file, line and field."""
    from ..corpus.markdown import ParseProblem
    from ..corpus.walk import read_bounded
    from ..jsonl import decode_line

    try:
        data = read_bounded(path, PROMPTS_LIMIT, "a prompts file")
    except ParseProblem as exc:
        raise InputError(f"{path}: {exc}") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    lines = data.split(b"\n")
    first = next((line.strip() for line in lines if line.strip()), b"")
    jsonl = first.startswith(b"{")
    prompts: list[str] = []
    records: list[dict[str, Any]] = []
    seen: set[str] = set()
    for number, raw in enumerate(lines, start=1):
        raw = raw.rstrip(b"\r")
        if not raw.strip():
            continue
        if jsonl:
            line = decode_line(raw, number)
            if line.error is not None:
                raise InputError(f"{path} line {number}: {line.error}")
            if not isinstance(line.value, dict) or not isinstance(line.value.get("prompt"), str):
                raise InputError(f"{path} line {number}: field 'prompt' must be a string")
            record: dict[str, Any] = line.value
            prompt = record["prompt"]
        else:
            try:
                prompt = raw.decode("utf-8").strip()
            except UnicodeDecodeError as exc:
                raise InputError(f"{path} line {number}: not valid UTF-8 (byte {exc.start})"
                                 ) from None
            record = {"prompt": prompt}
        if not prompt.strip() or prompt in seen:
            continue
        seen.add(prompt)
        prompts.append(prompt)
        records.append(record)
    if not prompts:
        raise InputError(f"{path}: no prompts (one per line, or JSONL with a 'prompt' field)")
    return prompts, records if jsonl else None


def read_sheet(path: Path) -> list[dict[str, Any]]:
    """A labelling sheet written before (to resume it): JSONL rows with a ``prompt``."""
    from ..corpus.markdown import ParseProblem
    from ..corpus.walk import read_bounded
    from ..jsonl import read_lines

    try:
        data = read_bounded(path, PROMPTS_LIMIT, "a labelling sheet")
    except ParseProblem as exc:
        raise InputError(f"{path}: {exc}") from None
    rows: list[dict[str, Any]] = []
    for line in read_lines(data.splitlines(keepends=True)):
        if line.error is not None:
            raise InputError(f"{path} line {line.number}: {line.error}")
        if not isinstance(line.value, dict) or not isinstance(line.value.get("prompt"), str):
            raise InputError(f"{path} line {line.number}: field 'prompt' must be a string")
        expected = line.value.get("expected")
        if expected is not None and (not isinstance(expected, list)
                                     or not all(isinstance(n, str) for n in expected)):
            raise InputError(f"{path} line {line.number}: field 'expected' must be null or a "
                             "list of document names")
        rows.append(line.value)
    return rows


def write_sheet(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    """The sheet, replaced atomically (an interrupted save leaves the last one whole)."""
    from ..atomic import write_bytes_atomic
    from ..jsonl import dumps

    write_bytes_atomic(path, b"".join(dumps(row) for row in rows))
