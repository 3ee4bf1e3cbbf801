"""Benchmark ``gov telemetry report``: time and peak memory at 100k and 1M events.

The report must read 1,000,000 events in at most 10 s, in memory that does not grow
with the log. This writes synthetic logs (realistic mixes of outcomes, documents,
adapters and latencies over 30 days) to a temporary folder, runs the real command on
each as a child process measured alone (``benchmarks/lib.py``: its own CPU time and peak RSS).

    python benchmarks/bench_telemetry_report.py            # 0 (empty), 100k, 1M events
    python benchmarks/bench_telemetry_report.py --events 100000 2000000 --format json

Wall time is the best of --runs; CPU time (user + system) is shown beside it because
it does not move when the machine is busy. Exits 1 if a run of 1M events or fewer takes
longer than the 10 s target.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
from pathlib import Path

import orjson
from lib import run

from gov.core.telemetry.events import FAILURE_CLASSES, make_event, rfc3339

TARGET_SECONDS = 10.0
TARGET_EVENTS = 1_000_000
DOCUMENTS = [f"policy-{i:03d}" for i in range(300)]
START = 1_764_547_200.0  # 2025-12-01T00:00:00Z
DAYS = 30


def write_log(path: Path, events: int, seed: int = 5) -> None:
    """``events`` valid events, checked by make_event, in one pass of buffered writes."""
    rng = random.Random(seed)
    fingerprint = "sha256:" + "c0ffee" * 10 + "abcd"
    point = "0123456789abcdef"
    # Events differ in ts and latencies; every shape is built (and checked) by make_event.
    shapes = []
    for i in range(4096):
        roll = rng.random()
        if roll < 0.55:
            names = rng.sample(DOCUMENTS[:240], rng.choice((1, 1, 2)))
            fields = {"outcome": "routed", "routes": names}
        elif roll < 0.93:
            fields = {"outcome": "abstained"}
        else:
            fields = {"outcome": "failed", "failure_class": rng.choice(FAILURE_CLASSES)}
        shapes.append(make_event(
            adapter=("hook", "hook", "cli", "mcp", "server")[i % 5], corpus_size=300,
            index_fingerprint=fingerprint, operating_point_id=point,
            degraded=rng.random() < 0.02, attempts=1 + (rng.random() < 0.01), **fields,
        ))
    step = DAYS * 86_400 / max(events, 1)
    newline = orjson.OPT_APPEND_NEWLINE
    # Written one by one: a list of orjson's bytes would cost far more memory than it shows.
    with path.open("wb", buffering=1 << 20) as out:
        for n in range(events):
            event = dict(shapes[n & 4095])
            event["ts"] = rfc3339(START + n * step)
            event["delivered_ms"] = round(rng.lognormvariate(4.0, 0.5), 3)
            event["route_ms"] = None if event["outcome"] == "failed" else round(
                rng.lognormvariate(2.0, 0.4), 3)
            out.write(orjson.dumps(event, option=newline))


def run_report(log: Path, fmt: str) -> tuple[float, float, float, int]:
    """Wall and CPU seconds, peak RSS in MiB and exit code of one report run."""
    done = run([sys.executable, "-m", "gov.cli.entry", "telemetry", "report", str(log), "--format",
                fmt], env={**os.environ, "NO_COLOR": "1"}, stdout=Path(os.devnull))
    return done.wall_s, done.cpu_s, done.peak_rss_mb, done.code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, nargs="+", default=[0, 100_000, 1_000_000])
    parser.add_argument("--format", choices=("text", "json"), nargs="+",
                        default=["text", "json"])
    parser.add_argument("--runs", type=int, default=3, help="Runs per case; the best is kept.")
    args = parser.parse_args(argv)
    failed = False
    print(f"{'events':>10} {'size MiB':>9} {'format':>6} {'wall s':>7} {'cpu s':>6} "
          f"{'peak RSS MiB':>13}")
    with tempfile.TemporaryDirectory() as folder:
        for events in args.events:
            log = Path(folder) / f"telemetry-{events}.jsonl"
            write_log(log, events)
            size = log.stat().st_size / 2**20
            for fmt in args.format:
                runs = [run_report(log, fmt) for _ in range(args.runs)]
                best = min(seconds for seconds, _, _, _ in runs)
                cpu = min(cpu for _, cpu, _, _ in runs)
                peak = max(rss for _, _, rss, _ in runs)
                codes = {code for _, _, _, code in runs}
                if codes != ({1} if events == 0 else {0}):
                    print(f"unexpected exit codes {codes}", file=sys.stderr)
                    failed = True
                if events <= TARGET_EVENTS and best > TARGET_SECONDS:
                    failed = True
                print(f"{events:>10,} {size:>9.1f} {fmt:>6} {best:>7.2f} {cpu:>6.2f} {peak:>13.1f}")
            log.unlink()
    if failed:
        print(f"FAIL: over the target ({TARGET_SECONDS:g} s per {TARGET_EVENTS:,} events) "
              "or an unexpected exit code", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
