#!/usr/bin/env python3
"""Index builds: a cold ``gov index`` of a skills library, and a build resumed.

Prints one JSON line per measurement (the side-by-side of the two encoders, ONNX against
fastembed, ran at 87bd3aa and is no longer here):

* ``build``: a cold ``gov index FOLDER`` in a fresh process (empty cache folder, no
  previous index): wall and CPU seconds, peak RSS, documents, surfaces;
* ``resume``: a build interrupted (SIGINT) after ``--interrupt`` seconds, then run again:
  how many vectors the second run took from the cache the first had saved.

The corpus is a folder of skills (``NAME/SKILL.md`` with a ``description`` and a body),
either given (``--skills DIR``: any collection, read only) or synthesised here from
``benchmarks/gen_corpus.py``'s documents with skill-length descriptions (120 to 700
characters, like real ones). Targets (2 cores): a 1,350-skill library in under 10 s and
500 MB; 100,000 skill-length documents in under 10 minutes::

    python benchmarks/bench_build.py --skills-count 1350 [--interrupt 5]
    python benchmarks/bench_build.py --skills-count 100000
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

from gen_corpus import generate, synthetic_bases
from lib import REPO, run

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


def run_measured(args: list[str], env: dict[str, str], interrupt: float | None = None
                 ) -> dict[str, Any]:
    """One child, measured alone; ``interrupt``: Ctrl-C after that many seconds."""
    done = run(args, env=env, stdout=Path(os.devnull), interrupt_after=interrupt)
    return {"code": done.code, "wall_s": round(done.wall_s, 2), "cpu_s": round(done.cpu_s, 2),
            "peak_rss_mb": round(done.peak_rss_mb), "stderr_tail": done.stderr[-300:]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", type=Path, help="a folder of skills to build (read only)")
    parser.add_argument("--skills-count", type=int, default=1350,
                        help="skills to synthesise when --skills is not given")
    parser.add_argument("--interrupt", type=float, default=0.0,
                        help="also interrupt a build after this many seconds and resume it")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "gov-bench-build")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    folder = args.skills or args.work / f"skills-{args.skills_count}"
    if args.skills is None and not folder.exists():
        synthesise(folder, args.skills_count)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
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
