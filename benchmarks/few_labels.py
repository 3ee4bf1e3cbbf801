#!/usr/bin/env python3
"""The few-label curve: what N labels do to routing on prompts calibration never saw.

Each development set's labelled prompts are split as ``benchmarks/quality.py`` splits them
(half of each label group by prompt hash): labels are drawn from the calibration half (the
pool; BANKING77-OOS's in-domain near misses left out, as there) and every figure is measured
on the test half. For each N and draw:

* **random**: N prompts of the pool at random, a third of them ungoverned where the set has
  such rows (as the measurement in the issue that asked for this curve drew them);
* **chosen**: the N prompts ``gov label`` picks from a random half of the pool (its
  unlabelled prompts), then labelled with their true names;

then ``calibrate_index`` (what ``gov calibrate --max-fa X --out point.json`` runs) and the
test half routed with the point it wrote (``Router.route_many``, as ``gov route`` does). N = 0
is the shipped label-free point. Each set's index is built once and every prompt embedded
once (both cached in ``--work``); a draw embeds nothing again.

Usage::

    nice -n 15 python benchmarks/few_labels.py --eval-dir ../shared/eval --work /tmp/few
    nice -n 15 python benchmarks/few_labels.py --sets clinc150 --sizes 0,25 --draws 2

Every figure is a development-set figure: report it with the set's name.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from quality import DEFAULT_EVAL_DIR, HELD_OUT_KINDS, gov_command, split

SETS = ("clinc150", "banking77_oos", "metatool")
SIZES = (0, 10, 25, 50, 100, 200)
MAX_FA = {"clinc150": 0.05, "banking77_oos": 0.05, "metatool": 0.15}
# The kinds whose routes count as false alarms (BANKING77-OOS: the general out-of-scope).
FA_KINDS = {"clinc150": {"oos"}, "banking77_oos": {"ood_oos"}, "metatool": {"no_tool"}}


class CachedEncoder:
    """The real encoder behind a cache of every prompt's vector (by text)."""

    def __init__(self, real: Any, cache: dict[str, np.ndarray]) -> None:
        self.real, self.cache = real, cache

    def embed(self, prompts: list[str]) -> np.ndarray:
        missing = sorted({p for p in prompts if p not in self.cache})
        if missing:
            for prompt, vector in zip(missing, self.real.embed(missing), strict=True):
                self.cache[prompt] = np.asarray(vector, dtype=np.float32)
        return np.stack([self.cache[p] for p in prompts]).astype(np.float32)


def load_rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def vector_cache(work: Path, name: str, router: Any, prompts: list[str]) -> dict[str, np.ndarray]:
    """Every prompt's vector, embedded once and kept in ``work``."""
    path = work / f"{name}.vectors.npz"
    if path.is_file():
        with np.load(path) as stored:
            texts = json.loads((work / f"{name}.vectors.json").read_text())
            return dict(zip(texts, stored["vectors"], strict=True))
    started = time.perf_counter()
    vectors = router.scorer.encoder().embed(prompts)
    np.savez(path, vectors=np.asarray(vectors, dtype=np.float32))
    (work / f"{name}.vectors.json").write_text(json.dumps(prompts))
    print(f"{name}: embedded {len(prompts)} prompts in {time.perf_counter() - started:.0f}s",
          file=sys.stderr)
    return dict(zip(prompts, np.asarray(vectors, dtype=np.float32), strict=True))


def draw_random(pool: list[dict[str, Any]], n: int, rng: random.Random) -> list[dict[str, Any]]:
    """N pool rows at random, a third of them ungoverned where the pool has such rows."""
    negatives = [r for r in pool if not r["expected"]]
    positives = [r for r in pool if r["expected"]]
    want = min(len(negatives), round(n / 3)) if negatives else 0
    return rng.sample(negatives, want) + rng.sample(positives, n - want)


