#!/usr/bin/env python3
"""Integer arithmetic for the bundled model: faster, and what it does to the vectors.

The bundled model stores int8 weights, but onnxruntime dequantizes them when the session
loads and runs every matrix product in float32: one prompt's embedding is most of a warm
hook turn, and the texts' embedding most of a cold build. This rewrites the model's 36
weight products (in a temp folder; the installed model is untouched) two ways and measures
each against the model as gov runs it:

* ``s8``: activations quantized per tensor at run time (``DynamicQuantizeLinear`` +
  ``MatMulIntegerToFloat``), int8 weights as stored;
* ``nbits32`` / ``nbits128``: ``MatMulNBits`` with 8-bit weights and ``accuracy_level`` 4
  (activations quantized per block of 32 or 128 along the inner dimension).

Printed: one prompt's model run (median of 200, after 30, one and two threads), the texts
per second of a build-sized batch through gov's encoder, and each variant's cosine to the
float32 vectors. ``--zeroshot VARIANT`` then runs ``benchmarks/zeroshot.py`` with the route
and build encoders on that variant (a fresh embedding cache), for routing quality.

``--spinning`` instead measures the float32 model's thread spinning, which needs no
rewrite: one prompt's run, runs 50 ms apart as hook turns are, with two threads and
spinning off (as shipped), on, and on but stopped when a run ends
(``session.force_spinning_stop``): median and p90 wall, and CPU per run, idle gap included.

The rewrites need the ``onnx`` package beside gov (a scratch venv: ``pip install . onnx``)::

    python benchmarks/bench_int8.py [--texts 600] [--zeroshot s8 -- --eval-dir ../shared/eval]
    python benchmarks/bench_int8.py --spinning
"""

from __future__ import annotations

import argparse
import os
import runpy
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
PROMPT = "the pager went off for checkout-api at 3am, what do I do first?"
VARIANTS = ("s8", "nbits32", "nbits128")


def rewrite(source: Path, target: Path, variant: str) -> int:
    """Write ``source`` with its dequantized weight products replaced; how many were."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(source))
    graph = model.graph
    initializers = {item.name: item for item in graph.initializer}
    producer = {out: node for node in graph.node for out in node.output}
    added: list[Any] = []
    count = 0
    for node in list(graph.node):
        if node.op_type != "MatMul":
            continue
        scaled = producer.get(node.input[1])
        cast = producer.get(scaled.input[0]) if scaled is not None and scaled.op_type == "Mul" else None
        if cast is None or cast.op_type != "Cast" or cast.input[0] not in initializers:
            continue
        weights = numpy_helper.to_array(initializers[cast.input[0]])  # [K, N] int8
        scale = numpy_helper.to_array(initializers[scaled.input[1]]).reshape(-1).astype(np.float32)
        rows, columns = weights.shape
        name = node.output[0]
        if variant == "s8":
            added += [numpy_helper.from_array(weights, name + "_w"),
                      numpy_helper.from_array(scale, name + "_ws"),
                      numpy_helper.from_array(np.zeros(columns, np.int8), name + "_wz")]
            new = [helper.make_node("DynamicQuantizeLinear", [node.input[0]],
                                    [name + "_x", name + "_xs", name + "_xz"]),
                   helper.make_node("MatMulIntegerToFloat",
                                    [name + "_x", name + "_w", name + "_xs", name + "_ws",
                                     name + "_xz", name + "_wz"], [name], domain="com.microsoft")]
        else:
            block = int(variant.removeprefix("nbits"))
            blocks = rows // block
            packed = ((weights.astype(np.int16) + 128).astype(np.uint8).T
                      .reshape(columns, blocks, block).copy())
            added += [numpy_helper.from_array(packed, name + "_b"),
                      numpy_helper.from_array(np.repeat(scale, blocks), name + "_s"),
                      numpy_helper.from_array(np.full(columns * blocks, 128, np.uint8),
                                              name + "_z")]
            new = [helper.make_node("MatMulNBits", [node.input[0], name + "_b", name + "_s",
                                                    name + "_z"], [name],
                                    domain="com.microsoft", K=rows, N=columns, bits=8,
                                    block_size=block, accuracy_level=4)]
        position = list(graph.node).index(node)
        graph.node.remove(node)
        for offset, item in enumerate(new):
            graph.node.insert(position + offset, item)
        count += 1
    graph.initializer.extend(added)
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    onnx.save(model, str(target))
    return count


def use_model(path: Path | None) -> None:
    """Point gov's bundled-model encoder at ``path`` (None: the installed model)."""
    import gov.core.encode.embedding as embedding

    original = getattr(use_model, "original", None) or embedding._bundle_paths
    use_model.original = original  # type: ignore[attr-defined]
    if path is None:
        embedding._bundle_paths = original
    else:
        embedding._bundle_paths = lambda verify: (path, original(False)[1])
    embedding._ENCODERS.clear()


