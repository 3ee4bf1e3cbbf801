"""``gov card schema``: print the card or contract JSON Schema."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .. import options
from .card import (
    SchemaName,
    card_app,
)


@card_app.command("schema")
@options.shared()
def schema_cmd(
    which: Annotated[
        SchemaName,
        typer.Argument(help="card (the card format) or contract (a verification contract)."),
    ] = SchemaName.card,
    *,
    view: options.Output,
) -> int:
    """Print the JSON Schema (draft 2020-12) of a card or of a verification contract.

    Example:

        gov card schema > task-card.schema.json

        gov card schema contract | jq '.properties.checks.propertyNames.enum'
    """
    from gov.core.cards.schema import CONTRACT_SCHEMA_PATH, SCHEMA_PATH

    path = SCHEMA_PATH if which is SchemaName.card else CONTRACT_SCHEMA_PATH
    sys.stdout.buffer.write(path.read_bytes())
    return 0
