"""``gov show``: print a whole document from the index — the rule with its carve-outs."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from gov.core.errors import InputError

from .. import conventions, options, reporters
from ..options import IndexOpt
from ..resolve import open_index

HELP = """Print a whole document from the index, never a chunk of it.

Example:

    gov show deployment -i .gov/index
"""


def register(app: typer.Typer) -> None:
    app.command("show", help=HELP)(show_command)


@options.shared(formats=("text", "json"), tty="text", pipe="text")
def show_command(
    name: Annotated[str, typer.Argument(help="The document's name, as routes name it.",
                                        autocompletion=options.document_names)],
    index: IndexOpt = None,
    *,
    view: options.Output,
) -> int:
    fmt = view.format
    loaded = open_index(index, check_stale=False)
    if loaded.stored.position(name) is None:
        raise InputError(loaded.stored.unknown(name))
    text = loaded.text(name)
    if fmt == "json":
        doc = loaded.document(name)
        reporters.write_json(
            {"name": name, "source": doc.source, "trigger": doc.trigger, "family": doc.family,
             "depends_on": list(doc.depends_on), "text": text})
    else:
        if conventions.is_tty(sys.stdout):  # a terminal shows control sequences, never obeys
            from gov.core.sanitize import escape_terminal

            text = escape_terminal(text)
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0
