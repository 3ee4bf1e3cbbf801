#!/usr/bin/env python3
"""How fast ``gov card verify`` checks a large JSONL file, side by side with ovi-cards.

The target: 10,000 cards in one JSONL file verified at least ten times faster than
ovi-cards 0.1.0 validating and verifying the same file, process to process: the whole
``gov`` process (start-up, reading, checking, writing every result) against ovi's
validate-and-verify loop alone (its start-up and output excluded), the conservative
comparison. ovi-cards is not a dependency of gov: give the interpreter of a virtual
environment that has it, e.g.::

    python3 -m venv /tmp/ovi-venv && /tmp/ovi-venv/bin/pip install ovi-cards==0.1.0
    python benchmarks/bench_cards.py --ovi-python /tmp/ovi-venv/bin/python

Cards are generated from a fixed seed with timestamps from the last few hours, a mix of
the five types, and a share that fails HARD or SOFT checks, so every check runs. The two
tools take turns, run for run, so a busy machine slows both alike; medians are reported,
and CPU seconds beside wall seconds. Both tools' verdicts are compared card by card, so a
fast but wrong gov cannot pass.

Only the standard library is used here.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from lib import median, run

WORDS = (
    "deploy", "release", "migration", "database", "index", "service", "cache", "login", "session",
    "token", "auth", "rollback", "schema", "timeout", "latency", "replica", "queue", "worker",
    "config", "secret", "policy", "router", "report", "metric", "alert", "build", "test",
    "coverage", "refactor", "handler", "module", "endpoint", "payload",
)
FAILURE = ["failed with an error", "timeout while waiting", "could not connect", "crashed"]
PROPOSAL = ["we should", "I propose to", "the plan will", "recommend that we"]

OVI_SCRIPT = r"""
import json, sys, time
t0 = time.perf_counter()
from ovi_cards import validate_card, verify_card
t1 = time.perf_counter()
c1 = time.process_time()
out = []
with open(sys.argv[1], "rb") as fh:
    for line in fh:
        if not line.strip():
            continue
        result = validate_card(json.loads(line))
        if result.valid:
            out.append(verify_card(result.card).model_dump(mode="json"))
        else:
            out.append(None)
t2 = time.perf_counter()
c2 = time.process_time()
with open(sys.argv[2], "w") as fh:
    json.dump({"import_s": t1 - t0, "loop_s": t2 - t1, "loop_cpu_s": c2 - c1, "results": out}, fh)
"""


def sentence(rnd: random.Random, low: int, high: int) -> str:
    return " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(low, high)))


def make_card(rnd: random.Random, i: int, now: datetime) -> dict[str, object]:
    card_type = rnd.choice(["RESULT", "ERROR", "PLAN", "PATCH", "NOTE"])
    objective = sentence(rnd, 3, 10).capitalize()
    outcome = sentence(rnd, 2, 12).capitalize()
    if card_type == "ERROR" and rnd.random() < 0.7:
        outcome = f"{outcome} {rnd.choice(FAILURE)}"
    if card_type == "PLAN" and rnd.random() < 0.7:
        outcome = f"{rnd.choice(PROPOSAL)} {outcome}"
    if rnd.random() < 0.05:
        outcome = rnd.choice(["Done.", "Completed successfully", "ok"])
    stamp = now - timedelta(minutes=rnd.uniform(0, 600))
    if rnd.random() < 0.05:
        stamp = now - timedelta(days=rnd.uniform(2, 30))
    memory: dict[str, object] = {"store": False, "tags": []}
    if card_type in ("ERROR", "PATCH") or rnd.random() < 0.2:
        memory = {
            "store": True,
            "target": rnd.choice(["SOP", "KV", "LONG_TERM"]),
            "tags": ["bench", f"t{i % 7}"],
        }
    return {
        "schema_version": "0.1.0",
        "card_type": card_type,
        "task_id": f"bench-{i}",
        "source_agent": "bench:model",
        "timestamp": stamp.isoformat(),
        "objective": objective[:256],
        "outcome": outcome[:256],
        "key_facts": [sentence(rnd, 4, 14)[:256] for _ in range(rnd.randint(0, 3))],
        "actions_taken": (
            [] if card_type == "NOTE" and rnd.random() < 0.8
            else [sentence(rnd, 3, 8) for _ in range(rnd.randint(0, 3))]
        ),
        "next_actions": [sentence(rnd, 3, 8) for _ in range(rnd.randint(0, 3))],
        "artifacts": [f"src/{rnd.choice(WORDS)}.py" for _ in range(rnd.randint(
            1 if card_type == "PATCH" else 0, 4))],
        "confidence": rnd.choice([0.5, round(rnd.uniform(0.3, 1.0), 3)]),
        "memory_suggestion": memory,
    }  # fmt: skip


def write_cards(path: Path, count: int, seed: int) -> None:
    rnd = random.Random(seed)
    now = datetime.now(UTC)
    with path.open("w", encoding="utf-8") as fh:
        for i in range(count):
            fh.write(json.dumps(make_card(rnd, i, now), separators=(",", ":")) + "\n")


# gov is timed as installed: a regular install ships its modules compiled, and an editable
# checkout compiles them on its first run, unless PYTHONDONTWRITEBYTECODE forbids it; then
# every run would parse gov's sources again while ovi-cards, installed, runs compiled.
GOV_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def time_gov(gov: list[str], cards: Path, out: Path) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one whole ``gov card verify`` process."""
    done = run([*gov, "card", "verify", str(cards), "--format", "jsonl", "--quiet"], stdout=out,
               env=GOV_ENV)
    if done.code not in (0, 1):
        sys.exit(f"gov failed ({done.code}): {done.stderr}")
    return done.wall_s, done.cpu_s


