"""The warm server's address and wire protocol, and the lean client the hook uses.

This module imports only the standard library (orjson's import alone costs a hook turn
about 10 ms; messages here are small): the hook asks the warm server
first and must not pay for numpy, onnxruntime or typer unless it routes in-process.
One request per connection: a JSON object and a newline; the answer likewise.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import stat
import sys
import time
from pathlib import Path
from typing import Any

from gov.core.errors import GovError

SOCKET_NAME = "serve.sock"
MAX_MESSAGE = 8 * 1024 * 1024
DEFAULT_IDLE_SECONDS = 30 * 60


class RuntimeDirError(GovError):
    """The per-user runtime folder is unsafe (someone else's, or open to others)."""

    exit_code = 2
    failure_class = "route"


def runtime_dir(create: bool = True) -> Path:
    """``$XDG_RUNTIME_DIR/gov``, else ``gov-<uid>`` under the temp dir: 0700 and ours."""
    explicit = os.environ.get("GOV_RUNTIME_DIR")
    if explicit:
        folder = Path(explicit)
    elif os.environ.get("XDG_RUNTIME_DIR"):
        folder = Path(os.environ["XDG_RUNTIME_DIR"]) / "gov"
    else:
        import tempfile  # only here: the hook's client path stays small

        folder = Path(tempfile.gettempdir()) / f"gov-{os.getuid()}"
    if create:
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700, parents=True)
    check_private(folder)
    return folder


def check_private(folder: Path) -> None:
    """Refuse a runtime folder that is a symlink, not ours, or open to others."""
    try:
        info = folder.lstat()
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise RuntimeDirError(f"{folder}: runtime folder is not a plain folder; remove it")
    if info.st_uid != os.getuid():
        raise RuntimeDirError(f"{folder}: runtime folder belongs to uid {info.st_uid}, not you;"
                              " refusing to use it")
    if info.st_mode & 0o077:
        os.chmod(folder, 0o700)


def socket_path() -> Path:
    return runtime_dir() / SOCKET_NAME


def encode(message: dict[str, Any]) -> bytes:
    """One line of strict JSON in UTF-8; ValueError for what JSON cannot carry (NaN, lone
    surrogates)."""
    text = json.dumps(message, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.encode("utf-8") + b"\n"


def read_message(sock: socket.socket) -> dict[str, Any]:
    """Read one newline-terminated JSON object from ``sock``."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if chunk.endswith(b"\n") or size > MAX_MESSAGE:
            break
    data = b"".join(chunks)
    if size > MAX_MESSAGE:
        raise ValueError("message too large")
    try:
        value = json.loads(data)  # JSONDecodeError and UnicodeDecodeError are ValueErrors
    except RecursionError:
        raise ValueError("message is nested too deeply") from None
    if not isinstance(value, dict):
        raise ValueError("message is not a JSON object")
    return value


def request(message: dict[str, Any], timeout: float = 2.0, path: Path | None = None) -> dict[str, Any] | None:
    """Ask the warm server; None when it is absent, slow, or answers garbage."""
    try:
        target = path or socket_path()
        if not target.exists():
            return None
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(str(target))
            sock.sendall(encode(message))
            sock.shutdown(socket.SHUT_WR)
            answer = read_message(sock)
    except (OSError, ValueError, GovError):
        return None
    if answer.get("ok") is not True:
        return None
    return answer


def spawn_server(idle_seconds: int = DEFAULT_IDLE_SECONDS) -> bool:
    """Start ``gov serve`` detached, unless one was started moments ago; never raises."""
    try:
        folder = runtime_dir()
        marker = folder / "serve.spawned"
        with contextlib.suppress(FileNotFoundError):
            if time.time() - marker.stat().st_mtime < 15:
                return False
        marker.touch()
        import subprocess

        # -P keeps the working folder off sys.path and cwd is our own 0700 folder: the hook
        # runs in whatever repository the agent opened, and a planted gov/ there must not run.
        subprocess.Popen(
            [sys.executable, "-P", "-m", "gov.core.serving.server", "--idle-timeout",
             str(idle_seconds)],
            cwd=folder, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True,
        )
        return True
    except (OSError, GovError):
        return False
