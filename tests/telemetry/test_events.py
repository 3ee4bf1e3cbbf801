"""The event model: what an event may hold, and the invariants between its fields."""

from __future__ import annotations

import pytest

from gov.core import __version__, telemetry
from gov.core.telemetry.events import FIELDS, WITHHELD, make_event, validate_event

FP = "a" * 64


POINT = "0123456789abcdef"


def test_routed_event_has_every_field_in_order() -> None:
    event = make_event(outcome="routed", adapter="hook", routes=["deployment", "on-call"],
                       degraded=True, corpus_size=24, index_fingerprint=FP,
                       operating_point_id=POINT, delivered_ms=41.23456, route_ms=3.5,
                       attempts=2, ts=1_764_000_000.1234)
    assert tuple(event) == FIELDS
    assert event["ts"] == "2025-11-24T16:00:00.123Z"
    assert event["v"] == 2 and event["kind"] == "route" and event["session"] is None
    assert event["routes"] == ["deployment", "on-call"]
    assert event["failure_class"] is None
    assert event["delivered_ms"] == 41.235
    assert event["attempts"] == 2
    assert event["gov_version"] == __version__
    assert validate_event(event) == event


def test_timestamp_is_rfc3339_utc_with_milliseconds() -> None:
    assert telemetry.rfc3339(0) == "1970-01-01T00:00:00.000Z"
    assert telemetry.rfc3339(1_764_000_000.999) == "2025-11-24T16:00:00.999Z"
    assert len(make_event(outcome="abstained", adapter="cli")["ts"]) == 24


def test_failed_needs_a_failure_class() -> None:
    with pytest.raises(ValueError, match="failure_class"):
        make_event(outcome="failed", adapter="cli")
    with pytest.raises(ValueError, match="failure_class"):
        make_event(outcome="failed", adapter="cli", failure_class="disk_on_fire")
    event = make_event(outcome="failed", adapter="cli", failure_class="index_load")
    assert event["failure_class"] == "index_load" and event["routes"] == []


def test_failed_has_no_routes() -> None:
    with pytest.raises(ValueError, match="no routes"):
        make_event(outcome="failed", adapter="cli", failure_class="route", routes=["deployment"])


def test_routed_needs_a_name() -> None:
    with pytest.raises(ValueError, match="at least one"):
        make_event(outcome="routed", adapter="cli")


def test_abstained_has_no_names_and_no_class() -> None:
    with pytest.raises(ValueError, match="no routes"):
        make_event(outcome="abstained", adapter="cli", routes=["deployment"])
    with pytest.raises(ValueError, match="only a failed event"):
        make_event(outcome="abstained", adapter="cli", failure_class="route")


@pytest.mark.parametrize(("field", "value"), [
    ("outcome", "routed?"), ("adapter", "browser"), ("degraded", 1), ("degraded", "yes"),
    ("corpus_size", -1), ("corpus_size", 2.5), ("corpus_size", True), ("attempts", 0),
    ("attempts", "1"), ("delivered_ms", -0.1), ("delivered_ms", float("nan")),
    ("delivered_ms", float("inf")), ("route_ms", "fast"), ("route_ms", True),
    ("index_fingerprint", "not-hex"), ("operating_point_id", "abc"), ("ts", -5),
])
def test_values_outside_their_type_are_refused(field: str, value: object) -> None:
    fields: dict[str, object] = {"outcome": "abstained", "adapter": "cli", field: value}
    with pytest.raises(ValueError):
        make_event(**fields)  # type: ignore[arg-type]


def test_routes_must_be_a_list_not_a_string() -> None:
    with pytest.raises(ValueError, match="not one string"):
        make_event(outcome="routed", adapter="cli", routes="deployment")


def test_digests_accept_hex_with_an_optional_algorithm() -> None:
    event = make_event(outcome="abstained", adapter="mcp", index_fingerprint="sha256:" + FP,
                       operating_point_id=POINT)
    assert event["index_fingerprint"] == "sha256:" + FP
    assert telemetry.is_digest(POINT) and not telemetry.is_digest("ABCDEF0123456789")


@pytest.mark.parametrize("name", [
    "deployment", "on-call", "Refund_not_showing_up", "rollover_401k", "C3_Glide", "node.js",
    "hubbubworld_hubbub_1", "sécurité",
])
def test_document_names_pass(name: str) -> None:
    assert telemetry.is_document_name(name)
    assert make_event(outcome="routed", adapter="cli", routes=[name])["routes"] == [name]


@pytest.mark.parametrize("name", [
    "", "a" * 201, "two words", "/etc/passwd", "docs\\deploy", "deployment.md", "rules.mdc",
    "key=value", "alice@example.com", "https:x", ".hidden", "-flag", "a..b", "tab\there",
    "sk-live-abcdef", "ghp_abcdefghijklmnop", "AKIAABCDEFGHIJKLMNOP", "eyJhbGciOi",
    "x_" + "0123456789abcdef" * 2, "tokenABCDEF1234567890xyz", 7, None,
])
def test_things_that_are_not_document_names_fail(name: object) -> None:
    assert not telemetry.is_document_name(name)
    with pytest.raises(ValueError):
        make_event(outcome="routed", adapter="cli", routes=[name])  # type: ignore[list-item]


def test_known_names_restrict_routes_to_the_corpus() -> None:
    known = frozenset({"deployment", "on-call"})
    assert make_event(outcome="routed", adapter="cli", routes=["on-call"], known=known)
    with pytest.raises(ValueError):
        make_event(outcome="routed", adapter="cli", routes=["hunter2"], known=known)


def test_lenient_events_withhold_what_strict_ones_refuse() -> None:
    before = telemetry.stats()["withheld"]
    event = make_event(outcome="routed", adapter="hook", routes=["deployment", "my secret"],
                       index_fingerprint="fp:not hex", strict=False)
    assert event["routes"] == ["deployment", WITHHELD]
    assert event["index_fingerprint"] is None
    assert telemetry.stats()["withheld"] == before + 2
    assert validate_event(event) == event
    with pytest.raises(ValueError):
        make_event(outcome="routed", adapter="hook", routes=[], strict=False)


def test_validate_refuses_extra_missing_and_retyped_fields() -> None:
    good = make_event(outcome="routed", adapter="cli", routes=["deployment"])
    with pytest.raises(ValueError):
        validate_event({**good, "prompt": "hello"})
    missing = dict(good)
    del missing["attempts"]
    with pytest.raises(ValueError):
        validate_event(missing)
    for field, value in [("ts", "yesterday"), ("v", 1), ("v", True), ("gov_version", "1 2"),
                         ("routes", ("deployment",)), ("routes", ["two words"])]:
        with pytest.raises(ValueError):
            validate_event({**good, field: value})
