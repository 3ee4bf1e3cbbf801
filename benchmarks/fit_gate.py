#!/usr/bin/env python3
"""The shipped gate, refitted over every corpus: confidence weights, bank share and floor.

The background gate routes a prompt when its best score clears the bank's share
(``background_alpha``, grown past 200 documents by ``background_alpha_growth``), it does not
read as a remark (``remark_veto``, the index's remark probe) and its route's confidence
clears the floor (``min_confidence``); the confidence is a logistic over four features
(``select.background_features``): the bank rarity, the fused margin, the head's probability
for the first route's family and the head's mass on any document. Here the weights are
fitted on the routed prompts of every corpus ``benchmarks/zeroshot.py`` measures plus the
development halves of the real libraries (``benchmarks/real_libraries.py``; their held-out
halves are never read), each corpus weighing the same, at each share, growth and veto of the
grid; those and the floor are then chosen by ``zeroshot.objective`` (mean over corpora)
among those that keep ``examples/``' golden file passing, and, with ``--loco``, with each
corpus held out in turn::

    nice -n 10 python benchmarks/fit_gate.py --eval-dir ../shared/eval --lib-dir ../lib [--loco]

It prints the chosen point's parameters and each corpus's figures; the shipped values are
in ``core/data/operating_point.json``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np
from real_libraries import SETS, load
from zeroshot import Labelled, build, corpora, label, objective, work_folder
from zeroshot_confidence import fit
from zeroshot_confidence_floor import Rows, golden_passes, rows
from zeroshot_loco import Measured, golden_prompts

ALPHAS = [0.05, 0.1, 0.15, 0.2]
GROWTHS = [0.0, 0.5, 0.75, 1.0]
VETOES = [0.0, 0.8, 0.85, 0.9]  # 0: no remark veto
FLOORS = [round(f, 2) for f in np.arange(0.30, 0.81, 0.02)]
Key = tuple[float, float, float]  # a bank share, its growth and the remark veto


def real_corpus(lib_dir: Path, name: str, work: Path) -> tuple[Labelled, Path]:
    library = load(lib_dir, name, "dev", work)
    kinds = ["governed" if g else "ungoverned" for g in library.governed]
    return Labelled(f"{name} dev", lib_dir / SETS[name][0], library.prompts,
                    library.labelled_names(), kinds), library.index


def grid_rows(m: Measured, point: Any) -> dict[Key, Rows]:
    """One corpus's rows at every share, growth and veto of the grid."""
    from dataclasses import replace

    from gov.core.routing.background import Background
    from gov.core.routing.remarks import vetoes

    probe = Background.load(m.stored)
    remarks = None if probe is None else probe.remarks(m.vectors)
    out: dict[Key, Rows] = {}
    for growth in GROWTHS:
        grown = rows(m, point.with_params(background_alpha_growth=growth),
                     [(alpha, point.orphan_quantile) for alpha in ALPHAS])
        for (alpha, _), row in grown.items():
            for veto in VETOES:
                routed = row.routed if remarks is None else row.routed & ~vetoes(remarks, veto)
                out[(alpha, growth, veto)] = replace(row, routed=routed)
    return out


def table(measured: dict[str, Measured], point: Any) -> dict[str, dict[Key, Rows]]:
    return {name: grid_rows(m, point) for name, m in measured.items()}


REAL = tuple(f"{name} dev" for name in SETS)


def choose(tab: dict[str, dict[Key, Rows]], train: list[str],
           golden: dict[Key, Rows] | None, real_weight: float = 1.0
           ) -> tuple[Key, list[float], float, float]:
    """The share, growth, veto, weights and floor with the best weighted mean objective over
    ``train`` (a real library's weighing ``real_weight``, every other corpus 1)."""
    best: tuple[Key, list[float], float, float] = (
        next(iter(tab[train[0]])), [], 0.0, -np.inf)
    weigh = np.array([real_weight if n in REAL else 1.0 for n in train])
    for shares in tab[train[0]]:
        weights = fit([tab[n][shares].part() for n in train])
        for floor in FLOORS:
            if golden is not None and not golden_passes(golden[shares], weights, floor):
                continue
            terms = np.array([objective(tab[n][shares].at(weights, floor), n) for n in train])
            mean = float((terms * weigh).sum() / weigh.sum())
            if mean > best[3] + 1e-12:
                best = (shares, weights, floor, mean)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval-dir", type=Path, required=True)
    parser.add_argument("--lib-dir", type=Path, required=True)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--loco", action="store_true", help="each corpus held out in turn")
    parser.add_argument("--real-weight", type=float, default=1.0,
                        help="how much each real library's development half weighs in the mean")
    args = parser.parse_args()
    from gov.core.routing.point import default_operating_point

    point = default_operating_point()
    work = work_folder(args.work, "gov-fit-gate")
    measured: dict[str, Measured] = {}
    for corpus in corpora(args.eval_dir):
        measured[label(corpus.name)] = Measured(corpus, build(corpus, work))
    for name in SETS:
        if (args.lib_dir / SETS[name][0]).is_dir():
            corpus, index = real_corpus(args.lib_dir.resolve(), name, work)
            measured[corpus.name] = Measured(corpus, index)
    golden_corpus = golden_prompts()
    golden = grid_rows(Measured(golden_corpus, build(golden_corpus, work)), point)
    tab = table(measured, point)
    names = list(tab)
    shares, weights, floor, mean = choose(tab, names, golden, args.real_weight)
    if not weights:
        print("no share and floor keeps examples/' golden file passing", file=sys.stderr)
        return 1
    print(f"chosen over all {len(names)}: background_alpha {shares[0]}, "
          f"background_alpha_growth {shares[1]}, remark_veto {shares[2]}, min_confidence {floor}, "
          f"confidence_weights {[round(w, 4) for w in weights]}, mean objective {mean:.3f}")
    shipped = (point.background_alpha, point.background_alpha_growth, point.remark_veto)
    print(f"{'corpus':22} {'shipped':>16} {'chosen':>16}" + ("  held out" if args.loco else ""))
    for name in names:
        before = tab[name][shipped].at(list(point.confidence_weights or []),
                                       point.min_confidence or 0.0)
        after = tab[name][shares].at(weights, floor)
        line = (f"{name:22} {before['top1']:.3f} / {before['fa']:.3f}   "
                f"{after['top1']:.3f} / {after['fa']:.3f}")
        if args.loco:
            s, w, f, _ = choose(tab, [n for n in names if n != name], golden, args.real_weight)
            held = tab[name][s].at(w, f)
            line += (f"   {held['top1']:.3f} / {held['fa']:.3f} (alpha {s[0]}, growth {s[1]}, "
                     f"veto {s[2]}, floor {f})")
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
