"""``gov card export`` and ``gov card import``: cards as A2A artifacts or MCP results."""

from __future__ import annotations

from typing import Annotated

import typer

from .. import options
from .card import (
    INTEROP_FORMAT_HELP,
    InteropOutputOpt,
    PathsArg,
    Protocol,
    card_app,
    paths_or_stdin,
    stdin_buffer,
    write_converted,
)


@card_app.command("export")
@options.shared(formats=("json", "jsonl"), tty="json", pipe="jsonl", format_help=INTEROP_FORMAT_HELP)
def export_cmd(
    paths: PathsArg = None,
    to: Annotated[
        Protocol,
        typer.Option("--to", help="a2a: one A2A 1.0 Artifact per card (gov's card extension: a "
                     "data part with the card, a text part with the outcome); mcp: one MCP tool "
                     "result per card, structuredContent {card}, as create_card answers."),
    ] = Protocol.a2a,
    output: InteropOutputOpt = None,
    *,
    view: options.Output,
) -> int:
    """Turn task cards into what another protocol carries: A2A artifacts or MCP tool results.

    Only valid cards are exported; any other record is named on stderr and the command exits
    1. The card travels verbatim, so `gov card import` gives it back unchanged.

    Example:

        gov card export --to a2a examples/cards/good/result.json

        gov card export --to a2a 'cards/*.jsonl' | gov card import --from a2a - | gov card verify -
    """
    from gov.core.cards.interop import export_cards

    conversion = export_cards(paths_or_stdin(paths), protocol=to.value, stdin=stdin_buffer())
    _, problems = write_converted(conversion, view.format, output)
    return 1 if problems else 0


@card_app.command("import")
@options.shared(formats=("json", "jsonl"), tty="json", pipe="jsonl", format_help=INTEROP_FORMAT_HELP)
def import_cmd(
    paths: PathsArg = None,
    source: Annotated[
        Protocol,
        typer.Option("--from", help="a2a: cards in gov's A2A extension anywhere in A2A JSON "
                     "(artifacts, messages, tasks, stream events, JSON-RPC responses); mcp: the "
                     "card in MCP tool results (structuredContent, else the text content)."),
    ] = Protocol.a2a,
    output: InteropOutputOpt = None,
    *,
    view: options.Output,
) -> int:
    """Take the task cards out of A2A or MCP JSON, verbatim, one per line.

    A card that is not valid is still printed (verify it to see why) and named on stderr;
    the command then exits 1, as it does when it finds no card at all.

    Example:

        gov card import --from a2a task-response.json | gov card verify -

        gov card import --from mcp tool-results.jsonl -f json
    """
    from gov.core.cards.interop import import_cards
    from gov.core.errors import InputError

    conversion = import_cards(paths_or_stdin(paths), protocol=source.value, stdin=stdin_buffer())
    found, problems = write_converted(conversion, view.format, output)
    if not found:
        raise InputError(f"no task cards found (looked for the {source.value} form gov exports)")
    return 1 if problems else 0
