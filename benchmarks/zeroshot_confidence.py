#!/usr/bin/env python3
"""The default's ``confidence``: refit, and checked with each corpus held out.

Under the background gate a route's confidence is a logistic over three features that mean
the same thing on any corpus (``gov.core.routing.select._background_gate``): how rare the
prompt's gate score is among the bank's (``Background.rarity``), the fused margin between the
first and second document, and the head's probability for the first. Its label is "the
first route is one the prompt expects"; its rows are the prompts the shipped default routes
(governed or not) on every corpus ``benchmarks/zeroshot.py`` measures, each corpus weighing
the same. For each corpus X the model is fitted on the others and X's routes are scored
with it: how often a route with confidence >= 0.8 was right, and the mean confidence of
right and wrong routes. The weights fitted on every corpus are printed for
``core/data/operating_point.json``. ``--point FILE`` measures another point instead (its
"right" column is the share of its first routes that are right)::

    nice -n 10 python benchmarks/zeroshot_confidence.py --eval-dir ../shared/eval [--extra-corpus DIR]
    git show d3dfdf3:core/data/operating_point.json > previous.json
    python benchmarks/zeroshot_confidence.py --eval-dir ../shared/eval --point previous.json

Figures go to ``benchmarks/results/zeroshot_confidence.json``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from zeroshot import DEFAULT_EVAL_DIR, REPO, build, corpora, label
from zeroshot_loco import Measured

DEFAULT_OUT = REPO / "benchmarks" / "results" / "zeroshot_confidence.json"
SURE = 0.8


@dataclass
class Scored:
    """One corpus's prompts under a point: what the gate and the ranking see of each."""

    semantic: NDArray[np.float64]
    background: Any
    gate: NDArray[np.float64]  # the best gate score
    ranked: Any  # select.rank_many's ranking
    features: NDArray[np.float64]  # the confidence features
    right: NDArray[np.bool_]  # a first document, and one the prompt expects


def score_prompts(measured: Measured, point: Any,
           lexical: NDArray[np.float64] | None = None) -> Scored:
    """Score ``measured``'s prompts under ``point``; ``lexical`` replaces the prompts'
    lexical scores in the ranking alone (the gate keeps its own)."""
    from gov.core.routing.select import background_features, rank_many

    semantic, background, gate = measured.gated(point)
    families = measured.stored.families()  # as a route ranks: one route per family
    ranked = rank_many(measured.lexical if lexical is None else lexical, semantic, point,
                       measured.head, families)
    rows = np.arange(gate.size)
    first = np.maximum(ranked.top1, 0)
    features = background_features(background, gate, ranked.fused1, ranked.fused2,
                                   measured.head, ranked.top1, families)
    right = measured.gold[rows, first] & (ranked.top1 >= 0)
    return Scored(semantic, background, gate, ranked, features, right)


def routed_features(measured: Measured, point: Any
                    ) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """The features and rightness of each prompt the point routes."""
    s = score_prompts(measured, point)
    routed = (s.gate >= s.background.threshold(point)[0]) & (s.ranked.top1 >= 0)
    return s.features[routed], np.asarray(s.right[routed], dtype=bool)


def fit(parts: list[tuple[NDArray[np.float64], NDArray[np.bool_]]]) -> list[float]:
    """Intercept and weights of a logistic fitted on the parts, each part weighing the same."""
    from sklearn.linear_model import LogisticRegression

    x = np.vstack([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    weight = np.concatenate([np.full(p[1].size, 1.0 / max(p[1].size, 1)) for p in parts])
    model = LogisticRegression(C=10.0, max_iter=1000)
    model.fit(x, y, sample_weight=weight * len(parts))
    return [float(model.intercept_[0]), *(float(w) for w in model.coef_[0])]


def scored(weights: list[float], features: NDArray[np.float64],
           right: NDArray[np.bool_]) -> dict[str, Any]:
    from gov.core.routing.confidence import logistic_many

    confidence = logistic_many(weights, features)
    sure = confidence >= SURE
    return {
        "routes": int(right.size),
        "right": round(float(right.mean()), 4) if right.size else None,
        "sure_share": round(float(sure.mean()), 4) if right.size else None,
        "right_when_sure": round(float(right[sure].mean()), 4) if sure.any() else None,
        "mean_confidence_right": round(float(confidence[right].mean()), 4) if right.any() else None,
        "mean_confidence_wrong": (round(float(confidence[~right].mean()), 4)
                                  if (~right).any() else None),
    }


def main() -> int:
    from gov.core.routing.point import default_operating_point

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval-dir", type=Path, default=DEFAULT_EVAL_DIR)
    parser.add_argument("--extra-corpus", type=Path, action="append", default=[])
    parser.add_argument("--work", type=Path, default=None, help="keep the indexes here")
    parser.add_argument("--point", type=Path, default=None,
                        help="measure this operating point file instead of the shipped default "
                             "(its figures are printed, not written)")
    parser.add_argument("--out", type=Path, default=None)
    options = parser.parse_args()
    point = default_operating_point()
    if options.point is not None:
        from gov.core.routing.point import load_operating_point

        point = load_operating_point(options.point)
    work = options.work or Path(tempfile.mkdtemp(prefix="gov-confidence-"))
    work.mkdir(parents=True, exist_ok=True)
    parts: dict[str, tuple[NDArray[np.float64], NDArray[np.bool_]]] = {}
    for corpus in corpora(options.eval_dir, options.extra_corpus):
        index = work / f"{corpus.name}.index"
        if not index.is_file():
            build(corpus, work)
        parts[corpus.name] = routed_features(Measured(corpus, index), point)
    folds = {}
    print(f"| held out | routes | right | confidence >= {SURE} (share) | right when >= {SURE} "
          f"| mean confidence right / wrong | right when >= {SURE} (share >= {SURE}), the "
          "point's own weights |\n"
          "|---|---:|---:|---:|---:|---:|---:|")
    shipped = list(point.confidence_weights or [])
    for held in parts:
        weights = fit([parts[n] for n in parts if n != held])
        m = folds[held] = scored(weights, *parts[held])
        m["shipped_weights"] = scored(shipped, *parts[held]) if shipped else None
        print(f"| {label(held)} | {m['routes']} | {m['right']} | {m['sure_share']} | "
              f"{m['right_when_sure']} | {m['mean_confidence_right']} / "
              f"{m['mean_confidence_wrong']} | "
              + (f"{m['shipped_weights']['right_when_sure']} "
                 f"({m['shipped_weights']['sure_share']})" if m["shipped_weights"] else "-")
              + " |")
    weights = [round(w, 4) for w in fit(list(parts.values()))]
    print(f"\nfitted on every corpus: confidence_weights {weights} "
          f"(shipped: {shipped})")
    out = options.out or (None if options.point else DEFAULT_OUT)
    if out is None:
        return 0
    out.write_text(json.dumps({
        "command": "python benchmarks/zeroshot_confidence.py --eval-dir ../shared/eval"
                   + "".join(f" --extra-corpus {p.name}" for p in options.extra_corpus),
        "date": time.strftime("%Y-%m-%d"), "point": point.id, "features":
        ["rarity among the bank", "fused margin", "head probability of the first"],
        "shipped_weights": shipped, "held_out": folds, "fitted_on_all": weights}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
