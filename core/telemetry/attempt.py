"""The adapter helper: one route attempt, timed, recorded as one event when it closes.

Each adapter wraps one route attempt, from input to output written::

    from gov.core import telemetry

    with telemetry.attempt("cli", start=START) as t:    # START: perf_counter() at process start
        index = open_index(...)                          # a GovError here records "failed"
        answer = index.route(prompt, record=False)       # the adapter records, not the library
        t.answered(answer)                               # or t.result(names, route_ms=..., ...)
        write_output(answer)                             # an error here records "render"

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

Increase ``t.attempts`` when the adapter retries (reloading an index, say). A process
that records for another one (the warm server answering a hook turn) passes that turn's
``sink`` and calls :meth:`Attempt.stop` when the answer is ready, so the event is written
after the answer is sent without counting the write in its latency.
``start`` is a :func:`time.perf_counter` reading: taken at process start for the CLI
and the hook (:func:`process_start` gives the operating system's start time where it
can), at request receipt for the server and MCP. :func:`delivered_ms` turns it into
milliseconds. Lower level: :func:`make_event` builds and checks one event,
:func:`emit` sends it to the active sink, :func:`record` does both and never raises.
"""

from __future__ import annotations

import os
import time
from collections.abc import Collection, Iterable
from types import TracebackType
from typing import Any, Literal

from ..errors import GovError
from .events import _STATS, Adapter
from .sinks import Sink, active_sink, otel_wanted, record

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

    __slots__ = ("_closed", "_failure", "_result", "_stopped", "adapter", "attempts", "session",
                 "sink", "start")

    def __init__(self, adapter: Adapter, start: float | None = None,
                 sink: Sink | None = None) -> None:
        self.adapter = adapter
        self.start = time.perf_counter() if start is None else start
        self.sink = sink
        self.attempts = 1
        self.session: str | None = None  # a session key (hashed), for the harness hook
        self._result: dict[str, Any] | None = None
        self._failure: str | None = None
        self._stopped: float | None = None
        self._closed = False

    def stop(self, took_ms: float | None = None) -> None:
        """Freeze the delivered latency now (the answer is out), or at ``took_ms`` (a batch
        row's share of its batch); :meth:`close` may come later."""
        if took_ms is not None:
            self._stopped = took_ms
        elif self._stopped is None:
            self._stopped = delivered_ms(self.start)

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

    def answered(self, answer: Any) -> None:
        """:meth:`result` for a :class:`~gov.core.routing.answer.RouteAnswer`: the one place
        an event's fields come from an answer (read through ``answer.event_fields()``, so
        this module never imports the router)."""
        fields = dict(answer.event_fields())
        self.result(fields.pop("routes"), **fields)

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
            sink = self.sink if self.sink is not None else active_sink()
            if sink is None and not otel_wanted():
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
            took = self._stopped if self._stopped is not None else delivered_ms(self.start)
            record(sink, adapter=self.adapter, delivered_ms=took, attempts=self.attempts,
                   session=self.session, **fields, **context)
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


def attempt(adapter: Adapter, start: float | None = None, sink: Sink | None = None) -> Attempt:
    """Start recording one route attempt through ``adapter``; ``start`` defaults to now,
    ``sink`` to the active one."""
    return Attempt(adapter, start, sink)
