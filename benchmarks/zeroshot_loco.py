#!/usr/bin/env python3
"""Leave-one-corpus-out (LOCO): the evidence behind the shipped default's constants.

For each corpus X, the constants are chosen on the *other* corpora, with no label of X,
and X's figures are measured at that choice over all of X's prompts: what a team whose
corpus gov has never seen can expect. The choice maximises, over the other corpora, the
mean of ``top1 - 3 * max(0, FA - target) - 0.5 * FA`` (FA target 0.05 on banking77_oos
dev, 0.25 on metatool dev, 0.10 elsewhere) over this grid (``docs/quality.md``)::

    semantic_pool   mean, max_mean          lexical_weight   0.25, 0.5
    body_surfaces   0, 0.5, 1               background_alpha 0.02 ... 0.15
    learned_weight  0.5, 1 (the head)       hub_weight       0, 0.25, 0.5
    background_alpha_growth  0, 0.25, 0.5, 0.75, 1 (the bank's share grown with size)
    orphan_quantile          0, 0.4 ... 0.8 (the example lines against other documents)

The issue behind the default requires ``examples/``' routing golden file
(``tests/routing/golden/examples.json``) to pass, so only grid points under which it
passes are chosen from, except in the fold that holds ``examples/`` out (the golden
prompts are its labels); ``--no-golden`` chooses from every point, ``--vary NAMES`` only
from points that change those parameters of the shipped default.

Screening (cosine 0.65), the example floor (beta 0.05), eight body passages and the
head's C = 10 stay fixed, as in the research behind the default. Each corpus's index is
built once with the shipped default (as ``benchmarks/zeroshot.py`` builds it); for each
grid point the background statistics are measured with the functions
``gov.core.routing.background.fit_background`` uses, and selection is ``select``'s rule
over a matrix (gate score under the threshold: abstain; else rank by fused score and
head, second route at head probability >= 0.20), so the point chosen over every corpus
reproduces the shipped default's figures in ``benchmarks/zeroshot.py`` without its
confidence floor (``min_confidence``, chosen after the rest by
``benchmarks/zeroshot_confidence_floor.py``; ``docs/quality.md``, "Every corpus held
out")::

    nice -n 10 python benchmarks/zeroshot_loco.py --eval-dir ../shared/eval [--extra-corpus DIR]

Figures go to ``benchmarks/results/zeroshot_loco.json``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from zeroshot import (
    DEFAULT_EVAL_DIR,
    OIAX,
    OTHER_FA,
    REPO,
    TARGETS,
    CachedEncoder,
    Labelled,
    build,
    corpora,
    fa_target,
    label,
    objective,
    oiax_triggers,
)

BUILD_GRID = {"semantic_pool": ["mean", "max_mean"], "lexical_weight": [0.25, 0.5],
              "body_surfaces": [0.0, 0.5, 1.0], "hub_weight": [0.0, 0.25, 0.5]}
ROUTE_GRID = {"background_alpha": [0.02, 0.03, 0.04, 0.05, 0.075, 0.1, 0.125, 0.15],
              "background_alpha_growth": [0.0, 0.25, 0.5, 0.75, 1.0],
              "orphan_quantile": [0.0, 0.4, 0.5, 0.6, 0.7, 0.8],
              "learned_weight": [0.5, 1.0]}
# The route grid's loop order (after the build grid's): one order for the loop and the table.
ROUTE_ORDER = ("learned_weight", "background_alpha_growth", "orphan_quantile", "background_alpha")
# The default before the growing share (commit d3dfdf3), as a grid point, for comparison.
PREVIOUS = {"semantic_pool": "mean", "lexical_weight": 0.5, "body_surfaces": 1.0,
            "hub_weight": 0.25, "learned_weight": 0.5, "background_alpha_growth": 0.0,
            "orphan_quantile": 0.0, "background_alpha": 0.05}
# The nine-corpus choice shipped before the orphan floor (commit 2281bb4).
NINE_CORPUS = {"semantic_pool": "mean", "lexical_weight": 0.25, "body_surfaces": 1.0,
               "hub_weight": 0.0, "learned_weight": 1.0, "background_alpha_growth": 0.5,
               "orphan_quantile": 0.0, "background_alpha": 0.03}
DEFAULT_OUT = REPO / "benchmarks" / "results" / "zeroshot_loco.json"
GOLDEN = REPO / "tests" / "routing" / "golden" / "examples.json"


class Measured:
    """One corpus's index, scores and labels, measured under every grid point."""

    def __init__(self, corpus: Labelled, index: Path) -> None:
        from gov.core.index.stored import open_stored
        from gov.core.routing.background import SCREEN_COSINE, bank_prompts
        from gov.core.scoring.scorer import Scorer

        self.corpus = corpus
        self.stored = open_stored(index)
        self.scorer = scorer = Scorer(self.stored)
        assert scorer.embeddings is not None and self.stored.model_id is not None
        encoder = CachedEncoder(self.stored.model_id)
        self.vectors = encoder.embed(corpus.prompts)
        self.lexical = scorer.lexical_many(corpus.prompts)
        self.head = scorer.learned_probabilities(self.vectors)
        bank = bank_prompts()
        vectors = encoder.embed(bank)
        keep = np.flatnonzero(scorer.surface_similarities(vectors).max(axis=1) < SCREEN_COSINE)
        self.bank_texts, self.bank = [bank[i] for i in keep], vectors[keep]
        positions = self.stored.positions
        self.gold = np.zeros((len(corpus.prompts), scorer.documents), dtype=bool)
        for row, names in enumerate(corpus.expected):
            self.gold[row, [positions[n] for n in names]] = True
        self.positive = self.gold.any(axis=1)
        self.negative = corpus.target_negative()
        self.two = self.gold.sum(axis=1) == 2

    def gated(self, base: Any) -> tuple[Any, Any, NDArray[np.float64]]:
        """Under one set of build-time constants: the prompts' semantic scores, the background
        statistics ``fit_background`` would store, and each prompt's best gate score."""
        from gov.core.routing.background import (
            Background,
            _document_scores,
            _example_floor,
            _hub,
        )

        scorer = self.scorer
        hub = _hub(scorer, self.bank_texts, self.bank, base)
        semantic = scorer.semantic(self.vectors, pool=base.semantic_pool,
                                   body_surfaces=base.body_surfaces, learned=False)
        bank_top = (_document_scores(scorer, self.bank_texts, self.bank, base)
                    - base.hub_weight * hub).max(axis=1)
        examples, orphans, _ = _example_floor(scorer, self.stored, hub, base)
        background = Background(hub.astype(np.float32), np.sort(bank_top).astype(np.float32),
                                examples, {}, orphans)
        return semantic, background, background.gate_scores(self.lexical, semantic,
                                                            base).max(axis=1)

    def evaluate(self, base: Any) -> list[dict[str, float]]:
        """Figures at every route-time setting over one set of build-time constants."""
        from gov.core.routing.select import rank_many

        semantic, background, gate = self.gated(base)
        rows = np.arange(len(gate))
        out = []
        ranked_by_weight = {weight: rank_many(self.lexical, semantic,
                                              base.with_params(learned_weight=weight), self.head)
                            for weight in ROUTE_GRID["learned_weight"]}
        for combo in itertools.product(*(ROUTE_GRID[name] for name in ROUTE_ORDER)):
            route = dict(zip(ROUTE_ORDER, combo, strict=True))
            point = base.with_params(**route)
            ranked = ranked_by_weight[route["learned_weight"]]
            abstain = (gate < background.threshold(point)[0]) | (ranked.top1 < 0)
            second = ranked.top2 >= 0
            if self.head is not None:
                second &= self.head[rows, np.maximum(ranked.top2, 0)] >= base.second_learned_floor
            first_ok = ~abstain & self.gold[rows, np.maximum(ranked.top1, 0)]
            second_ok = ~abstain & second & self.gold[rows, np.maximum(ranked.top2, 0)]
            out.append({
                "top1": float(first_ok[self.positive].mean()),
                "fa": float((~abstain[self.negative]).mean()),
                "silent": float(abstain[self.positive].mean()),
                "recall2": (float((first_ok[self.two].sum() + second_ok[self.two].sum())
                                  / (2 * self.two.sum())) if self.two.any() else None)})
        return out


