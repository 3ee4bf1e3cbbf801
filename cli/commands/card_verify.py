"""``gov card verify``: validate cards and run a contract's checks (the typer command; the
lean path is :mod:`gov.cli.commands.card_lean`)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .. import grammar, options
from ..conventions import use_color
from .card import (
    RESULT_FORMAT_HELP,
    PathsArg,
    card_app,
    paths_or_stdin,
    stdin_buffer,
)


@card_app.command("verify")
@options.shared(formats=grammar.CARD_RESULT_FORMATS, tty=grammar.CARD_TTY, pipe=grammar.CARD_PIPE, format_help=RESULT_FORMAT_HELP)
def verify_cmd(
    paths: PathsArg = None,
    contract: Annotated[
        str,
        typer.Option(
            *grammar.CONTRACT,
            metavar="NAME|FILE",
            help="'default' (ovi-cards 0.1.0 exactly), 'extended' (its quirks fixed) or a "
            "contract JSON file (see `gov card schema contract`). The two names always mean the "
            "built-in contracts; name a file called like one as a path: ./default.",
        ),
    ] = grammar.CONTRACT_DEFAULT,
    now: Annotated[
        str | None,
        typer.Option(
            *grammar.NOW,
            metavar="RFC3339",
            help="Judge timestamps against this RFC 3339 instant instead of the clock, so a "
            "CI run gives the same answer tomorrow.",
            show_default=False,
        ),
    ] = None,
    strict: Annotated[bool, typer.Option(*grammar.STRICT, help="Fail cards on SOFT failures too.")] = False,
    repo: Annotated[
        str | None,
        typer.Option(
            *grammar.REPO,
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
            *grammar.BASE,
            metavar="REV",
            help="With --repo: the revision the change under review starts from; files changed "
            "since it count as changed, as do working-tree changes. Default: the working tree only.",
            show_default=False,
        ),
    ] = None,
    *,
    view: options.Output,
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
    from .card_lean import verify

    fmt_name = view.format
    return verify(paths_or_stdin(paths), fmt=fmt_name, contract=contract, now=now, strict=strict, repo=repo,
                  base=base, color=use_color(sys.stdout), quiet=view.quiet, stdin=stdin_buffer())
