"""``gov doctor``: check the installation and say what to fix; the checks live in core."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from .. import conventions, options, reporters
from ..options import IndexOpt

if TYPE_CHECKING:
    from gov.core.doctor import Report

HELP = """Check the installation: the model files and their sha256, the embedding runtime, an
index (readable whole and fresh), the warm server's runtime folder, the server itself, the
harness hooks and the optional extras. Prints a checklist with a fix for each problem.

The index checked is the one commands find: -i, else $GOV_INDEX, else the nearest
.gov/index at or above the current folder; a missing default index is a warning, a missing
named one a problem. Harness hooks: every harness settings file in and above the current
folder (and the user's own) that runs gov hook, each command checked as the harness would
run it: its program exists without PATH, it finds an index from its project folder, and
this gov's warm server answers; a hook that would fail is a problem. Exit 0 when nothing is wrong (warnings and notes
included), 1 when a check failed, 2 on a usage error.

Example:

    gov doctor

    gov doctor -i .gov/index --format json | jq '.checks[] | select(.status == "fail")'
"""

MARKS = {"ok": ("ok", "green"), "fail": ("FAIL", "bold red"), "warn": ("warn", "yellow"),
         "info": ("note", "cyan")}


def register(app: typer.Typer) -> None:
    app.command("doctor", help=HELP)(doctor_command)


@options.shared(formats=("text", "json"), tty="text", pipe="text")
def doctor_command(
    index: IndexOpt = None,
    *,
    view: options.Output,
) -> int:
    from gov.core.doctor import diagnose
    from gov.core.index.locate import find_index

    found = find_index(index)
    explicit = found.source in ("-i", "$GOV_INDEX")
    report = diagnose(Path(found.path), explicit,
                      progress=conventions.notice if conventions.show_progress() else None)
    reporters.report(view.format, ChecklistView(report, view.quiet))
    return 0 if report.ok else 1


class ChecklistView:
    """The checks as JSON, or as a checklist with each fix below its line."""

    def __init__(self, report: Report, quiet: bool) -> None:
        self.report, self.quiet = report, quiet

    def json(self) -> Any:
        return self.report.to_json()

    def text(self, console: Any) -> None:
        _checklist(console, self.report, self.quiet)


def _checklist(out: Any, report: Report, quiet: bool) -> None:
    """One line per check, its fix indented below; -q keeps only what needs attention."""
    from rich.markup import escape

    width = max(len(mark) for mark, _ in MARKS.values())
    for check in report.checks:
        if quiet and check.status not in ("fail", "warn"):
            continue
        mark, style = MARKS[check.status]
        out.print(f"[{style}]{mark:<{width}}[/]  {escape(check.name)}: {escape(check.detail)}")
        if check.fix and check.status != "ok":
            out.print(f"{'':<{width}}  [dim]fix:[/] {escape(check.fix)}")
    if report.problems:
        summary = (f"[bold red]{report.problems} problem(s)[/], {report.warnings} warning(s): "
                   "fix the lines marked FAIL")
    elif report.warnings:
        summary = f"no problems, {report.warnings} warning(s)"
    else:
        summary = "no problems"
    if not quiet or report.problems or report.warnings:
        out.print(summary)
