"""``gov lint``: find the documents of a corpus that cannot route, before a user does."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gov.core.errors import UsageError

from .. import options, reporters

if TYPE_CHECKING:
    from gov.core.lint.findings import Finding, LintReport

HELP = """Find the documents of a corpus that cannot route, before a user does.

Reads a corpus (PATHS) or an index (-i, else $GOV_INDEX or .gov/index) and reports, per
document, with its file and line: near-duplicate documents (overlap); trigger and example
lines that, routed as prompts, go to another document (shadowed); documents the router
would send generic prompts to, from gov's bank of about 550 (hub); triggers that are too
short, too long, mostly stop words or boilerplate, or only the title; examples that repeat
the trigger; files without a trigger; a Depends-on naming a missing document; a Family of
one; documents over a context budget (--max-tokens; bytes at 4 a token when no tokenizer
is installed).

Example:

    gov lint examples/policies

    gov lint policies --format sarif > gov-lint.sarif

Every finding has a rule id, a severity (error, warning, note) and a one-line fix. Exit 0
when no finding is at or above --fail-on (default: error), 1 when one is, 2 on usage
errors. A gov-lint.json beside the corpus (or --config) sets each rule's severity ("off"
switches it off) and thresholds; a document switches rules off for itself with a
'**Lint-ignore:** rule-id, ...' line (front matter: lint-ignore). With PATHS, an index
that is fresh for them (-i, $GOV_INDEX or .gov/index) is used as it is; otherwise lint
builds one in memory, reusing that index's vectors for unchanged surfaces.
"""

FailOnOpt = Annotated[
    str, typer.Option("--fail-on", metavar="error|warning|note|never",
                      help="Exit 1 when a finding is at least this severe (never: always 0).")]


def register(app: typer.Typer) -> None:
    app.command("lint", help=HELP)(lint_command)


@options.shared(formats=("text", "json", "jsonl", "github", "sarif"), tty="text", pipe="text",
                format_help="Output format: text (grouped by document, worst first), json, "
                "jsonl (one finding per line), github (workflow annotations) or sarif "
                "(SARIF 2.1.0, for code scanning) (default: text).")
def lint_command(
    paths: Annotated[list[str] | None, typer.Argument(
        help="Corpus folders or files (default: lint the index).", show_default=False)] = None,
    index: options.IndexOpt = None,
    config: Annotated[Path | None, typer.Option(
        "--config", help="Lint config JSON (default: gov-lint.json beside the corpus).",
        dir_okay=False)] = None,
    fail_on: FailOnOpt = "error",
    max_tokens: Annotated[int | None, typer.Option(
        "--max-tokens", min=1, help="Context budget a whole document must fit in (budget rule).",
        show_default=False)] = None,
    disable: Annotated[list[str] | None, typer.Option(
        "--disable", metavar="RULE", help="Switch a rule off (repeatable).",
        show_default=False)] = None,
    exact: Annotated[bool, typer.Option(
        "--exact", help="Compare every pair of surfaces however large the corpus (and ignore "
        "an approximate-search graph).")] = False,
    on_duplicate: Annotated[str, typer.Option(
        "--on-duplicate", metavar="qualify|error|first", help="Documents of the PATHS sharing a "
        "name: qualify each by its folder (default), stop with an error, or keep the first.")
    ] = "qualify",
    *,
    view: options.Output,
) -> int:
    if fail_on not in ("error", "warning", "note", "never"):
        raise UsageError(f"--fail-on must be error, warning, note or never, not {fail_on!r}")
    from gov.core.lint.config import find_config, load_config
    from gov.core.lint.linter import lint_index, lint_paths

    from ..resolve import index_path

    target = index_path(index)
    if paths:
        found = config or find_config(paths)
        settings = load_config(found).with_options(max_tokens, disable or ())
        from gov.core.corpus.names import ON_DUPLICATE

        if on_duplicate not in ON_DUPLICATE:
            raise UsageError(f"--on-duplicate must be qualify, error or first, not "
                             f"{on_duplicate!r}")
        report = lint_paths(paths, config=settings, index=target if target.is_file() else None,
                            exact=exact, on_duplicate=on_duplicate)
    else:
        if not target.is_file():
            from gov.core.index.locate import no_index

            raise no_index(target)
        from gov.core.index.stored import open_stored

        stored = open_stored(target)
        if config is None:
            roots = [str(stored.base / root) for root in stored.header.roots if root != "-"]
            config = find_config(roots)
        settings = load_config(config).with_options(max_tokens, disable or ())
        report = lint_index(stored, config=settings, exact=exact)
    _write(report, view.format)
    return 1 if report.fails(fail_on) else 0


def _write(report: LintReport, fmt: str) -> None:
    out = reporters.reporter(fmt)
    previous: str | None = None
    for finding in report.findings:
        key = finding.file or finding.document or ""
        out.item(FindingView(finding, first=key != previous))
        previous = key
    out.close(SummaryView(report))


LEVEL = {"error": "error", "warning": "warning", "note": "notice"}
STYLE = {"error": "bold red", "warning": "yellow", "note": "cyan"}


class FindingView:
    """One finding: a JSON record, a line of text under its document, an annotation."""

    def __init__(self, finding: Finding, first: bool) -> None:
        self.finding, self.first = finding, first

    def json(self) -> Any:
        return self.finding.to_json()

    def text(self, console: Any) -> None:
        from rich.text import Text

        item = self.finding
        if self.first:
            head = Text(item.file or "(no file)", style="bold")
            if item.document:
                head.append(f"  {item.document}", style="dim")
            console.print(head)
        line = Text(f"  {item.line or '-':>4}  ")
        line.append(f"{item.severity:<7}", style=STYLE[item.severity])
        line.append(f" {item.rule}  ", style="bold")
        line.append(item.message)
        console.print(line, highlight=False)
        console.print(Text(f"        fix: {item.fix}", style="dim"), highlight=False)

    def annotations(self) -> list[reporters.Annotation]:
        item = self.finding
        return [reporters.Annotation(LEVEL[item.severity], f"{item.message} (fix: {item.fix})",
                                     item.file, item.line, title=f"gov lint: {item.rule}",
                                     rule=item.rule)]


class SummaryView:
    """The counts, the rules skipped and why; the rule table for SARIF."""

    def __init__(self, report: LintReport) -> None:
        self.report = report

    def json(self) -> Any:
        return self.report.to_json()

    def text(self, console: Any) -> None:
        report = self.report
        counts = report.counts()
        parts = [f"{counts[level]} {level}{'s' if counts[level] != 1 else ''}"
                 for level in ("error", "warning", "note")]
        found = ", ".join(parts) if report.findings else "no findings"
        if report.findings:
            console.print()
        families = report.families
        if families.get("families"):
            console.print(f"near-duplicate families: {families['families']} "
                          f"({families['documents']} documents), {families['listed']} listed "
                          "as family findings", highlight=False)
        console.print(f"gov lint: {found} in {report.documents} documents "
                      f"({report.seconds:.1f}s)", highlight=False)
        for item in report.skipped:
            console.print(f"  skipped {item.rule}: {item.reason}", highlight=False)

    def annotations(self) -> list[reporters.Annotation]:
        return [reporters.Annotation("notice", f"gov lint skipped {item.rule}: {item.reason}",
                                     title="gov lint", rule=item.rule)
                for item in self.report.skipped]

    def rules(self) -> list[reporters.RuleInfo]:
        from gov.core.lint.config import default_config
        from gov.core.lint.rules import RULES

        severities = default_config().severities
        return [reporters.RuleInfo(rule.id, rule.summary, rule.description,
                                   {"error": "error", "warning": "warning"}.get(
                                       severities[rule.id], "note"))
                for rule in RULES]
