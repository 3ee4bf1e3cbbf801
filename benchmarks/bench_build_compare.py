#!/usr/bin/env python3
"""Cold index builds, this gov against another installation, side by side in one run.

The same synthesised skills library (``bench_build.synthesise``: ``NAME/SKILL.md`` with a
120-700 character description and a body) is built cold — an empty cache folder
(``GOV_CACHE_DIR``), no previous index — by each configuration in turn, ``--runs`` times,
the configurations interleaved so a busy machine weighs on all of them alike:

* ``current --no-bodies``: this interpreter's gov, bodies off (what the baseline built);
* ``current``: this interpreter's gov with its defaults (bodies on: the first passages of
  each body embedded as one more vector per document);
* ``baseline``: the gov of ``--python`` (another virtual environment) with its defaults;
* ``baseline --no-bodies`` (with ``--baseline-no-bodies``, for a baseline that has bodies):
  the same, bodies off; then each current configuration is compared with its own.

Each build is a fresh process measured alone: wall and CPU seconds, peak RSS. The load
average is printed before each build; the summary gives each configuration's range over
the runs and the ratios baseline / current (medians)::

    python benchmarks/bench_build_compare.py --skills-count 1354 --runs 3 \\
        --python /path/to/baseline/.venv/bin/python
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_build import run_measured, synthesise
from lib import median


def configurations(baseline: str | None, no_bodies: bool = False
                   ) -> list[tuple[str, str, list[str]]]:
    rows = [("current --no-bodies", sys.executable, ["--no-bodies"]),
            ("current (bodies on)", sys.executable, [])]
    if baseline:
        rows.append(("baseline", baseline, []))
        if no_bodies:
            rows.append(("baseline --no-bodies", baseline, ["--no-bodies"]))
    return rows


def build(python: str, folder: Path, flags: list[str], work: Path) -> dict[str, Any]:
    cache = Path(tempfile.mkdtemp(prefix="cache-", dir=work))
    output = work / "index"
    output.unlink(missing_ok=True)
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env["GOV_CACHE_DIR"] = str(cache)
    args = [python, "-m", "gov.cli.entry", "index", str(folder), "-o", str(output), "-q", *flags]
    load = os.getloadavg()[0]
    measured = run_measured(args, env)
    measured["load_1min"] = round(load, 1)
    measured["index_mb"] = round(output.stat().st_size / 1e6, 1) if output.exists() else None
    shutil.rmtree(cache, ignore_errors=True)
    return measured


def span(values: list[float], unit: str, digits: int = 1) -> str:
    low, high = min(values), max(values)
    if round(low, digits) == round(high, digits):
        return f"{low:.{digits}f} {unit}"
    return f"{low:.{digits}f}-{high:.{digits}f} {unit}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills-count", type=int, default=1354)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--python", help="the baseline installation's interpreter")
    parser.add_argument("--baseline-no-bodies", action="store_true",
                        help="also build with the baseline, bodies off (a baseline with bodies)")
    parser.add_argument("--only", help="comma-separated configuration names to run "
                        "(current-no-bodies, current, baseline, baseline-no-bodies)")
    parser.add_argument("--work", type=Path,
                        default=Path(tempfile.gettempdir()) / "gov-bench-build-compare")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    folder = args.work / f"skills-{args.skills_count}"
    if not folder.exists():
        synthesise(folder, args.skills_count)
    keys = {"current --no-bodies": "current-no-bodies", "current (bodies on)": "current",
            "baseline": "baseline", "baseline --no-bodies": "baseline-no-bodies"}
    chosen = set(args.only.split(",")) if args.only else set(keys.values())
    configs = [c for c in configurations(args.python, args.baseline_no_bodies) if keys[c[0]] in chosen]
    results: dict[str, list[dict[str, Any]]] = {name: [] for name, _, _ in configs}
    print(json.dumps({"documents": args.skills_count, "cores": os.cpu_count(),
                      "python": {name: python for name, python, _ in configs}}), flush=True)
    for run in range(1, args.runs + 1):
        for name, python, flags in configs:
            measured = build(python, folder, flags, args.work)
            results[name].append(measured)
            print(json.dumps({"run": run, "config": name, **measured}), flush=True)
    print(f"\ncold build of {args.skills_count:,} skills, {args.runs} runs each "
          f"(range; load average 1 min before each build):")
    print(f"{'configuration':<22} {'wall':>16} {'CPU':>16} {'peak RSS':>16} {'load':>10}")
    for name, rows in results.items():
        ok = [r for r in rows if r["code"] == 0]
        if len(ok) != len(rows):
            print(f"{name:<22} {len(rows) - len(ok)} failed: {rows[0]['stderr_tail']!r}")
        if not ok:
            continue
        print(f"{name:<22} {span([r['wall_s'] for r in ok], 's'):>16} "
              f"{span([r['cpu_s'] for r in ok], 's'):>16} "
              f"{span([r['peak_rss_mb'] for r in ok], 'MB', 0):>16} "
              f"{span([r['load_1min'] for r in ok], '', 1):>10}")
    if results.get("baseline"):
        for name in ("current --no-bodies", "current (bodies on)"):
            rows = results.get(name)
            if not rows:
                continue
            base = results.get("baseline --no-bodies") if "no-bodies" in name else None
            base = base or results["baseline"]
            ratios = {key: median([b[key] for b in base]) / median([r[key] for r in rows])
                      for key in ("wall_s", "cpu_s", "peak_rss_mb")}
            which = "baseline --no-bodies" if base is results.get("baseline --no-bodies") \
                else "baseline"
            print(f"{which} / {name}: wall {ratios['wall_s']:.1f}x, CPU {ratios['cpu_s']:.1f}x, "
                  f"peak RSS {ratios['peak_rss_mb']:.1f}x (medians)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
