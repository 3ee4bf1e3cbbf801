"""Route telemetry: one small JSON event per route attempt, off unless asked for.

A router that stopped working looks exactly like one that is appropriately quiet;
these events tell the two apart. They are built so that they cannot collect secrets:
an event holds enums, numbers, hashes and document names, and nothing else. There is
no free-text field, so prompt text, paths and tokens have nowhere to go.

Turning it on: ``GOV_TELEMETRY_PATH=FILE`` appends events to FILE as JSON lines
(:class:`JsonlSink`). A program can install any object with an ``emit(event)`` method
through :func:`set_sink`; an explicit sink always wins over the environment, and
``set_sink(None)`` turns telemetry off whatever the environment says. Recording never
raises: a broken sink costs a swallowed error and a tick in :func:`stats`, never a turn.

Adapter API. Each adapter wraps one route attempt, from input to output written::

    from gov.core import telemetry

    with telemetry.attempt("cli", start=START) as t:    # START: perf_counter() at process start
        index = open_index(...)                          # a GovError here records "failed"
        result = index.route(prompt, record=False)       # the adapter records, not the library
        t.result_of(index, result)                       # or t.result(names, route_ms=..., ...)
        write_output(result)                             # an error here records "render"

On leaving the block the event is built and emitted: ``routed`` when ``names`` is not
empty, ``abstained`` when it is, ``failed`` when the block raised (the failure class
comes from the :class:`~gov.core.errors.GovError`, else ``render`` after
:meth:`Attempt.result` and ``route`` before it). The exception still propagates. A
block that ends with neither a result nor an exception (``--help``, say) records
nothing. Code that must not raise, like the hook, uses the same object by hand::

    t = telemetry.attempt("hook", start=START)
    try:
        ...; t.result(names, ...); ...
    except Exception as exc:
        t.fail(exc)                                      # or t.fail("index_load")
    finally:
        t.close()

Increase ``t.attempts`` when the adapter retries (reloading an index, say).
``start`` is a :func:`time.perf_counter` reading: taken at process start for the CLI
and the hook (:func:`process_start` gives the operating system's start time where it
can), at request receipt for the server and MCP. :func:`delivered_ms` turns it into
milliseconds. Lower level: :func:`make_event` builds and checks one event,
:func:`emit` sends it to the active sink, :func:`record` does both and never raises.
"""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import Collection, Iterable, Mapping
from types import TracebackType
from typing import Any, Literal, Protocol, runtime_checkable

from gov.core import __version__
from gov.core.errors import GovError

try:  # Not on every platform; without it a line is still one O_APPEND write.
    import fcntl
except ImportError:  # pragma: no cover - non-POSIX
    fcntl = None  # type: ignore[assignment]

SCHEMA_VERSION = 1
ENV_PATH = "GOV_TELEMETRY_PATH"

Outcome = Literal["routed", "abstained", "failed"]
Adapter = Literal["cli", "hook", "mcp", "server", "library"]

OUTCOMES: tuple[str, ...] = ("routed", "abstained", "failed")
FAILURE_CLASSES: tuple[str, ...] = (
    "input", "corpus_load", "index_load", "index_build", "route", "render",
)
ADAPTERS: tuple[str, ...] = ("cli", "hook", "mcp", "server", "library")
FIELDS: tuple[str, ...] = (
    "ts", "v", "outcome", "failure_class", "degraded", "corpus_size", "index_fingerprint",
    "operating_point_id", "adapter", "delivered_ms", "route_ms", "routes", "attempts",
    "gov_version",
)

#: Stands in for a route whose name did not pass the name check, so the outcome is
#: still counted while the value is kept out.
WITHHELD = "<withheld>"

