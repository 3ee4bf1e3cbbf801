"""``gov route``: name the at most two documents that govern each prompt, or none."""

from __future__ import annotations

import sys
import tempfile
import time
from enum import Enum
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any

import typer

from gov.core.errors import InputError, UsageError

from .. import conventions, grammar, options, reporters
from ..options import CorpusOpt, IndexOpt, LexicalOnlyOpt, PointOpt
from ..resolve import open_index
from .route_lean import from_server, write_one

if TYPE_CHECKING:
    from gov.core.routing.router import Router

HELP = """Route prompts to the documents that govern them (at most two), or to nothing.

Give one PROMPT, or JSONL on stdin ({"prompt": ...} per line; every other field passes
through), or --text for one prompt per line. Each output object is the input plus
"routes": [{name, score, lexical, semantic, why}] (score: the fused score that orders the
routes; lexical and semantic: each scorer's own) and, when the model could not load,
"degraded": "lexical-only", and "notices" when routing may be off for this corpus. One
output line per input line, in order; a malformed line becomes {"error": {"line": N,
"message": ...}} and the command exits 1 at the end.

Silence always has a reason: --explain adds "explain" to each row (the nearest documents
with each signal's score: "fused" as routes are ordered, "gate" as the background gate
compares, and how far "under" the bar each was; the threshold and confidence floor in
force; the rule that decided; and, for an abstention, "next": what to change, such as an
example line for the nearest document or two overlapping documents to tell apart), and
text output shows it.

Example:

    gov route "roll back last night's release" -i .gov/index

    gov route --explain "rotate the stripe key that leaked" -i .gov/index

    gov route -i .gov/index < examples/labelled.jsonl | gov eval
"""



class OnError(str, Enum):
    continue_ = "continue"
    fail = "fail"


class Engine(str, Enum):
    local = "local"
    ray = "ray"


def register(app: typer.Typer) -> None:
    app.command("route", help=HELP)(route_command)


@options.shared(formats=grammar.ROUTE_FORMATS, tty=grammar.ROUTE_TTY, pipe=grammar.ROUTE_PIPE)
def route_command(
    prompt: Annotated[str | None, typer.Argument(help="The prompt to route (else read stdin).",
                                                 show_default=False)] = None,
    index: IndexOpt = None,
    corpus: CorpusOpt = None,
    operating_point: PointOpt = None,
    text: Annotated[bool, typer.Option("--text", help="Read one plain-text prompt per line.")] = False,
    exit_status: Annotated[bool, typer.Option(*grammar.EXIT_STATUS, help="Exit 1 when any prompt routed nothing.")] = False,
    on_error: Annotated[OnError, typer.Option("--on-error", help="continue (default) or fail at the first bad line.")] = OnError.continue_,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1, max=4096, help="Prompts embedded and scored per batch.")] = 32,
    lexical_only: LexicalOnlyOpt = False,
    explain: Annotated[bool, typer.Option("--explain", help="Also say, for each prompt, the nearest documents with each signal's score and how far under the bar each was, the threshold in force, the rule that routed or abstained, and for an abstention what to change (text output always does).")] = False,
    exact: Annotated[bool, typer.Option("--exact", help="Read every vector even when the index has an approximate-search graph (gov index --ann).")] = False,
    input_path: Annotated[Path | None, typer.Option("--input", help="Read JSONL (or --text lines, or a .parquet file's rows) from this file instead of stdin.", dir_okay=False)] = None,
    engine: Annotated[Engine, typer.Option("--engine", help="local (default), or ray: a Ray actor pool routes the JSONL (the ray extra: pip install '.[ray]' in gov's checkout).")] = Engine.local,
    actors: Annotated[int, typer.Option("--actors", min=1, help="Ray actors, each loading the index and model once (--engine ray).")] = 2,
    *,
    view: options.Output,
) -> int:
    out_format = view.format
    _check_inputs(prompt, text, input_path)
    if engine is Engine.ray:
        from .route_ray import route_on_ray

        return route_on_ray(prompt=prompt, text=text, out_format=out_format, index=index,
                            corpus=corpus, operating_point=operating_point,
                            lexical_only=lexical_only, input_path=input_path, actors=actors,
                            batch_size=batch_size, exit_status=exit_status,
                            fail_fast=on_error is OnError.fail)
    from gov.core import telemetry
    from gov.core.routing.pipeline import Item, parse_jsonl, parse_text

    start = telemetry.process_start() or time.perf_counter()
    telemetry.warn_on_loss()  # an unwritable or refused log is said once, not lost unseen
    explain = explain or out_format == "text"
    if (prompt is not None and out_format != "text" and not corpus and not lexical_only
            and not exact and not explain):
        from gov.core.index.locate import find_index

        served = from_server(prompt, find_index(str(index) if index else None),
                             str(operating_point) if operating_point else None)
        if served is not None:
            return write_one(prompt, served, out_format, exit_status, start)
    with telemetry.attempt("cli", start=start):  # records a failure to open the index
        loaded = open_index(index, corpus, operating_point, lexical_only, exact=exact)
    writer = _Writer(out_format, loaded)
    source = _open_input(input_path) if input_path is not None else sys.stdin.buffer
    items = ([Item(1, {"prompt": prompt}, None)] if prompt is not None
             else parse_text(source) if text else parse_jsonl(source))
    failed_rows, abstained = _route_rows(loaded, items, writer, one_shot=prompt is not None,
                                         start=start, batch_size=batch_size, explain=explain,
                                         fail_fast=on_error is OnError.fail)
    if loaded.degraded:
        conventions.warn(f"routing was lexical-only: {loaded.degraded_reason}")
    if failed_rows:
        conventions.error_line(f"{failed_rows} input line(s) were malformed; see the error rows")
        return 1
    if exit_status and abstained:
        return 1
    return 0


