"""No secret reaches the sink: canaries pushed through every way into an event.

Each canary is something that must never be written: an API key, a token, a password,
a path, a source file name, prompt text. They go in through every parameter of
make_event, record, Attempt and emit, strict and lenient, and the sink file is then
searched for any trace of them, while the legitimate events around them do arrive.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from gov.core import telemetry
from gov.core.errors import GovError

CANARIES = [
    "sk-live-51HcanaryQWERTYuiop0987654321",
    "sk_test_canary4eC39HqLyjWDarjtT1zdp7dc",
    "ghp_CanaryToken1234567890abcdefABCDEF12",
    "github_pat_11CANARY0abcdefghijklmnop",
    "xoxb-canary-123456789012-abcdefghijkl",
    "AKIACANARY1234567890",
    "eyJhbGciOiJIUzI1NiJ9.eyJjYW5hcnkiOnRydWV9.c2lnY2FuYXJ5",
    "hf_canaryAbCdEfGhIjKlMnOpQrStUvWxYz",
    "password=hunter2-canary",
    "P@ssw0rd!canary",
    "correct horse battery canary",
    "Bearer canaryTOKEN0000000000000000",
    "/home/alice/.ssh/id_rsa",
    "C:\\Users\\alice\\canary\\secrets.txt",
    "~/.aws/credentials",
    "policies/deployment.md",
    "deployment.md",
    "https://alice:canarypass@example.com/x",
    "alice@example.com",
    "roll back prod with the canary key xyzzy, then page alice",
    "canary" + "0123456789abcdef" * 3,
]
# What no sink byte may contain. Each canary carries at least one of these.
TRACES = [b"canary", b"CANARY", b"Canary", b"alice", b"hunter2", b"id_rsa", b"xyzzy",
          b"sk-live", b"sk_test", b"ghp_", b"github_pat", b"xoxb", b"AKIA", b"eyJ", b"hf_",
          b".md", b"aws", b"example.com", b"Bearer", b"P@ss"]


def _fields() -> list[dict[str, Any]]:
    """Every parameter of make_event with a canary in it (strings where numbers go, too)."""
    base: dict[str, Any] = {"outcome": "routed", "adapter": "cli", "routes": ["deployment"]}
    cases: list[dict[str, Any]] = []
    for canary in CANARIES:
        for field in ("outcome", "adapter", "failure_class", "degraded", "corpus_size",
                      "index_fingerprint", "operating_point_id", "delivered_ms", "route_ms",
                      "attempts", "ts"):
            cases.append({**base, field: canary})
        cases.append({**base, "routes": [canary]})
        cases.append({**base, "routes": ["deployment", canary]})
        cases.append({**base, "routes": canary})
        cases.append({**base, "known": [canary], "routes": [canary]})
        cases.append({"outcome": "failed", "adapter": "hook", "failure_class": canary})
    return cases


def _traces(data: bytes) -> list[bytes]:
    return [trace for trace in TRACES if trace in data]


def test_canaries_never_reach_the_sink(tmp_path: Path) -> None:
    log = tmp_path / "telemetry.jsonl"
    telemetry.set_sink(telemetry.JsonlSink(log))
    legit = 0
    for fields in _fields():
        for strict in (True, False):
            try:
                event = telemetry.make_event(strict=strict, **fields)
            except ValueError as exc:
                assert not _traces(str(exc).encode()), "an error message quoted a canary"
                continue
            telemetry.emit(event)
        telemetry.record(**fields)
    for canary in CANARIES:
        # Attempts: names, context and exception messages.
        with telemetry.attempt("cli") as t:
            t.result([canary, "deployment"], index_fingerprint=canary, operating_point_id=canary)
        with pytest.raises(GovError), telemetry.attempt("hook") as t:
            raise GovError(f"cannot read {canary}")
        t = telemetry.attempt("mcp")
        t.fail(RuntimeError(canary))
        t.close()
        # Hand-made events with a canary in every field, and in an extra field.
        good = telemetry.make_event(outcome="routed", adapter="cli", routes=["deployment"])
        for field in good:
            telemetry.emit({**good, field: canary})
            telemetry.emit({**good, field: [canary]})
        telemetry.emit({**good, "prompt": canary})
        telemetry.emit({**good, "routes": [telemetry.WITHHELD, canary]})
        telemetry.emit(good)
        legit += 1
    data = log.read_bytes()
    assert not _traces(data), f"canary traces reached the sink: {_traces(data)}"
    lines = data.splitlines()
    assert len(lines) >= legit + 3 * len(CANARIES)  # the clean events did arrive
    assert all(telemetry.validate_event(orjson.loads(line)) for line in lines)
    assert data.count(telemetry.WITHHELD.encode()) > 0  # canary routes counted, not shown


def test_a_withheld_route_still_counts_as_routed(tmp_path: Path) -> None:
    sink = telemetry.MemorySink()
    telemetry.set_sink(sink)
    telemetry.record(outcome="routed", adapter="hook", routes=[CANARIES[0]])
    assert sink.events[0]["outcome"] == "routed"
    assert sink.events[0]["routes"] == [telemetry.WITHHELD]
