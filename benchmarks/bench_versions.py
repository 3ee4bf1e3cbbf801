#!/usr/bin/env python3
"""Two installations of gov side by side: the hot paths of this one against a baseline.

A change that reorganises the code or adds work to a route must not make the paths a user
feels every turn slower. This runs both installations in one process, interleaved turn by
turn (so a busy moment of a shared machine falls on both alike), and prints each figure
with its ratio::

    help        gov --help, a fresh process
    one-shot    gov route "PROMPT" -i IDX --format jsonl, a fresh process
    hook warm   gov hook codex with a UserPromptSubmit payload, its warm server already up
    hook cold   the same with --serve never (the whole route in the hook's process)
    warm route  load_index(IDX).route(prompt) in one process (median of 200 routes)

Each installation builds its own index of examples/policies with its own defaults (index
formats differ across versions) and gets its own runtime and cache folders, so neither
ever talks to the other's warm server. Wall time and the child's CPU time are both shown;
on a shared machine the CPU figure is the steadier one. Usage::

    python benchmarks/bench_versions.py --baseline OTHER_VENV/bin/python [--python VENV/bin/python]
        [--turns 15]

Figures go to ``benchmarks/results/versions.json``. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lib import EXAMPLES, RESULTS, gov_command, median, percentile, run

POLICIES = EXAMPLES / "policies"
PROMPTS = [
    "roll back last night's release, checkout is throwing 500s",
    "rotate the stripe key that leaked into the build logs",
    "the pager went off for checkout-api at 3am, what do I do first?",
    "what's the capital of france and why is it paris",
]
WARM_ROUTES = 200
WARM_SCRIPT = f"""
import statistics, sys, time
from gov.core import load_index
index = load_index(sys.argv[1])
prompts = sys.argv[2:]
for prompt in prompts:
    index.route(prompt, record=False)
times = []
for i in range({WARM_ROUTES}):
    start = time.perf_counter()
    index.route(prompts[i % len(prompts)], record=False)
    times.append((time.perf_counter() - start) * 1000.0)
