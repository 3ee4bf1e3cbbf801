"""Soak: hook turns through the warm server, 8 at a time, while the index is rebuilt underneath.

    python benchmarks/soak_hook.py [--turns 10000] [--clients 8] [--rebuild-every 1000]

Every turn is a fresh ``gov hook codex`` process. Expected answers are computed once,
in-process, from the same corpus; rebuilding from an unchanged corpus must not change them.
Counts wrong answers, failures (a non-zero exit or a line on stderr) and fallbacks (turns
that routed in-process, read from telemetry ``attempts``), prints latency percentiles, and
samples the server's resident memory to show it stays flat. All expected zero but fallbacks.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lib import REPO, import_repo, summary

PROMPTS = [
    "roll back last night's release, checkout is throwing 500s",
    "rotate the stripe key that leaked into the build logs",
    "the pager went off for checkout-api at 3am, what do I do first?",
    "what's the capital of france and why is it paris",
    "bump lodash to the latest major and fix whatever breaks",
    "can I copy the prod customers table to my laptop to debug this?",
]


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--rebuild-every", type=int, default=1000)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        index = Path(tmp) / "index"
        events = Path(tmp) / "events.jsonl"
        env = {**os.environ, "GOV_RUNTIME_DIR": str(Path(tmp) / "rt"), "GOV_TELEMETRY_PATH": str(events)}
        build = [args.python, "-m", "gov.cli.entry", "index", str(REPO / "examples" / "policies"), "-o",
                 str(index), "-q"]
        subprocess.run(build, check=True, env=env)
        import_repo()
        import orjson

        from gov.core.routing.indexes import load_index
        from gov.core.serving.hook_context import hook_output, render

        loaded = load_index(index)
        expected = {}
        for prompt in PROMPTS:
            routed = loaded.route(prompt, record=False)
            expected[prompt] = (orjson.dumps(hook_output(render(routed, str(REPO), index=str(index)))).decode()
                                if routed.routes else "")
        server = subprocess.Popen([args.python, "-m", "gov.cli.entry", "serve", "-q", "--idle-timeout", "900"],
                                  env=env)
        time.sleep(3)
        lock = threading.Lock()
        tally = {"wrong": 0, "failed": 0, "done": 0}
        latencies: list[float] = []
        memory: list[float] = []

        def one(number: int) -> None:
            prompt = PROMPTS[number % len(PROMPTS)]
            payload = json.dumps({"prompt": prompt, "cwd": str(REPO), "hook_event_name": "UserPromptSubmit",
                                  "session_id": f"soak-{number}"})  # a full paragraph every turn
            start = time.perf_counter()
            result = subprocess.run([args.python, "-m", "gov.cli.entry", "hook", "codex", "-i", str(index)],
                                    input=payload.encode(), capture_output=True, env=env, check=False)
            elapsed = (time.perf_counter() - start) * 1000.0
            got = result.stdout.decode().strip()
            with lock:
                latencies.append(elapsed)
                tally["done"] += 1
                if result.returncode != 0 or result.stderr:
                    tally["failed"] += 1
                elif got != expected[prompt]:
                    tally["wrong"] += 1
                if tally["done"] % args.rebuild_every == 0:
                    subprocess.Popen(build, env=env)  # rebuild underneath, concurrently
                    if server.poll() is None:
                        memory.append(rss_mb(server.pid))

        started = time.time()
        try:
            with ThreadPoolExecutor(max_workers=args.clients) as pool:
                list(pool.map(one, range(args.turns)))
        finally:
            if server.poll() is None:
                memory.append(rss_mb(server.pid))
            server.terminate()
            server.wait()
        fallbacks = sum(1 for line in events.read_text().splitlines() if json.loads(line).get("attempts", 1) > 1)
        print(f"turns {tally['done']} with {args.clients} clients in {time.time() - started:.0f} s; "
              f"index rebuilt every {args.rebuild_every} turns")
        print(f"wrong answers {tally['wrong']}   failures {tally['failed']}   fallbacks {fallbacks}")
        print(summary("hook turn latency", latencies))
        print("server RSS MB over the run: " + ", ".join(f"{m:.0f}" for m in memory))


if __name__ == "__main__":
    main()