def _check_inputs(prompt: str | None, text: bool, input_path: Path | None) -> None:
    """One source of prompts: an argument, --input, or stdin, which must not be a terminal
    (a pipe that never comes would wait forever)."""
    if prompt is not None and text:
        raise UsageError("give a PROMPT argument or --text on stdin, not both")
    if prompt is not None and input_path is not None:
        raise UsageError("give a PROMPT argument or --input FILE, not both")
    if text and input_path is not None and input_path.suffix.lower() in (".parquet", ".pq"):
        raise UsageError("--text reads plain lines; a Parquet --input is read as rows (drop --text)")
    if prompt is None and input_path is None and conventions.is_tty(sys.stdin):
        raise UsageError('no prompt: give one as an argument, or pipe JSONL ({"prompt": ...} per line)'
                         " or --text lines on stdin")


def _route_rows(loaded: Any, items: Any, writer: _Writer, *, one_shot: bool, start: float,
                batch_size: int, explain: bool, fail_fast: bool) -> tuple[int, int]:
    """Route and write every row, one telemetry event each; returns the malformed rows and
    the abstentions. With ``fail_fast`` the first malformed row ends the run as an input
    error, once what came before it is written."""
    from gov.core import telemetry
    from gov.core.routing.pipeline import stream

    failed_rows = 0
    abstained = 0
    # One event per row. A one-shot prompt is timed from process start ("cli"); a streamed
    # row gets its share of its batch, from the batch's start to its last row written
    # ("cli-stream"), so batch figures stay per prompt and apart from one-shot ones.
    adapter: telemetry.Adapter = "cli" if one_shot else "cli-stream"
    batch: list[telemetry.Attempt] = []

    def close_batch() -> None:
        if batch:
            share = telemetry.delivered_ms(batch[0].start) / len(batch)
            for pending in batch:
                pending.stop(share if adapter == "cli-stream" else None)
                pending.close()
            batch.clear()

    for routed in stream(loaded, items, batch_size=batch_size, explain=explain):
        batch_start = start if one_shot else routed.started
        if batch and batch[0].start != batch_start:
            close_batch()
        attempt = telemetry.attempt(adapter, start=batch_start)
        batch.append(attempt)
        if routed.answer is not None:
            if not routed.answer.routes:
                abstained += 1
            attempt.answered(routed.answer)
            try:
                writer.write(routed.row())
            except BaseException as exc:
                attempt.fail(exc)
                close_batch()
                raise
        else:
            failed_rows += 1
            attempt.fail("input")
            writer.write(routed.row())
            if fail_fast:
                close_batch()
                writer.close()
                raise InputError(f"stdin line {routed.item.line}: {routed.item.problem}")
    close_batch()
    writer.close()
    return failed_rows, abstained


def _open_input(path: Path) -> IO[bytes]:
    """The --input file; a Parquet file is read as the JSONL of its rows."""
    from gov.core.serving.parquet_input import is_parquet, parquet_to_jsonl

    if not path.is_file():
        raise UsageError(f"--input {path}: no such file")
    if not is_parquet(path):
        return path.open("rb")
    spool = tempfile.TemporaryFile()  # noqa: SIM115 (returned: the command reads it to the end)
    parquet_to_jsonl(path, spool)
    spool.seek(0)
    return spool


