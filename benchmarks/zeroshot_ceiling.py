#!/usr/bin/env python3
"""How far any abstention rule on gov's signals could go: ceilings set with each corpus's
own labels, which no label-free default can beat.

A default chosen to transfer picks its cut without the corpus's labels. Here the labels
pick it, on the same prompts they score (in-sample, so every figure is generous), under the
shipped default's index and ranking. For each corpus, top-1 at its false-alarm target:

- nearest: no abstention at all (every prompt routes its first document);
- score cut: the best single threshold on the gate score;
- confidence cut: the best single floor on ``confidence`` (the shipped weights);
- both: a threshold and a floor chosen together;
- fitted: a logistic over seven signals (the three confidence features, the gate score less
  the corpus's threshold, the fused score, the best lexical and the best semantic score)
  fitted on the corpus's own labels, cut at its best;
- + body words: the same with three signals gov does not use, from TF-IDF over each
  document's body passages (the first document's score, the best score, and whether the two
  documents agree): whether words of the bodies would move the ceiling.

A target the "fitted" column misses is out of reach of any rule over these signals with this
ranking: only better evidence (a stronger model, new signals) moves it. Then, over the grid
(``zeroshot_loco.BUILD_GRID`` x the head's weight x ``ALPHAS`` x ``QUANTILES`` x ``FLOORS``,
the confidence weights refitted on every corpus for each set of build constants), the most
targets any one point meets with every corpus's labels in hand: what a single default of
this design could meet at best (``--no-grid`` skips it; it takes a few minutes)::

    nice -n 10 python benchmarks/zeroshot_ceiling.py --eval-dir ../shared/eval

Figures go to ``benchmarks/results/zeroshot_ceiling.json``.
"""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from zeroshot import (
    REPO,
    build,
    corpora,
    corpus_options,
    fa_target,
    label,
    met,
    oiax_top1,
    top1_target,
    work_folder,
)
from zeroshot_body_words import BodyWords
from zeroshot_confidence import fit, score_prompts
from zeroshot_confidence_floor import golden_passes, rows
from zeroshot_loco import BUILD_GRID, Measured, golden_prompts

DEFAULT_OUT = REPO / "benchmarks" / "results" / "zeroshot_ceiling.json"
ALPHAS = [0.02, 0.03, 0.05, 0.075, 0.1, 0.15]
QUANTILES = [0.0, 0.4, 0.6, 0.8]
FLOORS = [0.0, 0.4, 0.44, 0.46, 0.48, 0.5, 0.55]
HEAD_WEIGHTS = [0.5, 1.0]
COLUMNS = ("nearest", "shipped", "score cut", "confidence cut", "both", "fitted",
           "+ body words")


def best_cut(score: NDArray[Any], right: NDArray[np.bool_], positive: NDArray[np.bool_],
             negative: NDArray[np.bool_], most: float) -> float:
    """The best top-1 of "route when ``score`` >= t" over every t, at false alarms <= most."""
    order = np.argsort(-score, kind="stable")
    ranked = score[order]
    hits = np.cumsum((right & positive)[order]) / max(int(positive.sum()), 1)
    alarms = np.cumsum(negative[order]) / max(int(negative.sum()), 1)
    # A cut routes every prompt scoring at least t: only the last of a run of ties counts.
    last = np.append(ranked[1:] != ranked[:-1], True)
    ok = last & (alarms <= most + 1e-12)
    return float(hits[ok].max()) if ok.any() else 0.0


def fitted_cut(signals: NDArray[np.float64], right: NDArray[np.bool_],
               positive: NDArray[np.bool_], negative: NDArray[np.bool_], most: float) -> float:
    """A logistic over ``signals`` fitted on the corpus's own labels, cut at its best."""
    from sklearn.linear_model import LogisticRegression

    wanted = right & positive
    if wanted.all() or not wanted.any():
        return float(wanted[positive].mean()) if positive.any() else 0.0
    scaled = (signals - signals.mean(axis=0)) / (signals.std(axis=0) + 1e-9)
    model = LogisticRegression(C=10.0, max_iter=5000).fit(scaled, wanted)
    return best_cut(model.decision_function(scaled), right, positive, negative, most)