def time_ovi(python: str, cards: Path, work: Path) -> tuple[float, float, float, list[object]]:
    """Wall seconds of the whole ovi process, and wall and CPU seconds of its loop alone."""
    script = work / "ovi_run.py"
    script.write_text(OVI_SCRIPT)
    report = work / "ovi.json"
    start = time.perf_counter()
    subprocess.run([python, str(script), str(cards), str(report)], check=True)
    wall = time.perf_counter() - start
    data = json.loads(report.read_text())
    return wall, data["loop_s"], data["loop_cpu_s"], data["results"]


def compare(gov_out: Path, ovi_results: list[object]) -> int:
    keys = ("contract_id", "passed", "hard_failures", "soft_failures", "checks_passed",
            "adjusted_confidence", "confidence_delta")  # fmt: skip
    gov_results = [json.loads(line) for line in gov_out.read_text().splitlines() if line]
    if len(gov_results) != len(ovi_results):
        return max(len(gov_results), len(ovi_results))
    differ = 0
    for mine, theirs in zip(gov_results, ovi_results, strict=True):
        if theirs is None:
            differ += mine["valid"] is not False
        elif any(mine[k] != theirs[k] for k in keys):  # type: ignore[index]
            differ += 1
    return differ


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=10_000, help="cards in the file")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of each tool")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--ovi-python", help="an interpreter that can import ovi_cards 0.1.0")
    parser.add_argument(
        "--gov", default=f"{sys.executable} -m gov.cli.entry",
        help="the gov command (default: this interpreter, -m gov.cli.entry)",
    )  # fmt: skip
    parser.add_argument("--target", type=float, default=10.0, help="the speed-up to reach")
    args = parser.parse_args()
    gov = args.gov.split()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        cards = work / "cards.jsonl"
        write_cards(cards, args.cards, args.seed)
        size = cards.stat().st_size
        print(f"{args.cards:,} cards, {size / 1e6:.1f} MB, JSONL ({os.cpu_count()} CPUs)")
        out = work / "gov.jsonl"
        time_gov(gov, cards, out)  # warm the file cache and byte-code
        runs, walls, loops, loop_cpus = [], [], [], []
        results: list[object] = []
        for _ in range(args.repeat):  # the tools take turns, so load hits both alike
            runs.append(time_gov(gov, cards, out))
            if args.ovi_python:
                wall, loop, loop_cpu, results = time_ovi(args.ovi_python, cards, work)
                walls.append(wall)
                loops.append(loop)
                loop_cpus.append(loop_cpu)
        gov_s = median([wall for wall, _ in runs])
        gov_cpu = median([cpu for _, cpu in runs])
        print(
            f"gov card verify   median {gov_s:.3f} s wall ({gov_cpu:.3f} s CPU)  best "
            f"{min(wall for wall, _ in runs):.3f} s  ({args.cards / gov_s:,.0f} cards/s, whole process)"
        )
        load = os.getloadavg()[0]
        if load > (os.cpu_count() or 1) / 2:
            print(f"note: load average {load:.1f} on {os.cpu_count()} CPUs; wall times are noisy")
        if not args.ovi_python:
            print("ovi-cards: not measured (give --ovi-python)")
            return 0
        ovi_wall, ovi_loop = median(walls), median(loops)
        ovi_cpu = median(loop_cpus)
        print(
            f"ovi-cards 0.1.0   median loop {ovi_loop:.3f} s wall ({ovi_cpu:.3f} s CPU; "
            f"{args.cards / ovi_loop:,.0f} cards/s, validate_card + verify_card), whole process "
            f"{ovi_wall:.3f} s"
        )
        ratio, cpu_ratio = ovi_loop / gov_s, ovi_cpu / gov_cpu
        print(
            f"speed-up: {ratio:.1f}x wall, {cpu_ratio:.1f}x CPU (gov's whole process against ovi's "
            f"loop alone; {ovi_wall / gov_s:.1f}x whole process against whole process); target "
            f"{args.target:g}x"
        )
        differ = compare(out, results)
        print(f"verdicts that differ between the two: {differ}")
        return 0 if min(ratio, cpu_ratio) >= args.target and differ == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
