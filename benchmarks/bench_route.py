#!/usr/bin/env python3
"""How fast gov routes: streamed, one-shot, warm in the library, index build, memory.

Each figure is printed beside its target and the ratio measured / target::

    stream      gov route -i IDX < clinc150/labelled.jsonl > /dev/null, whole process
                (3,100 prompts against the 150 CLINC150 policies): >= 250 prompts/s, and
                >= 1.3x oiax 0.3.2 routing one prompt at a time in a warm process
    one-shot    gov route "PROMPT" -i IDX in a fresh process (examples/policies): <= 0.7 s;
                the same with --lexical-only: <= 0.2 s; gov --help: <= 0.2 s
    warm        load_index(IDX).route(prompt) in one process, 200 prompts, examples/policies:
                median <= 5 ms (p90 shown)
    build       gov index over 1,000 generated one-trigger documents, no previous index and
                an empty cache folder: <= 10 s
    memory      peak RSS of the streaming route process: <= 400 MB

The oiax figure comes from ``benchmarks/results/oiax_baseline.json`` (written by
``benchmarks/oiax_baseline.py`` at 87bd3aa, since removed); without that file 185 prompts/s is assumed and the output
says so. The machine is small (two cores) and may be shared, so every timing is taken three
times and the median reported, and the load average is printed and saved with the figures.
Beside each wall time the process's CPU time (user + system) is shown: it is the steadier
figure when other work competes for the cores (a load average well above the core count
makes every wall time here a figure of that machine state, not of gov alone).

gov itself is run through the interpreter given with ``--python`` (default: this one), as
the ``gov`` console script beside it when there is one, else ``python -m gov.cli.entry``.
This script uses only the standard library. Usage::

    python benchmarks/bench_route.py [--python VENV/bin/python] [--eval-dir DIR]

Figures go to ``benchmarks/results/route.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lib import DEFAULT_EVAL_DIR, EXAMPLES, REPO, RESULTS, gov_command, loadavg, median, percentile, run

DEFAULT_OUT = RESULTS / "route.json"
OIAX_RESULTS = RESULTS / "oiax_baseline.json"
OIAX_FALLBACK = 185.0
DEVNULL = Path(os.devnull)

ONESHOT_PROMPTS = (
    "roll back last night's release, the new build is throwing 500s",
    "can I paste the customer's email address into the debug log?",
    "add a column to the orders table in production",
    "the on-call pager went off for the payments queue, what do I do",
    "bump the version of the http client library we depend on",
    "rotate the database password that leaked in the CI output",
    "write the release notes for version 2.3",
)

# The warm-route timing script, run in the interpreter that has gov.
WARM_SCRIPT = r"""
import json, sys, time
from gov.core.routing.indexes import load_index
index = load_index(sys.argv[1])
with open(sys.argv[2], encoding="utf-8") as fh:
    prompts = json.load(fh)
for prompt in prompts[:10]:
    index.route(prompt)
latencies, cpu = [], []
for prompt in prompts:
    start, clock = time.perf_counter(), time.process_time()
    index.route(prompt)
    latencies.append((time.perf_counter() - start) * 1000.0)
    cpu.append((time.process_time() - clock) * 1000.0)
