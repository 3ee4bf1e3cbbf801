"""``gov telemetry report``: read the route telemetry log and say whether routing works."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any

import typer

from gov.core.errors import InputError, UsageError

from .. import conventions, options, reporters

if TYPE_CHECKING:
    from rich.console import Console

HELP = """Route telemetry: what gov routed, abstained on and failed at.

Telemetry is off by default; set GOV_TELEMETRY_PATH=FILE where agents run gov and each
route attempt appends one JSON line to FILE (outcome, latencies, document names; never
prompt text or paths).

Example:

    export GOV_TELEMETRY_PATH=~/.local/state/gov/telemetry.jsonl

    gov telemetry report --since 7d -i .gov/index
"""

REPORT_HELP = """Summarize a telemetry log: outcomes, failures, latency, documents, reads, days.

Reads FILE (default: $GOV_TELEMETRY_PATH), or stdin with '-'. Shows the counts and shares
of routed, abstained, failed (by class) and degraded attempts; delivered latency p50,
p90 and p99 and the warm route p50, overall and per adapter; the most-routed documents;
whether the agent read what was routed (read after routing, read unrouted, routed but
never read, the read rate per document and per day) and a short list of what to fix; and,
given the index (-i) or the corpus (--corpus), the documents NEVER ROUTED. With -i only
that index's events count (--all-indexes: every index's). Text shows the first 20 names
of a list and counts the rest (--all lists them). Torn or foreign
lines are counted and skipped. Exits 1 when there are no events: no events is not the
same as healthy.

Example:

    gov telemetry report ~/.local/state/gov/telemetry.jsonl -i .gov/index --since 7d

    gov telemetry report - --format json < telemetry.jsonl | jq .outcomes
