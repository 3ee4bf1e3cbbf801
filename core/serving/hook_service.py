"""The warm server's side of a hook turn: bytes in, the hook's stdout out.

A hook process runs on every prompt and every tool call, so it should cost little more
than starting Python. It therefore parses nothing: it sends its argv, working folder, a
few environment variables, its start time and its stdin, as they are, and prints what
comes back. The server runs the whole turn (:func:`gov.core.serving.hook_turn.run`),
keeps the session memory, and records telemetry after the answer is sent.

The framing is binary, not the JSON lines of the other requests (the client would pay for
importing ``json``), and starts with :data:`MAGIC`, so one peeked byte tells the two apart::

    request: MAGIC NUL count NUL field NUL ... field NUL stdin-bytes      (to EOF)
    reply:   MAGIC NUL status NUL signature NUL stderr-line NUL stdout-bytes   (to EOF)

Fields are ``start=FLOAT`` (the process start on the shared monotonic ``perf_counter``
clock), ``cwd=PATH``, ``env:NAME=VALUE`` for :data:`~gov.core.serving.hook_turn.ENV_KEYS`
and ``arg=ARG`` per argument, as file-system bytes. The status is ``ok``; anything else
(or no reply) makes the client run the turn in-process. The signature is the server's
installation and version (:func:`gov.core.serving.identity.signature`): a client takes a
reply only with its own.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import weakref
from typing import TYPE_CHECKING, Any

from gov.core.serving.hook_turn import ENV_KEYS, MAX_STDIN, Turn, catalogue_of, run
from gov.core.serving.identity import signature
from gov.core.serving.reads import Catalogue
from gov.core.serving.sessions import Session, SessionFiles, SessionStore
from gov.core.telemetry import JsonlSink

if TYPE_CHECKING:
    from gov.core.routing.answer import RouteAnswer

MAGIC = b"GOVHOOK1"
MAX_REQUEST = MAX_STDIN + 1 + 256 * 1024  # the stdin cap, plus argv and paths


class HookRequest:
    """A decoded hook request."""

    __slots__ = ("argv", "cwd", "environ", "payload", "start")

    def __init__(self, argv: list[str], cwd: str, environ: dict[str, str], start: float,
                 payload: bytes) -> None:
        self.argv = argv
        self.cwd = cwd
        self.environ = environ
        self.start = start
        self.payload = payload


def decode_request(data: bytes) -> HookRequest:
    """A request from its bytes; ValueError when they are not one."""
    magic, count, rest = data.split(b"\0", 2)
    if magic != MAGIC or not count.isdigit() or int(count) > 4096:
        raise ValueError("not a hook request")
    parts = rest.split(b"\0", int(count))
    if len(parts) != int(count) + 1:
        raise ValueError("truncated hook request")
    argv: list[str] = []
    cwd, start, environ = "", None, {}
    for field in parts[:-1]:
        key, eq, value = field.partition(b"=")
        if not eq:
            raise ValueError("bad field")
        text = os.fsdecode(value)
        if key == b"arg":
            argv.append(text)
        elif key == b"cwd":
            cwd = text
        elif key == b"start":
            start = float(text)
        elif key.startswith(b"env:") and key[4:].decode() in ENV_KEYS:
            environ[key[4:].decode()] = text
    if not os.path.isabs(cwd) or start is None:
        raise ValueError("a hook request needs an absolute cwd and a start time")
    return HookRequest(argv, cwd, environ, start, parts[-1])


def encode_reply(turn: Turn) -> bytes:
    return (MAGIC + b"\0ok\0" + signature() + b"\0"
            + turn.stderr.encode("utf-8", "replace").replace(b"\0", b" ") + b"\0" + turn.stdout)


class _Nowhere:
    """The sink for a hook process that has telemetry off (the server's own setting is not
    the hook's)."""

    def emit(self, event: dict[str, Any]) -> None:
        return None


class ServerBackend:
    """Routes from the server's loaded indexes; session memory from its store."""

    attempts = 1
    memory = True

    def __init__(self, state: Any, sessions: SessionStore) -> None:
        self.state = state
        self.sessions: SessionStore | None = sessions

    def route(self, index: str, point: str | None, prompt: str) -> RouteAnswer:
        loaded = self.state.index(index, point)
        with self.state.route_lock:
            return loaded.route(prompt, record=False)  # type: ignore[no-any-return]

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


_catalogues: weakref.WeakKeyDictionary[Any, Catalogue] = weakref.WeakKeyDictionary()
_stores: weakref.WeakKeyDictionary[Any, SessionStore] = weakref.WeakKeyDictionary()
_stores_lock = threading.Lock()


def sessions_of(state: Any) -> SessionStore:
    """The session memory of one running server (made on its first hook turn)."""
    with _stores_lock:
        store = _stores.get(state)
        if store is None:
            store = _stores[state] = SessionStore()
        return store


def session_folder() -> str:
    """Where the hook keeps session state files while no warm server runs."""
    from gov.core.serving.protocol import runtime_dir

    return str(runtime_dir() / "sessions")


def is_hook_request(sock: socket.socket) -> bool:
    """Whether the connection opens with the hook framing (one byte peeked, none consumed)."""
    try:
        return sock.recv(1, socket.MSG_PEEK) == MAGIC[:1]
    except OSError:
        return False


def _read_all(sock: socket.socket) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = sock.recv(1 << 18)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_REQUEST:
            raise ValueError("hook request too large")
        chunks.append(chunk)


def answer(state: Any, sock: socket.socket) -> None:
    """Serve one hook connection: run the turn, send the reply, then record and remember."""
    try:
        request = decode_request(_read_all(sock))
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            sock.sendall(MAGIC + b"\0bad\0\0")  # the client runs the turn itself
        return
    path = request.environ.get("GOV_TELEMETRY_PATH", "").strip()
    sink = JsonlSink(os.path.expanduser(path)) if path else _Nowhere()
    turn = run(request.argv, request.payload, cwd=request.cwd, environ=request.environ,
               start=request.start, backend=ServerBackend(state, sessions_of(state)), sink=sink)
    try:
        sock.sendall(encode_reply(turn))
        sock.shutdown(socket.SHUT_WR)
        delivered = True
    except OSError:  # the client gave up waiting and answered in-process
        delivered = False
    turn.finish(delivered)
