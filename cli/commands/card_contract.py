"""``gov card contract``: print a built-in verification contract."""

from __future__ import annotations

from typing import Annotated

import typer

from .. import options, reporters
from ..conventions import notice
from .card import (
    card_app,
)


@card_app.command("contract")
@options.shared()
def contract_cmd(
    name: Annotated[
        str,
        typer.Argument(help="'default', 'extended' or a contract file to resolve."),
    ] = "default",
    *,
    view: options.Output,
) -> int:
    """Print a verification contract with every check's severity, resolved: a start for
    your own contract file.

    Example:

        gov card contract extended

        gov card contract default > team.contract.json   # edit, then:
        gov card verify cards/ --contract team.contract.json
    """
    from gov.core.cards.contracts import describe_source, load_contract

    chosen = load_contract(name)
    notice(describe_source(chosen))
    data = {"$schema": "urn:gov:schema:card-contract:1", **chosen.to_json()}
    reporters.write_json(data, indent=True)
    return 0
