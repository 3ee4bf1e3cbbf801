"""``gov card``: write, validate, verify and size task cards.

Only typer and the shared conventions are imported at module level: this module is
registered on every ``gov`` run, and routing commands must not pay for pydantic.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import IO, TYPE_CHECKING, Annotated, Any

import typer

from gov.cli.conventions import (
    Color,
    ColorOpt,
    DebugOpt,
    QuietOpt,
    command,
    configure,
    notice,
    resolve_format,
    use_color,
)
from gov.core.errors import UsageError

if TYPE_CHECKING:
    from gov.core.cards.report import Tally
    from gov.core.cards.schema import Problem

card_app = typer.Typer(
    name="card",
    help=(
        "Write, validate, verify and size task cards, and carry them over A2A and MCP: the "
        "bounded, typed packet an agent hands its orchestrator instead of prose "
        "(wire-compatible with ovi-cards 0.1.0).\n\n"
        "Example:\n\n"
        "    gov card new RESULT --task-id t-1 --agent coder:gpt-4o --objective 'Fix the "
        "login redirect' --outcome 'Login redirect loop fixed in auth/session.py' > card.json"
        "\n\n"
        "    gov card verify card.json --format text"
    ),
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class ResultFormat(StrEnum):
    text = "text"
    json = "json"
    jsonl = "jsonl"
    github = "github"


class CardFormat(StrEnum):
    json = "json"
    jsonl = "jsonl"


class BudgetFormat(StrEnum):
    text = "text"
    json = "json"


class Protocol(StrEnum):
    a2a = "a2a"
    mcp = "mcp"


class SchemaName(StrEnum):
    card = "card"
    contract = "contract"


PathsArg = Annotated[
    list[str] | None,
    typer.Argument(
        help="Card files, directories, globs (quote them) or '-' for stdin. A file holds one "
        "card, a JSON array of cards, or JSON Lines. Default: stdin when it is not a terminal.",
        show_default=False,
    ),
]
FormatOpt = Annotated[
    ResultFormat | None,
    typer.Option(
        "--format", "-f",
        help="text, json (one array), jsonl (one result per line) or github (workflow "
        "annotations). Default: text on a terminal, jsonl in a pipe.",
        show_default=False,
    ),
]  # fmt: skip

# Where a card field comes from on the command line of ``gov card new``.
_OPTION_OF = {
    "card_type": "TYPE",
    "task_id": "--task-id",
    "source_agent": "--agent",
    "timestamp": "--timestamp",
    "objective": "--objective",
    "outcome": "--outcome",
    "key_facts": "--fact",
    "actions_taken": "--action",
    "next_actions": "--next",
    "artifacts": "--artifact",
    "confidence": "--confidence",
    "memory_suggestion.target": "--store",
    "memory_suggestion.tags": "--tag",
}


def _paths(paths: list[str] | None) -> list[str]:
    if paths:
        return paths
    if sys.stdin is None or sys.stdin.isatty():
        raise UsageError("no card files given", hint="name files or globs, or pipe cards to '-'")
    return ["-"]


def _stdin() -> IO[bytes] | None:
    return sys.stdin.buffer if sys.stdin is not None else None


def _finish(tally: Tally, verifying: bool) -> int:
    notice(tally.describe(verifying) if tally.cards else "no cards found")
    return 0 if tally.ok else 1


@card_app.command("validate")
@command
def validate_cmd(
    paths: PathsArg = None,
    fmt: FormatOpt = None,
    color: ColorOpt = Color.auto,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> int:
    """Check cards against the card schema: one result per card, with each problem's field
    path and rule.

    Exit 0 when every card is valid, 1 when any is not, 2 on usage or I/O errors.

    Example:

        gov card validate 'cards/**/*.json' --format text

        agent-run | gov card validate - | jq 'select(.valid | not)'
    """
    configure(color, quiet, debug)
    from gov.core.cards.report import write_results
    from gov.core.cards.workflows import validate_cards

    fmt_name = resolve_format(fmt.value if fmt else None, tty_default="text", pipe_default="jsonl")
    run = validate_cards(_paths(paths), stdin=_stdin())
    for line in run.notes:
        notice(line)
    tally = write_results(run.results, sys.stdout.buffer, fmt_name, verifying=False, color=use_color(sys.stdout))
    return _finish(tally, False)


@card_app.command("verify")
@command
def verify_cmd(
    paths: PathsArg = None,
    fmt: FormatOpt = None,
    contract: Annotated[
        str,
        typer.Option(
            "--contract",
            "-c",
            metavar="NAME|FILE",
            help="'default' (ovi-cards 0.1.0 exactly), 'extended' (its quirks fixed) or a "
            "contract JSON file (see `gov card schema contract`). The two names always mean the "
            "built-in contracts; name a file called like one as a path: ./default.",
        ),
    ] = "default",
    now: Annotated[
        str | None,
        typer.Option(
            "--now",
            metavar="RFC3339",
            help="Judge timestamps against this RFC 3339 instant instead of the clock, so a "
            "CI run gives the same answer tomorrow.",
            show_default=False,
        ),
    ] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Fail cards on SOFT failures too.")] = False,
    repo: Annotated[
        str | None,
        typer.Option(
            "--repo",
            metavar="DIR",
            help="Also check each card against this git repository: path artifacts exist, a "
            "PATCH's artifacts changed, claimed tests touched a test file, no task reported two "
            "ways (the contract's repository checks).",
            show_default=False,
        ),
    ] = None,
    base: Annotated[
        str | None,
        typer.Option(
            "--base",
            metavar="REV",
            help="With --repo: the revision the change under review starts from; files changed "
            "since it count as changed, as do working-tree changes. Default: the working tree only.",
            show_default=False,
        ),
    ] = None,
    color: ColorOpt = Color.auto,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> int:
    """Validate cards, then run the contract's checks: 0.25 off the confidence per HARD
    failure, 0.10 per SOFT one; a card passes when no HARD check fails.

    Each result carries contract_id, passed, hard_failures, soft_failures, checks_passed,
    adjusted_confidence, confidence_delta and summary. Exit 0 when every card is valid and
    passes, 1 when any is invalid or fails, 2 on usage or I/O errors.

    Example:

        gov card verify examples/cards/good --format text

        gov card verify 'cards/*.jsonl' --now 2025-06-01T12:00:00Z --strict --format github

        gov card verify cards/ --repo . --base origin/main --format github
    """
    configure(color, quiet, debug)
    from gov.cli.commands.card_lean import verify

    fmt_name = resolve_format(fmt.value if fmt else None, tty_default="text", pipe_default="jsonl")
    return verify(_paths(paths), fmt=fmt_name, contract=contract, now=now, strict=strict, repo=repo,
                  base=base, color=use_color(sys.stdout), quiet=quiet, stdin=_stdin())


def _option_text(problems: list[Problem]) -> str:
    """Problems in the words of ``gov card new``'s options: ``--fact: ... (key_facts, maxItems)``."""
    parts = []
    for problem in problems:
        where = _OPTION_OF.get(problem.path.split("[")[0], problem.path)
        if where != problem.path:
            parts.append(f"{where}: {problem.message} ({problem.path}, {problem.rule})")
        else:
            parts.append(str(problem))
    return "; ".join(parts)


