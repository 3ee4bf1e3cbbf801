"""``gov card budget``: card sizes against the raw output they replace."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from .. import options, reporters
from ..conventions import notice
from .card import (
    card_app,
    stdin_buffer,
)


@card_app.command("budget")
@options.shared(formats=("text", "json"), tty="text", pipe="text")
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
    *,
    view: options.Output,
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
    from gov.core.cards.budget import token_counter
    from gov.core.cards.workflows import budget_cards

    from ..conventions import warn

    counter = None
    if not bytes_only:
        counter, reason = token_counter()
        if counter is None:
            notice(reason)
    budget = budget_cards(paths, raw, agents=agents, steps=steps, counter=counter, stdin=stdin_buffer())
    for line in budget.notes:
        notice(line)
    for line in budget.skipped:
        warn(line)
    if budget.skipped:
        count = len(budget.skipped)
        warn(f"{count} records are not valid cards and were left out of the measure" if count > 1
             else "1 record is not a valid card and was left out of the measure")
    if view.format == "json":
        reporters.write_json(budget.report, indent=True)
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
