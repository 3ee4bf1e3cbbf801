"""The hook's limits: what the read tracker inspects of a tool payload, and one deadline
and a size cap for a whole exchange with the warm server."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from gov.core.serving import wire
from gov.core.serving.reads import Catalogue, reads


def _catalogue(tmp_path: Path) -> Catalogue:
    source = tmp_path / "docs" / "deployment.md"
    source.parent.mkdir()
    source.write_text("# deployment\n")
    return Catalogue(["deployment"], {"deployment": str(source)})


def test_a_two_hundred_thousand_entry_paths_list_is_cheap(tmp_path: Path) -> None:
    catalogue = _catalogue(tmp_path)
    paths = [f"{tmp_path}/elsewhere/{i}/deployment.md" for i in range(200_000)]
    payload = {"tool_name": "read_many_files",
               "tool_input": {"paths": [*paths, str(tmp_path / "docs" / "deployment.md")]}}
    began = time.monotonic()
    found = reads(payload, catalogue, str(tmp_path))
    assert time.monotonic() - began < 1.0
    assert found == []  # the real read is past what is inspected: not worth 30 s of a turn
    first = {"tool_name": "read_many_files",
             "tool_input": {"paths": [str(tmp_path / "docs" / "deployment.md"), *paths]}}
    assert reads(first, catalogue, str(tmp_path)) == [("deployment", "file")]


def test_a_shell_line_of_many_look_alike_paths_is_cheap(tmp_path: Path) -> None:
    catalogue = _catalogue(tmp_path)
    command = "cat " + " ".join(f"e/{i}/deployment.md" for i in range(200_000))
    began = time.monotonic()
    reads({"tool_name": "Bash", "tool_input": {"command": command}}, catalogue, str(tmp_path))
    assert time.monotonic() - began < 1.0


@contextmanager
def _listener(tmp_path: Path, behave: Callable[[socket.socket], None]) -> Iterator[str]:
    path = str(tmp_path / "s.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(4)
    stop = threading.Event()

    def run() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            try:
                behave(conn)
            except OSError:
                pass
            finally:
                conn.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield path
    finally:
        stop.set()
        thread.join()
        server.close()


def test_a_trickled_reply_ends_at_the_exchange_deadline(tmp_path: Path) -> None:
    def trickle(conn: socket.socket) -> None:
        conn.recv(1 << 16)
        for _ in range(100):
            conn.sendall(b"x")
            time.sleep(0.05)

    with _listener(tmp_path, trickle) as path:
        began = time.monotonic()
        outcome, data = wire.exchange(path, b"GOVHOOK1\0", began + 0.5)
        assert outcome == wire.SLOW and data == b""
        assert time.monotonic() - began < 1.0


def test_an_oversized_reply_is_refused_at_the_cap(tmp_path: Path) -> None:
    block = b"y" * (1 << 20)

    def flood(conn: socket.socket) -> None:
        conn.recv(1 << 16)
        for _ in range(2048):  # 2 GB, were it all read
            conn.sendall(block)

    with _listener(tmp_path, flood) as path:
        began = time.monotonic()
        outcome, _ = wire.exchange(path, b"GOVHOOK1\0", began + 5.0)
        assert outcome == wire.WRONG
        assert time.monotonic() - began < 1.0


def test_requests_and_replies_round_trip_and_refuse_oversize() -> None:
    request = wire.HookRequest(["codex", "-i", "/x"], "/tmp", {"GOV_INDEX": "/i"}, 1.5, b"{}")
    back = wire.HookRequest.decode(request.encode(), ("GOV_INDEX",))
    assert (back.argv, back.cwd, back.environ, back.start, back.payload) == (
        ["codex", "-i", "/x"], "/tmp", {"GOV_INDEX": "/i"}, 1.5, b"{}")
    reply = wire.HookReply.decode(wire.HookReply(b"ok", b"sig", "one\0line", b"out").encode())
    assert reply.ok_for(b"sig") and reply.stdout == b"out" and reply.stderr == "one line"
    for oversized in (lambda: wire.HookRequest.decode(b"x" * (wire.MAX_REQUEST + 1), ()),
                      lambda: wire.HookReply.decode(b"x" * (wire.MAX_REPLY + 1))):
        try:
            oversized()
        except ValueError:
            continue
        raise AssertionError("an oversized message was decoded")
    assert os.environ.get("GOV_SERVE_TIMEOUT") is not None or wire.reply_seconds() == 1.5