def draw_chosen(router: Any, pool: list[dict[str, Any]], n: int, rng: random.Random
                ) -> list[dict[str, Any]]:
    """The N prompts ``gov label`` picks from a random half of the pool, with their labels."""
    from gov.core.calibration.choose import choose, standing

    offered = rng.sample(pool, len(pool) // 2)
    candidates = standing(router, [r["prompt"] for r in offered])
    return [offered[i] for i in choose(candidates, n)]


def measure(router: Any, test: list[dict[str, Any]], fa_kinds: set[str]) -> dict[str, float]:
    """Top-1 on the governed test prompts, false alarms on the set's ungoverned kinds."""
    answers = router.route_many([r["prompt"] for r in test], record=False)
    hits = governed = alarms = ungoverned = 0
    near = near_alarms = 0
    for row, answer in zip(test, answers, strict=True):
        names = [route.name for route in answer.routes]
        if row["expected"]:
            governed += 1
            hits += bool(names) and names[0] in row["expected"]
        elif row.get("kind") in fa_kinds:
            ungoverned += 1
            alarms += bool(names)
        else:
            near += 1
            near_alarms += bool(names)
    out = {"top1": hits / governed, "fa": alarms / ungoverned if ungoverned else float("nan")}
    if near:
        out["near_fa"] = near_alarms / near
    return out


def run_set(name: str, options: argparse.Namespace) -> dict[str, Any]:
    from gov.core.calibration.calibrate import calibrate_index
    from gov.core.calibration.labelled import read_labelled
    from gov.core.routing.indexes import load_index
    from gov.core.routing.point import load_operating_point

    base = options.eval_dir / name
    rows = load_rows(base / "labelled_meta.jsonl")
    calibration_rows, test_rows = split(rows)
    held_out = HELD_OUT_KINDS.get(name, set())
    pool = [rows[i] for i in calibration_rows if rows[i].get("kind") not in held_out]
    test = [rows[i] for i in test_rows]
    work = options.work
    index = work / f"{name}.index"
    if not index.is_file():
        subprocess.run([*gov_command(), "index", str(base / "policies"), "-o", str(index), "-q"],
                       check=True)
    router = load_index(index)
    cache = vector_cache(work, name, router, [r["prompt"] for r in rows])
    encoder = CachedEncoder(router.scorer.encoder(), cache)

    def opened(point: Path | None = None) -> Any:
        loaded = load_index(index, operating_point=None if point is None
                            else load_operating_point(point))
        loaded.scorer.use_encoder(encoder)
        return loaded

    label_free = opened()
    max_fa = MAX_FA[name]
    result: dict[str, Any] = {"set": name, "max_fa": max_fa, "pool": len(pool),
                              "test": len(test), "curve": {}}
    default = measure(label_free, test, FA_KINDS[name])
    print(f"{name}: N=0 top-1 {default['top1']:.3f} FA {default['fa']:.3f}", file=sys.stderr)
    result["curve"]["0"] = {"random": [default]}
    for n in options.sizes:
        if n == 0:
            continue
        per_method: dict[str, list[dict[str, Any]]] = {}
        for method in options.methods:
            draws = []
            for seed in range(options.draws):
                rng = random.Random(f"{name}:{n}:{method}:{seed}")
                labels = (draw_random(pool, n, rng) if method == "random"
                          else draw_chosen(label_free, pool, n, rng))
                labelled = read_labelled([(f"draw {seed} row {i}", r)
                                          for i, r in enumerate(labels)])
                folder = work / "points" / name / f"{method}-{n}-{seed}"
                folder.mkdir(parents=True, exist_ok=True)
                started = time.perf_counter()
                run = calibrate_index(opened(), labelled, out=folder / "point.json",
                                      max_fa=max_fa, corpus_id=f"{name} dev (draw)")
                seconds = time.perf_counter() - started
                figures = measure(opened(folder / "point.json"), test, FA_KINDS[name])
                figures |= {"negatives": labelled.negatives, "seconds": round(seconds, 2),
                            "summary": run.summary}
                draws.append(figures)
                print(f"{name}: N={n} {method} #{seed}: top-1 {figures['top1']:.3f} "
                      f"FA {figures['fa']:.3f} ({run.summary or 'full grid'})", file=sys.stderr)
            per_method[method] = draws
        result["curve"][str(n)] = per_method
    return result


def spread(values: list[float]) -> str:
    mean = statistics.fmean(values)
    if len(values) < 2:
        return f"{mean:.3f}"
    return f"{mean:.3f} ± {statistics.stdev(values):.3f}"


def table(results: list[dict[str, Any]], methods: list[str]) -> str:
    lines = ["| set | N | " + " | ".join(f"{m} top-1 | {m} FA" for m in methods) + " |",
             "|---|---:|" + "---:|---:|" * len(methods)]
    for result in results:
        for n, per_method in result["curve"].items():
            cells = []
            for method in methods:
                draws = per_method.get(method) or per_method.get("random") or []
                if not draws:
                    cells += ["-", "-"]
                    continue
                cells += [spread([d["top1"] for d in draws]), spread([d["fa"] for d in draws])]
            lines.append(f"| {result['set']} dev | {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval-dir", type=Path, default=DEFAULT_EVAL_DIR)
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--sizes", default=",".join(str(n) for n in SIZES))
    parser.add_argument("--draws", type=int, default=5)
    parser.add_argument("--methods", default="random,chosen")
    parser.add_argument("--work", type=Path, default=Path("/tmp/gov-few-labels"),
                        help="indexes, embedded prompts and points are kept here between runs")
    parser.add_argument("--json", type=Path, default=None, help="also write every draw here")
    options = parser.parse_args()
    options.sizes = [int(n) for n in options.sizes.split(",")]
    options.methods = options.methods.split(",")
    options.work.mkdir(parents=True, exist_ok=True)
    results = [run_set(name, options) for name in options.sets.split(",")]
    print(table(results, options.methods))
    if options.json:
        options.json.write_text(json.dumps(results, indent=1) + "\n")
    digest = hashlib.sha256(json.dumps(results, sort_keys=True, default=str).encode()).hexdigest()
    print(f"results digest {digest[:12]}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
