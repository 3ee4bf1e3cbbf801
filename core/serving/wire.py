"""The hook's wire: the request a hook process sends the warm server, the reply it gets back,
their size limits and deadlines, and their encoding, in one place.

Standard library only, and only modules Python has loaded at start-up (``_socket`` is
imported when a request is sent): the hook process imports this module on every turn.

The framing is binary, not JSON (the client would pay for importing ``json``), and starts
with :data:`MAGIC`, so one peeked byte tells a hook turn from the server's JSON requests::

    request: MAGIC NUL count NUL field NUL ... field NUL stdin-bytes      (to EOF)
    reply:   MAGIC NUL status NUL signature NUL stderr-line NUL stdout-bytes   (to EOF)

Fields are ``start=FLOAT`` (the process start on the shared monotonic ``perf_counter``
clock), ``cwd=PATH``, ``env:NAME=VALUE`` for the forwarded variables and ``arg=ARG`` per
argument, as file-system bytes. The status is ``ok``; anything else (or no reply) means the
server did not run the turn. The signature is the server's installation and version
(:func:`gov.core.serving.identity.signature`): a client takes a reply only with its own.

Limits: a request is at most :data:`MAX_REQUEST` bytes (the hook reads at most
:data:`MAX_STDIN` of stdin), a reply at most :data:`MAX_REPLY`; one exchange, connect to
last byte, has one deadline (:func:`reply_seconds`), and a prompt is routed on its first
:data:`MAX_PROMPT_CHARS` characters.
"""

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    import socket
    from typing import TypeAlias

    JSON: TypeAlias = "bool | int | float | str | list[JSON] | dict[str, JSON] | None"
    ServerRequest: TypeAlias = "Ping | Stop | RouteRequest"  # the warm server's messages
    ServerReply: TypeAlias = "PingReply | StopReply | RouteReply | ErrorReply"

MAGIC = b"GOVHOOK1"
MAX_STDIN = 4 * 1024 * 1024  # bytes of a harness payload read from stdin
MAX_FIELDS = 4096  # argv entries, variables and the like in one request
MAX_REQUEST = MAX_STDIN + 1 + 256 * 1024  # the stdin cap, plus argv and paths
MAX_REPLY = 1024 * 1024  # a hook's stdout: one context paragraph or a catalogue
MAX_PROMPT_CHARS = 16 * 1024  # a prompt's prefix that is routed (the model reads 512 tokens)
REPLY_SECONDS = 1.5  # one exchange with a running server, connect to last byte
START_SECONDS = 10.0  # how long a hook waits for a server another hook is starting
LARGE_REQUEST = 256 * 1024  # after a request this large the server hands its heap back

# What one exchange came to (see :func:`exchange`).
ANSWERED = "answered"
ABSENT = "absent"  # nothing listens at the socket (no server, or one not yet bound), or it died mid-turn
SLOW = "slow"  # something listens but did not answer within the deadline
WRONG = "wrong"  # an answer, but not a hook reply of this installation, or too large


def reply_seconds() -> float:
    """The deadline of one exchange: ``$GOV_SERVE_TIMEOUT`` seconds, else 1.5."""
    try:
        value = float(os.environ.get("GOV_SERVE_TIMEOUT") or REPLY_SECONDS)
    except ValueError:
        return REPLY_SECONDS
    return value if 0 < value < 600 else REPLY_SECONDS


class HookRequest:
    """A hook turn as the hook process hands it over: argv, working folder, forwarded
    variables, process start, and the harness's payload bytes."""

    __slots__ = ("argv", "cwd", "environ", "payload", "start")

    def __init__(self, argv: "list[str]", cwd: str, environ: "dict[str, str]", start: float,
                 payload: bytes) -> None:
        self.argv = argv
        self.cwd = cwd
        self.environ = environ
        self.start = start
        self.payload = payload

    def encode(self) -> bytes:
        fields = [b"start=" + repr(self.start).encode(), b"cwd=" + os.fsencode(self.cwd)]
        fields += [b"env:" + key.encode() + b"=" + os.fsencode(value)
                   for key, value in self.environ.items() if value]
        fields += [b"arg=" + os.fsencode(arg) for arg in self.argv]
        return (MAGIC + b"\0" + str(len(fields)).encode() + b"\0"
                + b"".join(field + b"\0" for field in fields) + self.payload[:MAX_STDIN + 1])

    @classmethod
    def decode(cls, data: bytes, env_keys: "tuple[str, ...]") -> "HookRequest":
        """A request from its bytes (variables outside ``env_keys`` dropped); ValueError
        when they are not one."""
        if len(data) > MAX_REQUEST:
            raise ValueError("hook request too large")
        magic, count, rest = data.split(b"\0", 2)
        if magic != MAGIC or not count.isdigit() or int(count) > MAX_FIELDS:
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
            elif key.startswith(b"env:") and key[4:].decode("utf-8", "replace") in env_keys:
                environ[key[4:].decode()] = text
        if not os.path.isabs(cwd) or start is None:
            raise ValueError("a hook request needs an absolute cwd and a start time")
        return cls(argv, cwd, environ, start, parts[-1])


