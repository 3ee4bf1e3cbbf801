"""``gov calibrate``: choose the operating point from labelled prompts, and say why."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from gov.core.errors import UsageError

from .. import conventions, options, reporters
from ..options import IndexOpt
from ..resolve import open_index

HELP = """Choose an operating point (floors, fusion, confidence threshold, second-route rule)
from labelled prompts on stdin: {"prompt": ..., "expected": [names]} per line, [] for a
prompt no document governs.

With fewer than 200 labelled prompts (unless --refit) the label-free point moves only as far
as held-out folds of the labels support: labelled governed prompts become example lines of
their documents first, then the gate moves if the folds gain; a one-line summary says what was
kept and added, the expected top-1 change, and whether --max-fa is proven (an upper bound on
the false-alarm rate from the ungoverned labels) or how many more ungoverned labels it needs.
Rows whose "expected" is null or absent (a `gov label` sheet not yet filled in) are skipped
and counted.

With more labels, each prompt is scored once; the grid is evaluated by selection alone. Every
row is printed and the winner marked. The rule: (1) zero false alarms on the negatives is a hard gate
(--max-fa relaxes it), (2) then the highest F1, (3) ties go to the quieter point. No
survivor: exit 1. --learn also keeps the labelled positives as example surfaces and a
classifier over embeddings (cross-fitted while measuring), in an array file beside --out.

Example:

    gov calibrate -i .gov/index --out point.json < examples/labelled.jsonl

    gov route -i .gov/index --operating-point point.json < new.jsonl | gov eval