def one_prompt_ms(threads: int) -> float:
    from gov.core.encode.embedding import OnnxEncoder

    encoder = OnnxEncoder(threads=threads)
    for _ in range(30):
        encoder.embed([PROMPT])
    samples = []
    for _ in range(200):
        start = time.perf_counter()
        encoder.embed([PROMPT])
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def spinning(gap: float = 0.05, runs: int = 100) -> None:
    import onnxruntime as ort

    from gov.core.encode.embedding import _bundle_paths

    model, tokenizer_path = _bundle_paths(True)
    from tokenizers import Tokenizer

    encoded = Tokenizer.from_file(str(tokenizer_path)).encode(PROMPT)
    width = sum(encoded.attention_mask)
    ids = np.array([encoded.ids[:width]], dtype=np.int64)
    feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids),
             "token_type_ids": np.zeros_like(ids)}
    print(f"one {width}-token prompt, runs {gap * 1000:.0f} ms apart, 2 threads:")
    for label, spin, stop in (("spinning off (shipped)", "0", "0"), ("spinning on", "1", "0"),
                              ("on, stopped after each run", "1", "1")):
        options = ort.SessionOptions()
        options.log_severity_level = 3
        options.enable_mem_pattern = False
        options.intra_op_num_threads = 2
        options.add_session_config_entry("session.intra_op.allow_spinning", spin)
        options.add_session_config_entry("session.force_spinning_stop", stop)
        session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        for _ in range(20):
            session.run(None, feeds)
        samples = []
        cpu = time.process_time()
        for _ in range(runs):
            time.sleep(gap)
            start = time.perf_counter()
            session.run(None, feeds)
            samples.append((time.perf_counter() - start) * 1000)
        cpu = (time.process_time() - cpu) * 1000 / runs
        samples.sort()
        print(f"  {label:<28} median {statistics.median(samples):5.2f} ms   p90 "
              f"{samples[int(0.9 * (runs - 1))]:5.2f} ms   CPU {cpu:5.2f} ms a run", flush=True)


def texts(count: int) -> list[str]:
    """Build-sized texts: the shipped bank and the examples corpus's surfaces, repeated."""
    from gov.core.corpus.reader import load_corpus
    from gov.core.routing.background import bank_prompts

    corpus = load_corpus([str(REPO / "examples" / "policies")], warn=lambda _: None)
    pool = [*bank_prompts(), *(d.trigger for d in corpus.documents),
            *(e for d in corpus.documents for e in d.examples)]
    return [f"{pool[i % len(pool)]} ({i})" for i in range(count)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--texts", type=int, default=600)
    parser.add_argument("--zeroshot", choices=VARIANTS, default=None)
    parser.add_argument("--spinning", action="store_true")
    options, rest = parser.parse_known_args()
    if options.spinning:
        spinning()
        return 0
    from gov.core.encode.embedding import OnnxEncoder, _bundle_paths, get_encoder

    source = _bundle_paths(True)[0]
    folder = Path(tempfile.mkdtemp(prefix="gov-int8-"))
    paths = {}
    for variant in VARIANTS:
        paths[variant] = folder / f"{variant}.onnx"
        print(f"{variant}: {rewrite(source, paths[variant], variant)} weight products rewritten",
              flush=True)
    if options.zeroshot:
        os.environ["GOV_CACHE_DIR"] = str(folder / "cache")
        use_model(paths[options.zeroshot])
        sys.argv = ["zeroshot.py", *[a for a in rest if a != "--"]]
        sys.path.insert(0, str(REPO / "benchmarks"))
        runpy.run_path(str(REPO / "benchmarks" / "zeroshot.py"), run_name="__main__")
        return 0
    batch = texts(options.texts)
    reference = None
    print(f"\n{'model':<10} {'1 prompt, 1 thread':>19} {'2 threads':>10} "
          f"{'build texts/s':>14} {'cosine to float32: min / mean':>31}")
    for variant in ("float32", *VARIANTS):
        use_model(None if variant == "float32" else paths[variant])
        single, double = one_prompt_ms(1), one_prompt_ms(2)
        encoder = get_encoder(OnnxEncoder.model_id, purpose="build")
        encoder.embed(batch[:32])
        start = time.perf_counter()
        vectors = encoder.embed(batch)
        rate = len(batch) / (time.perf_counter() - start)
        if reference is None:
            reference = vectors
        cosine = (vectors * reference).sum(axis=1)
        print(f"{variant:<10} {single:>16.2f} ms {double:>7.2f} ms {rate:>14.0f} "
              f"{cosine.min():>20.4f} / {cosine.mean():.5f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
