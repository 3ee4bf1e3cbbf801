#!/usr/bin/env python3
"""Routing families on a corpus with many near-duplicates: the skills library plus twenty
skills rewritten by "another author" (``benchmarks/lint/skills-duplicates``).

The corpus is the 60 skills of ``benchmarks/corpora/skills-library`` (its 141 labelled
prompts: 97 positives, 44 negatives) and 20 near-duplicate skills, each a rewrite of one
original (``duplicates.json`` names it). A route to a duplicate is as good as a route to its
original: an *acceptable* document for an expected one is itself or its duplicate. For each
way of forming families:

* ``none``: no families (every document on its own);
* ``auto``: ``gov index --families auto``: the clusters ``gov lint`` calls near-duplicates;
* ``declared``: every original and its rewrite given one ``family:`` (what a team that
  acted on every pair would write);
* ``merged``: the rewrites deleted (``gov lint``'s other fix: merge the pair into one);

and for two operating points (the shipped default; the oiax design: RRF, floors
0.10/0.25, always two routes), it prints: recall of an acceptable document within the
routes, top-1 acceptable, how often a prompt gets a second route and how often that
second route is a *new* group (not the first route's original-or-rewrite), and the
false-alarm rate on the negatives. Every figure is on this benchmark corpus only::

    python benchmarks/lint_families.py --skills ../corpora/benchmarks/corpora/skills-library
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DUPLICATES = HERE / "lint" / "skills-duplicates"
DEFAULT_SKILLS = HERE / "corpora" / "skills-library"
BASELINE = {"lexical_floor": 0.10, "semantic_floor": 0.25, "rrf_k": 60.0, "top_k": 2}


def corpus_folder(work: Path, skills: Path, variant: str, pairs: dict[str, str]) -> Path:
    """The skills (and rewrites, unless merged) in one folder; ``declared`` adds families."""
    folder = work / variant
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(skills / "documents", folder)
    if variant != "merged":
        for name in pairs:
            shutil.copytree(DUPLICATES / "documents" / name, folder / name)
    if variant == "declared":
        for rewrite, original in pairs.items():
            for name in (rewrite, original):
                path = folder / name / "SKILL.md"
                text = path.read_text()
                path.write_text(text.replace("\n---\n", f"\nfamily: {original}\n---\n", 1))
    return folder


def measure(router: Any, rows: list[dict[str, Any]], group: dict[str, str]) -> dict[str, float]:
    answers = router.route_many([row["prompt"] for row in rows], record=False)
    expected_total = found = top1 = positives = negatives = alarms = seconds = new_group = 0
    for row, answer in zip(rows, answers, strict=True):
        names = [route.name for route in answer.routes if route.dependency_of is None]
        groups = [group.get(name, name) for name in names]
        if not row["expected"]:
            negatives += 1
            alarms += bool(names)
            continue
        positives += 1
        wanted = {group.get(name, name) for name in row["expected"]}
        expected_total += len(wanted)
        found += len(wanted & set(groups))
        top1 += bool(groups) and groups[0] in wanted
        if len(names) > 1:
            seconds += 1
            new_group += groups[1] != groups[0]
    return {
        "recall_acceptable": round(found / expected_total, 3),
        "top1_acceptable": round(top1 / positives, 3),
        "second_route_rate": round(seconds / positives, 3),
        "second_route_new_group": round(new_group / seconds, 3) if seconds else None,
        "false_alarm_rate": round(alarms / negatives, 3),
        "positives": positives,
        "negatives": negatives,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", type=Path, default=DEFAULT_SKILLS,
                        help="the skills-library corpus folder (documents/, labelled.jsonl)")
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    options = parser.parse_args()
    from gov.core.corpus.reader import load_corpus
    from gov.core.index.stored import StoredIndex
    from gov.core.lint import lint_paths
    from gov.core.routing.indexes import build_index
    from gov.core.routing.point import from_json
    from gov.core.routing.router import Router

    if not (options.skills / "labelled.jsonl").is_file():
        raise SystemExit(f"{options.skills}: no labelled.jsonl (pass --skills)")
    work = options.work or Path(tempfile.mkdtemp(prefix="gov-families-"))
    work.mkdir(parents=True, exist_ok=True)
    pairs: dict[str, str] = json.loads((DUPLICATES / "duplicates.json").read_text())
    group = {rewrite: original for rewrite, original in pairs.items()}
    rows = [json.loads(line) for line in (options.skills / "labelled.jsonl").read_text()
            .splitlines() if line.strip()]
    baseline = from_json({"gov_operating_point": 1, "model_id": "gov/all-MiniLM-L6-v2-int8",
                          "params": BASELINE}, "baseline")
    results: dict[str, Any] = {}
    found_pairs = None
    for variant, families in (("none", "none"), ("auto", "auto"), ("declared", "declared"),
                              ("merged", "none")):
        folder = corpus_folder(work, options.skills,
                               "with-rewrites" if variant in ("none", "auto") else variant,
                               pairs)
        corpus = load_corpus([folder], warn=lambda _m: None)
        stored = StoredIndex(build_index(corpus, families=families))
        if variant == "auto":
            summary = stored.header.families or {}
            report = lint_paths([folder])
            flagged = {(f.document, f.data["others"][0]["document"]) for f in report.findings
                       if f.rule == "overlap"}
            found_pairs = sum(1 for rewrite, original in pairs.items()
                              if (rewrite, original) in flagged or (original, rewrite) in flagged)
            results["lint"] = {"pairs_planted": len(pairs), "pairs_found": found_pairs,
                               "overlap_findings": len([f for f in report.findings
                                                        if f.rule == "overlap"]),
                               "clusters": summary.get("clusters")}
        for label, point in (("default point", None), ("oiax design", baseline)):
            router = Router(stored, operating_point=point)
            results.setdefault(variant, {})[label] = measure(router, rows, group)
        print(json.dumps({"variant": variant, **results[variant]}), flush=True)
    print(json.dumps({"lint": results["lint"]}))
    if options.json:
        options.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