MAX_NAME = 200  # as the corpus allows
MAX_ROUTES = 16  # gov returns at most 2; room for other routers, never for a dump.
_NAME_PUNCT = frozenset("_-.+")
# Names a document would never have but a file would: a source file name is a path leak.
_FILE_SUFFIXES = frozenset((
    "md", "mdc", "markdown", "txt", "json", "jsonl", "yaml", "yml", "toml", "py", "rst", "html",
    "htm", "pdf", "csv", "log", "env", "key", "pem",
))
# Shapes of well-known credentials; a document name starting like this is withheld.
_SECRET_PREFIXES = (
    "sk-", "sk_", "rk_live", "rk_test", "pk_live", "pk_test", "ghp_", "gho_", "ghu_", "ghs_",
    "ghr_", "github_pat_", "glpat-", "xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-", "xapp-",
    "AKIA", "ASIA", "AIza", "eyJ", "npm_", "hf_", "pypi-", "shpat_", "whsec_", "SG.",
    "dop_v1_", "AGE-SECRET",
)
_HEX = frozenset("0123456789abcdef")

_STATS: dict[str, int] = {"emitted": 0, "sink_errors": 0, "invalid": 0, "withheld": 0}


@runtime_checkable
class Sink(Protocol):
    """Anything that takes events. ``emit`` may raise; :func:`emit` swallows it."""

    def emit(self, event: dict[str, Any]) -> None: ...


# --- checking values ----------------------------------------------------------------


def _secret_shaped(name: str) -> bool:
    if name.startswith(_SECRET_PREFIXES):
        return True
    for segment in name.replace("-", "_").replace(".", "_").split("_"):
        if len(segment) >= 32 and all(c in _HEX for c in segment.lower()):
            return True
        if len(segment) >= 20 and any(c.isdigit() for c in segment) and any(
            c.isalpha() for c in segment
        ):
            return True
    return False


def is_document_name(name: object) -> bool:
    """Whether ``name`` has the shape of a document name and of nothing else.

    A name is a short token of letters, digits and ``_-.+``: no space (so no prose),
    no slash, backslash or colon (so no path or URL), no ``=`` or ``@`` (so no
    ``key=value`` or address), no file suffix such as ``.md`` (so no source file name),
    and nothing shaped like a credential. Membership in the corpus is checked
    separately, through ``known``.
    """
    if type(name) is not str or not 0 < len(name) <= MAX_NAME:
        return False
    first = name[0]
    if not (first.isalnum() or first == "_") or ".." in name:
        return False
    if not all(c.isalnum() or c in _NAME_PUNCT for c in name):
        return False
    stem, dot, suffix = name.rpartition(".")
    if dot and stem and suffix.lower() in _FILE_SUFFIXES:
        return False
    return not _secret_shaped(name)


def is_digest(value: object) -> bool:
    """Whether ``value`` is a hex digest, optionally ``algo:``-prefixed (``sha256:ab12…``)."""
    if type(value) is not str or len(value) > 160:
        return False
    algo, colon, digest = value.rpartition(":")
    if colon and not (0 < len(algo) <= 16 and algo.isascii() and algo.isalnum()):
        return False
    return 8 <= len(digest) <= 128 and all(c in _HEX for c in digest)


_TS_SHAPE = "dddd-dd-ddTdd:dd:dd.dddZ"


def _is_ts(value: object) -> bool:
    # The one timestamp shape gov writes: 2026-12-02T11:44:15.123Z.
    return (
        type(value) is str
        and len(value) == len(_TS_SHAPE)
        and all(
            ("0" <= c <= "9") if s == "d" else c == s
            for c, s in zip(value, _TS_SHAPE, strict=True)
        )
    )