class HookReply:
    """What the server sends back: a status, whose reply it is, the hook's stderr line and
    its stdout bytes."""

    __slots__ = ("signature", "status", "stderr", "stdout")

    def __init__(self, status: bytes, signature: bytes, stderr: str = "", stdout: bytes = b"") -> None:
        self.status = status
        self.signature = signature
        self.stderr = stderr
        self.stdout = stdout

    def encode(self) -> bytes:
        if self.status != b"ok":
            return MAGIC + b"\0" + self.status + b"\0\0\0"
        line = self.stderr.encode("utf-8", "replace").replace(b"\0", b" ")[:4096]
        return MAGIC + b"\0ok\0" + self.signature + b"\0" + line + b"\0" + self.stdout

    def ok_for(self, signature: bytes) -> bool:
        """Whether this is a turn's output from this installation's server."""
        return self.status == b"ok" and self.signature == signature

    @classmethod
    def decode(cls, data: bytes) -> "HookReply":
        """A reply from its bytes; ValueError when they are not one."""
        if len(data) > MAX_REPLY:
            raise ValueError("hook reply too large")
        parts = data.split(b"\0", 4)
        if len(parts) != 5 or parts[0] != MAGIC:
            raise ValueError("not a hook reply")
        return cls(parts[1], parts[2], parts[3].decode("utf-8", "replace"), parts[4])


def exchange(path: str, request: bytes, deadline: float) -> "tuple[str, bytes]":
    """Send ``request`` to the socket at ``path`` and read the reply, all by ``deadline``
    (``time.monotonic``), reading at most :data:`MAX_REPLY` bytes: (:data:`ANSWERED`, the
    reply's bytes), or (:data:`ABSENT`, :data:`SLOW` or :data:`WRONG`, b"")."""
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        try:
            sock.settimeout(max(deadline - time.monotonic(), 0.001))
            sock.connect(path)
        except (FileNotFoundError, ConnectionRefusedError):
            return ABSENT, b""
        except OSError:
            return SLOW, b""
        chunks = []
        size = 0
        try:
            sock.sendall(request)
            sock.shutdown(_socket.SHUT_WR)
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return SLOW, b""
                sock.settimeout(left)
                chunk = sock.recv(65536)
                if not chunk:
                    break
                size += len(chunk)
                if size > MAX_REPLY:
                    return WRONG, b""
                chunks.append(chunk)
        except TimeoutError:
            return SLOW, b""
        except (ConnectionResetError, BrokenPipeError):  # the server died on us
            return ABSENT, b""
        except OSError:
            return WRONG, b""
        if not chunks:  # closed without a word: a server killed mid-turn
            return ABSENT, b""
        return ANSWERED, b"".join(chunks)
    finally:
        sock.close()


def read_request(sock: "socket.socket", deadline: float) -> bytes:
    """The server's side: a request's bytes, to EOF, by ``deadline`` and at most
    :data:`MAX_REQUEST` bytes; ValueError (too large) or OSError (too slow, reset)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("hook request too slow")
        sock.settimeout(left)
        chunk = sock.recv(1 << 18)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_REQUEST:
            raise ValueError("hook request too large")
        chunks.append(chunk)


# -- The warm server's other messages (ping, route, stop): one strict JSON line each way, the
# records below checked on decode; ``json`` is imported on use (a hook turn sends none).
MAX_MESSAGE = 8 * 1024 * 1024  # bytes of one JSON message, either way
MAX_PATH = 4096  # characters of an index or operating-point path in a route request
MAX_ERROR = 4096  # characters of an error a reply carries
MAX_INDEXES = 4096  # loaded index paths a ping reply lists


def encode_message(message: "dict[str, JSON]") -> bytes:
    """One line of strict JSON in UTF-8; ValueError for what JSON cannot carry (NaN, lone
    surrogates) or a message over :data:`MAX_MESSAGE`."""
    import json

    data = json.dumps(message, ensure_ascii=False, allow_nan=False,
                      separators=(",", ":")).encode("utf-8") + b"\n"
    if len(data) > MAX_MESSAGE:
        raise ValueError("message too large")
    return data


def decode_message(data: bytes) -> "dict[str, JSON]":
    """A JSON object from one message's bytes; ValueError when they are not one."""
    import json

    if len(data) > MAX_MESSAGE:
        raise ValueError("message too large")
    try:
        value = json.loads(data)  # JSONDecodeError and UnicodeDecodeError are ValueErrors
    except RecursionError:
        raise ValueError("message is nested too deeply") from None
    if not isinstance(value, dict):
        raise ValueError("message is not a JSON object")
    return value


class _Bare:
    __slots__ = ()
    op = ""

    def encode(self) -> bytes:
        return encode_message({"op": self.op})


class Ping(_Bare):
    """How is the server: its pid, the indexes it holds, its uptime and requests served."""

    op = "ping"


class Stop(_Bare):
    """Exit (the server answers first)."""

    op = "stop"


