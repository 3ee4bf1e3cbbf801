"""``gov card new``: print a valid card with the defaults of ovi-cards' builders."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gov.core.errors import UsageError

from .. import options
from .card import (
    CARD_FORMAT_HELP,
    card_app,
    stdin_buffer,
)

if TYPE_CHECKING:
    from gov.core.cards.schema import Problem

# Where a card field comes from on the command line of ``gov card new``.
OPTION_OF = {
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


def option_text(problems: list[Problem]) -> str:
    """Problems in the words of ``gov card new``'s options: ``--fact: ... (key_facts, maxItems)``."""
    parts = []
    for problem in problems:
        where = OPTION_OF.get(problem.path.split("[")[0], problem.path)
        if where != problem.path:
            parts.append(f"{where}: {problem.message} ({problem.path}, {problem.rule})")
        else:
            parts.append(str(problem))
    return "; ".join(parts)


def _write_card(data: dict[str, Any], fmt: str, output: str | None) -> None:
    from gov.core.cards.workflows import write_cards

    from ..reporters import json_bytes

    blob = json_bytes(dict(data), indent=fmt == "json")
    if output:
        write_cards(output, blob)
    else:
        sys.stdout.buffer.write(blob)


# The options of gov card new, named once so the command's signature reads as a list.
CardTypeArg = Annotated[
    str | None,
    typer.Argument(
        metavar="TYPE",
        help="RESULT, ERROR, PLAN, PATCH or NOTE (any case). With --from, the type of "
        "lines that name none.",
        show_default=False,
    ),
]
TaskIdOpt = Annotated[str | None, typer.Option("--task-id", metavar="ID", help="The task answered.")]
AgentOpt = Annotated[
    str | None, typer.Option("--agent", metavar="TYPE:MODEL", help="Source agent, '{type}:{model}' by convention.")
]
ObjectiveOpt = Annotated[
    str | None, typer.Option("--objective", metavar="TEXT", help="What was asked (1-256 chars).")
]
OutcomeOpt = Annotated[str | None, typer.Option("--outcome", metavar="TEXT", help="What happened (1-256 chars).")]
FactOpt = Annotated[list[str] | None, typer.Option("--fact", metavar="TEXT", help="A key fact (up to 3).")]
ActionOpt = Annotated[list[str] | None, typer.Option("--action", metavar="TEXT", help="An action taken (up to 3).")]
NextOpt = Annotated[list[str] | None, typer.Option("--next", metavar="TEXT", help="A next action (up to 3).")]
ArtifactOpt = Annotated[
    list[str] | None,
    typer.Option("--artifact", metavar="REF", help="An artifact: path, URL or id (up to 10)."),
]
ConfidenceOpt = Annotated[
    float | None,
    typer.Option(
        "--confidence",
        metavar="X",
        help="0 to 1. Default per type: RESULT 0.8, ERROR 0.7, PLAN 0.6, PATCH 0.85, NOTE 0.7.",
        show_default=False,
    ),
]
StoreOpt = Annotated[
    str | None,
    typer.Option(
        "--store",
        metavar="TARGET",
        help="Suggest storing the card: SOP, BEST_PRACTICE, SHORT_TERM, LONG_TERM, KV, or "
        "'none'. Default: ERROR to SOP, PATCH to BEST_PRACTICE, others not stored.",
        show_default=False,
    ),
]
TagOpt = Annotated[
    list[str] | None, typer.Option("--tag", metavar="TAG", help="A memory tag, lower-case kebab-case.")
]
TimestampOpt = Annotated[
    str | None,
    typer.Option("--timestamp", metavar="RFC3339", help="RFC 3339 time of the card. Default: now, in UTC."),
]
FromOpt = Annotated[
    str | None,
    typer.Option(
        "--from",
        metavar="FILE",
        help="Read JSON Lines of partial cards (card field names) from this file, or '-' "
        "for stdin, and print one card per line; options above fill fields a line lacks.",
        show_default=False,
    ),
]
OutputOpt = Annotated[
    str | None,
    typer.Option("--output", "-o", metavar="FILE", help="Write to this file (replaced atomically).", show_default=False),
]


@card_app.command("new")
@options.shared(formats=("json", "jsonl"), tty="json", pipe="jsonl", format_help=CARD_FORMAT_HELP)
def new_cmd(
    card_type: CardTypeArg = None,
    task_id: TaskIdOpt = None,
    agent: AgentOpt = None,
    objective: ObjectiveOpt = None,
    outcome: OutcomeOpt = None,
    fact: FactOpt = None,
    action: ActionOpt = None,
    next_action: NextOpt = None,
    artifact: ArtifactOpt = None,
    confidence: ConfidenceOpt = None,
    store: StoreOpt = None,
    tag: TagOpt = None,
    timestamp: TimestampOpt = None,
    source: FromOpt = None,
    output: OutputOpt = None,
    *,
    view: options.Output,
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
    from gov.core.cards.tools import memory_option
    from gov.core.cards.validate import CardInvalid
    from gov.core.cards.workflows import new_card

    kind = card_type.upper() if card_type else None
    fields: dict[str, Any] = {
        "card_type": kind, "task_id": task_id, "source_agent": agent, "timestamp": timestamp,
        "objective": objective, "outcome": outcome, "key_facts": fact, "actions_taken": action,
        "next_actions": next_action, "artifacts": artifact, "confidence": confidence,
        "memory_suggestion": memory_option(store, tag),
    }
    fields = {key: value for key, value in fields.items() if value is not None}
    fmt_name = view.format
    if source is None:
        if kind is None:
            raise UsageError("TYPE is required", hint="RESULT, ERROR, PLAN, PATCH or NOTE")
        try:
            card = new_card(fields)
        except CardInvalid as exc:
            raise UsageError(option_text(exc.problems)) from None
        _write_card(card, fmt_name, output)
        return 0
    return _new_from_lines(source, fields, fmt_name, output)


def _new_from_lines(source: str, defaults: dict[str, Any], fmt: str, output: str | None) -> int:
    """One card per JSON line of partial fields; bad lines are named on stderr (exit 2)."""
    from pathlib import Path

    from gov.core.cards.workflows import new_cards, write_cards

    from ..conventions import error_line
    from ..reporters import json_bytes

    if source == "-":
        stream = stdin_buffer()
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
        blob = json_bytes(dict(made.card), indent=fmt == "json")
        if output:
            out.append(blob)
        else:
            sys.stdout.buffer.write(blob)
    if output:
        write_cards(output, b"".join(out))
    # Invalid input exits 2 for the whole command, --from lines included (the card issue's
    # contract); the valid lines still made their cards.
    return 2 if bad else 0