def grid_points() -> list[dict[str, Any]]:
    """Every grid point as the parameters it changes, build-time first (the loop order)."""
    keys = [*BUILD_GRID, *ROUTE_ORDER]
    values = [*BUILD_GRID.values(), *(ROUTE_GRID[name] for name in ROUTE_ORDER)]
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*values)]


def choose(table: dict[str, list[dict[str, float]]], train: list[str],
           allowed: NDArray[np.bool_] | None = None) -> tuple[int, float]:
    """The grid point with the best mean objective over ``train`` (ties: the first), among
    the ``allowed`` points when given."""
    scores = np.mean([[objective(m, name) for m in table[name]] for name in train], axis=0)
    if allowed is not None:
        scores = np.where(allowed, scores, -np.inf)
    best = int(np.argmax(scores))
    return best, float(scores[best])


def golden_prompts() -> Labelled:
    """``examples/``' routing golden file as labelled prompts: each policy's prompts it must
    take first, and prompts no policy may take (``tests/routing/golden/examples.json``)."""
    data = json.loads(GOLDEN.read_text("utf-8"))
    prompts = [p for ps in data["take"].values() for p in ps] + list(data["none"])
    expected = [[name] for name, ps in data["take"].items() for _ in ps] + [[]] * len(data["none"])
    return Labelled("examples-golden", REPO / "examples" / "policies", prompts, expected,
                    ["positive" if e else "negative" for e in expected])


