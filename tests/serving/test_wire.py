"""The warm server's ping, route and stop messages as typed records (``serving/wire.py``):
each encodes to one strict JSON line and decodes back to the same record, a message that is
not one is refused with a reason, the size limits hold, and a real server answers them."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest

from gov.core.serving import wire
from gov.core.serving.protocol import identity, request, send, socket_name
from tests.serving.test_server import start_server

# Every module that carries these messages across the process boundary.
CARRIERS = ("core/serving/wire.py", "core/serving/protocol.py", "core/serving/server.py")
REPO = Path(__file__).resolve().parents[2]


def test_requests_round_trip_as_one_json_line() -> None:
    for message in (wire.Ping(), wire.Stop(), wire.RouteRequest("/i/x.gov", "roll back", None),
                    wire.RouteRequest("/i/x.gov", "deploy ✓", "/p/point.json")):
        data = message.encode()
        assert data.endswith(b"\n") and data.count(b"\n") == 1
        back = wire.decode_request(data)
        assert type(back) is type(message)
        if isinstance(message, wire.RouteRequest):
            assert isinstance(back, wire.RouteRequest)
            assert (back.index, back.prompt, back.operating_point) == (
                message.index, message.prompt, message.operating_point)
    # The JSON a server of an earlier version sends and reads is unchanged.
    assert json.loads(wire.Stop().encode()) == {"op": "stop"}
    assert json.loads(wire.RouteRequest("/i", "p").encode()) == {
        "op": "route", "index": "/i", "prompt": "p", "operating_point": None}


@pytest.mark.parametrize(("data", "reason"), [
    (b'{"op": "nope"}\n', "unknown op 'nope'"),
    (b'{"op": "route", "index": "relative", "prompt": "x"}\n', "absolute 'index'"),
    (b'{"op": "route", "index": "/i"}\n', "a 'prompt'"),
    (b'{"op": "route", "index": "/i", "prompt": "x", "operating_point": 3}\n', "absolute path"),
    (b'{"op": "route", "index": "/' + b"a" * wire.MAX_PATH + b'", "prompt": "x"}\n',
     "absolute 'index'"),
])
def test_a_message_that_is_no_request_is_refused_with_its_reason(data: bytes,
                                                                 reason: str) -> None:
    with pytest.raises(wire.RequestError, match=reason):
        wire.decode_request(data)


@pytest.mark.parametrize("data", [b"garbage\n", b"[1,2]\n", b"", b'{"op": NaN', b"\xff\xfe\n",
                                  b"[" * 100_000 + b"\n"])
def test_what_is_not_a_json_object_is_a_value_error(data: bytes) -> None:
    with pytest.raises(ValueError) as raised:
        wire.decode_request(data)
    assert not isinstance(raised.value, wire.RequestError)


def test_size_limits_hold_both_ways() -> None:
    with pytest.raises(ValueError, match="too large"):
        wire.decode_request(b" " * (wire.MAX_MESSAGE + 1))
    with pytest.raises(ValueError, match="too large"):
        wire.RouteRequest("/i", "x" * wire.MAX_MESSAGE).encode()
    with pytest.raises(ValueError):  # what strict JSON cannot carry
        wire.encode_message({"x": float("nan")})
    error = wire.ErrorReply("e" * (wire.MAX_ERROR * 2))
    assert len(error.error) == wire.MAX_ERROR


def test_replies_round_trip_with_whose_they_are() -> None:
    ping = wire.Answer(wire.PingReply(42, ["/a.gov", "/b.gov"], 3.5, 7), "inst", "1.0")
    back = wire.Answer.decode(ping.encode(), wire.Ping())
    assert (back.installation, back.version) == ("inst", "1.0")
    assert isinstance(back.reply, wire.PingReply)
    assert (back.reply.pid, back.reply.indexes, back.reply.uptime_s, back.reply.requests) == (
        42, ["/a.gov", "/b.gov"], 3.5, 7)
    route = wire.Answer(wire.RouteReply({"ok": True, "routes": [], "reason": "abstained"}),
                        "inst", "1.0")
    decoded = wire.Answer.decode(route.encode(), wire.RouteRequest("/i", "p"))
    assert isinstance(decoded.reply, wire.RouteReply)
    assert decoded.reply.answer == {"routes": [], "reason": "abstained"}
    stop = wire.Answer.decode(wire.Answer(wire.StopReply(), "i", "v").encode(), wire.Stop())
    assert isinstance(stop.reply, wire.StopReply)
    failed = wire.Answer.decode(wire.Answer(wire.ErrorReply("no index"), "i", "v").encode(),
                                wire.Ping())
    assert isinstance(failed.reply, wire.ErrorReply) and failed.reply.error == "no index"
    assert json.loads(failed.encode())["ok"] is False


@pytest.mark.parametrize("data", [
    b'{"ok": true, "pid": 1, "indexes": [], "uptime_s": 1, "requests": 1}\n',  # whose?
    b'{"ok": true, "pid": "1", "indexes": [], "uptime_s": 1, "requests": 1,'
    b' "installation": "i", "version": "v"}\n',
    b'{"ok": true, "pid": 1, "indexes": [3], "uptime_s": 1, "requests": 1,'
    b' "installation": "i", "version": "v"}\n',
    b'{"ok": true, "pid": 1, "indexes": [], "uptime_s": true, "requests": 1,'
    b' "installation": "i", "version": "v"}\n',
])
def test_a_malformed_ping_reply_is_refused(data: bytes) -> None:
    with pytest.raises(ValueError):
        wire.Answer.decode(data, wire.Ping())


def test_no_any_crosses_the_wire() -> None:
    for name in CARRIERS:
        assert not re.search(r"\bAny\b", (REPO / name).read_text()), name


@pytest.fixture()
def runtime(tmp_path: Path) -> dict[str, str]:
    return {"GOV_RUNTIME_DIR": str(tmp_path / "rt")}


@pytest.mark.slow
def test_a_real_server_answers_the_typed_messages(runtime: dict[str, str],
                                                  example_index: Path) -> None:
    server = start_server(runtime)
    path = Path(runtime["GOV_RUNTIME_DIR"]) / socket_name()
    try:
        ping = request(wire.Ping(), path=path)
        assert isinstance(ping, wire.PingReply) and ping.requests >= 1 and ping.indexes == []
        routed = request(wire.RouteRequest(str(example_index), "roll back last night's "
                                           "release, checkout is throwing 500s"), path=path)
        assert isinstance(routed, wire.RouteReply) and routed.answer["routes"]
        ping = request(wire.Ping(), path=path)
        assert ping is not None and ping.indexes == [str(example_index)]
        # A request the server cannot serve is that request's error, typed, and whose it is.
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(str(path))
            sock.sendall(b'{"op": "route", "index": "relative", "prompt": "x"}\n')
            sock.shutdown(socket.SHUT_WR)
            answer = wire.Answer.decode(sock.recv(65536), wire.RouteRequest("/", ""))
        assert isinstance(answer.reply, wire.ErrorReply) and "absolute" in answer.reply.error
        assert answer.installation == identity()["installation"]
        stopped = send(wire.Stop(), 5.0, path)
        assert stopped is not None and isinstance(stopped.reply, wire.StopReply)
        assert server.wait(30) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