def _ms(value: object, field: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
        if math.isfinite(number) and number >= 0:
            return round(number, 3)
    raise ValueError(f"{field} must be a finite number of milliseconds >= 0 or None")


def rfc3339(epoch: float) -> str:
    """``epoch`` seconds as RFC 3339 UTC with milliseconds: ``2026-12-02T11:44:15.123Z``."""
    whole, ms = divmod(int(epoch * 1000), 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + f".{ms:03d}Z"


# --- building events ----------------------------------------------------------------


def make_event(
    *,
    outcome: Outcome,
    adapter: Adapter,
    routes: Iterable[str] = (),
    failure_class: str | None = None,
    degraded: bool = False,
    corpus_size: int | None = None,
    index_fingerprint: str | None = None,
    operating_point_id: str | None = None,
    delivered_ms: float | None = None,
    route_ms: float | None = None,
    attempts: int = 1,
    known: Collection[str] | None = None,
    ts: float | None = None,
    strict: bool = True,
) -> dict[str, Any]:
    """Build one checked event, or raise :class:`ValueError` saying what is wrong.

    Invariants: ``failed`` carries a failure class and no routes; ``routed`` carries at
    least one name; ``abstained`` carries none and no class. Every value must be an enum,
    a number, a digest or a document name (see :func:`is_document_name`; with ``known``,
    the names must also be in it). With ``strict=False`` a bad name becomes
    :data:`WITHHELD` and a bad digest becomes ``None`` instead of raising, so an odd
    corpus never silences telemetry; a bad outcome, class, adapter or number still raises.
    ``ts`` (epoch seconds) defaults to now. Error messages never quote the bad value.
    """
    if ts is not None and (type(ts) not in (int, float) or not math.isfinite(ts) or ts < 0):
        raise ValueError("ts must be epoch seconds")
    return _build(
        ts=rfc3339(time.time() if ts is None else ts),
        version=__version__,
        outcome=outcome,
        adapter=adapter,
        routes=routes,
        failure_class=failure_class,
        degraded=degraded,
        corpus_size=corpus_size,
        index_fingerprint=index_fingerprint,
        operating_point_id=operating_point_id,
        delivered_ms=delivered_ms,
        route_ms=route_ms,
        attempts=attempts,
        known=known,
        strict=strict,
    )


def validate_event(event: Mapping[str, Any]) -> dict[str, Any]:
    """Check an event made elsewhere (or edited since) field by field; return a clean copy.

    :func:`emit` runs every event through this, so a dict with an extra key, a wrong
    type or a non-name route never reaches a sink, however it was made.
    """
    if not isinstance(event, Mapping) or set(event) != set(FIELDS):
        raise ValueError(f"an event has exactly the keys {', '.join(FIELDS)}")
    if type(event["v"]) is not int or event["v"] != SCHEMA_VERSION:
        raise ValueError(f"v must be {SCHEMA_VERSION}")
    if not _is_ts(event["ts"]):
        raise ValueError("ts must be RFC 3339 UTC with milliseconds")
    if event["gov_version"] != __version__:
        raise ValueError("gov_version must be this gov's version")
    if type(event["routes"]) is not list:
        raise ValueError("routes must be a list")
    fields = {k: event[k] for k in FIELDS if k not in ("ts", "v", "gov_version")}
    return _build(ts=event["ts"], version=event["gov_version"], known=None, strict=True,
                  **fields)


def _build(
    *,
    ts: str,
    version: str,
    outcome: object,
    adapter: object,
    routes: Iterable[str],
    failure_class: object,
    degraded: object,
    corpus_size: object,
    index_fingerprint: object,
    operating_point_id: object,
    delivered_ms: object,
    route_ms: object,
    attempts: object,
    known: Collection[str] | None,
    strict: bool,
) -> dict[str, Any]:
    if type(outcome) is not str or outcome not in OUTCOMES:
        raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}")
    if type(adapter) is not str or adapter not in ADAPTERS:
        raise ValueError(f"adapter must be one of {', '.join(ADAPTERS)}")
    if isinstance(routes, (str, bytes)):
        raise ValueError("routes must be a list of document names, not one string")
    names = list(routes)
    if len(names) > MAX_ROUTES:
        raise ValueError(f"at most {MAX_ROUTES} routes")
    checked: list[str] = []
    for name in names:
        if name == WITHHELD or (is_document_name(name) and (known is None or name in known)):
            checked.append(name)
        elif strict:
            raise ValueError("a route is not a document name (value withheld)")
        else:
            _STATS["withheld"] += 1
            checked.append(WITHHELD)
    if outcome == "failed":
        if type(failure_class) is not str or failure_class not in FAILURE_CLASSES:
            raise ValueError(
                f"a failed event needs failure_class, one of {', '.join(FAILURE_CLASSES)}"
            )
        if checked:
            raise ValueError("a failed event has no routes")
    elif failure_class is not None:
        raise ValueError(f"only a failed event has a failure_class, not {outcome}")
    if outcome == "routed" and not checked:
        raise ValueError("a routed event needs at least one document name")
    if outcome == "abstained" and checked:
        raise ValueError("an abstained event has no routes")
    if type(degraded) is not bool:
        raise ValueError("degraded must be True or False")
    if corpus_size is not None and (type(corpus_size) is not int or corpus_size < 0):
        raise ValueError("corpus_size must be an int >= 0 or None")
    if type(attempts) is not int or attempts < 1:
        raise ValueError("attempts must be an int >= 1")
    digests: list[str | None] = []
    for field, value in (("index_fingerprint", index_fingerprint),
                         ("operating_point_id", operating_point_id)):
        if value is None or is_digest(value):
            digests.append(value)  # type: ignore[arg-type]
        elif strict:
            raise ValueError(f"{field} must be a hex digest (optionally algo:-prefixed) or None")
        else:
            _STATS["withheld"] += 1
            digests.append(None)
    return {
        "ts": ts,
        "v": SCHEMA_VERSION,
        "outcome": outcome,
        "failure_class": failure_class,
        "degraded": degraded,
        "corpus_size": corpus_size,
        "index_fingerprint": digests[0],
        "operating_point_id": digests[1],
        "adapter": adapter,
        "delivered_ms": _ms(delivered_ms, "delivered_ms"),
        "route_ms": _ms(route_ms, "route_ms"),
        "routes": checked,
        "attempts": attempts,
        "gov_version": version,
    }


# --- sinks --------------------------------------------------------------------------


class JsonlSink:
    """Append each event to a file as one JSON line, safely from many processes at once.

    Each line is one ``os.write`` on a descriptor opened with ``O_APPEND``, under an
    exclusive ``flock``: lines from concurrent hook processes never interleave, a short
    write is finished before anyone else writes, and the file is never rewritten. If an
    earlier writer died mid-line, the next line starts on a fresh line, so a torn line
    costs only itself. The file is opened per event, so rotating or deleting it is safe.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)

    def __repr__(self) -> str:
        return f"JsonlSink({self.path!r})"

    def emit(self, event: dict[str, Any]) -> None:
        import orjson  # here, not at the top: importing it costs ~12 ms a hook need not pay

        self.write_line(orjson.dumps(event, option=orjson.OPT_APPEND_NEWLINE))

    def _open(self) -> tuple[int, bool]:
        """The descriptor, and whether it can read (to look at the last byte)."""
        flags = os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
        try:
            return os.open(self.path, flags | os.O_RDWR, 0o600), True
        except FileNotFoundError:
            os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
            return os.open(self.path, flags | os.O_RDWR, 0o600), True
        except PermissionError:  # a shared log we may append to but not read
            return os.open(self.path, flags | os.O_WRONLY, 0o600), False

    def write_line(self, line: bytes) -> None:
        """Append ``line`` (which ends in a newline) whole; raise OSError on failure."""
        fd, readable = self._open()
        try:
            locked = False
            if fcntl is not None:
                with contextlib.suppress(OSError):  # e.g. ENOLCK on some network filesystems
                    fcntl.flock(fd, fcntl.LOCK_EX)
                    locked = True
            size = os.fstat(fd).st_size if readable else 0
            if size and os.pread(fd, 1, size - 1) != b"\n":
                line = b"\n" + line  # finish a line torn by a writer that died
            view = memoryview(line)
            while view:
                written = os.write(fd, view)
                if written <= 0:
                    raise OSError("telemetry sink accepted no bytes")
                view = view[written:]
            if locked:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


class MemorySink:
    """Keep events in a list: for tests, and for programs that ship events elsewhere."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def emit(self, event: dict[str, Any]) -> None:
        self.events.append(event)


_UNSET: Any = object()
_explicit: Any = _UNSET
_env_sink: JsonlSink | None = None


def set_sink(sink: Sink | None) -> None:
    """Install ``sink`` for this process; ``None`` turns telemetry off. Beats the environment."""
    global _explicit
    if sink is not None and not isinstance(sink, Sink):
        raise TypeError("a telemetry sink needs an emit(event) method")
    _explicit = sink


def reset_sink() -> None:
    """Forget any explicit sink: telemetry follows ``GOV_TELEMETRY_PATH`` again."""
    global _explicit
    _explicit = _UNSET


def active_sink() -> Sink | None:
    """The sink events go to now: the explicit one, else the environment's, else none."""
    global _env_sink
    if _explicit is not _UNSET:
        return _explicit  # type: ignore[no-any-return]
    raw = os.environ.get(ENV_PATH, "").strip()
    if not raw:
        return None
    path = os.path.expanduser(raw)
    if _env_sink is None or _env_sink.path != path:
        _env_sink = JsonlSink(path)
    return _env_sink


def enabled() -> bool:
    """Whether events go anywhere; adapters may skip work for telemetry when not."""
    return active_sink() is not None


def stats() -> dict[str, int]:
    """Counters for what was emitted, swallowed or withheld in this process."""
    return dict(_STATS)


def emit(event: Mapping[str, Any]) -> None:
    """Send ``event`` to the active sink. Never raises; a bad event or sink is only counted."""
    try:
        sink = active_sink()
        if sink is None:
            return
        try:
            clean = validate_event(event)
        except (ValueError, TypeError, KeyError):
            _STATS["invalid"] += 1
            return
        sink.emit(clean)
        _STATS["emitted"] += 1
    except Exception:  # a sink must never cost a turn
        _STATS["sink_errors"] += 1


def record(**fields: Any) -> None:
    """:func:`make_event` (lenient: odd names withheld) then :func:`emit`. Never raises."""
    try:
        if active_sink() is None:
            return
        event = make_event(strict=False, **fields)
    except Exception:  # telemetry must never cost a turn
        _STATS["invalid"] += 1
        return
    emit(event)


# --- timing -------------------------------------------------------------------------


def delivered_ms(start: float) -> float:
    """Milliseconds since ``start``, a :func:`time.perf_counter` reading."""
    return (time.perf_counter() - start) * 1000.0


def process_start() -> float | None:
    """The :func:`time.perf_counter` reading at which this process started, or None.

    Read from ``/proc/self/stat`` on Linux, so it includes the interpreter's own start-up
    that a reading taken at import misses. The kernel counts in clock ticks (usually
    10 ms); the middle of the tick is returned. None where it cannot be read.
    """
    try:
        with open("/proc/self/stat", "rb") as handle:
            stat = handle.read()
        fields = stat[stat.rindex(b")") + 2 :].split()
        ticks = int(fields[19])  # field 22 of the man page: starttime, after pid and comm
        hz = os.sysconf("SC_CLK_TCK")
        now_boot = time.clock_gettime(time.CLOCK_BOOTTIME)
        now_perf = time.perf_counter()
    except (OSError, ValueError, IndexError, AttributeError):
        return None
    elapsed = now_boot - (ticks + 0.5) / hz
    if elapsed < 0:
        elapsed = now_boot - ticks / hz
    if elapsed < 0:
        return None
    return now_perf - elapsed


# --- the adapter helper -------------------------------------------------------------


class Attempt:
    """One route attempt, recorded when it closes. See the module docstring for use."""

    __slots__ = ("_closed", "_failure", "_result", "adapter", "attempts", "start")

    def __init__(self, adapter: Adapter, start: float | None = None) -> None:
        self.adapter = adapter
        self.start = time.perf_counter() if start is None else start
        self.attempts = 1
        self._result: dict[str, Any] | None = None
        self._failure: str | None = None
        self._closed = False

    def result(
        self,
        names: Iterable[str],
        *,
        route_ms: float | None = None,
        degraded: bool | str | None = False,
        corpus_size: int | None = None,
        index_fingerprint: str | None = None,
        operating_point_id: str | None = None,
        known: Collection[str] | None = None,
    ) -> None:
        """Record what the router returned: names routed (empty: abstained) and context."""
        self._result = {
            "routes": list(names) if not isinstance(names, (str, bytes)) else names,
            "route_ms": route_ms,
            "degraded": bool(degraded),
            "corpus_size": corpus_size,
            "index_fingerprint": index_fingerprint,
            "operating_point_id": operating_point_id,
            "known": known,
        }

    def result_of(self, index: Any, result: Any) -> None:
        """:meth:`result` for an ``Index`` and the ``RouteResult`` it returned.

        Read by attribute (``result.names``, ``result.degraded``, ``index.names``,
        ``index.route_ms``, ``index.fingerprint``, ``index.operating_point.id``) so that
        this module never imports the numeric stack. Names outside the index are withheld.
        """
        names = list(getattr(index, "names", None) or ())
        point = getattr(index, "operating_point", None)
        self.result(
            result.names,
            route_ms=getattr(index, "route_ms", None),
            degraded=getattr(result, "degraded", None),
            corpus_size=len(names),
            index_fingerprint=getattr(index, "fingerprint", None),
            operating_point_id=getattr(point, "id", None),
            known=frozenset(names),
        )

    def fail(self, failure: BaseException | str) -> None:
        """Mark the attempt failed, with a failure class or the exception that says it."""
        self._failure = failure if isinstance(failure, str) else self._class_of(failure)

    def _class_of(self, exc: BaseException) -> str:
        if isinstance(exc, GovError):
            return str(exc.failure_class)
        return "render" if self._result is not None else "route"

    def close(self, exc: BaseException | None = None) -> None:
        """Build and emit the event, once. Never raises."""
        if self._closed:
            return
        self._closed = True
        try:
            if active_sink() is None:
                return
            if exc is not None and self._failure is None and not _clean_exit(exc):
                if not isinstance(exc, Exception):
                    return  # interrupted, not failed: the turn was abandoned
                self._failure = self._class_of(exc)
            context = dict(self._result or {})
            if self._failure is not None:
                context["routes"] = ()
                fields: dict[str, Any] = {"outcome": "failed", "failure_class": self._failure}
            elif self._result is not None:
                fields = {"outcome": "routed" if context["routes"] else "abstained"}
            else:
                return  # nothing was attempted
            record(adapter=self.adapter, delivered_ms=delivered_ms(self.start),
                   attempts=self.attempts, **fields, **context)
        except Exception:  # telemetry must never cost a turn
            _STATS["invalid"] += 1

    def __enter__(self) -> Attempt:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> Literal[False]:
        self.close(exc)
        return False


def _clean_exit(exc: BaseException) -> bool:
    # SystemExit(0) and click's Exit(0) end a command that succeeded; they are not failures.
    if isinstance(exc, GovError):
        return False
    if isinstance(exc, SystemExit):
        return exc.code in (0, None)
    return getattr(exc, "exit_code", None) == 0


def attempt(adapter: Adapter, start: float | None = None) -> Attempt:
    """Start recording one route attempt through ``adapter``; ``start`` defaults to now."""
    return Attempt(adapter, start)