"""


def register(app: typer.Typer) -> None:
    app.command("calibrate", help=HELP)(calibrate_command)


def _floats(value: str | None, option: str) -> list[float] | None:
    if value is None:
        return None
    try:
        values = [float(part) for part in value.split(",") if part.strip()]
    except ValueError:
        raise UsageError(f"{option}: give comma-separated numbers, e.g. 0.1,0.2") from None
    if not values or any(v < 0 for v in values):
        raise UsageError(f"{option}: give one or more non-negative numbers")
    return values


@options.shared(formats=("text", "json"), tty="text", pipe="text")
def calibrate_command(
    index: IndexOpt = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", dir_okay=False,
        help="Write the winning point here (JSON; --learn adds STEM.learned.npz beside it).",
    )] = None,
    corpus_id: Annotated[str | None, typer.Option(
        "--corpus-id", help="The corpus's name in the point's provenance (default: its roots).",
    )] = None,
    max_fa: Annotated[float, typer.Option(
        "--max-fa", min=0.0, max=1.0, help="False-alarm rate the gate allows (default 0).",
    )] = 0.0,
    learn: Annotated[bool, typer.Option(
        "--learn", help="Keep the positives as example surfaces; fit a classifier on them.",
    )] = False,
    lexical_floors: Annotated[str | None, typer.Option(
        "--lexical-floors", help="Comma-separated lexical floors to try.")] = None,
    semantic_floors: Annotated[str | None, typer.Option(
        "--semantic-floors", help="Comma-separated semantic floors to try.")] = None,
    no_confidence: Annotated[bool, typer.Option(
        "--no-confidence", help="Learn no confidence model or abstention threshold.")] = False,
    refit: Annotated[bool, typer.Option(
        "--refit", help="Search the full grid even with fewer than 200 labelled prompts, "
                        "instead of moving the label-free point.")] = False,
    *,
    view: options.Output,
) -> int:
    if learn and out is None:
        raise UsageError("--learn needs --out FILE: what it learns is saved beside the point")
    if conventions.is_tty(sys.stdin):
        raise UsageError("no labelled prompts: pipe JSONL on stdin "
                         '({"prompt": ..., "expected": [names]} per line)')
    from gov.core.calibration import grid
    from gov.core.calibration.calibrate import calibrate_index
    from gov.core.calibration.labelled import read_labelled_jsonl

    labelled = read_labelled_jsonl(sys.stdin.buffer)
    if labelled.unlabelled:
        conventions.notice(f"skipped {labelled.unlabelled} rows with no 'expected' yet")
    loaded = open_index(index)
    if labelled.negatives == 0:
        conventions.warn("the labelled set has no negatives (expected: []): the false-alarm rate "
                         "is unmeasured")
    run = calibrate_index(
        loaded, labelled, out=out, corpus_id=corpus_id, max_fa=max_fa, learn=learn,
        lexical_floors=_floats(lexical_floors, "--lexical-floors") or grid.LEXICAL_FLOORS,
        semantic_floors=_floats(semantic_floors, "--semantic-floors") or grid.SEMANTIC_FLOORS,
        confidence=not no_confidence, refit=refit, progress=conventions.notice)
    if run.unknown_names:
        conventions.warn(f"expected names the index has no document for: "
                         f"{', '.join(run.unknown_names[:10])}")
    result, point = run.result, run.point
    timing = {"score_seconds": round(run.score_seconds, 3),
              "grid_seconds": round(run.grid_seconds, 3)}
    reporters.report(view.format, CalibrationView(result, point, timing, len(labelled.prompts)))
    if result.winner is None:
        conventions.error_line(
            f"no operating point survives the gate (false alarms <= {max_fa:g} with F1 > 0); "
            "every row is above. Add example lines to the documents, relax --max-fa, "
            "or try --learn")
        return 1
    conventions.notice(run.summary if run.summary is not None else _summary(result))
    if run.written:
        conventions.notice("wrote " + " and ".join(str(path) for path in run.written))
    else:
        conventions.notice("pass --out FILE to save the winner")
    return 0


def _summary(result: Any) -> str:
    """The winner in one line, and what it gave up: the positives it leaves silent, and the
    best F1 a louder point reached by letting false alarms through."""
    from gov.core.calibration.grid import describe

    row = result.winner.row()
    head = (f"winner: {row['fusion']}, {row['semantic_pool']} pooling, floors "
            f"{row['lexical_floor']:g}/{row['semantic_floor']:g}, second route "
            f"{_second_rule(row)}: F1 {describe(row['f1'])}, top-1 {describe(row['top1'])}, "
            f"false alarms {describe(row['false_alarm_rate'])}")
    gave = f"; it stays silent on {describe(row['silent_rate'])} of the positives"
    louder = max((outcome for outcome in result.rows if not outcome.passes_gate),
                 key=lambda outcome: outcome.metrics["f1"] or 0.0, default=None)
    if louder is not None and (louder.metrics["f1"] or 0.0) > (result.winner.metrics["f1"] or 0.0):
        gave += (f"; the best F1 past the gate was {describe(louder.metrics['f1'])} at false "
                 f"alarms {describe(louder.metrics['false_alarm_rate'])}")
    return head + gave


def _second_rule(row: dict[str, Any]) -> str:
    """When a second document routes: at a share of the first's score, or at a least
    classifier probability ("p"), or whenever there is one ("any")."""
    if row["top_k"] < 2:
        return "-"
    parts = []
    if row["second_ratio"] > 0:
        parts.append(f"≥{row['second_ratio']:.2f}×1st")
    if row["second_learned_floor"] > 0:
        parts.append(f"p≥{row['second_learned_floor']:.2f}")
    return " & ".join(parts) or "any"


class CalibrationView:
    """Every grid row, the winner and the timing: JSON, or the table for people."""

    def __init__(self, result: Any, point: Any, timing: dict[str, float], prompts: int) -> None:
        self.result, self.point, self.timing, self.prompts = result, point, timing, prompts

    def json(self) -> Any:
        result = self.result
        return {
            "rule": result.rule,
            "rows": [outcome.row() | {"winner": outcome is result.winner}
                     for outcome in result.rows],
            "evaluated": result.evaluated,
            "winner": self.point.to_json() if self.point is not None else None,
            "notes": result.notes,
            **self.timing,
        }

    def text(self, console: Any) -> None:
        _table(console, self.result, self.timing, self.prompts)


def _table(out: Any, result: Any, timing: dict[str, float], prompts: int) -> None:
    from rich.table import Table

    from gov.core.calibration.grid import describe

    out.print(f"rule: {result.rule}")
    for note in result.notes:
        out.print(f"[yellow]note:[/] {note}")
    table = Table(title_justify="left")
    for label in ("", "fusion", "pool", "lex floor", "sem floor", "top k", "2nd route", "min conf",
                  "false alarms", "top-1", "recall", "precision", "F1", "routes/prompt"):
        table.add_column(label, justify="left" if label in ("", "fusion", "pool") else "right")
    for outcome in result.rows:
        row = outcome.row()
        mark = "★" if outcome is result.winner else ("" if outcome.passes_gate else "✗")
        table.add_row(
            mark, row["fusion"],
            row["semantic_pool"] + (f" +body ×{row['body_surfaces']:g}" if row["body_surfaces"] else ""),
            f"{row['lexical_floor']:.2f}",
            f"{row['semantic_floor']:.2f}",
            str(row["top_k"]), _second_rule(row),
            "-" if row["min_confidence"] is None else f"{row['min_confidence']:.3f}",
            describe(row["false_alarm_rate"]), describe(row["top1"]), describe(row["recall"]),
            describe(row["precision"]), describe(row["f1"]), describe(row["routes_per_prompt"]),
            style="bold green" if outcome is result.winner else None,
        )
    out.print(table)
    out.print("each row shows its best threshold and second-route rule; ★ winner, ✗ fails the "
              f"gate. {result.evaluated} points over {prompts} prompts: scored in "
              f"{timing['score_seconds']:.1f}s, searched in {timing['grid_seconds']:.1f}s")
