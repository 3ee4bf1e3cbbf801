"""``gov mcp``: serve an index to AI agents over the Model Context Protocol, on stdio."""

from __future__ import annotations

from typing import Annotated

import typer

from gov.core.errors import UsageError

from .. import conventions, options
from ..options import CorpusOpt, IndexOpt, LexicalOnlyOpt, PointOpt
from ..resolve import open_index

HELP = """Serve the index over MCP on stdin/stdout: route_policies, get_policy, create_card,
validate_card and verify_card.

The index is loaded and the embedding model warmed before the first request. Documents
are served by name from the index only; no path from a client reaches the file system.
Needs the mcp extra: pip install '.[mcp]' in gov's checkout.

Example:

    gov mcp -i .gov/index

    gov mcp --corpus examples/policies -i .gov/index
"""


def register(app: typer.Typer) -> None:
    app.command("mcp", help=HELP)(mcp_command)


@options.shared()
def mcp_command(
    index: IndexOpt = None,
    corpus: CorpusOpt = None,
    point: PointOpt = None,
    lexical_only: LexicalOnlyOpt = False,
    threads: Annotated[int, typer.Option(
        "--threads", min=0,
        help="Embedding threads per query (0: onnxruntime's default of one per core; 1 spares a core for the agent's own work on a busy machine).",
    )] = 0,
    *,
    view: options.Output,
) -> int:
    from gov.core.serving import mcp_server

    if not mcp_server.available():
        raise UsageError("the MCP server needs the mcp package: pip install 'gov[mcp]'")
    loaded = open_index(index, corpus, point, lexical_only)
    conventions.notice(f"serving {len(loaded.names)} documents from {loaded.path} over MCP (stdio)")
    mcp_server.serve(loaded, threads=threads or None)
    return 0