class RouteRequest:
    """Route ``prompt`` with the index at ``index`` (an absolute path), under the operating
    point at ``operating_point`` (absolute; None: the index's own)."""

    __slots__ = ("index", "operating_point", "prompt")
    op = "route"

    def __init__(self, index: str, prompt: str, operating_point: "str | None" = None) -> None:
        self.index = index
        self.prompt = prompt
        self.operating_point = operating_point

    def encode(self) -> bytes:
        return encode_message({"op": self.op, "index": self.index, "prompt": self.prompt,
                               "operating_point": self.operating_point})


class RequestError(ValueError):
    """A well-formed message that is not a request the server serves (an unknown op, a
    route without an absolute index path or a prompt)."""


def _absolute(value: "JSON") -> bool:
    return isinstance(value, str) and len(value) <= MAX_PATH and os.path.isabs(value)


def decode_request(data: bytes) -> "ServerRequest":
    """A request from its bytes; ValueError when they are not a JSON object,
    :class:`RequestError` when it is not a request the server serves."""
    message = decode_message(data)
    op = message.get("op")
    if op in (Ping.op, Stop.op):
        return Ping() if op == Ping.op else Stop()
    if op != RouteRequest.op:
        raise RequestError(f"unknown op {op!r}")
    index, prompt, point = message.get("index"), message.get("prompt"), message.get("operating_point")
    if not _absolute(index) or not isinstance(prompt, str):
        raise RequestError("route needs an absolute 'index' path and a 'prompt'")
    if point is not None and not _absolute(point):
        raise RequestError("'operating_point' must be an absolute path")
    assert isinstance(index, str) and (point is None or isinstance(point, str))
    return RouteRequest(index, prompt, point)


class PingReply:
    """The server's state: pid, the index paths it holds, uptime seconds, requests served."""

    __slots__ = ("indexes", "pid", "requests", "uptime_s")

    def __init__(self, pid: int, indexes: "list[str]", uptime_s: float, requests: int) -> None:
        self.pid = pid
        self.indexes = indexes
        self.uptime_s = uptime_s
        self.requests = requests

    def fields(self) -> "dict[str, JSON]":
        indexes: list[JSON] = [*self.indexes[:MAX_INDEXES]]
        return {"pid": self.pid, "indexes": indexes, "uptime_s": self.uptime_s,
                "requests": self.requests}

    @classmethod
    def from_fields(cls, message: "dict[str, JSON]") -> "PingReply":
        pid, indexes = message.get("pid"), message.get("indexes")
        uptime, requests = message.get("uptime_s"), message.get("requests")
        if (not isinstance(pid, int) or not isinstance(requests, int) or isinstance(pid, bool)
                or not isinstance(indexes, list)
                or len(indexes) > MAX_INDEXES or not all(isinstance(i, str) for i in indexes)
                or isinstance(uptime, bool) or not isinstance(uptime, (int, float))):
            raise ValueError("not a ping reply")
        return cls(pid, [str(i) for i in indexes], float(uptime), requests)


class StopReply:
    """The server is stopping."""

    __slots__ = ()

    def fields(self) -> "dict[str, JSON]":
        return {"stopping": True}


class RouteReply:
    """A route's answer in its JSON form (:meth:`gov.core.routing.answer.RouteAnswer.to_wire`
    without ``ok``); :meth:`~gov.core.routing.answer.RouteAnswer.from_wire` reads it back."""

    __slots__ = ("answer",)

    def __init__(self, answer: "dict[str, JSON]") -> None:
        self.answer = {key: value for key, value in answer.items()
                       if key not in ("ok", "installation", "version")}

    def fields(self) -> "dict[str, JSON]":
        return dict(self.answer)


class ErrorReply:
    """The request failed (it alone): why, in one line."""

    __slots__ = ("error",)

    def __init__(self, error: str) -> None:
        self.error = error[:MAX_ERROR]

    def fields(self) -> "dict[str, JSON]":
        return {"error": self.error}


class Answer:
    """A reply and whose it is: the server's installation and version (a client takes only
    its own)."""

    __slots__ = ("installation", "reply", "version")

    def __init__(self, reply: "ServerReply", installation: str, version: str) -> None:
        self.reply = reply
        self.installation = installation
        self.version = version

    def fields(self) -> "dict[str, JSON]":
        """The reply as it is sent: ``ok``, the reply's fields, then whose it is."""
        return {"ok": not isinstance(self.reply, ErrorReply), **self.reply.fields(),
                "installation": self.installation, "version": self.version}

    def encode(self) -> bytes:
        return encode_message(self.fields())

    @classmethod
    def decode(cls, data: bytes, request: "ServerRequest") -> "Answer":
        """The answer to ``request`` from its bytes; ValueError when they are not one."""
        message = decode_message(data)
        installation, version, ok = (message.get("installation"), message.get("version"),
                                     message.get("ok"))
        if not isinstance(installation, str) or not isinstance(version, str):
            raise ValueError("an answer names its installation and version")
        reply: ServerReply
        if ok is not True:
            error = message.get("error")
            reply = ErrorReply(error if isinstance(error, str) else "no reason given")
        elif isinstance(request, Ping):
            reply = PingReply.from_fields(message)
        elif isinstance(request, Stop):
            reply = StopReply()
        else:
            reply = RouteReply(message)
        return cls(reply, installation, version)
