"""``gov card validate``: check cards against the card schema."""

from __future__ import annotations

import sys

from .. import options
from ..conventions import notice, use_color
from .card import (
    RESULT_FORMAT_HELP,
    PathsArg,
    card_app,
    finish,
    paths_or_stdin,
    stdin_buffer,
)


@card_app.command("validate")
@options.shared(formats=("text", "json", "jsonl", "github"), tty="text", pipe="jsonl", format_help=RESULT_FORMAT_HELP)
def validate_cmd(
    paths: PathsArg = None,
    *,
    view: options.Output,
) -> int:
    """Check cards against the card schema: one result per card, with each problem's field
    path and rule.

    Exit 0 when every card is valid, 1 when any is not, 2 on usage or I/O errors.

    Example:

        gov card validate 'cards/**/*.json' --format text

        agent-run | gov card validate - | jq 'select(.valid | not)'
    """
    from gov.core.cards.workflows import validate_cards

    from ..reporters import write_card_results

    fmt_name = view.format
    run = validate_cards(paths_or_stdin(paths), stdin=stdin_buffer())
    for line in run.notes:
        notice(line)
    tally = write_card_results(run.results, fmt_name, verifying=False, color=use_color(sys.stdout))
    return finish(tally, False)
