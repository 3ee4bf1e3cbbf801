"""The warm server's side of a hook turn: bytes in, the hook's stdout out.

A hook process runs on every prompt and every tool call, so it should cost little more
than starting Python. It therefore parses nothing: it sends its argv, working folder, a
few environment variables, its start time and its stdin, as they are, and prints what
comes back. The server runs the whole turn (:func:`gov.core.serving.hook_turn.run`),
keeps the session memory, and records telemetry after the answer is sent. The request,
the reply, their limits and framing are :mod:`gov.core.serving.wire`'s.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import weakref
from typing import TYPE_CHECKING

from ..telemetry.losses import count_loss
from ..telemetry.sinks import on_loss, sink_for
from . import wire
from .hook_grammar import ENV_KEYS
from .hook_reads import catalogue_of
from .hook_turn import Turn, run
from .identity import signature
from .reads import Catalogue
from .sessions import Session, SessionFiles, SessionStore

if TYPE_CHECKING:
    from ..routing.answer import RouteAnswer
    from .server import ServerState

MAGIC = wire.MAGIC
READ_SECONDS = 10.0  # a request arrives whole within this, or it is dropped


def decode_request(data: bytes) -> wire.HookRequest:
    """A request from its bytes; ValueError when they are not one."""
    return wire.HookRequest.decode(data, ENV_KEYS)


def encode_reply(turn: Turn) -> bytes:
    return wire.HookReply(b"ok", signature(), turn.stderr, turn.stdout).encode()


class _Nowhere:
    """The sink for a hook process that has telemetry off (the server's own setting is not
    the hook's)."""

    def emit(self, event: dict[str, object]) -> None:
        return None


class ServerBackend:
    """Routes from the server's loaded indexes; session memory from its store."""

    attempts = 1
    memory = True

    def __init__(self, state: ServerState, sessions: SessionStore) -> None:
        self.state = state
        self.sessions: SessionStore | None = sessions

    def route(self, index: str, point: str | None, prompt: str) -> RouteAnswer:
        loaded = self.state.index(index, point)
        with self.state.route_lock:
            return loaded.route(prompt, record=False)

    def names(self, index: str, point: str | None) -> list[str]:
        return list(self.state.index(index, point).names)

    def catalogue(self, index: str, point: str | None) -> Catalogue:
        loaded = self.state.index(index, point)
        with _stores_lock:
            found = _catalogues.get(loaded)
            if found is None:
                found = _catalogues[loaded] = catalogue_of(loaded)
            return found

    def adopt(self, key: str, index: str) -> Session | None:
        """A session the hook tracked in a state file while no server ran: taken over."""
        try:
            names = frozenset(self.state.index(index, None).names)
            return SessionFiles(session_folder()).take(key, names.__contains__)
        except Exception:  # a state file is a nicety; never a failed turn
            return None


_catalogues: weakref.WeakKeyDictionary[object, Catalogue] = weakref.WeakKeyDictionary()
_stores: weakref.WeakKeyDictionary[ServerState, SessionStore] = weakref.WeakKeyDictionary()
_stores_lock = threading.Lock()


def sessions_of(state: ServerState) -> SessionStore:
    """The session memory of one running server (made on its first hook turn)."""
    with _stores_lock:
        store = _stores.get(state)
        if store is None:
            store = _stores[state] = SessionStore()
        return store


def session_folder() -> str:
    """Where the hook keeps session state files while no warm server runs."""
    from .protocol import runtime_dir

    return str(runtime_dir() / "sessions")


def _count_in_runtime_folder(reason: str) -> None:
    from .protocol import runtime_dir

    count_loss(runtime_dir(), reason)


def count_losses() -> None:
    """Hook turns' telemetry that cannot be recorded (a refused or unwritable
    ``GOV_TELEMETRY_PATH``) is counted in the runtime folder for ``gov doctor``; the hook's
    stderr says nothing about it."""
    on_loss(_count_in_runtime_folder)


def is_hook_request(sock: socket.socket) -> bool:
    """Whether the connection opens with the hook framing (one byte peeked, none consumed)."""
    try:
        return sock.recv(1, socket.MSG_PEEK) == MAGIC[:1]
    except OSError:
        return False


def answer(state: ServerState, sock: socket.socket) -> int:
    """Serve one hook connection: run the turn, send the reply, then record and remember.
    Return the request's size."""
    try:
        data = wire.read_request(sock, time.monotonic() + READ_SECONDS)
        request = decode_request(data)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            sock.sendall(wire.HookReply(b"bad", b"").encode())
        return 0
    sink = sink_for(request.environ.get("GOV_TELEMETRY_PATH", "")) or _Nowhere()
    turn = run(request.argv, request.payload, cwd=request.cwd, environ=request.environ,
               start=request.start, backend=ServerBackend(state, sessions_of(state)), sink=sink)
    try:
        sock.sendall(encode_reply(turn))
        sock.shutdown(socket.SHUT_WR)
        delivered = True
    except OSError:  # the client gave up waiting
        delivered = False
    turn.finish(delivered)
    return len(data)
