"""One route, as the hook, the warm server and MCP deliver it: names, evidence, notices.

The warm server and the in-process fallback both answer with :func:`answer`, so a turn
gets the same routes whichever path served it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gov.core.routing.router import Index


def answer(index: Index, prompt: str) -> dict[str, Any]:
    """Route ``prompt`` and describe the result in plain JSON types."""
    result = index.route(prompt, record=False)
    base = Path(index.header["corpus"].get("base", "."))
    sources = {}
    for route in result.routes:
        source = index.document(route.name).source
        if source and ":" not in source:
            sources[route.name] = os.path.normpath(str(base / source))
    return {
        "ok": True,
        "routes": [route.to_json() for route in result.routes],
        "degraded": result.degraded,
        "confidence": None if result.confidence is None else round(result.confidence, 4),
        "notices": list(result.notices),
        "sources": sources,
        "corpus_size": len(index.names),
        "fingerprint": index.fingerprint,
        "operating_point_id": index.operating_point.id,
        "route_ms": index.route_ms,
    }
