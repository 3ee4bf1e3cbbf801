"""A hook's tool-use event: which documents the tool opened, recorded as read events
against the session's routes (``serving/reads.py`` recognises a read; ``telemetry/reads.py``
turns the events into read rates), and a loaded index's catalogue for recognising reads.
The rest of the turn is ``serving/hook_turn.py``.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

from .. import telemetry
from . import harness
from .reads import Catalogue, reads

if TYPE_CHECKING:
    from ..routing.router import Router
    from .hook_turn import Backend, Turn
    from .sessions import Session


def tool_turn(turn: Turn, found: tuple[str, Session], payload: dict[str, Any], cwd: str,
              index: str, point: str | None, backend: Backend) -> None:
    """A tool ran: record each document it opened (read events), routed earlier or not."""
    key, session = found
    known = backend.catalogue(index, point)
    opened = reads(payload, known, harness.cwd_of(payload) or cwd)
    if not opened:
        return
    store = backend.sessions
    assert store is not None
    now = time.time()
    events = []
    with store.lock:
        for name, via in opened:
            news, routed, turns, seconds = session.note_read(name, now)
            if news:
                events.append({"adapter": "hook", "session": key, "document": name, "via": via,
                               "routed": routed, "turns_since_route": turns,
                               "seconds_since_route": seconds,
                               "index_fingerprint": known.fingerprint, "known": known.names,
                               "ts": now})
    sink = turn.sink

    def record() -> None:
        for event in events:
            telemetry.record_read(sink, **event)

    turn._after.append(record)


def catalogue_of(router: Router) -> Catalogue:
    """A loaded index's names and source files, for recognising reads."""
    sources = {}
    for name in router.names:
        source = router.stored.document(name).source
        if source and ":" not in source:
            sources[name] = os.path.normpath(str(router.stored.base / source))
    return Catalogue(list(router.names), sources, router.stored.fingerprint)
