"""The warm server's address and wire protocol, and the lean client the hook uses.

This module imports only the standard library (orjson's import alone costs a hook turn
about 10 ms; messages here are small): the hook asks the warm server
first and must not pay for numpy, onnxruntime or typer unless it routes in-process.
One request per connection: a JSON object and a newline; the answer likewise (the typed
records, their limits and their encoding are :mod:`gov.core.serving.wire`'s).

One server per installation and version: the socket's name carries both
(:func:`identity`), every answer says whose it is, and a client takes an answer only from
its own installation and version. A server of this installation and another version (the
one before an upgrade) is told to exit when the new one starts. The runtime folder must
be a plain folder of the user's that nobody else can write to; files in it are opened
without following links.
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, overload

from ..errors import GovError
from . import identity as ident
from . import wire

if TYPE_CHECKING:
    import subprocess

DEFAULT_IDLE_SECONDS = 30 * 60


class RuntimeDirError(GovError):
    """The per-user runtime folder is unsafe (someone else's, or open to others)."""

    exit_code = 2
    failure_class = "route"


def runtime_dir(create: bool = True) -> Path:
    """``$XDG_RUNTIME_DIR/gov``, else ``gov-<uid>`` under the temp dir: 0700 and ours."""
    folder = Path(ident.runtime_folder())  # the rule the hook's client follows too
    if create:
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700, parents=True)
    check_private(folder)
    return folder


def check_private(folder: Path) -> None:
    """Refuse a runtime folder that is a symlink, not ours, or writable by others (what
    they may have planted in it cannot be undone by closing it now)."""
    try:
        info = folder.lstat()
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise RuntimeDirError(f"{folder}: runtime folder is not a plain folder; remove it")
    if info.st_uid != os.getuid():
        raise RuntimeDirError(f"{folder}: runtime folder belongs to uid {info.st_uid}, not you;"
                              " refusing to use it")
    if info.st_mode & 0o022:
        raise RuntimeDirError(f"{folder}: runtime folder is writable by others (mode "
                              f"{stat.S_IMODE(info.st_mode):o}); refusing to use it: remove it")
    if info.st_mode & 0o055:
        os.chmod(folder, 0o700)


def identity() -> dict[str, str]:
    """This installation and version (:mod:`gov.core.serving.identity`): ``installation``
    names where this gov and its Python environment live (two virtual environments
    differ), ``version`` is gov's."""
    return {"installation": ident.installation(), "version": ident.version()}


def _stem(named: dict[str, str] | None = None) -> str:
    return ident.stem(named)


def socket_name() -> str:
    """The socket's file name in the runtime folder: one per installation and version."""
    return _stem() + ".sock"


def socket_path() -> Path:
    return runtime_dir() / socket_name()


def runtime_file(name: str) -> Path:
    """This installation's ``serve-….NAME`` file in the runtime folder (lock, marker)."""
    return runtime_dir() / f"{_stem()}.{name}"


def open_private(path: Path, flags: int = os.O_RDWR) -> int:
    """Open (creating, 0600) a file in the runtime folder without following a link."""
    return os.open(path, flags | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
                   | getattr(os, "O_CLOEXEC", 0), 0o600)


def is_socket(path: Path) -> bool:
    """Whether ``path`` itself (not what a link points at) is a socket."""
    try:
        return stat.S_ISSOCK(path.lstat().st_mode)
    except OSError:
        return False


