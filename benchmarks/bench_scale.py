#!/usr/bin/env python3
"""gov at 10,000 and 100,000 documents: build, one-shot route, warm route, batch, Ray.

For each corpus size (documents from ``benchmarks/gen_corpus.py``, 1.5 surfaces each on
average) this prints one JSON line per measurement:

* ``build``: ``gov index`` wall time and peak RSS, index size, surfaces, vocabulary,
  vectors taken from the embedding cache (a second build of the same corpus is served
  from the cache; ``--fresh-cache`` measures a cold one);
* ``one_shot``: a whole ``gov route PROMPT`` process, as a hook or script runs it with no
  warm server (its own empty runtime folder): p50 wall and peak RSS over several prompts;
* ``warm``: routing in a process that already holds the index and model (what the warm
  server and a long-lived library caller see): p50 and p95 per prompt, RSS;
* ``server``: ``gov route PROMPT`` answered by a running ``gov serve``;
* ``batch``: ``gov route`` over a JSONL file of prompts, prompts per second;
* ``ray`` (``--ray-prompts``): the same prompts through ``gov route --engine ray`` with
  two actors: throughput, per-actor load seconds, and whether the output is identical.

Targets (2 cores, 100,000 documents): warm p50 ≤ 20 ms, one-shot ≤ 1.0 s, route RSS
≤ 600 MB. Wall times are also given as CPU seconds of the measured process: on a shared
machine the wall time includes waiting for a core, and the CPU time (all threads summed)
bounds what the same work takes on an idle one (files in the page cache). Uses the standard library and the installed ``gov``::

    python benchmarks/bench_scale.py --sizes 10000,100000 --work /tmp/gov-scale
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lib import median, run

HERE = Path(__file__).resolve().parent
GOV = [sys.executable, "-m", "gov.cli.entry"]


def timed(command: list[str], *, stdin: Path | None = None, stdout: Path | None = None,
          env: dict[str, str] | None = None) -> tuple[float, float, int, bytes, float]:
    """Run ``command``: (wall s, peak RSS MB, exit code, stdout, CPU s of that process)."""
    done = run(command, stdin=stdin, stdout=stdout, env={**os.environ, "NO_COLOR": "1", **(env or {})})
    return done.wall_s, done.peak_rss_mb, done.code, done.stdout, done.cpu_s


def emit(kind: str, size: int, **figures: Any) -> None:
    print(json.dumps({"measure": kind, "documents": size, **figures}), flush=True)


def prepare(work: Path, size: int, prompts: int, seed_corpus: list[str]) -> tuple[Path, Path]:
    corpus, asks = work / f"corpus-{size}.jsonl", work / f"prompts-{size}.jsonl"
    if not corpus.is_file() or not asks.is_file():
        sys.path.insert(0, str(HERE))
        import gen_corpus

        args = [str(size), "-o", str(corpus), "--prompts", str(prompts),
                "--prompts-out", str(asks)]
        gen_corpus.main(args + (["--seed-corpus", *seed_corpus] if seed_corpus else []))
    return corpus, asks


def build(work: Path, size: int, corpus: Path, fresh_cache: bool) -> Path:
    index = work / f"index-{size}"
    env = {"GOV_CACHE_DIR": str(work / ("cache-fresh" if fresh_cache else "cache"))}
    if fresh_cache:
        subprocess.run(["rm", "-rf", env["GOV_CACHE_DIR"]], check=True)
    seconds, rss, code, out, cpu = timed([*GOV, "index", str(corpus), "-o", str(index),
                                          "--format", "json"], env=env)
    if code != 0:
        raise SystemExit(f"gov index failed with exit {code}")
    summary = json.loads(out)
    from gov.core.index.fileformat import read_header

    header = read_header(index)
    emit("build", size, seconds=round(seconds, 1), cpu_s=round(cpu, 1), peak_rss_mb=round(rss),
         index_mb=round(index.stat().st_size / 2**20, 1), surfaces=summary["surfaces"],
         vocabulary=header["arrays"]["idf"]["shape"][0],
         cached_vectors=header["build"].get("cached_vectors"))
    return index


def prompts_of(path: Path, count: int) -> list[str]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line)["prompt"] for _, line in zip(range(count), handle, strict=False)]


def one_shot(size: int, index: Path, asks: list[str], runs: int) -> None:
    with tempfile.TemporaryDirectory() as runtime:
        figures = [timed([*GOV, "route", prompt, "-i", str(index), "--format", "jsonl"],
                         env={"GOV_RUNTIME_DIR": runtime}) for prompt in asks[:runs]]
    walls = sorted(f[0] for f in figures)
    cpus = sorted(f[4] for f in figures)
    emit("one_shot", size, p50_s=round(median(walls), 3),
         max_s=round(walls[-1], 3), cpu_p50_s=round(median(cpus), 3),
         peak_rss_mb=round(max(f[1] for f in figures)), runs=runs)


WARM = """
import json, resource, statistics, sys, time
from gov.core.routing.indexes import load_index
index = load_index(sys.argv[1])
prompts = json.loads(sys.stdin.read())
for prompt in prompts[:5]:
    index.route(prompt)
times, cpu = [], []
for prompt in prompts[5:]:
    started, used = time.perf_counter(), time.process_time()
    index.route(prompt)
    times.append((time.perf_counter() - started) * 1000)
    cpu.append((time.process_time() - used) * 1000)
