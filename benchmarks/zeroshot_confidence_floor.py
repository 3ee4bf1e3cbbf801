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

Figures go to ``benchmarks/results/zeroshot_confidence_floor.json`` (unless ``--out``).
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
from zeroshot_confidence import fit
from zeroshot_loco import Measured, golden_prompts, objective

DEFAULT_OUT = REPO / "benchmarks" / "results" / "zeroshot_confidence_floor.json"
FLOORS = [0.0, 0.4, 0.42, 0.44, 0.46, 0.48, 0.5, 0.52, 0.55, 0.6]


@dataclass
class Rows:
    """One corpus under the shipped default: each prompt's confidence features, whether the
    gate let it route, whether its first route is right, and its labels."""

    features: NDArray[np.float64]
    routed: NDArray[np.bool_]
    right: NDArray[np.bool_]
    positive: NDArray[np.bool_]
    negative: NDArray[np.bool_]

    def part(self) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """The routed prompts' features and rightness: what the confidence model fits."""
        return self.features[self.routed], self.right[self.routed]

    def at(self, weights: list[float], floor: float) -> dict[str, float]:
        from gov.core.routing.confidence import logistic_many

        routes = self.routed & (logistic_many(weights, self.features) >= floor)
        return {"top1": float((routes & self.right)[self.positive].mean()),
                "fa": float(routes[self.negative].mean()) if self.negative.any() else 0.0,
                "right": float(self.right[routes].mean()) if routes.any() else 0.0}


def rows(measured: Measured, point: Any) -> Rows:
    from gov.core.routing.select import rank_many

    semantic, background, gate = measured.gated(point)
    ranked = rank_many(measured.lexical, semantic, point, measured.head)
    index = np.arange(gate.size)
    first = np.maximum(ranked.top1, 0)
    head = measured.head[index, first] if measured.head is not None else np.zeros(gate.size)
    features = np.stack([np.array([background.rarity(float(t)) for t in gate]),
                         ranked.fused1 - ranked.fused2, head], axis=1)
    routed = (gate >= background.threshold(point)[0]) & (ranked.top1 >= 0)
    return Rows(features, routed, measured.gold[index, first] & (ranked.top1 >= 0),
                measured.positive, measured.negative)


def golden_passes(golden: Rows, weights: list[float], floor: float) -> bool:
    """Every golden prompt a policy must take is still taken first, none of the others."""
    from gov.core.routing.confidence import logistic_many

    routes = golden.routed & (logistic_many(weights, golden.features) >= floor)
    return bool((routes & golden.right)[golden.positive].all()
                and not routes[golden.negative].any())


def choose(table: dict[str, Rows], train: list[str], weights: list[float],
           golden: Rows | None) -> float:
    best, score = 0.0, -np.inf
    for floor in FLOORS:
        if golden is not None and not golden_passes(golden, weights, floor):
            continue
        mean = float(np.mean([objective(table[n].at(weights, floor), n) for n in train]))
        if mean > score + 1e-12:
            best, score = floor, mean
    return best


def fmt(m: dict[str, float]) -> str:
    return f"{m['top1']:.3f} / {m['fa']:.3f}"


def main() -> int:
    from gov.core.routing.point import default_operating_point

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval-dir", type=Path, default=DEFAULT_EVAL_DIR)
    parser.add_argument("--extra-corpus", type=Path, action="append", default=[])
    parser.add_argument("--work", type=Path, default=None, help="keep the indexes here")
    parser.add_argument("--out", type=Path, default=None)
    options = parser.parse_args()
    point = default_operating_point()
    work = options.work or Path(tempfile.mkdtemp(prefix="gov-floor-"))
    work.mkdir(parents=True, exist_ok=True)
    table: dict[str, Rows] = {}
    golden = None
    for corpus in corpora(options.eval_dir, options.extra_corpus):
        index = work / f"{corpus.name}.index"
        if not index.is_file():
            build(corpus, work)
        table[corpus.name] = rows(Measured(corpus, index), point)
        if corpus.name == "examples":
            golden = rows(Measured(golden_prompts(), index), point)
    print("Each cell: top-1 / false alarms. The floor is chosen on the other corpora; "
          "objective = top1 - 3 * max(0, FA - target) - 0.5 * FA; first routes right: the "
          "share of routed prompts (governed or not) whose first route is expected.\n")
    print("| held out | floor chosen | no floor | with the floor | objective: no floor → floor "
          "| first routes right: no floor → floor |\n|---|---:|---|---|---|---|")
    folds: dict[str, Any] = {}
    for held in table:
        train = [n for n in table if n != held]
        weights = fit([table[n].part() for n in train])
        floor = choose(table, train, weights, None if held == "examples" else golden)
        plain, floored = table[held].at(weights, 0.0), table[held].at(weights, floor)
        folds[held] = {"floor": floor, "weights": [round(w, 4) for w in weights],
                       "no_floor": plain, "floor_figures": floored,
                       "objective": [round(objective(plain, held), 4),
                                     round(objective(floored, held), 4)]}
        print(f"| {label(held)} | {floor:g} | {fmt(plain)} | {fmt(floored)} | "
              f"{objective(plain, held):.3f} → {objective(floored, held):.3f} | "
              f"{plain['right']:.3f} → {floored['right']:.3f} |")
    means = np.mean([f["objective"] for f in folds.values()], axis=0)
    weights = fit([r.part() for r in table.values()])
    overall = choose(table, list(table), weights, golden)
    print(f"\nmean held-out objective: no floor {means[0]:.3f}, floor {means[1]:.3f}; "
          f"chosen on every corpus: floor {overall:g} with weights "
          f"{[round(w, 4) for w in weights]}")
    out = options.out or DEFAULT_OUT
    out.write_text(json.dumps({
        "command": "python benchmarks/zeroshot_confidence_floor.py --eval-dir ../shared/eval"
                   + "".join(f" --extra-corpus {p.name}" for p in options.extra_corpus),
        "date": time.strftime("%Y-%m-%d"), "point": point.id, "floors": FLOORS,
        "held_out": folds, "mean_objective": [round(float(m), 4) for m in means],
        "chosen_on_all": overall}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
