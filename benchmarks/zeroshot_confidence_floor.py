#!/usr/bin/env python3
"""A confidence floor under the background gate, chosen and measured with each corpus held out.

The shipped default routes when a prompt's gate score clears the background threshold; its
``confidence`` (a logistic over the bank rarity, the fused margin and the head's probability,
``benchmarks/zeroshot_confidence.py``) is reported, not gated on. This measures what a floor on
it would do: for each corpus X, the confidence model is fitted on the other corpora (each
weighing the same), the floor is the value of ``FLOORS`` with the best mean LOCO objective
over the other corpora (``zeroshot_loco.objective``: ``top1 - 3 * max(0, FA - target) - 0.5 *
FA``; ties: the lower floor) among the floors under which ``examples/``' routing golden file
still passes (not required in the fold holding ``examples/`` out), and X is measured at that
floor and with none. No label of X is used for X's figures::

    nice -n 10 python benchmarks/zeroshot_confidence_floor.py --eval-dir ../shared/eval

``--joint`` chooses the bank share and the orphan quantile with the floor, from
``JOINT_ALPHAS`` x ``JOINT_QUANTILES`` (the rest of the point as shipped): whether, with a
floor to hold near misses, the thresholds under it would rather be looser. ``--sure``
chooses, with the floor, a confidence from ``SURE`` at which a prompt routes even under the
threshold (or none): whether a first route the model is sure of should pass a gate it
misses ("tailwind" against the one Tailwind skill, far ahead of the rest, but under the
bank's threshold).

Figures go to ``benchmarks/results/zeroshot_confidence_floor.json`` (unless ``--out``;
``--joint`` and ``--sure`` print only).
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from zeroshot import REPO, build, corpora, corpus_options, label, objective, work_folder
from zeroshot_confidence import Scored, fit, score_prompts
from zeroshot_loco import Measured, golden_prompts

DEFAULT_OUT = REPO / "benchmarks" / "results" / "zeroshot_confidence_floor.json"
FLOORS = [0.0, 0.4, 0.42, 0.44, 0.46, 0.48, 0.5, 0.52, 0.55, 0.6]
JOINT_ALPHAS = [0.03, 0.05, 0.075, 0.1, 0.15]
JOINT_QUANTILES = [0.0, 0.4, 0.5, 0.6, 0.7]
SURE = [None, 0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65]
Shares = tuple[float, float]  # a bank share and an orphan quantile


@dataclass
class Rows:
    """One corpus under the shipped default: each prompt's confidence features, whether the
    gate let it route, whether its first route is right, and its labels."""

    features: NDArray[np.float64]
    routed: NDArray[np.bool_]
    right: NDArray[np.bool_]
    positive: NDArray[np.bool_]
    negative: NDArray[np.bool_]
    ranked: NDArray[np.bool_]  # a first document at all (the floors admit one)

    def part(self) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """The routed prompts' features and rightness: what the confidence model fits."""
        return self.features[self.routed], self.right[self.routed]

    def routes(self, weights: list[float], floor: float,
               sure: float | None = None) -> NDArray[np.bool_]:
        """Who routes: the gate passed and the floor cleared, or (``sure``) a confidence
        that high whatever the gate."""
        from gov.core.routing.confidence import logistic_many

        confidence = logistic_many(weights, self.features)
        routes = self.routed & (confidence >= floor)
        if sure is not None:
            routes |= self.ranked & (confidence >= sure)
        return routes

    def at(self, weights: list[float], floor: float,
           sure: float | None = None) -> dict[str, float]:
        routes = self.routes(weights, floor, sure)
        return {"top1": float((routes & self.right)[self.positive].mean()),
                "fa": float(routes[self.negative].mean()) if self.negative.any() else 0.0,
                "right": float(self.right[routes].mean()) if routes.any() else 0.0}


def rows(measured: Measured, point: Any, shares: list[Shares],
         lexical: NDArray[np.float64] | None = None,
         extra: Callable[[Scored], NDArray[np.float64]] | None = None) -> dict[Shares, Rows]:
    """One corpus's rows under each bank share and orphan quantile (the features and
    rightness do not depend on them, only which prompts the gate lets through); ``lexical``
    replaces the prompts' lexical scores in the ranking alone (the gate keeps its own), and
    ``extra`` gives more confidence features (columns) from the scored prompts."""
    s = score_prompts(measured, point, lexical)
    features = s.features if extra is None else np.column_stack([s.features, extra(s)])
    ranked = s.ranked.top1 >= 0
    out = {}
    for alpha, quantile in shares:
        threshold = s.background.threshold(point.with_params(
            background_alpha=alpha, orphan_quantile=quantile))[0]
        out[(alpha, quantile)] = Rows(features, (s.gate >= threshold) & ranked, s.right,
                                      measured.positive, measured.negative, ranked)
    return out


def share_grid(point: Any, joint: bool) -> tuple[Shares, list[Shares]]:
    """The point's own bank share and orphan quantile, and the ones to choose from: those
    alone, or (``joint``) every pair of ``JOINT_ALPHAS`` x ``JOINT_QUANTILES``, its own first."""
    shipped = (point.background_alpha, point.orphan_quantile)
    others = [s for s in itertools.product(JOINT_ALPHAS, JOINT_QUANTILES) if s != shipped]
    return shipped, [shipped, *others] if joint else [shipped]


