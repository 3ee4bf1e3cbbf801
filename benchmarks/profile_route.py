#!/usr/bin/env python3
"""Where a warm route's time goes, and how indexes compare, one prompt at a time.

    python benchmarks/profile_route.py IDX [IDX ...] --prompts prompts.jsonl [--count 200]

For each index: the warm ``Router.route`` median and p95 over ``--count`` prompts (after 10
to warm up), the parts of a route measured separately on the same prompts (embedding the
prompt, the cosine over every surface vector, the pooled semantic scores with that cosine,
the lexical scores, the head's or learned classifier's probabilities, selection), and a
one-shot ``gov route PROMPT`` in a fresh process (wall time and peak RSS, median of 3). Compare two builds of one corpus (e.g. with and
without ``--bodies``) by naming both; run the script from two checkouts to compare code.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from lib import gov_command, median, percentile, run


def median_ms(samples: list[float]) -> float:
    return round(median(samples) * 1000, 2)


def profile(path: Path, prompts: list[str]) -> dict[str, object]:

    from gov.core.routing.indexes import load_index
    from gov.core.routing.select import select

    index = load_index(path)
    for prompt in prompts[:10]:
        index.route(prompt, record=False)
    # This script also runs from a checkout before the background gate (``body_weight``,
    # no background, no head), so a route's parts can be compared across commits.
    body = ({"body_surfaces": index.operating_point.body_surfaces}
            if hasattr(index.operating_point, "body_surfaces")
            else {"body_weight": index.operating_point.body_weight})
    background = getattr(index, "background", None)
    parts: dict[str, list[float]] = {k: [] for k in ("embed", "cosine", "semantic", "lexical",
                                                     "head", "select", "route")}
    for prompt in prompts[10:]:
        t0 = time.perf_counter()
        scorer, point = index.scorer, index.operating_point
        vectors = scorer.embed([prompt])
        t1 = time.perf_counter()
        assert vectors is not None and scorer.embeddings is not None
        _ = scorer.surface_similarities(vectors)
        t2 = time.perf_counter()
        semantic = scorer.semantic(vectors, pool=point.semantic_pool, **body)
        t3 = time.perf_counter()
        lexical = scorer.lexical_documents(scorer.lexical_surfaces(prompt), prompt)
        t4 = time.perf_counter()
        learned = scorer.learned_probabilities(vectors)
        t5 = time.perf_counter()
        if background is not None:
            select(lexical, semantic[0], point, None if learned is None else learned[0],
                   background)
        else:
            select(lexical, semantic[0], point, None if learned is None else learned[0])
        t6 = time.perf_counter()
        index.route(prompt, record=False)
        t7 = time.perf_counter()
        for key, seconds in zip(parts, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5,
                                        t7 - t6), strict=True):
            parts[key].append(seconds)
    routes = sorted(parts["route"])
    return {"index": str(path), "documents": len(index.names),
            **{key: value for key, value in body.items()},
            "gate": getattr(index.operating_point, "gate", "confidence"),
            "approximate": index.scorer.nearest is not None,
            "route_p50_ms": median_ms(routes),
            "route_p95_ms": round(percentile(routes, 0.95) * 1000, 2),
            **{f"{key}_p50_ms": median_ms(values) for key, values in parts.items() if key != "route"}}


def one_shot(path: Path, prompt: str) -> dict[str, float]:
    runs = [run([*gov_command(), "route", prompt, "-i", str(path), "--format", "jsonl"]
                ).checked("gov route") for _ in range(3)]
    return {"one_shot_p50_s": round(median([done.wall_s for done in runs]), 3),
            "one_shot_peak_rss_mb": round(median([done.peak_rss_mb for done in runs]))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("indexes", nargs="+", type=Path)
    parser.add_argument("--prompts", type=Path, required=True, help="JSONL with a prompt per line")
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--no-one-shot", action="store_true")
    args = parser.parse_args()
    prompts = []
    with args.prompts.open() as source:
        for line in source:
            prompts.append(json.loads(line)["prompt"])
            if len(prompts) >= args.count + 10:
                break
    for path in args.indexes:
        row = profile(path, prompts)
        if not args.no_one_shot:
            row.update(one_shot(path, prompts[0]))
        print(json.dumps(row))


if __name__ == "__main__":
    main()
