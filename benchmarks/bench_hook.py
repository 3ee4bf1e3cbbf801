"""Hook turn latency, process start to output: warm server vs in-process (and oiax if measured).

    python benchmarks/bench_hook.py [--turns 30]

Builds an index of examples/policies in a temp folder, runs ``gov hook codex`` as a fresh
process per turn with a real UserPromptSubmit payload, and prints median and p90 wall
time for: the warm server (started first), and in-process routing (``--serve never``).
Targets: warm median <= 60 ms, in-process median <= 0.8 s.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROMPTS = [
    "roll back last night's release, checkout is throwing 500s",
    "rotate the stripe key that leaked into the build logs",
    "the pager went off for checkout-api at 3am, what do I do first?",
    "what's the capital of france and why is it paris",
]


CPU: dict[str, list[float]] = {}


def turn(python: str, index: Path, prompt: str, serve: str, env: dict[str, str]) -> float:
    payload = json.dumps({"prompt": prompt, "cwd": str(REPO), "hook_event_name": "UserPromptSubmit",
                          "session_id": "bench", "turn_id": "t", "model": "m",
                          "permission_mode": "default", "transcript_path": None}).encode()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([python, "-m", "gov.cli.entry", "hook", "codex", "-i", str(index), "--serve", serve],
                   input=payload, capture_output=True, env=env, check=True)
    elapsed = (time.perf_counter() - start) * 1000.0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000.0
    CPU.setdefault(serve, []).append(cpu)
    return elapsed


def summary(label: str, samples: list[float], target: float, cpu: list[float]) -> dict[str, float | str]:
    ordered = sorted(samples)
    median = statistics.median(ordered)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    cpu_median = statistics.median(cpu)
    verdict = "ok" if median <= target else "MISSED"
    print(f"{label:<28} median {median:8.1f} ms   p90 {p90:8.1f} ms   CPU {cpu_median:7.1f} ms   "
          f"target <= {target:.0f} ms ({median / target:.2f}x of target) {verdict}")
    return {"label": label, "median_ms": round(median, 1), "p90_ms": round(p90, 1),
            "cpu_ms": round(cpu_median, 1), "target_ms": target}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        index = Path(tmp) / "index"
        env = {**os.environ, "GOV_RUNTIME_DIR": str(Path(tmp) / "rt")}
        env.pop("GOV_TELEMETRY_PATH", None)
        subprocess.run([args.python, "-m", "gov.cli.entry", "index", str(REPO / "examples" / "policies"),
                        "-o", str(index), "-q"], check=True, env=env)
        print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; {args.turns} turns each")
        inproc = [turn(args.python, index, PROMPTS[i % len(PROMPTS)], "never", env) for i in range(args.turns)]
        server = subprocess.Popen([args.python, "-m", "gov.cli.entry", "serve", "-q", "--idle-timeout", "600"],
                                  env=env)
        try:
            turn(args.python, index, PROMPTS[0], "auto", env)  # first turn loads the index in the server
            time.sleep(1.0)
            warm = [turn(args.python, index, PROMPTS[i % len(PROMPTS)], "auto", env) for i in range(args.turns)]
        finally:
            server.terminate()
            server.wait()
        rows = [summary("hook, warm server", warm, 60.0, CPU["auto"][-len(warm):]),
                summary("hook, in-process", inproc, 800.0, CPU["never"])]
        baseline = REPO / "benchmarks" / "results" / "oiax_baseline.json"
        if baseline.exists():
            data = json.loads(baseline.read_text())
            oiax_ms = (data.get("speed") or {}).get("hook_ms_median")
            if oiax_ms:
                print(f"oiax 0.3.2 hook (measured by benchmarks/oiax_baseline.py): {oiax_ms:.0f} ms; "
                      f"gov warm is {oiax_ms / rows[0]['median_ms']:.1f}x faster")  # type: ignore[operator]
        out = REPO / "benchmarks" / "results" / "hook.json"
        out.parent.mkdir(exist_ok=True)
        out.write_text(json.dumps({"load_average": os.getloadavg()[0], "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
