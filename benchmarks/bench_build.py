#!/usr/bin/env python3
"""Index builds: a cold ``gov index`` of a skills library, and the two encoders side by side.

Prints one JSON line per measurement:

* ``encoders``: the bundled model through the length-grouped ONNX encoder (what builds
  and routes use) and through fastembed in batches of 256 (what builds used before), on
  the same texts, each in a fresh process: texts per second, peak RSS, and the largest
  difference between their vectors;
* ``build``: a cold ``gov index FOLDER`` in a fresh process (empty cache folder, no
  previous index): wall and CPU seconds, peak RSS, documents, surfaces;
* ``resume``: a build interrupted (SIGINT) after ``--interrupt`` seconds, then run again:
  how many vectors the second run took from the cache the first had saved.

The corpus is a folder of skills (``NAME/SKILL.md`` with a ``description`` and a body),
either given (``--skills DIR``: any collection, read only) or synthesised here from
``benchmarks/gen_corpus.py``'s documents with skill-length descriptions (120 to 700
characters, like real ones). Targets (2 cores): a 1,350-skill library in under 10 s and
500 MB; 100,000 skill-length documents in under 10 minutes::

    python benchmarks/bench_build.py --skills-count 1350 --encoder-texts 1000
    python benchmarks/bench_build.py --skills-count 100000 --no-encoders
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gen_corpus import generate, synthetic_bases  # noqa: E402

FILLER = [
    "Use it to plan the change and check the runbook first",
    "Record what was done and ask for a second review when production data is touched",
    "It covers the usual steps, the exceptions that need a written waiver, and who to call",
    "Triggers on requests that mention the service, its owners or its deploy pipeline",
    "Do not use it for questions about billing, hiring or office logistics",
]


def synthesise(folder: Path, count: int, seed: int = 0) -> Path:
    """``count`` skill folders with descriptions of 120-700 characters."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for doc in generate(count, synthetic_bases(), seed):
        description = str(doc["trigger"])
        target = rng.randint(120, 700)
        while len(description) < target:
            description += " " + rng.choice(FILLER).strip().rstrip(".") + "."
        description = description[:target].rsplit(" ", 1)[0]
        skill = folder / str(doc["name"])
        skill.mkdir(exist_ok=True)
        body = str(doc["body"]).split("\n", 3)[-1] * 4
        skill.joinpath("SKILL.md").write_text(
            f"---\nname: {doc['name']}\ndescription: {json.dumps(description)}\n---\n\n{body}")
    return folder


def descriptions(folder: Path, limit: int) -> list[str]:
    sys.path.insert(0, str(HERE.parent))
    from gov.core.corpus.reader import load_corpus

    corpus = load_corpus([folder], warn=lambda _m: None)
    return [doc.trigger for doc in corpus.documents[:limit]]


ENCODE = """
import json, resource, sys, time
import numpy as np
texts = json.load(open(sys.argv[2]))
from gov.core.encode.embedding import FastembedEncoder, OnnxEncoder
if sys.argv[1] == "onnx":
    encoder = OnnxEncoder()
    run = lambda: encoder.embed(texts)
else:
    encoder = FastembedEncoder()
    run = lambda: np.vstack([encoder.embed(texts[i:i + 256]) for i in range(0, len(texts), 256)])
start, cpu = time.perf_counter(), time.process_time()
vectors = run()
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
np.save(sys.argv[3], vectors)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "cpu_s": cpu, "peak_rss_mb": round(peak)}))
"""


