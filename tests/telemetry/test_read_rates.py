"""The report's read rates, fix list, per-adapter latency and index filter, on logs whose
answers are known by hand; and per-prompt latency for streamed batches, end to end."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import orjson

from gov.core import telemetry
from gov.core.telemetry.report import summarize
from tests.conftest import POLICIES

DAY1 = 1_764_547_200.0  # 2025-12-01T00:00:00Z
DAY2 = DAY1 + 86_400
FP, OTHER = "f" * 64, "e" * 64


def route(ts: float, names: list[str], session: str | None, adapter: str = "hook",
          delivered: float = 20.0, fp: str = FP) -> bytes:
    return orjson.dumps(telemetry.make_event(
        outcome="routed" if names else "abstained", adapter=adapter, routes=names, ts=ts,
        delivered_ms=delivered, route_ms=5.0, session=session, index_fingerprint=fp)) + b"\n"


def read(ts: float, name: str, session: str, routed: bool, via: str = "show",
         fp: str = FP) -> bytes:
    return orjson.dumps(telemetry.make_read_event(
        adapter="hook", session=session, document=name, via=via, routed=routed,
        turns_since_route=1 if routed else None, seconds_since_route=30.0 if routed else None,
        index_fingerprint=fp, ts=ts)) + b"\n"


def session(n: int) -> str:
    return f"{n:016x}"


def test_read_rates_overall_per_document_and_per_day() -> None:
    log = [
        route(DAY1 + 1, ["deployment"], session(1)),
        route(DAY1 + 2, ["deployment"], session(1)),  # the same episode, named again
        read(DAY1 + 3, "deployment", session(1), True),
        read(DAY1 + 4, "deployment", session(1), True),  # read twice: one episode read
        route(DAY1 + 5, ["deployment", "testing"], session(2)),
        read(DAY1 + 6, "on-call", session(2), False, via="mcp"),
        route(DAY2 + 1, ["deployment"], session(3)),
        read(DAY2 + 2, "deployment", session(3), False, via="file"),  # state lost: log order wins
        read(DAY2 + 3, "testing", session(4), False),
        route(DAY2 + 4, ["testing"], session(4)),  # routed after it was read: never read after
    ]
    reads = summarize(log)["reads"]
    assert reads["overall"] == {"routed": 5, "read_after_routing": 2, "read_unrouted": 2,
                                "routed_never_read": 3, "read_rate": 0.4}
    rows = {row["name"]: row for row in reads["documents"]}
    assert rows["deployment"] == {"name": "deployment", "routed": 3, "read_after_routing": 2,
                                  "read_unrouted": 0, "routed_never_read": 1, "read_rate": 0.6667}
    assert rows["testing"]["routed"] == 2 and rows["testing"]["read_unrouted"] == 1  # read first
    assert rows["on-call"]["read_unrouted"] == 1
    assert reads["days"] == [
        {"day": "2025-12-01", "routed": 3, "read_after_routing": 1, "read_rate": 0.3333},
        {"day": "2025-12-02", "routed": 2, "read_after_routing": 1, "read_rate": 0.5}]
    assert reads["delay"]["turns_p50"] == 1


def test_the_fix_list_ranks_rarely_read_and_read_unrouted_documents() -> None:
    log = []
    for n in range(40):  # routed in 40 sessions, read in 3
        log.append(route(DAY1 + n, ["legacy-release-train"], session(n)))
        if n < 3:
            log.append(read(DAY1 + n + 0.5, "legacy-release-train", session(n), True))
    for n in range(12):  # read 12 times without being routed
        log.append(read(DAY1 + 100 + n, "feature-flags", session(100 + n), False))
    for n in range(6):  # routed and read: nothing to fix
        log.append(route(DAY1 + 200 + n, ["deployment"], session(200 + n)))
        log.append(read(DAY1 + 200.5 + n, "deployment", session(200 + n), True))
    report = summarize(log)
    assert [(item["name"], item["problem"]) for item in report["fix"]] == [
        ("legacy-release-train", "rarely_read"), ("feature-flags", "read_unrouted")]
    assert report["fix"][0]["message"].startswith("routed in 40 sessions, read in 3: sharpen its trigger")
    assert report["fix"][1]["message"].startswith("read in 12 sessions without being routed: add examples")
    assert any("to fix" in note for note in report["notes"])


def test_latency_is_split_by_adapter() -> None:
    log = [route(DAY1 + n, ["deployment"], None, adapter=adapter, delivered=ms)
           for n, (adapter, ms) in enumerate([("hook", 20.0), ("hook", 30.0), ("cli", 400.0),
                                               ("cli-stream", 3.0), ("mcp", 9.0)])]
    latency = summarize(log)["latency_ms"]["by_adapter"]
    assert list(latency) == ["hook", "cli", "cli-stream", "mcp"]
    assert latency["hook"]["delivered"]["count"] == 2
    assert latency["cli"]["delivered"]["max"] == 400.0
    assert latency["cli-stream"]["delivered"]["p50"] < 4


def test_an_index_filter_keeps_only_that_index_and_says_how_many_it_left_out() -> None:
    log = [route(DAY1 + 1, ["deployment"], session(1)),
           route(DAY1 + 2, ["deployment"], session(2), fp=OTHER),
           read(DAY1 + 3, "deployment", session(2), True, fp=OTHER)]
    report = summarize(log, fingerprint=FP)
    assert report["events"] == 1 and report["index"] == FP
    assert report["skipped_lines"]["other_index"] == 2
    assert report["reads"]["overall"]["routed"] == 1
    assert summarize(log)["events"] == 2


def test_schema_1_logs_are_still_read() -> None:
    v1 = (b'{"ts":"2025-12-01T00:00:10.000Z","v":1,"outcome":"routed","failure_class":null,'
          b'"degraded":false,"corpus_size":3,"index_fingerprint":null,"operating_point_id":null,'
          b'"adapter":"cli","delivered_ms":12.0,"route_ms":3.0,"routes":["deployment"],'
          b'"attempts":1,"gov_version":"0.1.0"}\n')
    report = summarize([v1, route(DAY1 + 20, ["testing"], None)])
    assert report["events"] == 2 and report["skipped_lines"]["foreign"] == 0


def test_streamed_batches_record_per_prompt_latency(example_index: Path, tmp_path: Path) -> None:
    """Each row of a batch records its share of the batch, not the whole batch's time."""
    log = tmp_path / "telemetry.jsonl"
    names = sorted(p.stem for p in POLICIES.glob("*.md"))
    lines = "".join(json.dumps({"prompt": f"how do we handle {name.replace('-', ' ')} here"}) + "\n"
                    for name in names * 3)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "gov.cli.entry", "route", "-i", str(example_index),
                           "--format", "jsonl"], input=lines.encode(), capture_output=True,
                          env={**__import__("os").environ, "GOV_TELEMETRY_PATH": str(log)},
                          timeout=300, check=False)
    wall_ms = (time.perf_counter() - started) * 1000.0
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(events) == len(names) * 3 and {e["adapter"] for e in events} == {"cli-stream"}
    assert sum(e["delivered_ms"] for e in events) < wall_ms  # shares add up to at most the run