class RowView:
    """One routed row: the JSON ``gov route`` writes, or its routes and evidence for people."""

    __slots__ = ("degraded_index", "row")

    def __init__(self, row: dict[str, Any], degraded_index: bool = False) -> None:
        self.row = row
        self.degraded_index = degraded_index

    def json(self) -> Any:
        return self.row

    def text(self, out: Any) -> None:
        row = self.row
        from ..reporters import shown

        if "error" in row:
            out.print(f"[red]line {row['error']['line']}: {shown(str(row['error']['message']))}[/]")
            return
        out.print(f"[bold]{shown(str(row['prompt']))}[/]")
        if row.get("degraded") and not self.degraded_index:
            out.print("  [yellow](degraded: lexical-only)[/]")
        explained = row.get("explain") or {}
        if not row["routes"]:
            out.print("  [dim]no document governs this prompt[/]")
        for rank, route in enumerate(row["routes"], start=1):
            scores = []
            if route["lexical"] is not None:
                scores.append(f"lexical {route['lexical']:.2f}")
            if route["semantic"] is not None:
                scores.append(f"semantic {route['semantic']:.2f}")
            out.print(f"  {rank}. [green]{shown(route['name'])}[/]  fused {route['score']:.4f}"
                      f" ({', '.join(scores) or 'dependency'})")
            if route["why"]:
                out.print(f"     [dim]{shown(route['why'])}[/]")
        if explained.get("reason"):
            out.print(f"  [dim]{shown(explained['reason'])}[/]")
        if not row["routes"]:
            for line in abstention_lines(explained):
                out.print(f"  [dim]{shown(line)}[/]")


def abstention_lines(explained: dict[str, Any]) -> list[str]:
    """An abstention for people: the bar, the nearest documents by the score the bar was
    compared with and how far under it each was, and what to change. Numbers carry three
    decimals and the gap is printed, so "under" is always visible."""
    lines = []
    gate = explained.get("gate")
    decided = explained.get("decided")
    if gate is not None:
        lines.append(f"gate {gate['best']:.3f} < threshold {gate['threshold']:.3f}"
                     if gate["best"] < gate["threshold"]
                     else f"gate {gate['best']:.3f} >= threshold {gate['threshold']:.3f}")
    confidence = explained.get("confidence")
    if (confidence is not None and confidence.get("floor") is not None
            and (decided == "confidence" or confidence["value"] < confidence["floor"])):
        value, floor = confidence["value"], confidence["floor"]
        relation = "<" if value < floor else ">="
        lines.append(f"confidence {value:.3f} {relation} floor {floor:.3f}")
    nearest = explained.get("nearest") or []
    if nearest:
        lines.append("nearest:")
        for item in nearest:
            measured = (f"gate {item['gate']:.3f}" if item.get("gate") is not None
                        else f"fused {item['fused']:.3f}")
            gap = f", {item['under']:.3f} under" if item.get("under") is not None else ""
            if decided == "floors" and item.get("under") is not None:
                gap += " the floors"
            lines.append(f"  {item['name']}  {measured}{gap}")
    steps = explained.get("next") or []
    lines.extend(f"next: {_relative(step)}" for step in steps)
    return lines


def _relative(text: str) -> str:
    """``text`` with the current folder's absolute path taken off the files it names."""
    here = str(Path.cwd())
    return text.replace(here.rstrip("/") + "/", "") if here != "/" else text


class _Writer:
    """Rows to the chosen reporter; in text, the index's notices come first."""

    def __init__(self, out_format: str, loaded: Router) -> None:
        self.reporter = reporters.reporter(out_format)
        self.index = loaded
        self.text = out_format == "text"
        self.shown_notices = False

    def write(self, row: dict[str, Any]) -> None:
        if self.text and not self.shown_notices:
            self.shown_notices = True  # on stderr, once: the rows are the answer
            for reason in self.index.notices:
                conventions.notice(f"routing may be off for this corpus: {reason}")
            if self.index.degraded:
                conventions.notice(f"degraded: lexical-only ({self.index.degraded_reason})")
        self.reporter.item(RowView(row, self.index.degraded is not None))

    def close(self) -> None:
        self.reporter.close()
