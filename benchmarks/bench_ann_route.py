#!/usr/bin/env python3
"""Routing through the approximate-search graph (gov index --ann) against exact search, on
the same index file: warm latency per prompt and how often the routes agree.

    gov index corpus.jsonl -o IDX --ann
    python benchmarks/bench_ann_route.py IDX --prompts prompts.jsonl [--count 300]

Prints one JSON line per search mode (p50/p95 warm route latency, one prompt at a time,
after a warm-up) and one with the agreement: the share of prompts routed to exactly the
same names, and recall@2 of the exact routes among the approximate ones.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index", type=Path)
    parser.add_argument("--prompts", type=Path, required=True, help="JSONL with a prompt per line")
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--warm-up", type=int, default=5)
    args = parser.parse_args()

    from gov.core.routing.indexes import load_index

    prompts = []
    with args.prompts.open() as source:
        for line in source:
            prompts.append(json.loads(line)["prompt"])
            if len(prompts) >= args.count + args.warm_up:
                break
    routes: dict[str, list[list[str]]] = {}
    for mode in ("exact", "approximate"):
        index = load_index(args.index, exact=mode == "exact")
        if mode == "approximate" and index.nearest is None:
            raise SystemExit(f"{args.index} has no approximate-search graph: build it with --ann")
        for prompt in prompts[: args.warm_up]:
            index.route(prompt, record=False)
        times, names = [], []
        for prompt in prompts[args.warm_up:]:
            started = time.perf_counter()
            result = index.route(prompt, record=False)
            times.append((time.perf_counter() - started) * 1000)
            names.append(result.names)
        routes[mode] = names
        times.sort()
        print(json.dumps({"mode": mode, "documents": len(index.names), "prompts": len(times),
                          "p50_ms": round(statistics.median(times), 1),
                          "p95_ms": round(times[int(0.95 * (len(times) - 1))], 1),
                          **({"ann": index.header.ann} if mode == "approximate" else {})}))
    exact, near = routes["exact"], routes["approximate"]
    same = sum(a == b for a, b in zip(exact, near, strict=True)) / len(exact)
    wanted = sum(len(a) for a in exact)
    found = sum(len(set(a) & set(b)) for a, b in zip(exact, near, strict=True))
    print(json.dumps({"agreement": round(same, 4),
                      "recall_at_2_of_exact_routes": round(found / wanted, 4) if wanted else None,
                      "exact_abstained": sum(not a for a in exact),
                      "approximate_abstained": sum(not b for b in near)}))


if __name__ == "__main__":
    main()
