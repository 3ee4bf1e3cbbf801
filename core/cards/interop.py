"""``export_cards`` and ``import_cards``: task cards to and from A2A artifacts and MCP results.

Export takes valid cards only (an invalid card would travel under a schema it breaks) and
turns each into one A2A ``Artifact`` (``gov.core.cards.a2a``) or one MCP ``CallToolResult``
(``gov.core.cards.mcp_result``). Import finds every card those carry, anywhere in the JSON
it is given, and hands each back verbatim, with a note when one is not a valid card, so
``export`` then ``import`` gives back the very cards that went in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from ..errors import GovError
from .sources import Record, read_paths, resolve_sources

PROTOCOLS = ("a2a", "mcp")


class InteropError(GovError):
    """A protocol gov does not speak."""

    exit_code = 2
    failure_class = "input"


@dataclass(frozen=True, slots=True)
class Converted:
    """One thing converted: where it came from, what it became, and a problem if any.

    Export gives a ``value`` or a ``problem`` (the card was not valid, so it was not
    exported); import gives the card found and, when it is not a valid card, a ``problem``
    as well.
    """

    where: str
    value: Any = None
    problem: str | None = None


@dataclass
class Conversion:
    """Converted items, streamed, and notes on the specs that named no file."""

    items: Iterator[Converted]
    notes: list[str] = field(default_factory=list)


def _protocol(protocol: str) -> str:
    if protocol not in PROTOCOLS:
        raise InteropError(f"protocol: {protocol!r} is not one of {', '.join(PROTOCOLS)}")
    return protocol


def _where(record: Record) -> str:
    text = record.file + (f":{record.line}" if record.line is not None else "")
    return text + (f" [{record.index}]" if record.index is not None else "")


def _invalid(value: Any) -> str | None:
    from .tools import problem_text
    from .validate import check_card

    card, problems = check_card(value)
    return None if card is not None else f"not a valid card: {problem_text(problems)}"


def _exported(records: Iterator[Record], convert: Callable[[Any], Any]) -> Iterator[Converted]:
    for record in records:
        where = _where(record)
        if record.error is not None:
            yield Converted(where, problem=f"not a valid card: $: {record.error} (json)")
            continue
        problem = _invalid(record.value)
        if problem is not None:
            yield Converted(where, problem=problem + "; not exported")
            continue
        yield Converted(where, convert(record.value))


def export_cards(
    specs: Sequence[str], *, protocol: str = "a2a", stdin: IO[bytes] | None = None
) -> Conversion:
    """Each valid card in ``specs`` as an A2A artifact (``a2a``) or an MCP tool result (``mcp``)."""
    from . import a2a, mcp_result

    convert = a2a.card_to_artifact if _protocol(protocol) == "a2a" else mcp_result.card_to_result
    sources = resolve_sources(specs)
    return Conversion(_exported(read_paths(sources.paths, stdin), convert), list(sources.notes))


def _imported(
    records: Iterator[Record], find: Callable[[Any], Iterator[tuple[str, Any]]]
) -> Iterator[Converted]:
    for record in records:
        where = _where(record)
        if record.error is not None:
            yield Converted(where, problem=record.error)
            continue
        from .a2a import KeyTooLong

        try:
            found = list(find(record.value))
        except KeyTooLong as exc:
            yield Converted(where, problem=str(exc))
            continue
        for path, card in found:
            yield Converted(f"{where} {path}", card, _invalid(card))


def import_cards(
    specs: Sequence[str], *, protocol: str = "a2a", stdin: IO[bytes] | None = None
) -> Conversion:
    """Every card carried in the A2A (``a2a``) or MCP (``mcp``) JSON of ``specs``, verbatim."""
    from . import a2a, mcp_result

    find = a2a.cards_in if _protocol(protocol) == "a2a" else mcp_result.cards_in
    sources = resolve_sources(specs)
    return Conversion(_imported(read_paths(sources.paths, stdin), find), list(sources.notes))
