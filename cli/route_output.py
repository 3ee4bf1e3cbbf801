"""What ``gov route`` writes for a routed row, shared by the typer command and its lean path.

Imports nothing heavy and not typer: the one-shot path (``cli/route_lean.py``) uses it too.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from gov.core.routing.pipeline import GOV_KEYS, output_row  # the rows every engine writes (no numpy)

__all__ = ["GOV_KEYS", "default_index", "from_server", "output_row", "write_served"]


def default_index() -> Path:
    """``$GOV_INDEX``, else ``.gov/index`` here (as ``gov.core.routing.router.default_index_path``,
    without importing numpy)."""
    explicit = os.environ.get("GOV_INDEX")
    return Path(explicit) if explicit else Path.cwd() / ".gov" / "index"


def from_server(prompt: str, index: Path | None, point: Path | None) -> dict[str, Any] | None:
    """The warm server's answer for one prompt, or None to route in-process."""
    from gov.core.serving import protocol as serve_protocol

    target = os.path.abspath(index or default_index())
    if not os.path.isfile(target):
        return None
    return serve_protocol.request(
        {"op": "route", "index": target, "prompt": prompt,
         "operating_point": os.path.abspath(point) if point else None},
        timeout=1.0,
    )


def write_served(prompt: str, served: dict[str, Any], out_format: str, exit_status: bool,
                  start: float) -> int:
    from gov.core import telemetry

    row: dict[str, Any] = {"prompt": prompt, "routes": served["routes"]}
    if served.get("degraded"):
        row["degraded"] = served["degraded"]
    if served.get("confidence") is not None:
        row["confidence"] = served["confidence"]
    names = [route["name"] for route in served["routes"]]
    with telemetry.attempt("cli", start=start) as attempt:
        attempt.attempts = 1
        attempt.result(names, route_ms=served.get("route_ms"), degraded=served.get("degraded"),
                       corpus_size=served.get("corpus_size"), index_fingerprint=served.get("fingerprint"),
                       operating_point_id=served.get("operating_point_id"),
                       known=frozenset(names))
        import orjson

        option = orjson.OPT_APPEND_NEWLINE | (orjson.OPT_INDENT_2 if out_format == "json" else 0)
        sys.stdout.buffer.write(orjson.dumps([row] if out_format == "json" else row, option=option))
        sys.stdout.buffer.flush()
    return 1 if exit_status and not names else 0
