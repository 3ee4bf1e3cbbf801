"""``gov card``: write, validate, verify and size task cards, and carry them over A2A and MCP.

The group and what its subcommands share; each subcommand is a module of its own
(``card_validate``, ``card_verify``, ``card_new``, ``card_schema``, ``card_contract``,
``card_budget``, ``card_convert``), each calling the library function of its name in
:mod:`gov.core.cards.workflows` or :mod:`gov.core.cards.interop`. Only typer and the
shared conventions are imported at module level: this module is registered on every
``gov`` run, and routing commands must not pay for pydantic.
"""

from __future__ import annotations

import importlib
import sys
from enum import StrEnum
from typing import IO, TYPE_CHECKING, Annotated, Any

import typer

from gov.core.errors import UsageError

from ..conventions import notice

if TYPE_CHECKING:
    from gov.core.cards.report import Tally

SUBCOMMANDS = ("card_validate", "card_verify", "card_new", "card_schema", "card_contract",
               "card_budget", "card_convert")

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
RESULT_FORMAT_HELP = (
    "text, json (one array), jsonl (one result per line) or github (workflow annotations). "
    "Default: text on a terminal, jsonl in a pipe.")
CARD_FORMAT_HELP = ("json (indented) or jsonl (one line). Default: json on a terminal, jsonl "
                    "otherwise.")
INTEROP_FORMAT_HELP = ("json (one indented array) or jsonl (one object per line). Default: json "
                       "on a terminal, jsonl otherwise.")

def paths_or_stdin(paths: list[str] | None) -> list[str]:
    """The card paths given, else stdin when it is not a terminal."""
    if paths:
        return paths
    if sys.stdin is None or sys.stdin.isatty():
        raise UsageError("no card files given", hint="name files or globs, or pipe cards to '-'")
    return ["-"]


def stdin_buffer() -> IO[bytes] | None:
    return sys.stdin.buffer if sys.stdin is not None else None


def finish(tally: Tally, verifying: bool) -> int:
    """The closing notice, and the exit code: 0 when every card is fine, else 1."""
    notice(tally.describe(verifying) if tally.cards else "no cards found")
    return 0 if tally.ok else 1


InteropOutputOpt = Annotated[
    str | None,
    typer.Option("--output", "-o", metavar="FILE", help="Write to this file (replaced atomically).",
                 show_default=False),
]


def write_converted(conversion: Any, fmt_name: str, output: str | None) -> tuple[int, int]:
    """Write what a conversion made and name its problems on stderr: (written, problems)."""
    from gov.core.cards.workflows import write_cards

    from ..conventions import warn
    from ..reporters import json_bytes

    for line in conversion.notes:
        notice(line)
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
            sys.stdout.buffer.write(json_bytes(item.value))
        else:
            values.append(item.value)
    blob = (json_bytes(values, indent=True) if fmt_name == "json"
            else b"".join(json_bytes(v) for v in values))
    if output:
        write_cards(output, blob)
    elif fmt_name == "json":
        sys.stdout.buffer.write(blob)
    return written, problems


def register(app: typer.Typer) -> None:
    """Add ``gov card`` with every subcommand (each module adds itself to the group)."""
    for name in SUBCOMMANDS:
        importlib.import_module(f"gov.cli.commands.{name}")
    app.add_typer(card_app, name="card")