times.sort()
print(json.dumps({"p50_ms": round(statistics.median(times), 1),
                  "p95_ms": round(times[int(0.95 * (len(times) - 1))], 1),
                  "cpu_p50_ms": round(statistics.median(cpu), 1),
                  "rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}))
"""


def warm(size: int, index: Path, asks: list[str]) -> None:
    done = subprocess.run([sys.executable, "-c", WARM, str(index)], input=json.dumps(asks).encode(),
                          capture_output=True, check=True)
    emit("warm", size, prompts=len(asks) - 5, **json.loads(done.stdout))


def server(size: int, index: Path, asks: list[str], runs: int) -> None:
    with tempfile.TemporaryDirectory() as runtime:
        env = {**os.environ, "GOV_RUNTIME_DIR": runtime}
        process = subprocess.Popen([*GOV, "serve", "--idle-timeout", "120"], env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(100):
                if subprocess.run([*GOV, "serve", "--status"], env=env, capture_output=True,
                                  check=False).returncode == 0:
                    break
                time.sleep(0.2)
            first = timed([*GOV, "route", asks[0], "-i", str(index), "--format", "jsonl"],
                          env={"GOV_RUNTIME_DIR": runtime})
            walls = sorted(timed([*GOV, "route", prompt, "-i", str(index), "--format", "jsonl"],
                                 env={"GOV_RUNTIME_DIR": runtime})[0] for prompt in asks[1:runs])
        finally:
            subprocess.run([*GOV, "serve", "--stop"], env=env, capture_output=True, check=False)
            process.wait(timeout=30)
    emit("server", size, first_s=round(first[0], 3), p50_s=round(median(walls), 3),
         runs=runs - 1)


def batch(size: int, index: Path, asks: Path, count: int, work: Path) -> Path:
    subset = work / f"batch-{size}-{count}.jsonl"
    with asks.open("rb") as source, subset.open("wb") as sink:
        for _, line in zip(range(count), source, strict=False):
            sink.write(line)
    out = work / f"batch-{size}-{count}.out"
    seconds, rss, _code, _, cpu = timed([*GOV, "route", "-i", str(index)], stdin=subset,
                                        stdout=out)
    emit("batch", size, prompts=count, seconds=round(seconds, 1), cpu_s=round(cpu, 1),
         prompts_per_s=round(count / seconds, 1), peak_rss_mb=round(rss))
    return subset


RAY = """
import dataclasses, json, sys
from gov.core.serving import ray_engine
with open(sys.argv[3], "wb") as out:
    run = ray_engine.route_file(sys.argv[1], sys.argv[2], out, concurrency=int(sys.argv[4]))
print(json.dumps(dataclasses.asdict(run)))
"""


def ray(size: int, index: Path, asks: Path, count: int, work: Path, actors: int) -> None:
    """The same prompts as ``batch`` through the Ray engine (what ``--engine ray`` runs)."""
    subset = batch(size, index, asks, count, work)
    single = work / f"batch-{size}-{count}.out"
    out = work / f"ray-{size}-{count}.out"
    seconds, rss, code, stdout, _cpu = timed([sys.executable, "-c", RAY, str(index),
                                              str(subset), str(out), str(actors)])
    details = json.loads(stdout.decode().strip().splitlines()[-1]) if code == 0 else {}
    emit("ray", size, prompts=count, actors=actors, exit=code, seconds=round(seconds, 1),
         prompts_per_s=round(count / seconds, 1), driver_rss_mb=round(rss),
         shards=details.get("shards"),
         actor_load_s=[round(s, 2) for s in details.get("load_seconds", [])],
         identical=code == 0 and out.read_bytes() == single.read_bytes())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "gov-scale")
    parser.add_argument("--seed-corpus", nargs="*", default=[])
    parser.add_argument("--fresh-cache", action="store_true",
                        help="embed every surface (else vectors cached by an earlier run count)")
    parser.add_argument("--skip-build", action="store_true", help="reuse built indexes")
    parser.add_argument("--one-shot-runs", type=int, default=7)
    parser.add_argument("--warm-prompts", type=int, default=205)
    parser.add_argument("--batch-prompts", type=int, default=2000)
    parser.add_argument("--ray-prompts", type=int, default=0)
    parser.add_argument("--ray-size", type=int, default=10000,
                        help="corpus size for the Ray comparison (routing cost, not model cost)")
    parser.add_argument("--actors", type=int, default=2)
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    print(json.dumps({"machine": {"cpus": os.cpu_count(), "load_average": os.getloadavg()}}))
    for size in [int(s) for s in args.sizes.split(",") if s]:
        prompt_count = max(args.batch_prompts, args.ray_prompts, args.warm_prompts)
        corpus, asks = prepare(args.work, size, prompt_count, args.seed_corpus)
        index = args.work / f"index-{size}"
        if not (args.skip_build and index.is_file()):
            index = build(args.work, size, corpus, args.fresh_cache)
        sample = prompts_of(asks, args.warm_prompts)
        one_shot(size, index, sample, args.one_shot_runs)
        warm(size, index, sample)
        server(size, index, sample, args.one_shot_runs)
        if args.batch_prompts:
            batch(size, index, asks, args.batch_prompts, args.work)
        if args.ray_prompts and size == args.ray_size:
            ray(size, index, asks, args.ray_prompts, args.work, args.actors)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
