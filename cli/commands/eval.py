"""``gov eval``: routing quality from routed, labelled JSONL."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from gov.core.errors import InputError, UsageError

from .. import conventions, options, reporters

HELP = """Measure routing quality: recall, precision, F1, top-1, false alarms, per kind.

Reads the JSONL that gov route writes for labelled prompts: each row keeps its
"expected": [names] ([] marks a prompt no document governs) and optionally "sibling":
[names], "family" and "kind". Prints a table, or --format json. With -i, also names the
expected documents the index does not have, and warns about prompts the index's point
learned from. Near misses (positives that routed nothing) are listed with what they came
nearest to when the rows were routed with --explain.

Labels may name source files instead of documents (--by source, with -i): each expected
path matches the documents whose source file it names, one path being a suffix of the
other at a folder boundary (cct/skills/x/SKILL.md matches skills/x/SKILL.md), so an index
built from any folder scores labels written against a library's paths.

Example:

    gov route -i .gov/index < examples/labelled.jsonl | gov eval

    gov route -i lib.idx < labelled.jsonl | gov eval --by source -i lib.idx

    gov route -i .gov/index --explain < examples/labelled.jsonl | gov eval
"""

COLUMNS = (
    ("rows", "rows"), ("top1", "top-1"), ("recall_at_2", "recall@2"), ("precision", "precision"),
    ("f1", "F1"), ("false_alarm_rate", "false alarms"), ("silent_rate", "silent"),
    ("harmful_sibling_rate", "sibling"),
)


def register(app: typer.Typer) -> None:
    app.command("eval", help=HELP)(eval_command)


@options.shared(formats=("text", "json"), tty="text", pipe="text")
def eval_command(
    source: Annotated[Path | None, typer.Argument(help="Routed JSONL file (default: stdin).",
                                                  show_default=False)] = None,
    index: Annotated[Path | None, typer.Option(
        "--index", "-i", help="Index whose document names the labels should use.",
        dir_okay=False)] = None,
    by: Annotated[str, typer.Option("--by", metavar="name|source", help="What the labels name: documents (name, the default) or their source files (source; needs -i).")] = "name",
    *,
    view: options.Output,
) -> int:
    if source is None and conventions.is_tty(sys.stdin):
        raise UsageError("no input: pipe the output of gov route over labelled prompts, "
                         "e.g. gov route -i IDX < labelled.jsonl | gov eval")
    if by not in ("name", "source"):
        raise UsageError(f"--by must be name or source, not {by!r}")
    if by == "source" and index is None:
        raise UsageError("--by source needs -i INDEX: the index maps documents to their files")
    from gov.core.calibration.metrics import SourceLabels, evaluate_jsonl

    known = None
    sources = None
    learned: frozenset[str] = frozenset()
    if index is not None:
        from gov.core.index.fileformat import read_header
        from gov.core.index.stored import read_document_names

        known = read_document_names(index)
        stored_point = read_header(index).get("operating_point") or {}
        learned = frozenset((stored_point.get("learned") or {}).get("texts") or ())
        if by == "source":
            from gov.core.index.stored import open_stored

            sources = SourceLabels((doc.name, doc.source) for doc in open_stored(index).documents)
    where_name = str(source) if source is not None else "stdin"
    try:
        stream = source.open("rb") if source is not None else sys.stdin.buffer
    except OSError as exc:
        raise InputError(f"{source}: cannot read: {exc.strerror or exc}") from None
    with stream:
        report = evaluate_jsonl(stream, shown=where_name, known_names=known,
                                learned_prompts=learned, sources=sources)
    errors = report.errors
    if report.learned_from:
        conventions.warn(f"{report.learned_from} of the prompts were learned from by the index's "
                         "operating point (gov calibrate --learn): their figures are not held out")
    if errors:
        conventions.warn(f"{errors} row(s) were route errors and are not counted")
    if report.unknown_names:
        what = "paths" if sources is not None else "names"
        conventions.warn(f"expected {what} the index has no document for (they can never be "
                         f"found): {', '.join(report.unknown_names)}")
    reporters.report(view.format, EvalView(report.to_json()))
    return 0


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


class EvalView:
    """The figures as JSON, or as a table for people."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def json(self) -> Any:
        return self.data

    def text(self, console: Any) -> None:
        _table(console, self.data)


def _table(out: Any, data: dict[str, Any]) -> None:
    from rich.markup import escape
    from rich.table import Table

    table = Table(title="routing quality", title_justify="left")
    table.add_column("kind")
    for _, label in COLUMNS:
        table.add_column(label, justify="right")
    for kind, metrics in data["kinds"].items():
        table.add_row(kind, *(_cell(metrics[key]) for key, _ in COLUMNS))
    table.add_row("all", *(_cell(data["overall"][key]) for key, _ in COLUMNS), style="bold")
    out.print(table)
    overall = data["overall"]
    out.print(f"recall@1 {_cell(overall['recall_at_1'])}, recall (all routes) "
              f"{_cell(overall['recall'])}, routes per prompt {_cell(overall['routes_per_prompt'])}"
              + (f", recall with dependencies {_cell(overall['recall_with_dependencies'])}"
                 if "recall_with_dependencies" in overall else ""))
    if overall["negatives"] == 0:
        out.print("no negatives (expected: []): the false-alarm rate is unmeasured")
    misses = data.get("near_misses") or []
    if misses:
        out.print(f"near misses (positives that routed nothing; {len(misses)} shown):")
        for miss in misses[:20]:
            near = ", ".join(miss["nearest"]) or "route with --explain to see"
            out.print(f"  {escape(str(miss['prompt'])[:70])}  expected {', '.join(miss['expected'])}; "
                      f"nearest: {escape(near)}")
    confused = {family: info for family, info in data["families"].items() if info["wrong_routes"]}
    if confused:
        out.print("family confusion (wrong documents routed for prompts of each family):")
        for family, info in confused.items():
            top = list(info["wrong_routes"].items())[:5]
            wrong = ", ".join(f"{name} ×{count}" for name, count in top)
            out.print(f"  {family} ({info['rows']} prompts, top-1 {_cell(info['top1'])}): {wrong}")