def ceilings(measured: Measured, point: Any) -> dict[str, float]:
    """One corpus's columns under ``point``."""
    from gov.core.routing.confidence import logistic_many

    s = score_prompts(measured, point)
    gate, ranked, features, right = s.gate, s.ranked, s.features, s.right
    confidence = logistic_many(point.confidence_weights, features)
    positive, negative = measured.positive, measured.negative
    most = fa_target(measured.corpus.name)
    threshold = s.background.threshold(point)[0]
    shipped = (gate >= threshold) & (confidence >= point.min_confidence) & (ranked.top1 >= 0)
    both = max(best_cut(np.where(confidence >= floor, gate, -np.inf), right, positive,
                        negative, most) for floor in np.unique(np.round(confidence, 3)))
    signals = np.column_stack([features, gate - threshold, ranked.fused1,
                               measured.lexical.max(axis=1), s.semantic.max(axis=1)])
    body = BodyWords(measured).many(measured.corpus.prompts)
    index = np.arange(gate.size)
    first = np.maximum(ranked.top1, 0)
    words = np.column_stack([signals, body[index, first], body.max(axis=1),
                             (body.argmax(axis=1) == first) & (body.max(axis=1) > 0)])
    return {"nearest": float(right[positive].mean()),
            "shipped": float((shipped & right)[positive].mean()),
            "score cut": best_cut(gate, right, positive, negative, most),
            "confidence cut": best_cut(confidence, right, positive, negative, most),
            "both": both, "fitted": fitted_cut(signals, right, positive, negative, most),
            "+ body words": fitted_cut(words, right, positive, negative, most)}


def grid(measured: dict[str, Measured], golden: Measured, shipped: Any,
         oiax: dict[str, float]) -> dict[str, Any]:
    """The most targets one grid point meets in-sample, and the points that do."""
    shares = list(itertools.product(ALPHAS, QUANTILES))
    at = (shipped.background_alpha, shipped.orphan_quantile)
    best: list[dict[str, Any]] = []
    most = -1
    for combo in itertools.product(*BUILD_GRID.values(), HEAD_WEIGHTS):
        build_params = dict(zip([*BUILD_GRID, "learned_weight"], combo, strict=True))
        base = shipped.with_params(**build_params)
        table = {name: rows(m, base, [*shares, at] if at not in shares else shares)
                 for name, m in measured.items()}
        gold = rows(golden, base, [*shares, at] if at not in shares else shares)
        weights = fit([table[name][at].part() for name in table])
        for share, floor in itertools.product(shares, FLOORS):
            hits = [name for name in table
                    if met(name, table[name][share].at(weights, floor), oiax[name])]
            if len(hits) < most:
                continue
            entry = {**build_params, "background_alpha": share[0], "orphan_quantile": share[1],
                     "min_confidence": floor, "golden": golden_passes(gold[share], weights, floor),
                     "met": hits}
            if len(hits) > most:
                most, best = len(hits), []
            best.append(entry)
    return {"most_targets_met": most, "points": best}


def main() -> int:
    from gov.core.routing.point import default_operating_point

    parser = corpus_options(__doc__)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--no-grid", action="store_true", help="only the per-corpus ceilings")
    options = parser.parse_args()
    point = default_operating_point()
    work = work_folder(options.work, "gov-ceiling-")
    measured: dict[str, Measured] = {}
    oiax: dict[str, float] = {}
    results: dict[str, Any] = {}
    print("Top-1 at each corpus's false-alarm target, the cut chosen with the corpus's own "
          "labels (in-sample).\n")
    print("| corpus | target | " + " | ".join(COLUMNS) + " |\n|---|---|"
          + "---:|" * len(COLUMNS))
    for corpus in corpora(options.eval_dir, options.extra_corpus):
        index = work / f"{corpus.name}.index"
        if not index.is_file():
            build(corpus, work)
        measured[corpus.name] = m = Measured(corpus, index)
        oiax[corpus.name] = oiax_top1(index, corpus)
        top1 = top1_target(corpus.name, oiax[corpus.name])
        figures = ceilings(m, point)
        target = f"≥ {top1:.3f} at FA ≤ {fa_target(corpus.name):.2f}"
        results[corpus.name] = {"target": target, **{k: round(v, 4) for k, v in figures.items()}}
        print(f"| {label(corpus.name)} | {target} | "
              + " | ".join(f"{figures[c]:.3f}" for c in COLUMNS) + " |", flush=True)
    out: dict[str, Any] = {
        "command": "python benchmarks/zeroshot_ceiling.py --eval-dir ../shared/eval"
                   + "".join(f" --extra-corpus {p.name}" for p in options.extra_corpus),
        "date": time.strftime("%Y-%m-%d"), "point": point.id, "corpora": results}
    if not options.no_grid:
        golden = Measured(golden_prompts(), work / "examples.index")
        out["grid"] = found = grid(measured, golden, point, oiax)
        kept = [p for p in found["points"] if p["golden"]]
        print(f"\nThe most targets one grid point meets, with every corpus's labels: "
              f"{found['most_targets_met']} of {len(measured)} ({len(found['points'])} points, "
              f"{len(kept)} of them keeping examples/' golden routes); for example "
              + "; ".join(", ".join(p["met"]) for p in (kept or found["points"])[:3]))
    path = options.out or DEFAULT_OUT
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"\nwritten: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
