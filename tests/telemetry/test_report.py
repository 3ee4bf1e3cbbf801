"""The report's figures on a small log whose answers are known by hand."""

from __future__ import annotations

import math
import random

import orjson
import pytest

from gov.core import telemetry
from gov.core.telemetry.latency import BINS, MAX_RELATIVE_ERROR, LatencyHistogram
from gov.core.telemetry.report import parse_since, summarize

CORPUS = ["deployment", "on-call", "incident-response", "testing", "code-review"]
DAY1 = 1_764_547_200.0  # 2025-12-01T00:00:00Z
FP = "f" * 64


def _event(ts: float, outcome: str, delivered: float, route: float | None) -> bytes:
    event = telemetry.make_event(outcome=outcome, adapter="hook", ts=ts,  # type: ignore[arg-type]
                                 delivered_ms=delivered, route_ms=route)
    return orjson.dumps(event) + b"\n"


def test_counts_and_shares(known_log: list[bytes]) -> None:
    report = summarize(known_log)
    assert report["events"] == 10
    assert report["first"] == "2025-12-01T00:00:10.000Z"
    assert report["last"] == "2025-12-02T00:01:00.000Z"
    assert report["outcomes"] == {
        "routed": {"count": 5, "share": 0.5},
        "abstained": {"count": 3, "share": 0.3},
        "failed": {"count": 2, "share": 0.2},
    }
    assert report["failed_by_class"] == {
        "index_load": {"count": 1, "share": 0.1},
        "route": {"count": 1, "share": 0.1},
    }
    assert report["degraded"] == {"count": 2, "share": 0.2}
    assert report["adapters"] == {"hook": 8, "cli": 1, "mcp": 1}
    assert report["index_fingerprints"] == {FP: 10}


def test_torn_and_foreign_lines_are_counted_and_skipped(known_log: list[bytes]) -> None:
    assert summarize(known_log)["skipped_lines"] == {
        "torn": 1, "foreign": 2, "newer_schema": 1, "before_since": 0, "other_index": 0,
    }


def test_latency_percentiles_within_the_bin_error(known_log: list[bytes]) -> None:
    latency = summarize(known_log)["latency_ms"]
    delivered, warm = latency["delivered"], latency["warm_route"]
    # Nearest rank over 10, 20, ..., 100: p50 is the 5th, p90 the 9th, p99 the 10th.
    for got, want in ((delivered["p50"], 50), (delivered["p90"], 90), (delivered["p99"], 100)):
        assert abs(got - want) <= want * MAX_RELATIVE_ERROR
    assert delivered["count"] == 10 and delivered["max"] == 100
    # Warm route over 2, 3, 4, 5, 6, 7, 9, 10 (failures have none): p50 is the 4th, 5.
    assert warm["count"] == 8 and abs(warm["p50"] - 5) <= 5 * MAX_RELATIVE_ERROR
    assert latency["warm_share_of_delivered_p50"] == pytest.approx(0.1, rel=0.03)


def test_documents_routed_and_never_routed(known_log: list[bytes]) -> None:
    documents = summarize(known_log, names=CORPUS)["documents"]
    assert documents["routed_at_least_once"] == 3
    assert documents["corpus_size"] == 5
    assert [(d["name"], d["count"]) for d in documents["top"]] == [
        ("deployment", 3), ("on-call", 2), ("incident-response", 1)]
    assert documents["top"][0]["share_of_routed"] == 0.6
    assert documents["never_routed"] == ["testing", "code-review"]
    assert documents["not_in_corpus"] == []


def test_without_a_corpus_there_is_no_never_routed_list(known_log: list[bytes]) -> None:
    documents = summarize(known_log)["documents"]
    assert documents["never_routed"] is None and documents["routed_at_least_once"] == 3


def test_names_missing_from_the_corpus_are_reported(known_log: list[bytes]) -> None:
    documents = summarize(known_log, names=["deployment", "testing"])["documents"]
    assert documents["not_in_corpus"] == ["on-call", "incident-response"]
    assert documents["never_routed"] == ["testing"]
    assert documents["routed_at_least_once"] == 1


def test_per_day_counts(known_log: list[bytes]) -> None:
    assert summarize(known_log)["days"] == [
        {"day": "2025-12-01", "routed": 2, "abstained": 1, "failed": 1},
        {"day": "2025-12-02", "routed": 3, "abstained": 2, "failed": 1},
    ]


