#!/usr/bin/env python3
"""``gov lint`` at 1,000 and 100,000 documents whose index exists.

For each size, documents come from ``benchmarks/gen_corpus.py`` (seeded from the
development sets' documents when ``--seed-corpus`` is given; about 1.5 surfaces each) and
are indexed once (``gov index``, with ``--ann`` from ``--ann-from`` documents up: the
approximate-search graph lint uses past ``exact_surface_limit`` surfaces). Then, timed as
whole processes (wall, CPU of the process, peak RSS):

* ``lint_index``: ``gov lint -i INDEX --format json`` (the index alone);
* ``lint_paths``: ``gov lint CORPUS -i INDEX --format json`` (the corpus read again, the
  index used because it is fresh for it);
* with ``--exact``, also ``gov lint -i INDEX --exact`` (every pair, every surface routed);
* ``library``: ``lint_index(INDEX)`` in a fresh process, with its phase times and the
  rules it skipped.

Each line printed is JSON: the measure, the figures, lint's own phase times, findings per
rule and the rules it skipped (and why). The bank's vectors come from the embedding cache
after the first run (``--fresh-cache`` measures the first). Index builds are slow at
100,000 documents (about 20 minutes of CPU to embed; ``docs/scale.md``) and are reused from
``--work``::

    python benchmarks/bench_lint.py --sizes 1000,100000 --work /tmp/gov-lint-bench \\
        --seed-corpus ../shared/eval/*/policies
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_scale import GOV, timed  # noqa: E402


def emit(measure: str, size: int, **figures: Any) -> None:
    print(json.dumps({"measure": measure, "documents": size, **figures}), flush=True)


def prepare(work: Path, size: int, seed_corpus: list[str], ann: bool, env: dict[str, str]
            ) -> tuple[Path, Path]:
    corpus, index = work / f"corpus-{size}.jsonl", work / f"index-{size}"
    if not corpus.is_file():
        import gen_corpus

        gen_corpus.main([str(size), "-o", str(corpus),
                         *(["--seed-corpus", *seed_corpus] if seed_corpus else [])])
    if not index.is_file():
        seconds, rss, code, _out, cpu = timed(
            [*GOV, "index", str(corpus), "-o", str(index), "-q", *(["--ann"] if ann else [])],
            env=env)
        if code != 0:
            raise SystemExit(f"gov index failed with exit {code}")
        emit("build", size, seconds=round(seconds, 1), cpu_s=round(cpu, 1),
             peak_rss_mb=round(rss), ann=ann)
    return corpus, index


def lint(measure: str, size: int, args: list[str], env: dict[str, str]) -> None:
    seconds, rss, code, out, cpu = timed([*GOV, "lint", *args, "--format", "json",
                                          "--fail-on", "never"], env=env)
    if code != 0:
        raise SystemExit(f"gov lint {' '.join(args)} failed with exit {code}")
    findings = json.loads(out)
    summary: dict[str, Any] = {}
    if isinstance(findings, dict):  # no findings: the summary alone
        summary, findings = findings, []
    emit(measure, size, seconds=round(seconds, 2), cpu_s=round(cpu, 2),
         peak_rss_mb=round(rss), findings=dict(Counter(f["rule"] for f in findings)),
         **({"phases": summary.get("phases"), "skipped": summary.get("skipped")}
            if summary else {}))


def phases(size: int, index: Path, env: dict[str, str]) -> None:
    """The library call behind ``gov lint -i INDEX``: its phases and the rules it skipped."""
    code = ("import json, sys; from gov.core.lint import lint_index; "
            "r = lint_index(sys.argv[1]); d = r.to_json(); "
            "print(json.dumps({'phases': d['phases'], 'skipped': d['skipped'], "
            "'counts': d['counts']}))")
    seconds, rss, status, out, cpu = timed([sys.executable, "-c", code, str(index)], env=env)
    if status != 0:
        raise SystemExit(f"lint_index({index}) failed with exit {status}")
    emit("library", size, seconds=round(seconds, 2), cpu_s=round(cpu, 2),
         peak_rss_mb=round(rss), **json.loads(out))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,100000")
    parser.add_argument("--work", type=Path, default=Path("/tmp/gov-lint-bench"))
    parser.add_argument("--seed-corpus", nargs="*", default=[])
    parser.add_argument("--ann-from", type=int, default=50000,
                        help="build the approximate-search graph from this size up")
    parser.add_argument("--exact", action="store_true", help="also time gov lint --exact")
    parser.add_argument("--fresh-cache", action="store_true",
                        help="an empty embedding cache for the lint runs (the bank embedded)")
    options = parser.parse_args()
    options.work.mkdir(parents=True, exist_ok=True)
    build_env = {"GOV_CACHE_DIR": str(options.work / "cache")}
    lint_env = dict(build_env)
    if options.fresh_cache:
        lint_env = {"GOV_CACHE_DIR": str(options.work / f"cache-fresh-{os.getpid()}")}
    print(json.dumps({"command": " ".join(sys.argv), "date": dt.date.today().isoformat()}))
    print(json.dumps({"machine": {"cpus": os.cpu_count(), "load_average": os.getloadavg()}}))
    for size in (int(s) for s in options.sizes.split(",")):
        corpus, index = prepare(options.work, size, options.seed_corpus,
                                size >= options.ann_from, build_env)
        lint("lint_index", size, ["-i", str(index)], lint_env)
        phases(size, index, lint_env)
        lint("lint_paths", size, [str(corpus), "-i", str(index)], lint_env)
        if options.exact:
            lint("lint_index_exact", size, ["-i", str(index), "--exact"], lint_env)
    print(json.dumps({"machine_after": {"load_average": os.getloadavg()}}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
