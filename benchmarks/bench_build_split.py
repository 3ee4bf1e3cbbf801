#!/usr/bin/env python3
"""Where a cold build's CPU goes (bodies off): embedding, the head fit, the background gate
and the rest, timed by process CPU in one process with those stages wrapped (an empty cache
folder of its own). Prints one JSON line (docs/scale.md, "Cold builds")::

    python benchmarks/bench_build_split.py /tmp/gov-bench-build-compare/skills-1354
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
import time
from typing import Any


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", help="a folder of documents (bench_build_compare.py writes one)")
    folder = parser.parse_args().corpus
    os.environ["GOV_CACHE_DIR"] = tempfile.mkdtemp(prefix="gov-split-cache-")
    import gov.core.encode.cache as cache
    import gov.core.routing.indexes as indexes
    import gov.core.scoring.learned as learned
    from gov.core.corpus.reader import load_corpus

    times: dict[str, Any] = {"embed_cpu": 0.0, "head_fit_cpu": 0.0, "background_gate_cpu": 0.0}

    def timed(key: str, function: Any, note: Any = None) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            result = function(*args, **kwargs)
            times[key] += time.process_time() - start
            if note is not None:
                note(*args)
            return result
        return wrapper

    def head_shape(vectors: Any, _owners: Any, classes: int) -> None:
        times["head_rows"], times["head_classes"] = int(vectors.shape[0]), int(classes)

    # The build imports these lazily, at call time, so the wrapped ones are used.
    cache.embed_missing = timed("embed_cpu", cache.embed_missing)
    learned.fit_classifier = timed("head_fit_cpu", learned.fit_classifier, head_shape)
    indexes.fit_background = timed("background_gate_cpu", indexes.fit_background)  # type: ignore[attr-defined]
    start, wall = time.process_time(), time.perf_counter()
    corpus = load_corpus([folder], warn=lambda _m: None)
    times["read_cpu"] = time.process_time() - start
    built = indexes.build_index(corpus, bodies=False)
    times["total_cpu"] = time.process_time() - start
    times["wall_s"] = time.perf_counter() - wall
    times["surfaces"] = built.header.build.get("surfaces")
    times["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(json.dumps({k: round(v, 1) if isinstance(v, float) else v for k, v in times.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
