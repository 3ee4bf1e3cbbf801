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