def read_message(sock: socket.socket) -> bytes:
    """Read one newline-terminated message's bytes from ``sock`` (at most
    :data:`~gov.core.serving.wire.MAX_MESSAGE`: ValueError past it)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if chunk.endswith(b"\n") or size > wire.MAX_MESSAGE:
            break
    if size > wire.MAX_MESSAGE:
        raise ValueError("message too large")
    return b"".join(chunks)


def send(message: wire.ServerRequest, timeout: float, path: Path) -> wire.Answer | None:
    """One request to whatever listens at ``path``; its answer, or None (absent, slow,
    garbage). Whose answer it is is not checked here: see :func:`request`."""
    try:
        if not is_socket(path):
            return None
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(str(path))
            sock.sendall(message.encode())
            sock.shutdown(socket.SHUT_WR)
            return wire.Answer.decode(read_message(sock), message)
    except (OSError, ValueError, GovError):
        return None


@overload
def request(message: wire.Ping, timeout: float = ..., path: Path | None = ...
            ) -> wire.PingReply | None: ...
@overload
def request(message: wire.Stop, timeout: float = ..., path: Path | None = ...
            ) -> wire.StopReply | None: ...
@overload
def request(message: wire.RouteRequest, timeout: float = ..., path: Path | None = ...
            ) -> wire.RouteReply | None: ...
def request(message: wire.ServerRequest, timeout: float = 2.0, path: Path | None = None
            ) -> wire.PingReply | wire.StopReply | wire.RouteReply | None:
    """Ask this installation's warm server; its reply, or None when it is absent, slow,
    answers garbage or an error, or answers as another installation or version."""
    try:
        target = path or socket_path()
    except (OSError, GovError):
        return None
    answer = send(message, timeout, target)
    if answer is None or isinstance(answer.reply, wire.ErrorReply):
        return None
    who = identity()
    if answer.installation != who["installation"] or answer.version != who["version"]:
        return None
    return answer.reply


def retire_stale(folder: Path) -> int:
    """Tell servers of this installation with another version (the gov before an upgrade)
    to exit; return how many were told."""
    who = identity()
    mine = socket_name()
    told = 0
    for path in folder.glob(f"serve-{who['installation']}-*.sock"):
        if path.name != mine and send(wire.Stop(), 1.0, path) is not None:
            told += 1
    return told


SPAWN_QUIET_SECONDS = 15.0  # a server spawned this recently is still starting

# What a hook does after the warm server failed its turn (see :func:`recover`).
IN_PROCESS = "in_process"  # run the turn in this process (at most one hook at a time)
NOTHING = "nothing"  # answer nothing this turn (exit 0, as always)
_restart_lock: list[int] = []  # held until the process exits


def recently_spawned() -> bool:
    """Whether a hook started a server moments ago (it may still be loading)."""
    try:
        return time.time() - runtime_file("spawned").lstat().st_mtime < SPAWN_QUIET_SECONDS
    except (OSError, GovError):
        return False


def take_restart_lock() -> bool | None:
    """Take this installation's restart lock without waiting: True when this process now
    holds it (until it exits), False when another does, None when it cannot be opened."""
    if _restart_lock:
        return True
    import fcntl

    try:
        descriptor = open_private(runtime_file("restart"))
    except (OSError, GovError):
        return None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(descriptor)
        return False
    _restart_lock.append(descriptor)
    return True


def recover(outcome: str, request: bytes, began: float) -> tuple[str, wire.HookReply | None]:
    """After this installation's server failed a hook turn (``outcome`` of the first
    exchange), what the hook does: (:data:`wire.ANSWERED`, the reply), :data:`IN_PROCESS`
    or :data:`NOTHING`. A dead server must not make every waiting hook load the model: one
    hook (the holder of the restart lock) starts a server and waits for it, the others wait
    for that server until ``began + START_SECONDS`` and otherwise answer nothing; a turn
    runs in-process only in the lock's holder, when no server can be started or the one
    listening is not this installation's."""
    try:
        path = str(socket_path())
    except (OSError, GovError):
        return IN_PROCESS, None  # no safe runtime folder: no server either
    deadline = began + wire.START_SECONDS
    if outcome == wire.SLOW and recently_spawned():  # still loading: wait for it
        return _wait(path, request, deadline)
    held = take_restart_lock()
    if held is None:
        return IN_PROCESS, None
    if not held:  # another hook is restarting the server (or answering in-process)
        return _wait(path, request, deadline) if outcome == wire.ABSENT else (NOTHING, None)
    if outcome != wire.ABSENT or recently_spawned():
        return IN_PROCESS, None  # something else listens there, or a start just failed
    server = _spawn()
    if server is None:
        return IN_PROCESS, None
    return _wait(path, request, deadline, server)


def _wait(path: str, request: bytes, deadline: float, server: subprocess.Popen[bytes] | None = None
          ) -> tuple[str, wire.HookReply | None]:
    """Ask the server being started until ``deadline``; when this hook started it
    (``server``), run the turn in-process should it die first."""
    while time.monotonic() < deadline:
        outcome, data = wire.exchange(path, request, deadline)
        if outcome == wire.ANSWERED:
            reply = ident.accepted(data)
            return (wire.ANSWERED, reply) if reply is not None else (NOTHING, None)
        if outcome != wire.ABSENT:
            break
        # it died (1: another server holds the lock)
        if server is not None and server.poll() not in (None, 1):
            return IN_PROCESS, None
        time.sleep(0.05)
    return NOTHING, None


def _spawn(idle_seconds: int = DEFAULT_IDLE_SECONDS) -> subprocess.Popen[bytes] | None:
    """Start the server detached (marking when); None when it cannot be started."""
    try:
        folder = runtime_dir()
        descriptor = open_private(runtime_file("spawned"), os.O_WRONLY)
        try:
            os.utime(descriptor)
        finally:
            os.close(descriptor)
        import subprocess

        # -P keeps the working folder off sys.path and cwd is our own 0700 folder: the hook
        # runs in whatever repository the agent opened, and a planted gov/ there must not run.
        return subprocess.Popen(
            [sys.executable, "-P", "-m", "gov.core.serving.server", "--idle-timeout",
             str(idle_seconds)],
            cwd=folder, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True,
        )
    except (OSError, GovError):
        return None


def spawn_server(idle_seconds: int = DEFAULT_IDLE_SECONDS) -> bool:
    """Start the server detached, unless one was started moments ago; never raises."""
    if recently_spawned():
        return False
    return _spawn(idle_seconds) is not None
