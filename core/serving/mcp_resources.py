"""The documents as MCP resources, and the hints every gov tool carries.

Each document of the index is a resource ``gov://documents/NAME``: listed
(``resources/list``), readable (``resources/read``) and described by the template
``gov://documents/{name}``. A resource is a name in the index, never a file: its text
comes from the index loaded at start-up, and a URI naming anything else is "not found".
Every tool is marked read-only, idempotent, not destructive and closed-world: gov's tools
look things up and check cards; none changes anything or reaches outside the index.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, unquote

PREFIX = "gov://documents/"
TEMPLATE = PREFIX + "{name}"
MIME_TYPE = "text/markdown"
TITLES = {
    "route_policies": "Name the policies that govern a prompt",
    "get_policy": "Read one policy document in full",
    "create_card": "Build a task card",
    "validate_card": "Check a task card against the schema",
    "verify_card": "Verify a task card against a contract",
}


def document_uri(name: str) -> str:
    """The resource URI of a document (its name percent-encoded, so any name is one segment)."""
    return PREFIX + quote(name, safe="")


def tool_annotations(tool: str) -> Any:
    """The ``ToolAnnotations`` for a gov tool (the SDK's model, in either SDK major)."""
    types = importlib.import_module("mcp.types")
    return types.ToolAnnotations.model_validate({
        "title": TITLES[tool], "readOnlyHint": True, "destructiveHint": False,
        "idempotentHint": True, "openWorldHint": False,
    })


RESOURCE_NOT_FOUND = -32002  # the resources page's error code, protocol 2025-06-18 and 2025-11-25


def not_found(uri: str, message: str) -> Exception:
    """The protocol error for a resource that does not exist: ``-32002`` with the URI in its
    data, as the 2025 revisions say (the 2026 revision moves to ``-32602`` and asks clients
    to accept ``-32002`` still). A protocol error passes through the SDK untouched."""
    try:
        from mcp.shared.exceptions import MCPError  # SDK 2

        return MCPError(RESOURCE_NOT_FOUND, message, {"uri": uri})
    except ImportError:
        types = importlib.import_module("mcp.types")
        sdk1: Any = importlib.import_module("mcp.shared.exceptions").McpError
        return sdk1(types.ErrorData(code=RESOURCE_NOT_FOUND, message=message, data={"uri": uri}))  # type: ignore[no-any-return]


def add_documents(server: Any, names: list[str], text: Callable[[str], str],
                  describe: Callable[[str], str]) -> None:
    """Register each document as a resource, and the template that reads any of them."""
    known = frozenset(names)

    def reader(name: str) -> Callable[[], str]:
        def read() -> str:
            return text(name)

        return read

    for name in names:
        server.resource(document_uri(name), name=name, description=describe(name),
                        mime_type=MIME_TYPE)(reader(name))

    def document(name: str) -> str:
        decoded = unquote(name)
        if decoded not in known:
            raise not_found(PREFIX + name, f"no document named {decoded!r} in the index; "
                                           "resources/list lists them")
        return text(decoded)

    server.resource(TEMPLATE, name="document", mime_type=MIME_TYPE,
                    description="A whole policy document of the index, by its name")(document)