def run_measured(args: list[str], env: dict[str, str], interrupt: float | None = None
                 ) -> dict[str, Any]:
    """One child, measured alone (a fresh process so RUSAGE_CHILDREN holds only it)."""
    code = ("import json, resource, subprocess, sys, time, signal\n"
            "start = time.perf_counter()\n"
            "p = subprocess.Popen(json.loads(sys.argv[1]), stdout=subprocess.DEVNULL, "
            "stderr=subprocess.PIPE)\n"
            "limit = json.loads(sys.argv[2])\n"
            "try:\n    p.wait(timeout=limit)\n"
            "except (subprocess.TimeoutExpired, TypeError):\n"
            "    p.send_signal(signal.SIGINT)\n"
            "err = p.communicate()[1]\n"
            "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
            "print(json.dumps({'code': p.returncode, 'wall_s': round(time.perf_counter() - start, 2),"
            " 'cpu_s': round(u.ru_utime + u.ru_stime, 2), 'peak_rss_mb': round(u.ru_maxrss / 1024),"
            " 'stderr_tail': err.decode(errors='replace')[-300:]}))\n")
    out = subprocess.run([sys.executable, "-c", code, json.dumps(args), json.dumps(interrupt)],
                         env=env, capture_output=True, check=True).stdout
    return dict(json.loads(out))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", type=Path, help="a folder of skills to build (read only)")
    parser.add_argument("--skills-count", type=int, default=1350,
                        help="skills to synthesise when --skills is not given")
    parser.add_argument("--encoder-texts", type=int, default=1000)
    parser.add_argument("--no-encoders", action="store_true")
    parser.add_argument("--interrupt", type=float, default=0.0,
                        help="also interrupt a build after this many seconds and resume it")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "gov-bench-build")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    folder = args.skills or args.work / f"skills-{args.skills_count}"
    if args.skills is None and not folder.exists():
        synthesise(folder, args.skills_count)
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    if not args.no_encoders:
        texts = descriptions(folder, args.encoder_texts)
        source = args.work / "texts.json"
        source.write_text(json.dumps(texts))
        results = {}
        for name in ("onnx", "fastembed"):
            out = subprocess.run([sys.executable, "-c", ENCODE, name, str(source),
                                  str(args.work / f"{name}.npy")], env=env, capture_output=True,
                                 check=True).stdout
            results[name] = json.loads(out)
        import numpy as np

        onnx, fast = (np.load(args.work / f"{n}.npy") for n in ("onnx", "fastembed"))
        print(json.dumps({
            "measure": "encoders", "texts": len(texts),
            "mean_chars": round(sum(map(len, texts)) / len(texts)),
            "onnx": {**results["onnx"], "texts_per_s": round(len(texts) / results["onnx"]["seconds"], 1)},
            "fastembed": {**results["fastembed"],
                          "texts_per_s": round(len(texts) / results["fastembed"]["seconds"], 1)},
            "speedup": round(results["fastembed"]["seconds"] / results["onnx"]["seconds"], 2),
            "largest_difference": float(np.abs(onnx - fast).max())}))
    cache = Path(tempfile.mkdtemp(prefix="cache-", dir=args.work))
    output = args.work / "index"
    output.unlink(missing_ok=True)
    build = [sys.executable, "-m", "gov.cli.entry", "index", str(folder), "-o", str(output), "-q"]
    measured = run_measured(build, {**env, "GOV_CACHE_DIR": str(cache)})
    documents = len([p for p in folder.iterdir() if (p / "SKILL.md").is_file()])
    print(json.dumps({"measure": "build", "documents": documents, **measured,
                      "index_mb": round(output.stat().st_size / 1e6, 1)
                      if output.exists() else None}))
    if args.interrupt:
        cache = Path(tempfile.mkdtemp(prefix="cache-", dir=args.work))
        output.unlink(missing_ok=True)
        cold = {**env, "GOV_CACHE_DIR": str(cache), "GOV_EMBED_CACHE": "1"}
        first = run_measured(build, cold, interrupt=args.interrupt)
        second = run_measured([*build[:-1], "--format", "json"], cold)
        header = subprocess.run([sys.executable, "-c", "import json,sys; from gov.core.index."
                                 "fileformat import read_header; print(json.dumps(read_header("
                                 "sys.argv[1])['build']))", str(output)], env=env,
                                capture_output=True, check=True).stdout
        print(json.dumps({"measure": "resume", "interrupted_after_s": args.interrupt,
                          "first": first, "second": second, "build": json.loads(header)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
