"""The warm server: indexes and the model stay loaded, so a hook turn costs milliseconds.

It answers one JSON request per connection on a Unix socket in the per-user runtime
folder (0700; the socket 0600). It serves any number of indexes, reloads one whose file
changed (the new index is loaded whole before it replaces the old, so no request sees a
half-loaded index), forgets one whose file is gone, survives bad requests (a request's
failure is that request's alone), and exits after an idle timeout. There is one per
installation and version (:func:`~gov.core.serving.protocol.identity`): every answer
carries both, and a new server tells the one of its installation's previous version to
exit.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import socketserver
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..routing.router import Router

from ..errors import GovError
from . import hook_service, wire
from .protocol import (
    DEFAULT_IDLE_SECONDS,
    RuntimeDirError,
    identity,
    open_private,
    read_message,
    request,
    retire_stale,
    runtime_dir,
    runtime_file,
    socket_path,
)

# Connections waiting to be accepted: every hook of a busy machine at once, not five.
BACKLOG = 128


class ServerState:
    """Loaded indexes keyed by (index path, operating point path), with file signatures."""

    def __init__(self) -> None:
        self.indexes: dict[tuple[str, str | None], tuple[tuple[int, ...], Router]] = {}
        self.load_lock = threading.Lock()
        self.route_lock = threading.Lock()
        self.last_request = time.monotonic()
        self.started = time.time()
        self.requests = 0

    @staticmethod
    def _signature(path: str, point: str | None) -> tuple[int, ...]:
        info = os.stat(path)
        parts = [info.st_ino, info.st_size, info.st_mtime_ns]
        if point:
            pinfo = os.stat(point)
            parts += [pinfo.st_ino, pinfo.st_size, pinfo.st_mtime_ns]
        return tuple(parts)

    def index(self, path: str, point: str | None) -> Router:
        """The loaded index for ``path``, reloaded (whole, then swapped) if its file changed."""
        key = (path, point)
        signature = self._signature(path, point)
        cached = self.indexes.get(key)
        if cached is not None and cached[0] == signature:
            return cached[1]
        with self.load_lock:
            cached = self.indexes.get(key)
            if cached is not None and cached[0] == signature:
                return cached[1]
            from ..routing.indexes import load_index
            from ..routing.point import load_operating_point

            loaded = load_index(path, verify=True,
                                operating_point=load_operating_point(point) if point else None)
            loaded.warm()  # load the model before the index is visible
            self.indexes[key] = (signature, loaded)
            return loaded

    def forget_missing(self) -> None:
        """Drop indexes whose file is gone (a test's or a build's temporary index), so a
        long-lived server does not keep them mapped."""
        for key in list(self.indexes):
            if not os.path.exists(key[0]) or (key[1] is not None and not os.path.exists(key[1])):
                with self.load_lock:
                    self.indexes.pop(key, None)

    def handle(self, message: wire.Ping | wire.RouteRequest) -> wire.ServerReply:
        if isinstance(message, wire.Ping):
            return wire.PingReply(os.getpid(), sorted(path for path, _ in self.indexes),
                                  round(time.time() - self.started, 1), self.requests)
        loaded = self.index(message.index, message.operating_point)
        with self.route_lock:
            answer = loaded.route(message.prompt[:wire.MAX_PROMPT_CHARS], record=False)
        return wire.RouteReply(answer.to_wire())


class _Handler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        server: GovServer = self.server  # type: ignore[assignment]
        state = server.state
        state.last_request = time.monotonic()
        state.requests += 1
        sock: socket.socket = self.request
        sock.settimeout(10)
        if hook_service.is_hook_request(sock):  # a hook turn: the server renders its stdout
            if hook_service.answer(state, sock) > wire.LARGE_REQUEST:
                release_heap()  # one large request must not leave the server larger
            state.last_request = time.monotonic()
            return
        reply: wire.ServerReply
        try:
            message = wire.decode_request(read_message(sock))
        except wire.RequestError as exc:
            reply = wire.ErrorReply(str(exc))
        except (OSError, ValueError) as exc:
            reply = wire.ErrorReply(f"bad request: {exc}")
        else:
            if isinstance(message, wire.Stop):
                reply = wire.StopReply()
                threading.Thread(target=server.shutdown, daemon=True).start()
            else:
                try:
                    reply = state.handle(message)
                except GovError as exc:
                    reply = wire.ErrorReply(str(exc))
                except Exception as exc:  # a bad request must never take the server down
                    reply = wire.ErrorReply(f"{type(exc).__name__}: {exc}")
        who = identity()  # whose answer this is: a client takes only its own
        try:
            blob = wire.Answer(reply, who["installation"], who["version"]).encode()
        except ValueError as exc:
            blob = wire.Answer(wire.ErrorReply(f"the answer cannot be sent as JSON: {exc}"),
                               who["installation"], who["version"]).encode()
        with contextlib.suppress(OSError):
            sock.sendall(blob)
        state.last_request = time.monotonic()


def release_heap() -> None:
    """Hand freed heap back to the system (glibc's ``malloc_trim``; elsewhere nothing)."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).malloc_trim(0)


class GovServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    request_queue_size = BACKLOG

    def __init__(self, path: Path, state: ServerState) -> None:
        self.state = state
        super().__init__(str(path), _Handler)


def serve(idle_seconds: float = DEFAULT_IDLE_SECONDS, warm_index: str | None = None,
          ready: Callable[[], object] | None = None) -> int:
    """Run the server until stopped or idle; return 0, or 1 when one is already running."""
    folder = runtime_dir()
    try:
        lock_file = os.fdopen(open_private(runtime_file("lock")), "r+")  # held for its life
    except OSError as exc:  # a link planted in the folder is never followed
        raise RuntimeDirError(f"{runtime_file('lock')}: cannot open the server's lock file "
                              f"({exc.strerror or exc}); remove it") from None
    try:
        fcntl.flock(lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock_file.close()
        return 1
    path = socket_path()
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    state = ServerState()
    hook_service.count_losses()  # once: hook turns' unrecordable telemetry counted for doctor
    old_umask = os.umask(0o177)
    try:
        server = GovServer(path, state)
    finally:
        os.umask(old_umask)
    os.chmod(path, 0o600)
    retire_stale(folder)
    from ..encode.embedding import get_encoder

    with contextlib.suppress(GovError):
        get_encoder()
    if warm_index:
        with contextlib.suppress(GovError, OSError):
            state.index(warm_index, None)

    def watchdog() -> None:
        while True:
            time.sleep(min(5.0, max(idle_seconds / 4, 0.05)))
            if time.monotonic() - state.last_request > idle_seconds:
                server.shutdown()
                return
            state.forget_missing()

    threading.Thread(target=watchdog, daemon=True).start()
    if ready is not None:
        ready()
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
        with contextlib.suppress(FileNotFoundError):
            if path.exists() and path.stat().st_ino == os.stat(path).st_ino:
                path.unlink()
        lock_file.close()
    return 0


def status() -> wire.PingReply | None:
    return request(wire.Ping(), timeout=2.0)


def stop() -> bool:
    return request(wire.Stop(), timeout=2.0) is not None


def main(argv: list[str] | None = None) -> int:
    """``python -P -m gov.core.serving.server [--idle-timeout SECONDS]``: what the hook
    starts on demand (never through the command-line package: the library never spawns it)."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="python -m gov.core.serving.server")
    parser.add_argument("--idle-timeout", type=float, default=DEFAULT_IDLE_SECONDS)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return serve(idle_seconds=args.idle_timeout)
    except GovError as exc:
        sys.stderr.write(f"gov serve: {exc}\n")
        return exc.exit_code


__all__ = ["RuntimeDirError", "main", "serve", "status", "stop"]

if __name__ == "__main__":
    raise SystemExit(main())