print(json.dumps({"latencies_ms": latencies, "cpu_ms": cpu, "degraded": index.degraded}))
"""


def isolate(scratch: Path) -> None:
    """Set this process's environment (inherited by every gov run): no server, no telemetry.

    A one-shot ``gov route`` asks a warm server first when one is running; pointing the
    runtime folder at an empty private folder makes every figure gov routing in-process.
    Compiled bytecode is cached (in the scratch folder) as in an installed package, even
    where PYTHONDONTWRITEBYTECODE is set.
    """
    runtime = scratch / "runtime"
    runtime.mkdir(mode=0o700, exist_ok=True)
    os.environ["GOV_RUNTIME_DIR"] = str(runtime)
    os.environ["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")
    for name in ("GOV_TELEMETRY_PATH", "GOV_INDEX", "PYTHONDONTWRITEBYTECODE"):
        os.environ.pop(name, None)


def capture(cmd: Sequence[str], *, stdin: bytes | None = None,
            env: dict[str, str] | None = None) -> str:
    done = subprocess.run(cmd, input=stdin, capture_output=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} … exited {done.returncode}:\n"
                         + done.stderr.decode("utf-8", "replace")[-2000:])
    return done.stdout.decode("utf-8")


def section(label: str, fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    print(f"  {label} …", file=sys.stderr, flush=True)
    before = loadavg()
    result = fn()
    result["loadavg_before"] = before
    result["loadavg_after"] = loadavg()
    return result


# ---------------------------------------------------------------------------------------
# Generated corpus for the build timing
# ---------------------------------------------------------------------------------------

ACTIONS = (
    "Approving", "Auditing", "Changing", "Configuring", "Deleting", "Deploying", "Exporting",
    "Granting", "Importing", "Migrating", "Monitoring", "Publishing", "Renaming", "Restoring",
    "Reviewing", "Rotating", "Scaling", "Sharing", "Testing", "Upgrading", "Archiving",
    "Backfilling", "Encrypting", "Forecasting", "Labelling", "Provisioning", "Reconciling",
    "Retiring", "Scheduling", "Translating",
)
OBJECTS = (
    "customer invoices", "payroll records", "staging clusters", "feature flags", "API keys",
    "marketing emails", "warehouse stock levels", "support tickets", "audit logs",
    "data retention rules", "vendor contracts", "mobile app builds", "search indexes",
    "backup snapshots", "GPU quotas", "pricing tables", "partner webhooks", "DNS records",
    "training datasets", "expense reports", "shipping labels", "loyalty points",
    "access badges", "survey results", "legal holds", "incident timelines",
    "container images", "tax filings", "chat transcripts", "sensor readings",
)
PLACES = (
    "in production", "for the EU region", "across every tenant", "during a code freeze",
    "for a single team", "in the analytics warehouse", "on shared laptops",
    "for contractors", "before quarter end", "in the mobile app", "for enterprise accounts",
    "in the public status page", "on the build farm", "for the finance department",
    "outside business hours", "in the sandbox account", "for regulated customers",
    "in the data lake", "on customer request", "for the on-call rotation",
)
REASONS = (
    "after an outage", "to cut cloud spend", "for a compliance review",
    "when a customer complains", "ahead of a launch", "to meet a legal request",
    "following a security alert", "as part of onboarding", "when a threshold is crossed",
    "for a quarterly report", "while a migration is running", "at a partner's request",
)


def generated_triggers(count: int, seed: int = 20240611) -> list[str]:
    """``count`` distinct trigger sentences, the same for every run."""
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < count:
        sentence = (f"{rng.choice(ACTIONS)} {rng.choice(OBJECTS)} {rng.choice(PLACES)} "
                    f"{rng.choice(REASONS)}.")
        if sentence not in seen:
            seen.add(sentence)
            out.append(sentence)
    return out


def write_generated_corpus(folder: Path, count: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for number, trigger in enumerate(generated_triggers(count), start=1):
        (folder / f"generated-{number:04d}.md").write_text(
            f"# Generated policy {number}\n\n**Agent-trigger:** {trigger}\n\n"
            f"Follow the documented procedure for this case.\n",
            encoding="utf-8",
        )


# ---------------------------------------------------------------------------------------
# Measurements
# ---------------------------------------------------------------------------------------


def read_prompts(path: Path) -> list[str]:
    prompts = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                prompts.append(json.loads(line)["prompt"])
    return prompts


def oiax_baseline() -> tuple[float, str]:
    try:
        report = json.loads(OIAX_RESULTS.read_text(encoding="utf-8"))
        value = float(report["speed"]["throughput_clinc150"]["prompts_per_s"])
        return value, f"{OIAX_RESULTS.relative_to(REPO)}"
    except (OSError, KeyError, TypeError, ValueError):
        return OIAX_FALLBACK, (f"assumed {OIAX_FALLBACK:g}/s: {OIAX_RESULTS.relative_to(REPO)} "
                               "is missing or has no clinc150 throughput")


def measure_stream(gov: list[str], index: Path, labelled: Path, runs: int) -> dict[str, Any]:
    rows = len(read_prompts(labelled))
    # A short untimed pass: pages the files in and checks the output's shape.
    with open(labelled, "rb") as fh:
        head = b"".join(line for _, line in zip(range(64), fh, strict=False))
    out = capture([*gov, "route", "-i", str(index)], stdin=head).splitlines()
    if len(out) != 64 or any("routes" not in json.loads(line) for line in out):
        raise SystemExit("gov route's JSONL output is not one routed row per input row")
    walls, cpus, rss = [], [], []
    for _ in range(runs):
        done = run([*gov, "route", "-i", str(index)], stdin=labelled,
                   stdout=DEVNULL).checked("gov route (stream)")
        walls.append(done.wall_s)
        cpus.append(done.cpu_s)
        rss.append(done.peak_rss_mb)
    wall = median(walls)
    return {"prompts": rows, "wall_s": wall, "wall_s_runs": walls, "cpu_s": median(cpus),
            "prompts_per_s": rows / wall, "prompts_per_s_runs": [rows / w for w in walls],
            "peak_rss_mb": max(rss), "peak_rss_mb_runs": rss}


def measure_oneshot(gov: list[str], index: Path, runs: int, per_run: int) -> dict[str, Any]:
    commands: dict[str, Callable[[int], list[str]]] = {
        "route": lambda i: [*gov, "route", ONESHOT_PROMPTS[i % len(ONESHOT_PROMPTS)],
                            "-i", str(index)],
        "route_lexical": lambda i: [*gov, "route", ONESHOT_PROMPTS[i % len(ONESHOT_PROMPTS)],
                                    "-i", str(index), "--lexical-only"],
        "help": lambda i: [*gov, "--help"],
    }
    # Untimed: check that a one-shot route routes semantically and prints JSON.
    shown = json.loads(capture([*commands["route"](0), "--format", "json"]))
    if not shown or shown[0].get("degraded"):
        raise SystemExit("one-shot gov route did not route with embeddings: "
                         f"{json.dumps(shown)[:300]}")
    for name in commands:
        run(commands[name](0), stdout=DEVNULL).checked(f"gov {name}")
    rounds: dict[str, list[float]] = {name: [] for name in commands}
    walls: dict[str, list[list[float]]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, make in commands.items():
            samples = [run(make(i), stdout=DEVNULL).checked(f"gov {name}")
                       for i in range(per_run)]
            walls[name].append([done.wall_s for done in samples])
            rounds[name].append(median([done.wall_s for done in samples]))
            cpus[name].extend(done.cpu_s for done in samples)
    return {name: {"wall_s": median(rounds[name]), "round_medians_s": rounds[name],
                   "walls_s": walls[name], "cpu_s": median(cpus[name])} for name in commands}


def measure_warm(python: str, index: Path, prompts: list[str], runs: int,
                 scratch: Path) -> dict[str, Any]:
    prompt_file = scratch / "warm_prompts.json"
    prompt_file.write_text(json.dumps(prompts), encoding="utf-8")
    medians, p90s, cpus = [], [], []
    for _ in range(runs):
        result = json.loads(capture([python, "-c", WARM_SCRIPT, str(index), str(prompt_file)]))
        if result["degraded"]:
            raise SystemExit(f"the warm route was degraded: {result['degraded']}")
        latencies = result["latencies_ms"]
        medians.append(median(latencies))
        p90s.append(percentile(latencies, 0.90))
        cpus.append(median(result["cpu_ms"]))
    return {"prompts": len(prompts), "median_ms": median(medians), "p90_ms": median(p90s),
            "cpu_median_ms": median(cpus),
            "median_ms_runs": medians, "p90_ms_runs": p90s}


def measure_build(gov: list[str], python: str, count: int, runs: int,
                  scratch: Path) -> dict[str, Any]:
    corpus = scratch / "generated"
    write_generated_corpus(corpus, count)
    walls = []
    for number in range(runs):
        cache = scratch / f"cache-{number}"
        target = scratch / f"generated-{number}.idx"
        env = dict(os.environ, GOV_CACHE_DIR=str(cache))
        done = run([*gov, "index", str(corpus), "-o", str(target), "--quiet"],
                   env=env, stdout=DEVNULL).checked("gov index (generated)")
        if number == 0:
            names = capture([python, "-c", "import sys; from gov.core.index.stored import "
                             "read_document_names as r; print(len(r(sys.argv[1])))",
                             str(target)])
            if int(names) != count:
                raise SystemExit(f"the generated index has {names.strip()} documents, "
                                 f"not {count}")
        walls.append(done.wall_s)
        shutil.rmtree(cache, ignore_errors=True)
        target.unlink(missing_ok=True)
    return {"documents": count, "wall_s": median(walls), "wall_s_runs": walls}


# ---------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------


@dataclass
class Line:
    label: str
    value: float
    unit: str
    target: float
    at_least: bool
    note: str = ""

    @property
    def ratio(self) -> float:
        return self.value / self.target

    @property
    def ok(self) -> bool:
        return self.value >= self.target if self.at_least else self.value <= self.target

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "value": round(self.value, 4), "unit": self.unit,
                "target": self.target, "target_is": ">=" if self.at_least else "<=",
                "ratio": round(self.ratio, 3), "met": self.ok, "note": self.note}


def lines_of(figures: dict[str, Any]) -> list[Line]:
    stream, oneshot = figures["stream"], figures["oneshot"]
    oiax = figures["oiax"]
    return [
        Line("stream: clinc150 prompts/s (whole process)", stream["prompts_per_s"],
             "prompts/s", 250.0, True, f"{stream['wall_s']:.2f} s wall, "
             f"{stream['cpu_s']:.2f} s cpu"),
        Line("stream: speed-up over oiax one-at-a-time", stream["prompts_per_s"] / oiax["value"],
             "x", 1.3, True, f"oiax {oiax['value']:.1f}/s ({oiax['source']})"),
        Line("one-shot route, fresh process", oneshot["route"]["wall_s"], "s", 0.7, False,
             f"cpu {oneshot['route']['cpu_s']:.3f} s"),
        Line("one-shot route --lexical-only", oneshot["route_lexical"]["wall_s"], "s", 0.2,
             False, f"cpu {oneshot['route_lexical']['cpu_s']:.3f} s"),
        Line("gov --help", oneshot["help"]["wall_s"], "s", 0.2, False,
             f"cpu {oneshot['help']['cpu_s']:.3f} s"),
        Line("warm route median (library)", figures["warm"]["median_ms"], "ms", 5.0, False,
             f"p90 {figures['warm']['p90_ms']:.2f} ms, cpu median "
             f"{figures['warm']['cpu_median_ms']:.2f} ms"),
        Line(f"index build, {figures['build']['documents']:,} generated documents",
             figures["build"]["wall_s"], "s", 10.0, False),
        Line("peak RSS, streaming route", stream["peak_rss_mb"], "MB", 400.0, False),
    ]


def print_table(lines: list[Line], figures: dict[str, Any]) -> None:
    env = figures["environment"]
    print()
    print(f"gov route speed — {env['cpus']} cores, Python {env['python']}, "
          f"medians of {figures['runs']} runs; load average (1, 5, 15 min) "
          f"{' '.join(map(str, figures['loadavg_start']))} at start, "
          f"{' '.join(map(str, figures['loadavg_end']))} at end")
    print()
    width = max(len(line.label) for line in lines)
    print(f"  {'measure':<{width}}  {'value':>12}  {'target':>12}  {'ratio':>6}  met")
    for line in lines:
        sign = ">=" if line.at_least else "<="
        value = f"{line.value:.3f} {line.unit}" if line.value < 10 else \
            f"{line.value:.1f} {line.unit}"
        target = f"{sign} {line.target:g} {line.unit}"
        print(f"  {line.label:<{width}}  {value:>12}  {target:>12}  {line.ratio:>6.2f}  "
              f"{'yes' if line.ok else 'NO'}" + (f"   ({line.note})" if line.note else ""))
    print()
    print("  ratio = measured / target. Load average during each part:")
    for name in ("oneshot", "warm", "stream", "build"):
        part = figures[name]
        print(f"    {name:<8} {' '.join(map(str, part['loadavg_before']))} -> "
              f"{' '.join(map(str, part['loadavg_after']))}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--eval-dir", type=Path, default=DEFAULT_EVAL_DIR,
                    help="folder with clinc150/labelled.jsonl and clinc150/policies "
                         "(default: ../shared/eval beside the repository)")
    ap.add_argument("--python", default=sys.executable,
                    help="interpreter that has gov installed (default: this one)")
    ap.add_argument("--runs", type=int, default=3, help="repetitions of each timing (median)")
    ap.add_argument("--oneshot-runs", type=int, default=7,
                    help="fresh processes per one-shot timing (median)")
    ap.add_argument("--warm-prompts", type=int, default=200)
    ap.add_argument("--build-docs", type=int, default=1000)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to save the JSON")
    args = ap.parse_args(argv)

    labelled = args.eval_dir / "clinc150" / "labelled.jsonl"
    policies = args.eval_dir / "clinc150" / "policies"
    if not labelled.is_file() or not policies.is_dir():
        ap.error(f"{args.eval_dir}: needs clinc150/labelled.jsonl and clinc150/policies")
    gov = gov_command(args.python)
    version = capture([*gov, "--version"]).strip()
    oiax_value, oiax_source = oiax_baseline()
    start_load = loadavg()

    with tempfile.TemporaryDirectory(prefix="gov-bench-route-") as tmp:
        scratch = Path(tmp)
        isolate(scratch)
        print("setting up indexes …", file=sys.stderr, flush=True)
        clinc_index = scratch / "clinc150.idx"
        examples_index = scratch / "examples.idx"
        capture([*gov, "index", str(policies), "-o", str(clinc_index), "--quiet"])
        capture([*gov, "index", str(EXAMPLES / "policies"), "-o", str(examples_index),
                 "--quiet"])
        warm_prompts = read_prompts(EXAMPLES / "labelled.jsonl")
        clinc_prompts = read_prompts(labelled)
        warm_prompts = (warm_prompts + clinc_prompts)[: args.warm_prompts]

        print("measuring:", file=sys.stderr, flush=True)
        figures: dict[str, Any] = {
            "gov": version,
            "runs": args.runs,
            "environment": {"cpus": os.cpu_count(), "python": platform.python_version(),
                            "machine": platform.machine(), "system": platform.system()},
            "oiax": {"value": oiax_value, "source": oiax_source},
            "loadavg_start": start_load,
        }
        figures["oneshot"] = section(
            f"one-shot route, --lexical-only, --help ×{args.oneshot_runs} ×{args.runs}",
            lambda: measure_oneshot(gov, examples_index, args.runs, args.oneshot_runs))
        figures["warm"] = section(
            f"warm route, {len(warm_prompts)} prompts ×{args.runs}",
            lambda: measure_warm(args.python, examples_index, warm_prompts, args.runs, scratch))
        figures["stream"] = section(
            f"streamed route, {len(clinc_prompts)} clinc150 prompts ×{args.runs}",
            lambda: measure_stream(gov, clinc_index, labelled, args.runs))
        figures["build"] = section(
            f"index build, {args.build_docs} generated documents ×{args.runs}",
            lambda: measure_build(gov, args.python, args.build_docs, args.runs, scratch))
        figures["loadavg_end"] = loadavg()

    lines = lines_of(figures)
    figures["summary"] = [line.to_json() for line in lines]
    print_table(lines, figures)
    if oiax_value == OIAX_FALLBACK and "assumed" in oiax_source:
        print(f"\n  note: {oiax_source}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    print(f"\n  saved {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