print(statistics.median(times))
"""


class Installation:
    """One gov installation: its interpreter, its console script, its own folders and index."""

    def __init__(self, label: str, python: str, work: Path) -> None:
        self.label = label
        self.python = python
        self.gov = gov_command(python)
        home = work / label
        (home / "runtime").mkdir(parents=True)
        (home / "runtime").chmod(0o700)
        self.index = home / "index"
        self.env = {**os.environ, "GOV_RUNTIME_DIR": str(home / "runtime"),
                    "GOV_CACHE_DIR": str(home / "cache"), "GOV_TELEMETRY": "off",
                    "GOV_TELEMETRY_PATH": str(home / "telemetry.jsonl")}
        self.env.pop("GOV_INDEX", None)
        self.samples: dict[str, list[tuple[float, float]]] = {}

    def version(self) -> str:
        out = subprocess.run([*self.gov, "--version"], capture_output=True, env=self.env, check=False)
        return out.stdout.decode().strip() or out.stderr.decode().strip()

    def build(self) -> None:
        subprocess.run([*self.gov, "index", str(POLICIES), "-o", str(self.index), "-q"],
                       capture_output=True, env=self.env, check=True, cwd=self.index.parent)

    def timed(self, name: str, argv: list[str], stdin: bytes | None = None) -> None:
        done = run(argv, stdin=stdin, env=self.env, cwd=self.index.parent).checked(name)
        self.samples.setdefault(name, []).append((done.wall_s * 1000.0, done.cpu_s * 1000.0))

    def hook(self, prompt: str, serve: str) -> list[str]:
        return [*self.gov, "hook", "codex", "-i", str(self.index), "--serve", serve]

    def payload(self, prompt: str) -> bytes:
        return json.dumps({"prompt": prompt, "cwd": str(self.index.parent),
                           "hook_event_name": "UserPromptSubmit", "session_id": "bench",
                           "turn_id": "t", "model": "m", "permission_mode": "default",
                           "transcript_path": None}).encode()

    def warm_route_ms(self) -> float:
        out = subprocess.run([self.python, "-c", WARM_SCRIPT, str(self.index), *PROMPTS],
                             capture_output=True, env=self.env, check=True)
        return float(out.stdout.decode().strip().splitlines()[-1])

    def stop_server(self) -> None:
        subprocess.run([*self.gov, "serve", "--stop"], capture_output=True, env=self.env,
                       check=False)


def turns(installations: list[Installation], count: int) -> None:
    for turn in range(count):
        prompt = PROMPTS[turn % len(PROMPTS)]
        for gov in installations if turn % 2 == 0 else reversed(installations):
            gov.timed("help", [*gov.gov, "--help"])
            gov.timed("one-shot", [*gov.gov, "route", prompt, "-i", str(gov.index), "--format",
                                   "jsonl"])
            gov.timed("hook warm", gov.hook(prompt, "auto"), gov.payload(prompt))
            gov.timed("hook cold", gov.hook(prompt, "never"), gov.payload(prompt))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="the other installation's python")
    parser.add_argument("--python", default=sys.executable, help="this installation's python")
    parser.add_argument("--turns", type=int, default=15)
    parser.add_argument("--out", type=Path, default=RESULTS / "versions.json")
    options = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gov-versions-"))
    installations = [Installation("baseline", options.baseline, work),
                     Installation("this", options.python, work)]
    try:
        for gov in installations:
            print(f"{gov.label:<9} {gov.version()}  ({gov.python})")
            gov.build()
            for prompt in PROMPTS[:2]:  # start each warm server and let it load
                subprocess.run(gov.hook(prompt, "auto"), input=gov.payload(prompt),
                               capture_output=True, env=gov.env, check=True)
            time.sleep(3.0)
        load = os.getloadavg()
        turns(installations, options.turns)
        warm = {gov.label: median([gov.warm_route_ms() for _ in range(3)])
                for gov in installations}
        load_after = os.getloadavg()
    finally:
        for gov in installations:
            gov.stop_server()
        shutil.rmtree(work, ignore_errors=True)
    base = installations[0]
    print(f"load average {load[0]:.1f} before, {load_after[0]:.1f} after; {options.turns} turns "
          "each, interleaved; medians (p90)")
    print(f"{'path':<12} {'baseline wall':>16} {'this wall':>16} {'ratio':>6}   "
          f"{'baseline CPU':>13} {'this CPU':>9} {'ratio':>6}")
    figures: dict[str, dict[str, float]] = {}
    for name in base.samples:
        row: dict[str, float] = {}
        for gov in installations:
            walls = [wall for wall, _ in gov.samples[name]]
            row[f"{gov.label}_wall_ms"] = round(median(walls), 1)
            row[f"{gov.label}_wall_p90_ms"] = round(percentile(walls, 0.9), 1)
            row[f"{gov.label}_cpu_ms"] = round(median([c for _, c in gov.samples[name]]), 1)
        row["wall_ratio"] = round(row["this_wall_ms"] / row["baseline_wall_ms"], 2)
        row["cpu_ratio"] = round(row["this_cpu_ms"] / max(row["baseline_cpu_ms"], 0.1), 2)
        figures[name] = row
        print(f"{name:<12} {row['baseline_wall_ms']:>7.1f} ({row['baseline_wall_p90_ms']:>6.1f}) "
              f"{row['this_wall_ms']:>7.1f} ({row['this_wall_p90_ms']:>6.1f}) {row['wall_ratio']:>6.2f}   "
              f"{row['baseline_cpu_ms']:>13.1f} {row['this_cpu_ms']:>9.1f} {row['cpu_ratio']:>6.2f}")
    figures["warm route"] = {"baseline_ms": round(warm["baseline"], 2),
                             "this_ms": round(warm["this"], 2),
                             "ratio": round(warm["this"] / warm["baseline"], 2)}
    print(f"{'warm route':<12} {warm['baseline']:>7.2f} ms {'':>8} {warm['this']:>7.2f} ms "
          f"{'':>7} {warm['this'] / warm['baseline']:>6.2f}   (median of {WARM_ROUTES} routes, "
          "median of 3 processes)")
    options.out.parent.mkdir(parents=True, exist_ok=True)
    options.out.write_text(json.dumps({
        "command": "python benchmarks/bench_versions.py --baseline BASE/bin/python",
        "date": time.strftime("%Y-%m-%d"), "turns": options.turns,
        "load_average": [round(load[0], 2), round(load_after[0], 2)],
        "versions": {gov.label: gov.version() for gov in installations},
        "figures": figures}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
