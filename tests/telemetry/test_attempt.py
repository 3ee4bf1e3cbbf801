"""The attempt helper adapters record through: outcomes, failure classes, one event each."""

from __future__ import annotations

import pytest

from gov.core import telemetry
from gov.core.errors import IndexLoadError, InputError
from gov.core.telemetry.events import WITHHELD

FP = "a" * 64


POINT = "0123456789abcdef"


def _close(attempt: telemetry.Attempt, exc: BaseException | None = None) -> dict[str, object]:
    sink = telemetry.MemorySink()
    telemetry.set_sink(sink)
    attempt.close(exc)
    assert len(sink.events) <= 1
    return sink.events[0] if sink.events else {}


def test_attempt_records_routed_and_abstained() -> None:
    t = telemetry.attempt("cli", start=0.0)
    t.result(["deployment"], route_ms=2.0, degraded="lexical-only", corpus_size=3,
             index_fingerprint=FP, operating_point_id=POINT)
    event = _close(t)
    assert event["outcome"] == "routed" and event["routes"] == ["deployment"]
    assert event["degraded"] is True and event["corpus_size"] == 3
    assert isinstance(event["delivered_ms"], float) and event["delivered_ms"] > 0
    t = telemetry.attempt("mcp")
    t.result([])
    assert _close(t)["outcome"] == "abstained"


def test_attempt_takes_the_failure_class_from_the_error() -> None:
    sink = telemetry.MemorySink()
    telemetry.set_sink(sink)
    with pytest.raises(IndexLoadError), telemetry.attempt("cli"):
        raise IndexLoadError("index is corrupt")
    with pytest.raises(InputError), telemetry.attempt("cli"):
        raise InputError("bad line")
    assert [e["failure_class"] for e in sink.events] == ["index_load", "input"]
    assert all(e["outcome"] == "failed" and e["routes"] == [] for e in sink.events)


def test_attempt_tells_route_failures_from_render_failures() -> None:
    sink = telemetry.MemorySink()
    telemetry.set_sink(sink)
    with pytest.raises(RuntimeError), telemetry.attempt("server"):
        raise RuntimeError("scoring blew up")
    with pytest.raises(BrokenPipeError), telemetry.attempt("cli") as t:
        t.result(["deployment"], corpus_size=5)
        raise BrokenPipeError
    assert [e["failure_class"] for e in sink.events] == ["route", "render"]
    assert sink.events[1]["corpus_size"] == 5 and sink.events[1]["routes"] == []


def test_attempt_fail_by_hand_and_retries() -> None:
    t = telemetry.attempt("hook")
    t.attempts += 1
    t.fail("corpus_load")
    event = _close(t)
    assert (event["outcome"], event["failure_class"], event["attempts"]) == (
        "failed", "corpus_load", 2)
    t = telemetry.attempt("hook")
    t.fail(IndexLoadError("stale"))
    assert _close(t)["failure_class"] == "index_load"


def test_attempt_records_nothing_without_a_result_or_for_clean_exits() -> None:
    assert _close(telemetry.attempt("cli")) == {}
    assert _close(telemetry.attempt("cli"), KeyboardInterrupt()) == {}
    t = telemetry.attempt("cli")
    t.result(["deployment"])
    assert _close(t, SystemExit(0))["outcome"] == "routed"
    t = telemetry.attempt("cli")
    t.result([])
    assert _close(t, SystemExit(3)) == {}  # SystemExit is not an Exception: interrupted


def test_attempt_closes_once() -> None:
    sink = telemetry.MemorySink()
    telemetry.set_sink(sink)
    t = telemetry.attempt("library")
    t.result([])
    t.close()
    t.close()
    assert len(sink.events) == 1


def test_an_answer_gives_the_event_its_fields() -> None:
    from gov.core.routing.answer import Route, RouteAnswer

    answer = RouteAnswer([Route("on-call", 0.03, 0.2, 0.5, "words: pager"),
                          Route("notes.md", 0.02, None, 0.4, "")],
                         corpus_size=2, fingerprint=FP, operating_point_id=POINT, route_ms=4.25)
    t = telemetry.attempt("hook")
    t.answered(answer)
    event = _close(t)
    # A name shaped like a file is withheld even when the router returned it.
    assert event["routes"] == ["on-call", WITHHELD]
    assert (event["route_ms"], event["corpus_size"], event["index_fingerprint"],
            event["operating_point_id"], event["degraded"]) == (4.25, 2, FP, POINT, False)


def test_process_start_is_before_now() -> None:
    import time

    start = telemetry.process_start()
    if start is None:
        pytest.skip("this platform does not expose the process start time")
    assert start < time.perf_counter()
    assert telemetry.delivered_ms(start) > 0