def golden_passes(golden: Rows, weights: list[float], floor: float,
                  sure: float | None = None) -> bool:
    """Every golden prompt a policy must take is still taken first, none of the others."""
    routes = golden.routes(weights, floor, sure)
    return bool((routes & golden.right)[golden.positive].all()
                and not routes[golden.negative].any())


def choose(table: dict[str, dict[Shares, Rows]], train: list[str], weights: list[float],
           golden: dict[Shares, Rows] | None, sures: list[float | None]
           ) -> tuple[Shares, float, float | None]:
    """The shares, floor and sure confidence with the best mean objective over ``train``
    (ties: the first shares, the lower floor, no sure confidence), among those under which
    the golden file passes."""
    best: tuple[Shares, float, float | None] = (next(iter(table[train[0]])), 0.0, None)
    score = -np.inf
    for shares in table[train[0]]:
        for floor, sure in itertools.product(FLOORS, sures):
            if golden is not None and not golden_passes(golden[shares], weights, floor, sure):
                continue
            mean = float(np.mean([objective(table[n][shares].at(weights, floor, sure), n)
                                  for n in train]))
            if mean > score + 1e-12:
                best, score = (shares, floor, sure), mean
    return best


def fmt(m: dict[str, float]) -> str:
    return f"{m['top1']:.3f} / {m['fa']:.3f}"


def main() -> int:
    from gov.core.routing.point import default_operating_point

    parser = corpus_options(__doc__)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--joint", action="store_true",
                        help="choose the bank share and orphan quantile with the floor")
    parser.add_argument("--sure", action="store_true",
                        help="choose with the floor a confidence that routes under the threshold")
    options = parser.parse_args()
    point = default_operating_point()
    shipped, shares = share_grid(point, options.joint)
    sures: list[float | None] = SURE if options.sure else [None]
    work = work_folder(options.work, "gov-floor-")
    table: dict[str, dict[Shares, Rows]] = {}
    golden = None
    for corpus in corpora(options.eval_dir, options.extra_corpus):
        index = work / f"{corpus.name}.index"
        if not index.is_file():
            build(corpus, work)
        table[corpus.name] = rows(Measured(corpus, index), point, shares)
        if corpus.name == "examples":
            golden = rows(Measured(golden_prompts(), index), point, shares)
    print("Each cell: top-1 / false alarms. The floor is chosen on the other corpora; "
          "objective = top1 - 3 * max(0, FA - target) - 0.5 * FA; first routes right: the "
          "share of routed prompts (governed or not) whose first route is expected.\n")
    print("| held out | floor chosen | no floor | with the floor | objective: no floor → floor "
          "| first routes right: no floor → floor |\n|---|---:|---|---|---|---|")
    folds: dict[str, Any] = {}
    for held in table:
        train = [n for n in table if n != held]
        weights = fit([table[n][shipped].part() for n in train])
        chosen, floor, sure = choose(table, train, weights,
                                     None if held == "examples" else golden, sures)
        plain = table[held][shipped].at(weights, 0.0)
        floored = table[held][chosen].at(weights, floor, sure)
        folds[held] = {"floor": floor, "shares": chosen, "weights": [round(w, 4) for w in weights],
                       "no_floor": plain, "floor_figures": floored,
                       "objective": [round(objective(plain, held), 4),
                                     round(objective(floored, held), 4)]}
        named = (f"{floor:g}" + (f" (α {chosen[0]:g}, q {chosen[1]:g})" if options.joint else "")
                 + (f", sure {sure:g}" if sure is not None else ""))
        print(f"| {label(held)} | {named} | {fmt(plain)} | {fmt(floored)} | "
              f"{objective(plain, held):.3f} → {objective(floored, held):.3f} | "
              f"{plain['right']:.3f} → {floored['right']:.3f} |")
    means = np.mean([f["objective"] for f in folds.values()], axis=0)
    weights = fit([r[shipped].part() for r in table.values()])
    overall, floor, sure = choose(table, list(table), weights, golden, sures)
    print(f"\nmean held-out objective: no floor {means[0]:.3f}, floor {means[1]:.3f}; "
          f"chosen on every corpus: floor {floor:g}"
          + (f", α {overall[0]:g}, q {overall[1]:g}" if options.joint else "")
          + (f", sure {sure:g}" if sure is not None else "")
          + f" with weights {[round(w, 4) for w in weights]}")
    if options.joint or options.sure:
        return 0
    out = options.out or DEFAULT_OUT
    out.write_text(json.dumps({
        "command": "python benchmarks/zeroshot_confidence_floor.py --eval-dir ../shared/eval"
                   + "".join(f" --extra-corpus {p.name}" for p in options.extra_corpus),
        "date": time.strftime("%Y-%m-%d"), "point": point.id, "floors": FLOORS,
        "held_out": folds, "mean_objective": [round(float(m), 4) for m in means],
        "chosen_on_all": floor}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
