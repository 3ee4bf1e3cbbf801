"""A task card as an MCP tool result, the shape gov's ``create_card`` tool answers with.

A ``CallToolResult`` whose ``structuredContent`` is ``{"card": <the card>}`` (it conforms to
the ``outputSchema`` gov's MCP server publishes for ``create_card``, ``output_schema()``
here) and whose ``content`` holds the same object as JSON text, for clients that read only
text. Reading takes such a result, bare or in a JSON-RPC response, and falls back to the
text content when ``structuredContent`` is missing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import orjson


def output_schema() -> dict[str, Any]:
    """The JSON Schema of ``structuredContent``: an object whose ``card`` is a task card."""
    from .schema import card_schema

    card = {k: v for k, v in card_schema().items() if k not in ("$schema", "$id")}
    return {"type": "object", "properties": {"card": card}, "required": ["card"]}


def card_to_result(card: Mapping[str, Any]) -> dict[str, Any]:
    """One valid card as an MCP ``CallToolResult``, as ``create_card`` would return it."""
    structured = {"card": dict(card)}
    text = orjson.dumps(structured, option=orjson.OPT_INDENT_2).decode()
    return {"content": [{"type": "text", "text": text}], "structuredContent": structured,
            "isError": False}


def _card_of(structured: Any) -> Any:
    if isinstance(structured, Mapping) and "card" in structured:
        return structured["card"]
    return None


def cards_in(value: Any, where: str = "$") -> Iterator[tuple[str, Any]]:
    """The card in a tool result (or a list of them, or JSON-RPC responses), with its path."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            yield from cards_in(item, f"{where}[{index}]")
        return
    if not isinstance(value, Mapping):
        return
    if "jsonrpc" in value and isinstance(value.get("result"), Mapping):
        yield from cards_in(value["result"], f"{where}.result")
        return
    if value.get("isError") is True:
        return
    card = _card_of(value.get("structuredContent"))
    if card is not None:
        yield f"{where}.structuredContent.card", card
        return
    content = value.get("content")
    if isinstance(content, list):
        for index, block in enumerate(content):
            if not (isinstance(block, Mapping) and block.get("type") == "text"):
                continue
            try:
                card = _card_of(orjson.loads(str(block.get("text", ""))))
            except orjson.JSONDecodeError:
                continue
            if card is not None:
                yield f"{where}.content[{index}].text.card", card
                return
