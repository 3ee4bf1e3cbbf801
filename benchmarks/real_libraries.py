#!/usr/bin/env python3
"""Routing on real public agent libraries, with labels given by source path.

The libraries are fetched and exported by hand as each labelled set's README says
(``../shared/eval/real_libraries/README.md``: claude-code-templates' components as ``cct``,
awesome-cursorrules' rules as ``cursor/rules``; ``benchmarks/data/real_libraries/README.md``:
antigravity-awesome-skills' skills as ``antigravity``), all under one folder (``--lib-dir``).
Each library is indexed whole with the shipped default, as a user who cloned it would, and
its prompts are routed; a route is right when its document's source file is one the row
lists (any of them: every near-duplicate a maintainer would accept is listed)::

    python benchmarks/real_libraries.py --lib-dir ../lib [--split dev|heldout|all]

It prints, per library: top-1 (the first route is right, over governed prompts), top-2 (a
route is right), silent (governed prompts that routed nothing), false alarms (ungoverned
prompts that routed), and, whatever the gate decided, how often the nearest document is
right and a right one is in the first three. ``--json`` writes the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from lib import BENCHMARKS, DEFAULT_EVAL_DIR, RESULTS, import_repo
from numpy.typing import NDArray

import_repo()

# library name -> (the folder under --lib-dir it is indexed from, the labelled rows)
SETS = {
    "cct": ("cct", DEFAULT_EVAL_DIR / "real_libraries" / "labelled.jsonl"),
    "cursor": ("cursor/rules", DEFAULT_EVAL_DIR / "real_libraries" / "labelled.jsonl"),
    "antigravity": ("antigravity", BENCHMARKS / "data" / "real_libraries" / "antigravity.jsonl"),
}


@dataclass
class Library:
    """One library's index and its labelled prompts, with the gold as a matrix."""

    name: str
    index: Path
    prompts: list[str]
    gold: NDArray[np.bool_]  # prompts x documents: the documents the row accepts
    governed: NDArray[np.bool_]
    names: list[str]

    def labelled_names(self) -> list[list[str]]:
        return [[self.names[j] for j in np.flatnonzero(row)] for row in self.gold]


def rows_of(path: Path, library: str, split: str) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    return [r for r in rows if r["library"] == library and split in ("all", r["split"])]


def index_library(lib_dir: Path, folder: str, work: Path, name: str) -> Path:
    """``gov index FOLDER`` from ``lib_dir`` (sources relative to it), kept in ``work`` and
    rebuilt only when the library changed."""
    from gov.core.routing.indexes import ensure_index

    target = work / f"{name}.index"
    here = Path.cwd()
    os.chdir(lib_dir)
    try:
        ensure_index([folder], target, warn=lambda _: None)
    finally:
        os.chdir(here)
    return target


def load(lib_dir: Path, name: str, split: str, work: Path) -> Library:
    from gov.core.calibration.metrics import SourceLabels
    from gov.core.index.stored import open_stored

    folder, labels = SETS[name]
    index = index_library(lib_dir, folder, work, name)
    stored = open_stored(index)
    names = list(stored.names)
    # A library may link one folder to another (a skill under two names): compare the files
    # themselves, as the labels name the linked-to path.
    sources = [os.path.relpath(os.path.realpath(lib_dir / stored.document(n).source), lib_dir)
               for n in names]
    rows = rows_of(labels, name, split)
    labelled = SourceLabels(zip(names, sources, strict=True))  # as gov eval --by source reads
    position = {n: j for j, n in enumerate(names)}
    gold = np.zeros((len(rows), len(names)), dtype=bool)
    for i, row in enumerate(rows):
        gold[i, [position[n] for n in labelled(row["expected"]) if n in position]] = True
        if row["expected"] and not gold[i].any():
            print(f"{name}: no indexed document for {row['expected'][0]}", file=sys.stderr)
    governed = np.array([bool(r["expected"]) for r in rows])
    return Library(name, index, [r["prompt"] for r in rows], gold, governed, names)


