"""Telemetry: one small event per route attempt, and the report over a log of them.

Off unless asked for: ``GOV_TELEMETRY_PATH=FILE`` appends events to FILE as JSON lines,
or a program installs a sink with :func:`set_sink`; with the ``gov[otel]`` extra and the
standard ``OTEL_EXPORTER_OTLP_*`` variables set, each event is also a span and a count
(:mod:`gov.core.telemetry.otel`). The adapter API is re-exported here
(``from gov.core import telemetry; telemetry.attempt("cli")``); all of it is stdlib only,
because the hook records through it on every turn. The report over a log is
:mod:`gov.core.telemetry.report`, imported only by ``gov telemetry report``.
"""

from .attempt import Attempt, attempt, delivered_ms, process_start
from .events import (
    ADAPTERS,
    ENV_PATH,
    FAILURE_CLASSES,
    FIELDS,
    KINDS,
    MAX_ROUTES,
    OUTCOMES,
    READ_FIELDS,
    SCHEMA_VERSION,
    VIAS,
    WITHHELD,
    Adapter,
    Outcome,
    is_digest,
    is_document_name,
    is_session,
    make_event,
    make_read_event,
    rfc3339,
    validate_event,
)
from .sinks import (
    JsonlSink,
    MemorySink,
    Sink,
    active_sink,
    emit,
    enabled,
    record,
    record_read,
    reset_sink,
    set_sink,
    stats,
    warn_on_loss,
)

__all__ = [
    "ADAPTERS", "ENV_PATH", "FAILURE_CLASSES", "FIELDS", "KINDS", "MAX_ROUTES", "OUTCOMES",
    "READ_FIELDS", "SCHEMA_VERSION", "VIAS", "WITHHELD", "Adapter", "Attempt", "JsonlSink",
    "MemorySink", "Outcome", "Sink", "active_sink", "attempt", "delivered_ms", "emit", "enabled",
    "is_digest", "is_document_name", "is_session", "make_event", "make_read_event",
    "process_start", "record", "record_read", "reset_sink", "rfc3339", "set_sink", "stats",
    "validate_event", "warn_on_loss",
]
