#!/usr/bin/env python3
"""The build encoder's memory and CPU by run size and memory plans, and what one prompt
costs with the model's graph optimised or not (``docs/scale.md``, "Cold builds")::

    python benchmarks/bench_encoder.py [--skills-count 1354] [--run-tokens 2048 512]

The descriptions are those of ``bench_build.synthesise`` (seed 0). Each configuration
embeds them all in a fresh process (so each peak RSS is its own) with the build's encoder
(one thread per length group, as many groups at once as cores), runs of at most
``--run-tokens`` tokens, and the session's per-shape memory plans on or off (with
``--no-arena``, also without the CPU memory arena, plans off). The vectors of
every configuration are compared with the first one's. Then one 16-token prompt is run
200 times through a session with graph optimisation on (the default) and off: off, the
int8 weights are dequantized on every run rather than once at load.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

ENCODE = """
import json, resource, sys, time
import numpy as np
import onnxruntime as ort
from gov.core.encode import embedding
texts = json.load(open(sys.argv[1]))
embedding._RUN_TOKENS = int(sys.argv[2])
plans = sys.argv[3] == "on"
arena = sys.argv[5] == "on"
made = ort.InferenceSession.__init__
def session(self, path, options=None, *args, **kwargs):
    options.enable_mem_pattern = plans
    options.enable_cpu_mem_arena = arena
    made(self, path, options, *args, **kwargs)
ort.InferenceSession.__init__ = session
encoder = embedding.OnnxEncoder(threads=1, workers=embedding._cores())
start, cpu = time.perf_counter(), time.process_time()
vectors = encoder.embed(texts)
np.save(sys.argv[4], vectors)
print(json.dumps({"wall_s": round(time.perf_counter() - start, 1),
                  "cpu_s": round(time.process_time() - cpu, 1),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}))
"""

PROMPT = """
import json, statistics, time
import numpy as np
import onnxruntime as ort
from gov.core.encode.embedding import _bundle_paths
model, _tokenizer = _bundle_paths(False)
ids = np.ones((1, 16), dtype=np.int64)
feeds = {"input_ids": ids, "attention_mask": ids, "token_type_ids": np.zeros_like(ids)}
out = {}
for name, level in (("optimised", ort.GraphOptimizationLevel.ORT_ENABLE_ALL),
                    ("not optimised", ort.GraphOptimizationLevel.ORT_DISABLE_ALL)):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.graph_optimization_level = level
    session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    for _ in range(20):
        session.run(None, feeds)
    samples = []
    for _ in range(200):
        start = time.perf_counter()
        session.run(None, feeds)
        samples.append(time.perf_counter() - start)
    out[name] = round(statistics.median(samples) * 1000, 2)
print(json.dumps(out))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills-count", type=int, default=1354)
    parser.add_argument("--run-tokens", type=int, nargs="+", default=[2048, 512])
    parser.add_argument("--no-arena", action="store_true",
                        help="also run each budget without the CPU memory arena")
    parser.add_argument("--work", type=Path,
                        default=Path(tempfile.gettempdir()) / "gov-bench-build-compare")
    args = parser.parse_args()
    from bench_build import descriptions, synthesise

    folder = args.work / f"skills-{args.skills_count}"
    if not folder.exists():
        synthesise(folder, args.skills_count)
    texts = descriptions(folder, args.skills_count)
    scratch = Path(tempfile.mkdtemp(prefix="gov-bench-encoder-"))
    corpus = scratch / "texts.json"
    corpus.write_text(json.dumps(texts))
    print(f"{len(texts)} descriptions; load average {os.getloadavg()[0]:.1f}")
    print(f"{'run tokens':>10} {'memory plans':>13} {'arena':>6} {'wall':>8} {'CPU':>8} "
          f"{'peak RSS':>9}  vectors")
    first = None
    import numpy as np

    settings = [("on", "on"), ("off", "on")] + ([("off", "off")] if args.no_arena else [])
    for tokens in args.run_tokens:
        for plans, arena in settings:
            vectors = scratch / f"{tokens}-{plans}-{arena}.npy"
            done = subprocess.run([sys.executable, "-c", ENCODE, str(corpus), str(tokens), plans,
                                   str(vectors), arena], capture_output=True, text=True,
                                  check=True)
            row = json.loads(done.stdout.strip().splitlines()[-1])
            got = np.load(vectors)
            first = got if first is None else first
            same = "same" if np.array_equal(got, first) else \
                f"max diff {float(np.abs(got - first).max()):.1e}"
            print(f"{tokens:>10} {plans:>13} {arena:>6} {row['wall_s']:>6.1f} s {row['cpu_s']:>6.1f} s "
                  f"{row['peak_rss_mb']:>6} MB  {same}")
    done = subprocess.run([sys.executable, "-c", PROMPT], capture_output=True, text=True,
                          check=True)
    one = json.loads(done.stdout)
    print(f"one 16-token prompt, one thread: graph optimised {one['optimised']} ms, "
          f"not optimised {one['not optimised']} ms (median of 200)")
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
