"""OpenTelemetry export (the ``gov[otel]`` extra): each event as a span, and counts.

Switched on by the standard variables: an OTLP endpoint (``OTEL_EXPORTER_OTLP_ENDPOINT``,
or the per-signal ``..._TRACES_ENDPOINT`` / ``..._METRICS_ENDPOINT``) and not
``OTEL_SDK_DISABLED=true``; the exporter reads the rest (headers, compression, certificate)
itself, and ``OTEL_SERVICE_NAME`` / ``OTEL_RESOURCE_ATTRIBUTES`` name the service (``gov``
by default). Nothing here is imported while they are unset.

What is exported is exactly the event and nothing more: a span ``gov.route`` or
``gov.read`` whose attributes are the event's fields as ``gov.FIELD`` (a field that is
null is left out, as OpenTelemetry has no null), timed to end now and to start
``delivered_ms`` earlier; the counters ``gov.route.attempts`` (by outcome, failure class
and adapter) and ``gov.reads`` (by routed and via); and the histogram
``gov.route.delivered`` (ms, by adapter and outcome).

It never costs a turn: spans are queued and exported in batches on the SDK's own thread
(metrics likewise, on a period), the exporter's timeout is short, and an export that fails
is swallowed and counted in ``telemetry.stats()["otel_export_failures"]``. The gov providers
are gov's own, not the process's global ones, so a program that configures OpenTelemetry
itself keeps its setup. The hook process never exports: its turns are recorded by the warm
server, which does.
"""

from __future__ import annotations

import atexit
import os
import threading
from typing import Any

from .. import __version__
from .events import _STATS

EXPORT_TIMEOUT_S = 2.0  # a short-lived CLI waits at most about this long at exit
_lock = threading.Lock()
_state: dict[str, Any] = {}


def installed() -> bool:
    """Whether exporters were installed for this process (by :func:`install`)."""
    return bool(_state.get("tracer"))


def install(span_exporter: Any = None, metric_reader: Any = None) -> None:
    """Set up gov's providers: with the given exporter and reader (tests pass the SDK's
    ``InMemorySpanExporter`` and ``InMemoryMetricReader``; spans are then exported as they
    end), else OTLP over HTTP, batched, from the environment."""
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    resource = Resource.create({"service.version": __version__})
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
        resource = resource.merge(Resource({"service.name": "gov"}))
    tracer_provider = TracerProvider(resource=resource, shutdown_on_exit=False)
    if span_exporter is not None:
        tracer_provider.add_span_processor(SimpleSpanProcessor(span_exporter))
    else:
        tracer_provider.add_span_processor(BatchSpanProcessor(_span_exporter()))
    if metric_reader is None:
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

        metric_reader = PeriodicExportingMetricReader(_metric_exporter())
    meter_provider = MeterProvider(resource=resource, metric_readers=[metric_reader],
                                   shutdown_on_exit=False)
    meter = meter_provider.get_meter("gov", __version__)
    shutdown()
    _state.update(
        tracer_provider=tracer_provider, meter_provider=meter_provider,
        tracer=tracer_provider.get_tracer("gov", __version__),
        attempts=meter.create_counter("gov.route.attempts", unit="1",
                                      description="route attempts, by outcome"),
        reads=meter.create_counter("gov.reads", unit="1",
                                   description="documents the agent opened, routed or not"),
        delivered=meter.create_histogram("gov.route.delivered", unit="ms",
                                         description="delivered latency of a route attempt"),
    )


def shutdown() -> None:
    """Flush and stop gov's providers (at exit, at most about EXPORT_TIMEOUT_S each)."""
    providers = [_state.pop(key, None) for key in ("tracer_provider", "meter_provider")]
    _state.clear()
    for provider in providers:
        if provider is not None:
            try:
                provider.shutdown()
            except Exception:  # exiting: nothing to tell
                _STATS["otel_errors"] += 1


def _counted(exporter: Any, success: Any, failure: Any) -> Any:
    """``exporter`` with its ``export`` counting every failed export instead of raising."""
    original = exporter.export

    def export(*args: Any, **kwargs: Any) -> Any:
        try:
            result = original(*args, **kwargs)
        except Exception:
            result = failure
        if result is not success:
            _STATS["otel_export_failures"] += 1
        return result

    setattr(exporter, "export", export)  # noqa: B010 - an instance attribute, not the method
    return exporter


def _span_exporter() -> Any:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import SpanExportResult

    return _counted(OTLPSpanExporter(timeout=_timeout()), SpanExportResult.SUCCESS,
                    SpanExportResult.FAILURE)


def _metric_exporter() -> Any:
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
    from opentelemetry.sdk.metrics.export import MetricExportResult

    return _counted(OTLPMetricExporter(timeout=_timeout()), MetricExportResult.SUCCESS,
                    MetricExportResult.FAILURE)


def _timeout() -> float:
    try:
        return min(float(os.environ.get("OTEL_EXPORTER_OTLP_TIMEOUT", EXPORT_TIMEOUT_S)),
                   EXPORT_TIMEOUT_S)
    except ValueError:
        return EXPORT_TIMEOUT_S


def _ensure() -> dict[str, Any]:
    if not _state.get("tracer"):
        with _lock:
            if not _state.get("tracer"):
                import logging

                # The SDK logs export retries on stderr; a CLI's stderr is for its own lines.
                logging.getLogger("opentelemetry").setLevel(logging.CRITICAL)
                install()
                atexit.register(shutdown)
    return _state


def attributes(event: dict[str, Any]) -> dict[str, Any]:
    """The span attributes of an event: every field as ``gov.FIELD``, nulls left out."""
    out: dict[str, Any] = {}
    for key, value in event.items():
        if value is None:
            continue
        out["gov." + key] = tuple(value) if isinstance(value, list) else value
    return out


def export(event: dict[str, Any]) -> None:
    """Export one checked event (from :func:`gov.core.telemetry.sinks.emit`)."""
    import time

    state = _ensure()
    end = time.time_ns()
    took = event.get("delivered_ms")
    start = end - int(took * 1_000_000) if isinstance(took, (int, float)) else end
    kind = event.get("kind", "route")
    span = state["tracer"].start_span(f"gov.{kind}", start_time=start,
                                      attributes=attributes(event))
    if event.get("outcome") == "failed":
        from opentelemetry.trace import Status, StatusCode

        span.set_status(Status(StatusCode.ERROR, str(event.get("failure_class"))))
    span.end(end_time=end)
    if kind == "read":
        state["reads"].add(1, {"gov.routed": event["routed"], "gov.via": event["via"]})
        return
    labels = {"gov.outcome": event["outcome"], "gov.adapter": event["adapter"]}
    if event.get("failure_class"):
        labels["gov.failure_class"] = event["failure_class"]
    state["attempts"].add(1, labels)
    if isinstance(took, (int, float)):
        state["delivered"].record(took, {"gov.adapter": event["adapter"],
                                         "gov.outcome": event["outcome"]})