def _write_card(data: dict[str, Any], fmt: str, output: str | None) -> None:
    from gov.core.cards.workflows import card_bytes, write_cards

    blob = card_bytes([data], indent=fmt == "json")
    if output:
        write_cards(output, blob)
    else:
        sys.stdout.buffer.write(blob)


@card_app.command("new")
@command
def new_cmd(
    card_type: Annotated[
        str | None,
        typer.Argument(
            metavar="TYPE",
            help="RESULT, ERROR, PLAN, PATCH or NOTE (any case). With --from, the type of "
            "lines that name none.",
            show_default=False,
        ),
    ] = None,
    task_id: Annotated[str | None, typer.Option("--task-id", metavar="ID", help="The task answered.")] = None,
    agent: Annotated[
        str | None, typer.Option("--agent", metavar="TYPE:MODEL", help="Source agent, '{type}:{model}' by convention.")
    ] = None,
    objective: Annotated[
        str | None, typer.Option("--objective", metavar="TEXT", help="What was asked (1-256 chars).")
    ] = None,
    outcome: Annotated[str | None, typer.Option("--outcome", metavar="TEXT", help="What happened (1-256 chars).")] = None,
    fact: Annotated[list[str] | None, typer.Option("--fact", metavar="TEXT", help="A key fact (up to 3).")] = None,
    action: Annotated[list[str] | None, typer.Option("--action", metavar="TEXT", help="An action taken (up to 3).")] = None,
    next_action: Annotated[list[str] | None, typer.Option("--next", metavar="TEXT", help="A next action (up to 3).")] = None,
    artifact: Annotated[
        list[str] | None,
        typer.Option("--artifact", metavar="REF", help="An artifact: path, URL or id (up to 10)."),
    ] = None,
    confidence: Annotated[
        float | None,
        typer.Option(
            "--confidence",
            metavar="X",
            help="0 to 1. Default per type: RESULT 0.8, ERROR 0.7, PLAN 0.6, PATCH 0.85, NOTE 0.7.",
            show_default=False,
        ),
    ] = None,
    store: Annotated[
        str | None,
        typer.Option(
            "--store",
            metavar="TARGET",
            help="Suggest storing the card: SOP, BEST_PRACTICE, SHORT_TERM, LONG_TERM, KV, or "
            "'none'. Default: ERROR to SOP, PATCH to BEST_PRACTICE, others not stored.",
            show_default=False,
        ),
    ] = None,
    tag: Annotated[
        list[str] | None, typer.Option("--tag", metavar="TAG", help="A memory tag, lower-case kebab-case.")
    ] = None,
    timestamp: Annotated[
        str | None,
        typer.Option("--timestamp", metavar="RFC3339", help="RFC 3339 time of the card. Default: now, in UTC."),
    ] = None,
    source: Annotated[
        str | None,
        typer.Option(
            "--from",
            metavar="FILE",
            help="Read JSON Lines of partial cards (card field names) from this file, or '-' "
            "for stdin, and print one card per line; options above fill fields a line lacks.",
            show_default=False,
        ),
    ] = None,
    output: Annotated[
        str | None,
        typer.Option("--output", "-o", metavar="FILE", help="Write to this file (replaced atomically).", show_default=False),
    ] = None,
    fmt: Annotated[
        CardFormat | None,
        typer.Option(
            "--format",
            "-f",
            help="json (indented) or jsonl (one line). Default: json on a terminal, jsonl otherwise.",
            show_default=False,
        ),
    ] = None,
    color: ColorOpt = Color.auto,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> int:
    """Print a valid card, with the defaults of ovi-cards' builders: timestamp now, schema
    0.1.0, a confidence and a memory suggestion per type.

    Invalid input exits 2 naming the option (or field) and the rule it breaks. With
    --from, each line that makes no card is named on stderr, the other lines still make
    cards, and the command exits 2.

    Example:

        gov card new ERROR --task-id deploy-7 --agent deployer:gpt-4o \\
          --objective 'Deploy v2.1 to staging' \\
          --outcome 'Deploy failed: migration 42 timeout on the orders table' \\
          --fact 'Migration 42 locks orders for 90 s' --next 'Split migration 42' --tag deploy

        printf '%s\\n' '{"task_id":"t1","outcome":"Index rebuilt in 40 s"}' |
          gov card new RESULT --from - --agent indexer:local --objective 'Rebuild the index'
    """
    configure(color, quiet, debug)
    from gov.core.cards.tools import memory_option
    from gov.core.cards.validate import CardInvalid
    from gov.core.cards.workflows import new_card

    kind = card_type.upper() if card_type else None
    fields: dict[str, Any] = {
        "card_type": kind,
        "task_id": task_id,
        "source_agent": agent,
        "timestamp": timestamp,
        "objective": objective,
        "outcome": outcome,
        "key_facts": fact,
        "actions_taken": action,
        "next_actions": next_action,
        "artifacts": artifact,
        "confidence": confidence,
        "memory_suggestion": memory_option(store, tag),
    }
    fields = {key: value for key, value in fields.items() if value is not None}
    fmt_name = resolve_format(fmt.value if fmt else None, tty_default="json", pipe_default="jsonl")
    if source is None:
        if kind is None:
            raise UsageError("TYPE is required", hint="RESULT, ERROR, PLAN, PATCH or NOTE")
        try:
            card = new_card(fields)
        except CardInvalid as exc:
            raise UsageError(_option_text(exc.problems)) from None
        _write_card(card, fmt_name, output)
        return 0
    return _new_from_lines(source, fields, fmt_name, output)


def _new_from_lines(source: str, defaults: dict[str, Any], fmt: str, output: str | None) -> int:
    """One card per JSON line of partial fields; bad lines are named on stderr (exit 2)."""
    from pathlib import Path

    from gov.cli.conventions import error_line
    from gov.core.cards.workflows import card_bytes, new_cards, write_cards

    if source == "-":
        stream = _stdin()
        if stream is None:
            raise UsageError("--from -: no standard input to read")
        data = stream.read()
    else:
        try:
            data = Path(source).read_bytes()
        except OSError as exc:
            raise UsageError(f"{source}: cannot read: {exc.strerror or exc}") from None
    out: list[bytes] = []
    bad = 0
    for made in new_cards(data, defaults):
        if made.card is None:
            error_line(f"{source}:{made.line}: {made.error}")
            bad += 1
            continue
        blob = card_bytes([made.card], indent=fmt == "json")
        if output:
            out.append(blob)
        else:
            sys.stdout.buffer.write(blob)
    if output:
        write_cards(output, b"".join(out))
    # Invalid input exits 2 for the whole command, --from lines included (the card issue's
    # contract); the valid lines still made their cards.
    return 2 if bad else 0


@card_app.command("schema")
@command
def schema_cmd(
    which: Annotated[
        SchemaName,
        typer.Argument(help="card (the card format) or contract (a verification contract)."),
    ] = SchemaName.card,
    color: ColorOpt = Color.auto,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> int:
    """Print the JSON Schema (draft 2020-12) of a card or of a verification contract.

    Example:

        gov card schema > task-card.schema.json

        gov card schema contract | jq '.properties.checks.propertyNames.enum'
    """
    configure(color, quiet, debug)
    from gov.core.cards.schema import CONTRACT_SCHEMA_PATH, SCHEMA_PATH

    path = SCHEMA_PATH if which is SchemaName.card else CONTRACT_SCHEMA_PATH
    sys.stdout.buffer.write(path.read_bytes())
    return 0


@card_app.command("contract")
@command
def contract_cmd(
    name: Annotated[
        str,
        typer.Argument(help="'default', 'extended' or a contract file to resolve."),
    ] = "default",
    color: ColorOpt = Color.auto,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> int:
    """Print a verification contract with every check's severity, resolved: a start for
    your own contract file.

    Example:

        gov card contract extended

        gov card contract default > team.contract.json   # edit, then:
        gov card verify cards/ --contract team.contract.json
    """
    configure(color, quiet, debug)
    import orjson

    from gov.core.cards.contracts import describe_source, load_contract

    chosen = load_contract(name)
    notice(describe_source(chosen))
    data = {"$schema": "urn:gov:schema:card-contract:1", **chosen.to_json()}
    sys.stdout.buffer.write(orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
    return 0


@card_app.command("budget")
@command
def budget_cmd(
    paths: Annotated[
        list[str],
        typer.Argument(help="Card files, directories or globs, or '-' for stdin."),
    ],
    raw: Annotated[
        list[str] | None,
        typer.Option(
            "--raw",
            metavar="PATHS",
            help="Raw agent output the cards replace (files, directories or globs; "
            "repeatable). Paired with the cards in order when the counts match.",
            show_default=False,
        ),
    ] = None,
    agents: Annotated[int, typer.Option("--agents", min=1, help="Agents in the scenario.")] = 5,
    steps: Annotated[int, typer.Option("--steps", min=1, help="Steps per agent.")] = 20,
    bytes_only: Annotated[
        bool, typer.Option("--bytes-only", help="Do not try tiktoken; count bytes only.")
    ] = False,
    fmt: Annotated[
        BudgetFormat,
        typer.Option("--format", "-f", help="text or json."),
    ] = BudgetFormat.text,
    color: ColorOpt = Color.auto,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> int:
    """Size cards in bytes (and tokens, when tiktoken and its encoding are at hand) against
    the raw output they replace: a card costs the orchestrator about the same every step
    (O(1)), raw output grows with the work (O(n)).

    Only valid cards are measured: any other record is named on stderr and left out, and the
    command then exits 1.

    Example:

        gov card budget examples/cards/budget/cards.jsonl \\
          --raw 'examples/cards/budget/raw/*.txt' --agents 5 --steps 20
    """
    configure(color, quiet, debug)
    import orjson

    from gov.cli.conventions import warn
    from gov.core.cards.budget import token_counter
    from gov.core.cards.workflows import budget_cards

    counter = None
    if not bytes_only:
        counter, reason = token_counter()
        if counter is None:
            notice(reason)
    budget = budget_cards(paths, raw, agents=agents, steps=steps, counter=counter, stdin=_stdin())
    for line in budget.notes:
        notice(line)
    for line in budget.skipped:
        warn(line)
    if budget.skipped:
        count = len(budget.skipped)
        warn(f"{count} records are not valid cards and were left out of the measure" if count > 1
             else "1 record is not a valid card and was left out of the measure")
    if fmt is BudgetFormat.json:
        sys.stdout.buffer.write(orjson.dumps(budget.report, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
    else:
        sys.stdout.write(_budget_text(budget.report))
    return 1 if budget.skipped else 0


def _budget_text(report: dict[str, Any]) -> str:
    lines: list[str] = []
    units = [("bytes", "bytes")]
    if "tokens" in report:
        units.append(("tokens", f"tokens ({report['encoding']})"))
    for key, label in units:
        part = report[key]
        cards = part["cards"]
        lines.append(f"{label}:")
        lines.append(
            f"  cards        {cards['count']:>6}  min {cards['min']:,}  median "
            f"{cards['median']:,.0f}  mean {cards['mean']:,.0f}  max {cards['max']:,}"
        )
        if "raw" in part:
            raw = part["raw"]
            lines.append(
                f"  raw outputs  {raw['count']:>6}  min {raw['min']:,}  median "
                f"{raw['median']:,.0f}  mean {raw['mean']:,.0f}  max {raw['max']:,}"
            )
        if "per_card_reduction" in part:
            red = part["per_card_reduction"]
            lines.append(
                f"  per-card reduction ({red['pairs']} pairs): median {red['median']:.1%}, "
                f"mean {red['mean']:.1%}"
            )
        if "context_budget" in part:
            ctx = part["context_budget"]
            lines.append(
                f"  context budget, {ctx['agents']} agents x {ctx['steps']} steps: raw "
                f"{ctx['raw_accumulation']:,}, cards {ctx['cards']:,}, savings {ctx['savings']:.0%}"
            )
    return "\n".join(lines) + "\n"


InteropFormatOpt = Annotated[
    CardFormat | None,
    typer.Option(
        "--format", "-f",
        help="json (one indented array) or jsonl (one object per line). Default: json on a "
        "terminal, jsonl otherwise.",
        show_default=False,
    ),
]  # fmt: skip
InteropOutputOpt = Annotated[
    str | None,
    typer.Option("--output", "-o", metavar="FILE", help="Write to this file (replaced atomically).",
                 show_default=False),
]


def _write_converted(conversion: Any, fmt: CardFormat | None, output: str | None) -> tuple[int, int]:
    """Write what a conversion made and name its problems on stderr: (written, problems)."""
    import orjson

    from gov.cli.conventions import warn
    from gov.core.cards.workflows import write_cards

    for line in conversion.notes:
        notice(line)
    fmt_name = resolve_format(fmt.value if fmt else None, tty_default="json", pipe_default="jsonl")
    values: list[Any] = []
    written = problems = 0
    for item in conversion.items:
        if item.problem is not None:
            warn(f"{item.where}: {item.problem}")
            problems += 1
        if item.value is None:
            continue
        written += 1
        if fmt_name == "jsonl" and not output:
            sys.stdout.buffer.write(orjson.dumps(item.value, option=orjson.OPT_APPEND_NEWLINE))
        else:
            values.append(item.value)
    if fmt_name == "json":
        blob = orjson.dumps(values, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
    else:
        blob = b"".join(orjson.dumps(v, option=orjson.OPT_APPEND_NEWLINE) for v in values)
    if output:
        write_cards(output, blob)
    elif fmt_name == "json":
        sys.stdout.buffer.write(blob)
    return written, problems


@card_app.command("export")
@command
def export_cmd(
    paths: PathsArg = None,
    to: Annotated[
        Protocol,
        typer.Option("--to", help="a2a: one A2A 1.0 Artifact per card (gov's card extension: a "
                     "data part with the card, a text part with the outcome); mcp: one MCP tool "
                     "result per card, structuredContent {card}, as create_card answers."),
    ] = Protocol.a2a,
    fmt: InteropFormatOpt = None,
    output: InteropOutputOpt = None,
    color: ColorOpt = Color.auto,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> int:
    """Turn task cards into what another protocol carries: A2A artifacts or MCP tool results.

    Only valid cards are exported; any other record is named on stderr and the command exits
    1. The card travels verbatim, so `gov card import` gives it back unchanged.

    Example:

        gov card export --to a2a examples/cards/good/result.json

        gov card export --to a2a 'cards/*.jsonl' | gov card import --from a2a - | gov card verify -
    """
    configure(color, quiet, debug)
    from gov.core.cards.interop import export_cards

    conversion = export_cards(_paths(paths), protocol=to.value, stdin=_stdin())
    _, problems = _write_converted(conversion, fmt, output)
    return 1 if problems else 0


@card_app.command("import")
@command
def import_cmd(
    paths: PathsArg = None,
    source: Annotated[
        Protocol,
        typer.Option("--from", help="a2a: cards in gov's A2A extension anywhere in A2A JSON "
                     "(artifacts, messages, tasks, stream events, JSON-RPC responses); mcp: the "
                     "card in MCP tool results (structuredContent, else the text content)."),
    ] = Protocol.a2a,
    fmt: InteropFormatOpt = None,
    output: InteropOutputOpt = None,
    color: ColorOpt = Color.auto,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> int:
    """Take the task cards out of A2A or MCP JSON, verbatim, one per line.

    A card that is not valid is still printed (verify it to see why) and named on stderr;
    the command then exits 1, as it does when it finds no card at all.

    Example:

        gov card import --from a2a task-response.json | gov card verify -

        gov card import --from mcp tool-results.jsonl -f json
    """
    configure(color, quiet, debug)
    from gov.core.cards.interop import import_cards
    from gov.core.errors import InputError

    conversion = import_cards(_paths(paths), protocol=source.value, stdin=_stdin())
    found, problems = _write_converted(conversion, fmt, output)
    if not found:
        raise InputError(f"no task cards found (looked for the {source.value} form gov exports)")
    return 1 if problems else 0


def register(app: typer.Typer) -> None:
    app.add_typer(card_app, name="card")