"""

PICTURE_DAYS = 31
SHOWN_NAMES = 20  # names of a list shown in text before the rest are counted (--all: all)
BAR = 40


def register(app: typer.Typer) -> None:
    group = typer.Typer(
        name="telemetry",
        help=HELP,
        no_args_is_help=True,
        add_completion=False,
        rich_markup_mode=None,
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    group.command("report", help=REPORT_HELP)(report_command)
    app.add_typer(group, name="telemetry")


@options.shared(formats=("text", "json"), tty="text", pipe="text")
def report_command(
    log: Annotated[
        str | None,
        typer.Argument(metavar="[FILE|-]", show_default=False,
                       help="The JSONL log (default: $GOV_TELEMETRY_PATH); '-' reads stdin."),
    ] = None,
    index: Annotated[
        Path | None,
        typer.Option("--index", "-i", dir_okay=False,
                     help="Index whose document names give the NEVER ROUTED list."),
    ] = None,
    corpus: Annotated[
        Path | None,
        typer.Option("--corpus", help="Corpus folder whose document names give NEVER ROUTED."),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option("--since", help="Only events from then on: 7d, 24h, 30m, a date "
                                     "(2026-12-01) or an RFC 3339 time."),
    ] = None,
    top: Annotated[
        int, typer.Option("--top", min=1, max=1000, help="How many most-routed documents.")
    ] = 10,
    all_indexes: Annotated[
        bool, typer.Option("--all-indexes", help="With -i, count every index's events, not only "
                                                 "that index's.")
    ] = False,
    all_names: Annotated[
        bool, typer.Option("--all", help=f"List every document never routed (text shows the "
                                         f"first {SHOWN_NAMES} and counts the rest; JSON always "
                                         "lists them all).")
    ] = False,
    *,
    view: options.Output,
) -> int:
    from gov.core.telemetry.report import parse_since, summarize

    if index is not None and corpus is not None:
        raise UsageError("give -i INDEX or --corpus DIR for the document names, not both")
    try:
        start = parse_since(since) if since is not None else None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    names, fingerprint = _document_names(index, corpus)
    with _log_stream(log) as stream:
        report = summarize(stream, names=names, since=start, top=top,
                           fingerprint=None if all_indexes else fingerprint)
    reporters.report(view.format, ReportView(report, all_names))
    return 0 if report["events"] else 1


class ReportView:
    """The report as JSON, or as tables and charts for people."""

    def __init__(self, report: dict[str, Any], all_names: bool = False) -> None:
        self.report = report
        self.all_names = all_names

    def json(self) -> Any:
        return self.report

    def text(self, console: Any) -> None:
        _draw(console, self.report, self.all_names)


def _document_names(index: Path | None, corpus: Path | None) -> tuple[list[str] | None, str | None]:
    """The corpus's document names and fingerprint (which index's events to count)."""
    if index is not None:
        from gov.core.index.fileformat import read_header
        from gov.core.index.stored import read_document_names

        corpus_header = read_header(index).get("corpus") or {}
        return read_document_names(index), corpus_header.get("fingerprint")
    if corpus is not None:
        from gov.core.corpus.reader import load_corpus

        loaded = load_corpus([corpus], warn=conventions.warn)
        return [doc.name for doc in loaded.documents], None  # names only: any index's events
    return None, None


@contextlib.contextmanager
def _log_stream(log: str | None) -> Iterator[IO[bytes]]:
    """The log as a binary line stream: FILE, stdin for '-', else $GOV_TELEMETRY_PATH."""
    if log is None:
        log = os.environ.get("GOV_TELEMETRY_PATH", "").strip() or None
        if log is None:
            raise UsageError(
                "no log given: name a FILE, pipe it with '-', or set GOV_TELEMETRY_PATH"
            )
        log = os.path.expanduser(log)
    if log == "-":
        yield sys.stdin.buffer
        return
    try:
        handle = open(log, "rb", buffering=1 << 20)  # noqa: SIM115 - closed below
    except FileNotFoundError:
        raise InputError(
            f"no telemetry log at {log}", hint="no events is not the same as healthy: "
            "is GOV_TELEMETRY_PATH set where the agents run gov?"
        ) from None
    except IsADirectoryError:
        raise InputError(f"{log} is a folder, not a telemetry log") from None
    except PermissionError:
        raise InputError(f"cannot read {log}: permission denied") from None
    with handle:
        yield handle


# --- drawing ------------------------------------------------------------------------


def _count(n: int) -> str:
    return f"{n:,}"


def _pct(share: float | None) -> str:
    return "-" if share is None else f"{share:.1%}"


def _ms(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.0f}" if value >= 100 else f"{value:.1f}" if value >= 1 else f"{value:.3f}"


def _bar(count: int, peak: int, width: int = BAR) -> str:
    if not count:
        return ""
    cells = count / peak * width
    eighths = round(cells * 8)
    return "█" * (eighths // 8) + ("▏▎▍▌▋▊▉"[eighths % 8 - 1] if eighths % 8 else "") or "▏"


def _names(names: list[str], all_names: bool) -> str:
    """Names for people: the first SHOWN_NAMES, the rest counted (all with --all)."""
    from gov.core.sanitize import capped

    from ..reporters import shown

    return capped([shown(name) for name in names], len(names) if all_names else SHOWN_NAMES,
                  "--all lists them")


def _draw(out: Console, report: dict[str, Any], all_names: bool = False) -> None:
    from rich import box
    from rich.table import Table

    from ..reporters import shown

    total = report["events"]
    span = ""
    if total:
        first, last = (shown(report[key][:16].replace("T", " ")) for key in ("first", "last"))
        span = f", {first} to {last} UTC"
    since = f" since {report['since'][:19].replace('T', ' ')} UTC" if report["since"] else ""
    out.print(f"[bold]gov telemetry[/]: {_count(total)} events{since}{span}")
    if not total:
        _draw_notes(out, report)
        return

    outcomes = Table(box=box.SIMPLE_HEAD, title="Outcomes", title_justify="left", pad_edge=False)
    outcomes.add_column("outcome")
    outcomes.add_column("events", justify="right")
    outcomes.add_column("share", justify="right")
    styles = {"routed": "green", "abstained": "yellow", "failed": "red"}
    for outcome, row in report["outcomes"].items():
        outcomes.add_row(f"[{styles[outcome]}]{outcome}[/]", _count(row["count"]),
                         _pct(row["share"]))
        if outcome == "failed":
            for cls, sub in report["failed_by_class"].items():
                outcomes.add_row(f"  {cls}", _count(sub["count"]), _pct(sub["share"]))
    degraded = report["degraded"]
    outcomes.add_row("degraded", _count(degraded["count"]), _pct(degraded["share"]))
    out.print(outcomes)

    latency = report["latency_ms"]
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, title_justify="left",
                  title=f"Latency, ms (within {latency['max_relative_error']:.0%})")
    for column in ("", "events", "p50", "p90", "p99", "max"):
        table.add_column(column, justify="left" if not column else "right")
    for label, key in (("delivered", "delivered"), ("warm route", "warm_route")):
        row = latency[key]
        table.add_row(label, _count(row["count"]), _ms(row["p50"]), _ms(row["p90"]),
                      _ms(row["p99"]), _ms(row["max"]))
    if len(latency["by_adapter"]) > 1:
        for adapter, rows in latency["by_adapter"].items():
            row = rows["delivered"]
            table.add_row(f"  delivered, {adapter}", _count(row["count"]), _ms(row["p50"]),
                          _ms(row["p90"]), _ms(row["p99"]), _ms(row["max"]))
    out.print(table)
    if latency["warm_share_of_delivered_p50"] is not None:
        out.print(f"Warm routing is {latency['warm_share_of_delivered_p50']:.1%} of delivered "
                  "latency at p50; the rest is start-up, loading and output.\n")
    _draw_histogram(out, report["delivered_histogram"])
    _draw_days(out, report["days"])

    documents = report["documents"]
    of = f" of {documents['corpus_size']}" if documents["corpus_size"] is not None else ""
    out.print(f"[bold]Documents[/]: {documents['routed_at_least_once']}{of} routed at least once")
    if documents["top"]:
        table = Table(box=box.SIMPLE_HEAD, pad_edge=False, title="Most routed",
                      title_justify="left")
        table.add_column("document")
        table.add_column("routes", justify="right")
        table.add_column("of routed", justify="right")
        for row in documents["top"]:
            table.add_row(shown(row["name"]), _count(row["count"]), _pct(row["share_of_routed"]))
        out.print(table)
    if documents["never_routed"]:
        out.print(f"[bold red]NEVER ROUTED[/] ({len(documents['never_routed'])}): "
                  + _names(documents["never_routed"], all_names))
    elif documents["never_routed"] is not None:
        out.print("Every document was routed at least once.")
    else:
        out.print("[dim]Give -i INDEX or --corpus DIR to list the documents never routed.[/]")
    if documents["not_in_corpus"]:
        out.print("Routed but not in this corpus: "
                  + _names(documents["not_in_corpus"], all_names))
    out.print()
    _draw_reads(out, report)
    _draw_notes(out, report)


def _draw_reads(out: Console, report: dict[str, Any]) -> None:
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    reads = report["reads"]
    overall = reads["overall"]
    if not overall["routed"] and not overall["read_unrouted"]:
        return
    delay = reads["delay"]
    out.print(f"[bold]Was the route read?[/] {_count(overall['read_after_routing'])} of "
              f"{_count(overall['routed'])} route episodes read ({_pct(overall['read_rate'])}); "
              f"{_count(overall['routed_never_read'])} never read; "
              f"{_count(overall['read_unrouted'])} unrouted reads (a document opened in a session "
              "where gov had not routed it)"
              + (f"; read {delay['turns_p50']} turns / {delay['seconds_p50']:.0f} s after the "
                 "route (median)" if delay["turns_p50"] is not None
                 and delay["seconds_p50"] is not None else ""))
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, title="Read rate per document",
                  title_justify="left")
    for column in ("document", "routed", "read", "never read", "read unrouted", "read rate"):
        table.add_column(column, justify="left" if column == "document" else "right")
    for row in reads["documents"][:20]:
        table.add_row(escape(row["name"]), _count(row["routed"]),
                      _count(row["read_after_routing"]), _count(row["routed_never_read"]),
                      _count(row["read_unrouted"]), _pct(row["read_rate"]))
    out.print(table)
    if len(reads["days"]) > 1:
        out.print("Read rate per day: " + ", ".join(
            f"{day['day']} {_pct(day['read_rate'])}" for day in reads["days"][-PICTURE_DAYS:]))
    if report["fix"]:
        out.print("[bold]What to fix[/]")
        for number, item in enumerate(report["fix"], start=1):
            out.print(f"  {number}. {escape(item['name'])}: {item['message']}")
    out.print()


def _draw_histogram(out: Console, buckets: list[dict[str, Any]]) -> None:
    if not buckets:
        return
    out.print("[bold]Delivered latency[/]")
    peak = max(bucket["count"] for bucket in buckets)
    labels = []
    for bucket in buckets:
        low, high = bucket["from_ms"], bucket["to_ms"]
        labels.append(f"{low:g}+ ms" if high is None else f"{low:g}-{high:g} ms")
    width = max(len(label) for label in labels)
    for label, bucket in zip(labels, buckets, strict=True):
        out.print(f"  {label:>{width}} │[cyan]{_bar(bucket['count'], peak):<{BAR}}[/] "
                  f"{_count(bucket['count'])}")
    out.print()


def _draw_days(out: Console, days: list[dict[str, Any]]) -> None:
    if not days:
        return
    shown = days[-PICTURE_DAYS:]
    earlier = f" (last {PICTURE_DAYS} of {len(days)} days)" if len(days) > PICTURE_DAYS else ""
    out.print(f"[bold]Per day, UTC[/]{earlier}: [green]█ routed[/]  [yellow]▒ abstained[/]  "
              "[red]░ failed[/]")
    peak = max(day["routed"] + day["abstained"] + day["failed"] for day in shown)
    for day in shown:
        total = day["routed"] + day["abstained"] + day["failed"]
        cells = [round(day[key] / peak * BAR) if day[key] else 0
                 for key in ("routed", "abstained", "failed")]
        cells = [max(cell, 1) if day[key] else 0
                 for cell, key in zip(cells, ("routed", "abstained", "failed"), strict=True)]
        pad = " " * max(0, BAR + 2 - sum(cells))
        out.print(f"  {day['day']} │[green]{'█' * cells[0]}[/][yellow]{'▒' * cells[1]}[/]"
                  f"[red]{'░' * cells[2]}[/]{pad} {_count(total)}"
                  + (f"  [red]{_count(day['failed'])} failed[/]" if day["failed"] else ""))
    out.print()


def _draw_notes(out: Console, report: dict[str, Any]) -> None:
    from ..reporters import shown

    for note in report["notes"]:
        out.print(f"[bold]•[/] {shown(note)}")
