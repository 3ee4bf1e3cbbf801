"""Where telemetry events go: a JSONL file named by ``GOV_TELEMETRY_PATH``, or any sink.

A program can install any object with an ``emit(event)`` method through :func:`set_sink`;
an explicit sink always wins over the environment, and ``set_sink(None)`` turns telemetry
off whatever the environment says. Recording never raises: a broken sink costs a
swallowed error and a tick in :func:`stats`, never a turn.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

from .events import (
    _STATS,
    ENV_PATH,
    make_event,
    make_read_event,
    validate_event,
)

# The OpenTelemetry variables that switch export on (gov.core.telemetry.otel); read here
# so that nothing is imported while they are unset.
_OTEL_ENDPOINTS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                   "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")


_otel_blocked = False


def block_otel() -> None:
    """Never export from this process (the hook process: the warm server exports its turns,
    and a short-lived hook must not wait for an exporter at exit)."""
    global _otel_blocked
    _otel_blocked = True


def otel_wanted() -> bool:
    """Whether events should also go to OpenTelemetry: an OTLP endpoint variable is set and
    ``OTEL_SDK_DISABLED`` is not ``true`` (or a test installed exporters)."""
    if _otel_blocked:
        return False
    module = sys.modules.get("gov.core.telemetry.otel")
    if module is not None and module.installed():
        return True
    environ = os.environ
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    return any(environ.get(name) for name in _OTEL_ENDPOINTS)




try:  # Not on every platform; without it a line is still one O_APPEND write.
    import fcntl
except ImportError:  # pragma: no cover - non-POSIX
    fcntl = None  # type: ignore[assignment]


@runtime_checkable
class Sink(Protocol):
    """Anything that takes events. ``emit`` may raise; :func:`emit` swallows it."""

    def emit(self, event: dict[str, Any]) -> None: ...


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


class RefusedSink:
    """A ``GOV_TELEMETRY_PATH`` gov will not write (a relative path): every event is lost,
    and the loss says why."""

    def __init__(self, raw: str, reason: str) -> None:
        self.path = raw
        self.reason = reason

    def __repr__(self) -> str:
        return f"RefusedSink({self.path!r})"

    def emit(self, event: dict[str, Any]) -> None:
        raise SinkRefused(self.reason)


class SinkRefused(Exception):
    """An event sent to a :class:`RefusedSink`."""


def relative_path_reason(raw: str) -> str:
    return (f"{ENV_PATH}={raw!r} is a relative path, so each working folder would get a log of "
            "its own; nothing is recorded until it is an absolute path "
            "(e.g. ~/.local/state/gov/telemetry.jsonl)")


def sink_for(raw: str, home: str | None = None) -> JsonlSink | RefusedSink | None:
    """The sink a ``GOV_TELEMETRY_PATH`` value names: none when blank, a JSONL file when it is
    absolute once ``~`` is expanded (against ``home`` when given: the hook's, in the warm
    server), else refused. A relative path is never resolved against a working folder: the
    hook runs in every project folder, the warm server in its runtime folder."""
    raw = raw.strip()
    if not raw:
        return None
    if home and (raw == "~" or raw.startswith("~/")):
        path = os.path.join(home, raw[2:]) if raw != "~" else home
    else:
        path = os.path.expanduser(raw)
    if not os.path.isabs(path):
        return RefusedSink(raw, relative_path_reason(raw))
    return JsonlSink(path)


def loss_message(sink: Any, exc: BaseException) -> str:
    """One line on why an event did not reach ``sink``."""
    if isinstance(sink, RefusedSink):
        return sink.reason
    if isinstance(exc, OSError) and isinstance(sink, JsonlSink):
        return (f"cannot write the telemetry log {sink.path}: {exc.strerror or exc}; events are "
                "lost until it is writable (or GOV_TELEMETRY_PATH names another file)")
    return f"the telemetry sink {type(sink).__name__} failed: {type(exc).__name__}"


_loss_listener: Callable[[str], None] | None = None


def on_loss(listener: Callable[[str], None] | None) -> None:
    """Call ``listener`` with a one-line reason whenever an event cannot reach its sink
    (``None``: only count it in :func:`stats`, the default)."""
    global _loss_listener
    _loss_listener = listener


def warn_on_loss() -> None:
    """Say the first lost event's reason once on stderr, as ``gov: warning: ...`` (commands
    run by a person; the hook counts its losses for ``gov doctor`` instead)."""
    said = False

    def warn(message: str) -> None:
        nonlocal said
        if not said:
            said = True
            sys.stderr.write(f"gov: warning: telemetry: {message}\n")
            sys.stderr.flush()

    on_loss(warn)


def _lost(sink: Any, exc: BaseException) -> None:
    listener = _loss_listener
    if listener is None:
        return
    with contextlib.suppress(Exception):  # a listener must never cost a turn either
        listener(loss_message(sink, exc))


class MemorySink:
    """Keep events in a list: for tests, and for programs that ship events elsewhere."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def emit(self, event: dict[str, Any]) -> None:
        self.events.append(event)


_UNSET: Any = object()
_explicit: Any = _UNSET
_env_sink: JsonlSink | RefusedSink | None = None


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
    if _env_sink is None or _env_sink.path not in (raw, os.path.expanduser(raw)):
        _env_sink = sink_for(raw)
    return _env_sink


def enabled() -> bool:
    """Whether events go anywhere; adapters may skip work for telemetry when not."""
    return active_sink() is not None or otel_wanted()


def stats() -> dict[str, int]:
    """Counters for what was emitted, swallowed or withheld in this process."""
    return dict(_STATS)


def emit(event: Mapping[str, Any], sink: Sink | None = None) -> None:
    """Send ``event`` to ``sink`` (default: the active sink). Never raises; a bad event or
    sink is only counted."""
    try:
        sink = sink if sink is not None else active_sink()
        otel = otel_wanted()
        if sink is None and not otel:
            return
        try:
            clean = validate_event(event)
        except (ValueError, TypeError, KeyError):
            _STATS["invalid"] += 1
            return
        if sink is not None:
            sink.emit(clean)
            _STATS["emitted"] += 1
    except Exception as exc:  # a sink must never cost a turn
        _STATS["sink_errors"] += 1
        _lost(sink, exc)
        return
    if otel:
        _to_otel(clean)


def _to_otel(event: dict[str, Any]) -> None:
    """Hand the event to OpenTelemetry (the ``gov[otel]`` extra); never raises."""
    try:
        from .otel import export

        export(event)
    except Exception:  # missing extra, broken SDK: counted, never a turn
        _STATS["otel_errors"] += 1


def record(sink: Sink | None = None, **fields: Any) -> None:
    """:func:`make_event` (lenient: odd names withheld) then :func:`emit` to ``sink``
    (default: the active sink). Never raises."""
    try:
        sink = sink if sink is not None else active_sink()
        if sink is None and not otel_wanted():
            return
        event = make_event(strict=False, **fields)
    except Exception:  # telemetry must never cost a turn
        _STATS["invalid"] += 1
        return
    emit(event, sink)


def record_read(sink: Sink | None = None, **fields: Any) -> None:
    """:func:`make_read_event` then :func:`emit` to ``sink`` (default: the active sink).
    Never raises; a read that cannot be recorded (an unknown name) is only counted."""
    try:
        sink = sink if sink is not None else active_sink()
        if sink is None and not otel_wanted():
            return
        event = make_read_event(**fields)
    except Exception:  # telemetry must never cost a turn
        _STATS["invalid"] += 1
        return
    emit(event, sink)