def test_since_keeps_later_events_only(known_log: list[bytes]) -> None:
    report = summarize(known_log, since=parse_since("2025-12-02"))
    assert report["events"] == 6
    assert report["skipped_lines"]["before_since"] == 4
    assert [d["day"] for d in report["days"]] == ["2025-12-02"]
    assert report["outcomes"]["failed"]["count"] == 1


def test_withheld_routes_are_counted_apart_from_documents() -> None:
    lines = [orjson.dumps(telemetry.make_event(outcome="routed", adapter="hook",
                                               routes=["a secret"], strict=False))]
    report = summarize(lines, names=["deployment"])
    assert report["outcomes"]["routed"]["count"] == 1
    assert report["documents"]["withheld_routes"] == 1
    assert report["documents"]["top"] == [] and report["documents"]["not_in_corpus"] == []
    assert any("withheld" in note for note in report["notes"])


def test_an_empty_log_says_no_events_is_not_healthy() -> None:
    report = summarize([])
    assert report["events"] == 0
    assert report["latency_ms"]["delivered"]["p50"] is None
    assert report["outcomes"]["routed"]["share"] is None
    assert "No events is not the same as healthy" in report["notes"][0]


def test_only_abstentions_are_called_out() -> None:
    lines = [_event(DAY1 + i, "abstained", 5, 1) for i in range(20)]
    notes = summarize(lines)["notes"]
    assert any(note.startswith("Nothing was routed in 20 events") for note in notes)


def test_the_report_is_json_serializable(known_log: list[bytes]) -> None:
    report = summarize(known_log, names=CORPUS)
    assert orjson.loads(orjson.dumps(report)) == report


def test_histogram_quantiles_stay_within_one_percent() -> None:
    rng = random.Random(7)
    values = [rng.lognormvariate(3, 1.5) for _ in range(5000)] + [0.0005, 2e7]
    histogram = LatencyHistogram()
    for value in values:
        histogram.add(value)
    ordered = sorted(values)
    for q in (0.01, 0.1, 0.5, 0.9, 0.99, 0.999):
        exact = ordered[max(1, math.ceil(q * len(ordered))) - 1]
        got = histogram.quantile(q)
        assert got is not None and abs(got - exact) <= exact * MAX_RELATIVE_ERROR
    assert histogram.quantile(1.0) == 2e7 and histogram.quantile(0.0) == 0.0005
    assert len(histogram.counts) == BINS  # fixed, whatever was added
    assert MAX_RELATIVE_ERROR < 0.01


def test_histogram_buckets_for_the_picture() -> None:
    histogram = LatencyHistogram()
    for value in (0.5, 3, 3, 40, 40, 40, 12_000):
        histogram.add(value)
    buckets = histogram.buckets()
    assert buckets[0] == {"from_ms": 0.0, "to_ms": 1.0, "count": 1}
    assert buckets[-1] == {"from_ms": 10000.0, "to_ms": None, "count": 1}
    assert sum(b["count"] for b in buckets) == 7
    assert {"from_ms": 20.0, "to_ms": 50.0, "count": 3} in buckets


NOW = 1_764_633_600.0  # 2025-12-02T00:00:00Z


@pytest.mark.parametrize(("text", "want"), [
    ("7d", "2025-11-25T00:00:00.000Z"),
    ("24h", "2025-12-01T00:00:00.000Z"),
    ("30m", "2025-12-01T23:30:00.000Z"),
    ("2w", "2025-11-18T00:00:00.000Z"),
    ("90s", "2025-12-01T23:58:30.000Z"),
    ("2025-11-30", "2025-11-30T00:00:00.000Z"),
    ("2025-11-30T09:15:00Z", "2025-11-30T09:15:00.000Z"),
    ("2025-11-30T09:15:00+01:00", "2025-11-30T08:15:00.000Z"),
    ("2025-11-30T09:15:00.250z", "2025-11-30T09:15:00.250Z"),
    ("2025-11-30T09:15:00", "2025-11-30T09:15:00.000Z"),
])
def test_parse_since(text: str, want: str) -> None:
    assert parse_since(text, now=NOW) == want


@pytest.mark.parametrize("text", ["last week", "7", "d7", "2025-13-01", "", "1969-01-01"])
def test_parse_since_refuses_the_rest(text: str) -> None:
    with pytest.raises(ValueError):
        parse_since(text, now=NOW)