def keeps_golden(rows: list[dict[str, float]]) -> NDArray[np.bool_]:
    """The grid points under which every golden prompt routes as the file says."""
    return np.array([m["top1"] == 1.0 and m["fa"] == 0.0 for m in rows])


def changed(point: dict[str, Any], shipped: Any) -> str:
    diff = [f"{k} {v:g}" if isinstance(v, float) else f"{k} {v}"
            for k, v in point.items() if getattr(shipped, k) != v]
    return ", ".join(diff) or "the shipped constants"


def verdict(name: str, m: dict[str, float], oiax_top1: float) -> str:
    if name in TARGETS:
        ok = m["top1"] >= TARGETS[name][0] and m["fa"] <= TARGETS[name][1]
    else:
        ok = m["fa"] <= OTHER_FA and m["top1"] >= oiax_top1
    return "met" if ok else "missed"


def fmt(m: dict[str, Any]) -> str:
    return " / ".join("-" if m[k] is None else f"{m[k]:.3f}"
                      for k in ("top1", "fa", "silent", "recall2"))


def main() -> int:
    from gov.core.routing.point import default_operating_point

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval-dir", type=Path, default=DEFAULT_EVAL_DIR)
    parser.add_argument("--extra-corpus", type=Path, action="append", default=[],
                        help="a folder with documents/ and labelled.jsonl (repeatable)")
    parser.add_argument("--only", default=None, help="comma-separated corpus names (a check)")
    parser.add_argument("--work", type=Path, default=None, help="keep the indexes here")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--no-golden", action="store_true",
                        help="choose from every grid point, ignoring examples/' golden routes")
    parser.add_argument("--vary", default=None,
                        help="comma-separated parameters the choice may change; every other "
                             "one stays at the shipped default's value")
    options = parser.parse_args()
    chosen = corpora(options.eval_dir, options.extra_corpus)
    if options.only:
        chosen = [c for c in chosen if c.name in options.only.split(",")]
    shipped = default_operating_point()
    work = options.work or Path(tempfile.mkdtemp(prefix="gov-loco-"))
    work.mkdir(parents=True, exist_ok=True)
    points = grid_points()
    table: dict[str, list[dict[str, float]]] = {}
    oiax: dict[str, float] = {}
    for corpus in chosen:
        started = time.perf_counter()
        index = work / f"{corpus.name}.index"
        if not index.is_file():
            build(corpus, work)
        measured = Measured(corpus, index)
        rows: list[dict[str, float]] = []
        for combo in itertools.product(*BUILD_GRID.values()):
            base = shipped.with_params(**dict(zip(BUILD_GRID, combo, strict=True)))
            rows.extend(measured.evaluate(base))
        table[corpus.name] = rows
        routed = oiax_triggers(index, corpus.prompts)
        hits = [bool(r) and r[0] in e for r, e in zip(routed, corpus.expected, strict=True) if e]
        oiax[corpus.name] = float(np.mean(hits))
        print(f"{label(corpus.name)}: {len(points)} grid points in "
              f"{time.perf_counter() - started:.0f}s", file=sys.stderr, flush=True)
    names = list(table)
    allowed = None
    if "examples" in table and not options.no_golden:  # binds all but the examples fold
        golden = Measured(golden_prompts(), work / "examples.index")
        allowed = keeps_golden([m for combo in itertools.product(*BUILD_GRID.values())
                                for m in golden.evaluate(shipped.with_params(
                                    **dict(zip(BUILD_GRID, combo, strict=True))))])
        print(f"golden routes of examples/ kept at {int(allowed.sum())} of {len(points)} "
              "grid points", file=sys.stderr)
    near = None  # the points --vary allows (binds the examples fold too)
    if options.vary:
        free = set(options.vary.split(","))
        near = np.array([all(v == getattr(shipped, k) for k, v in p.items() if k not in free)
                         for p in points])
        allowed = near if allowed is None else allowed & near
        print(f"choosing among {int(allowed.sum())} points that vary only {options.vary}",
              file=sys.stderr)
    folds = {}
    lines = ["| held out | point chosen on the other corpora | top-1 / FA / silent / two-doc "
             "recall@2 | target |", "|---|---|---|---|"]
    for held in names:
        best, score = choose(table, [n for n in names if n != held],
                             near if held == "examples" else allowed)
        m = table[held][best]
        folds[held] = {"point": points[best], "train_objective": round(score, 4),
                       "metrics": {k: None if v is None else round(v, 4) for k, v in m.items()},
                       "target": verdict(held, m, oiax[held])}
        lines.append(f"| {label(held)} | {changed(points[best], shipped)} | {fmt(m)} | "
                     f"{folds[held]['target']} |")
    best, score = choose(table, names, allowed)
    print("Each corpus held out in turn: the grid point chosen on the others, and the held-out "
          "corpus's figures at it.\n")
    print("\n".join(lines))
    print(f"\nChosen over all {len(names)} corpora: {changed(points[best], shipped)} "
          f"(mean objective {score:.4f}).")
    for name in names:
        print(f"- {label(name)}: {fmt(table[name][best])}")
    lowest = {name: round(min(m["fa"] for m in table[name]), 4) for name in names}
    print("lowest false alarms any grid point reaches: "
          + ", ".join(f"{label(n)} {fa:.3f}" for n, fa in lowest.items()))
    compared = {}
    for title, params in (("the shipped default", {k: getattr(shipped, k) for k in points[0]}),
                          ("the nine-corpus default (2281bb4)", NINE_CORPUS),
                          ("the previous default (d3dfdf3)", PREVIOUS)):
        at = points.index(params)
        compared[title] = {"point": params, "objective": round(float(np.mean(
            [objective(table[n][at], n) for n in names])), 4)}
        print(f"{title} over the same corpora: mean objective {compared[title]['objective']:.4f}")
    out = options.out or (None if options.only else DEFAULT_OUT)
    if out is None:
        return 0
    out.write_text(json.dumps({
        "command": "python benchmarks/zeroshot_loco.py --eval-dir ../shared/eval"
                   + "".join(f" --extra-corpus {p.name}" for p in options.extra_corpus)
                   + (f" --vary {options.vary}" if options.vary else "")
                   + (f" --only {options.only}" if options.only else "")
                   + (f" --out {out.name}" if options.out else ""),
        "date": time.strftime("%Y-%m-%d"),
        "grid": {**BUILD_GRID, **ROUTE_GRID}, "objective": "top1 - 3*max(0, FA - target) - 0.5*FA",
        "fa_targets": {n: fa_target(n) for n in names}, "oiax_triggers_top1": oiax,
        "folds": folds,
        "all_corpora": {"point": points[best], "objective": round(score, 4),
                        "metrics": {n: table[n][best] for n in names}},
        "compared": compared, "lowest_false_alarms": lowest,
        "golden_points_kept": None if allowed is None else int(allowed.sum()),
        "vary": options.vary,
        "oiax_design": OIAX}, indent=1) + "\n")
    print(f"\nwritten: {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