def measure(library: Library) -> dict[str, Any]:
    """The shipped default's figures on one library's prompts."""
    from gov.core.routing.indexes import load_index
    from gov.core.routing.select import rank

    router = load_index(library.index)
    position = {n: j for j, n in enumerate(library.names)}
    answers = router.route_many(library.prompts, record=False, explain=False)
    scorer = router.scorer
    point = router.operating_point
    vectors = scorer.embed(library.prompts)
    semantic = scorer.semantic(vectors, pool=point.semantic_pool, body_surfaces=point.body_surfaces)
    learned = scorer.learned_probabilities(vectors)
    lexical = scorer.lexical_many(library.prompts)
    top1 = top2 = silent = alarms = near1 = near3 = 0
    for i, answer in enumerate(answers):
        routed = [position[route.name] for route in answer.routes]
        gold = library.gold[i]
        if not library.governed[i]:
            alarms += bool(routed)
            continue
        order = rank(lexical[i], semantic[i], point,
                     None if learned is None else learned[i], limit=3,
                     families=router.families).order
        near1 += bool(order.size and gold[order[0]])
        near3 += bool(gold[order[:3]].any())
        if not routed:
            silent += 1
            continue
        top1 += bool(gold[routed[0]])
        top2 += bool(gold[routed].any())
    governed = int(library.governed.sum())
    ungoverned = len(library.prompts) - governed
    return {"documents": len(library.names), "governed": governed, "ungoverned": ungoverned,
            "top1": round(top1 / governed, 3), "top2": round(top2 / governed, 3),
            "silent": round(silent / governed, 3),
            "fa": round(alarms / ungoverned, 3) if ungoverned else None,
            "nearest_right": round(near1 / governed, 3),
            "top3_right": round(near3 / governed, 3)}


def nearest_by_weight(library: Library, weights: list[float]) -> dict[str, float]:
    """How often the best-ranked document is right with the body words weighing each of
    ``weights`` (the index's own weight replaced; 0 leaves them out), gate aside."""
    import numpy as np

    from gov.core.index.body_words import WEIGHT
    from gov.core.routing.indexes import load_index
    from gov.core.routing.select import rank_many

    router = load_index(library.index)
    scorer, point = router.scorer, router.operating_point
    vectors = scorer.embed(library.prompts)
    semantic = scorer.semantic(vectors, pool=point.semantic_pool, body_surfaces=point.body_surfaces)
    learned = scorer.learned_probabilities(vectors)
    lexical = scorer.lexical_many(library.prompts)
    body = np.stack([scorer.body_word_scores(p) for p in library.prompts])
    rows = np.arange(len(library.prompts))
    out = {}
    for weight in weights:
        top = rank_many(lexical + body * (weight / WEIGHT - 1.0), semantic, point, learned,
                        router.families).top1
        right = (top >= 0) & library.gold[rows, np.maximum(top, 0)]
        out[f"{weight:g}"] = round(float(right[library.governed].mean()), 3)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lib-dir", type=Path, required=True,
                        help="the folder holding cct/, cursor/rules/ and antigravity/")
    parser.add_argument("--split", default="heldout", choices=("dev", "heldout", "all"))
    parser.add_argument("--only", action="append", choices=sorted(SETS))
    parser.add_argument("--work", type=Path, default=Path("/tmp/gov-real-libraries"))
    parser.add_argument("--body-weights", help="also: the nearest document's rightness with the "
                        "body words at these weights, comma-separated (e.g. 0,2,4)")
    parser.add_argument("--json", type=Path, help=f"write the figures (e.g. {RESULTS}/real_libraries.json)")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    lib_dir = args.lib_dir.resolve()
    out: dict[str, Any] = {"command": " ".join(sys.argv), "split": args.split,
                           "date": time.strftime("%Y-%m-%d"), "libraries": {}}
    print(f"split {args.split}")
    print(f"{'library':12} {'docs':>5} {'gov':>4} {'ungov':>5} {'top-1':>6} {'top-2':>6} "
          f"{'silent':>6} {'FA':>6} {'near-1':>6} {'near-3':>6}")
    for name in args.only or list(SETS):
        if not (lib_dir / SETS[name][0]).is_dir():
            print(f"{lib_dir / SETS[name][0]}: not found, {name} skipped", file=sys.stderr)
            continue
        library = load(lib_dir, name, args.split, args.work)
        m = measure(library)
        if args.body_weights:
            m["nearest_by_body_weight"] = nearest_by_weight(
                library, [float(w) for w in args.body_weights.split(",")])
        out["libraries"][name] = m
        print(f"{name:12} {m['documents']:>5} {m['governed']:>4} {m['ungoverned']:>5} "
              f"{m['top1']:>6.3f} {m['top2']:>6.3f} {m['silent']:>6.3f} "
              f"{(m['fa'] if m['fa'] is not None else float('nan')):>6.3f} "
              f"{m['nearest_right']:>6.3f} {m['top3_right']:>6.3f}")
        if "nearest_by_body_weight" in m:
            print(f"{'':12} nearest right by body-word weight: {m['nearest_by_body_weight']}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
