#!/usr/bin/env python3
"""What ``gov lint`` finds on the development sets, and whether fixing it changes routing.

For each set (``clinc150`` dev, ``banking77_oos`` dev, ``metatool`` dev) this lints the
set's documents with gov's default lint config and prints the findings per rule. Then it
applies each fix lint suggests that can be applied mechanically, writes the fixed set beside
the original (same labelled prompts), and measures the original and each fixed set with
``benchmarks/quality.py`` (the fixed hash split: calibrated on one half, measured on the
other, through the CLI):

* ``shadowed``: every example line lint calls shadowed is deleted (it routes, as a prompt,
  to another document: often a mislabelled or ambiguous example), or moved to the document
  that takes it (lint's other suggested fix);
* ``boilerplate``: the template words lint's trigger-stopwords rule names are taken out of
  each trigger it flags ("The user's request is about: balance (domain: banking)." becomes
  "balance (banking)");
* ``merge``: each cluster of documents lint calls near-duplicates merged into its first
  document (the others' trigger and examples become its examples; their labels become its
  name) — only when it calls any; the task changes with the labels, so read it beside
* ``families``: the same clusters kept apart but indexed with ``--families auto`` (labels
  unchanged: a route to the other document of a pair still counts as wrong).

Every figure is a development-set figure; name the set with it::

    python benchmarks/lint_devsets.py --eval-dir ../shared/eval --work /tmp/gov-lint-dev \
        --json benchmarks/results/lint_devsets.json
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SETS = ("clinc150", "banking77_oos", "metatool")
COLUMNS = ("top1", "recall_at_2", "precision", "f1", "false_alarm_rate", "silent_rate")


def lint_set(policies: Path) -> Any:
    from gov.core.lint import lint_paths

    return lint_paths([policies])


def copy_set(source: Path, target: Path) -> Path:
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target)
    return target


def drop_shadowed(folder: Path, report: Any, move: bool = False) -> int:
    """Delete every example line lint calls shadowed (``move``: append it to the document
    that takes it instead); the number of lines."""
    lines: dict[str, set[int]] = {}
    moved: dict[str, list[str]] = {}
    for finding in report.findings:
        if finding.rule == "shadowed" and finding.line is not None:
            text = (folder / "policies" / Path(finding.file).name)
            line = text.read_text().splitlines()[finding.line - 1]
            if line.startswith("**Agent-example:**"):
                lines.setdefault(Path(finding.file).name, set()).add(finding.line)
                moved.setdefault(finding.data["taker"], []).append(line)
    for name, numbers in lines.items():
        path = folder / "policies" / name
        kept = [line for number, line in enumerate(path.read_text().split("\n"), 1)
                if number not in numbers]
        path.write_text("\n".join(kept))
    if move:
        for taker, added in moved.items():
            path = folder / "policies" / f"{taker}.md"
            lines_of = path.read_text().split("\n")
            at = max(n for n, line in enumerate(lines_of) if line.startswith("**Agent-"))
            path.write_text("\n".join(lines_of[: at + 1] + added + lines_of[at + 1:]))
    return sum(len(numbers) for numbers in lines.values())


def strip_boilerplate(folder: Path, report: Any) -> int:
    """Take the template words out of each flagged trigger; the number rewritten."""
    changed = 0
    for finding in report.findings:
        if finding.rule != "trigger-stopwords":
            continue
        shared = re.search(r"shared with most triggers: (.*)$", finding.message)
        if not shared:
            continue
        words = {word.strip() for word in shared.group(1).split(",")}
        path = folder / "policies" / Path(finding.file).name
        lines = path.read_text().split("\n")
        head, _, trigger = lines[finding.line - 1].partition("**Agent-trigger:** ")
        # The template: "<words>: subject (domain: area)." -> "subject (area)."
        subject = re.sub(r"^[^:]*:\s*", "", trigger)
        subject = re.sub(r"\(domain:\s*", "(", subject)
        kept = " ".join(token for token in subject.split()
                        if token.lower().strip(".,()'") not in words or "(" in token)
        lines[finding.line - 1] = f"{head}**Agent-trigger:** {kept}"
        path.write_text("\n".join(lines))
        changed += 1
    return changed


def merge_duplicates(folder: Path, report: Any) -> int:
    """Merge each cluster of near-duplicates into its first document; map the labels."""
    clusters: list[list[str]] = []
    for finding in report.findings:
        if finding.rule == "overlap":
            cluster = sorted(finding.data["cluster"])
            if cluster not in clusters:
                clusters.append(cluster)
    rename: dict[str, str] = {}
    for keeper, *others in clusters:
        path = folder / "policies" / f"{keeper}.md"
        lines = path.read_text().split("\n")
        at = max(number for number, line in enumerate(lines) if line.startswith("**Agent-"))
        added = []
        for other in others:
            other_path = folder / "policies" / f"{other}.md"
            for line in other_path.read_text().split("\n"):
                if line.startswith(("**Agent-trigger:** ", "**Agent-example:** ")):
                    added.append("**Agent-example:** " + line.split(":** ", 1)[1])
            other_path.unlink()
            rename[other] = keeper
        path.write_text("\n".join(lines[: at + 1] + added + lines[at + 1:]))
    for labelled in ("labelled.jsonl", "labelled_meta.jsonl"):
        target = folder / labelled
        if not target.is_file():
            continue
        rows = [json.loads(line) for line in target.read_text().splitlines() if line.strip()]
        for item in rows:
            item["expected"] = list(dict.fromkeys(rename.get(n, n) for n in item["expected"]))
        target.write_text("".join(json.dumps(item) + "\n" for item in rows))
    return len(rename)


def quality(name: str, eval_dir: Path, work: Path, families: str | None = None
            ) -> dict[str, Any]:
    tag = f"{eval_dir.name}-{name}" + (f"-families-{families}" if families else "")
    out = work / f"{tag}.json"
    if not out.is_file():
        subprocess.run([sys.executable, str(HERE / "quality.py"), name, "--eval-dir",
                        str(eval_dir), "--work", str(work / tag), "--json", str(out),
                        *(["--families", families] if families else [])],
                       check=True, stdout=subprocess.DEVNULL)
    return json.loads(out.read_text())


def row(label: str, data: dict[str, Any]) -> str:
    reports = data["reports"]
    cells = []
    for point in ("baseline (oiax design)", "calibrated + learned"):
        overall = reports[point]["overall"]
        cells.append(" / ".join("-" if overall.get(c) is None else f"{overall[c]:.3f}"
                                for c in ("top1", "false_alarm_rate", "f1")))
    return f"| {label} | " + " | ".join(cells) + " |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval-dir", type=Path, default=HERE.parent.parent / "shared" / "eval")
    parser.add_argument("--work", type=Path, default=Path("/tmp/gov-lint-dev"))
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--no-quality", action="store_true", help="lint only")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    options = parser.parse_args()
    options.work.mkdir(parents=True, exist_ok=True)
    summary: dict[str, Any] = {}
    for name in options.sets.split(","):
        source = options.eval_dir / name
        report = lint_set(source / "policies")
        counts = Counter(f.rule for f in report.findings)
        examples = sum(1 for f in report.findings if f.rule == "shadowed"
                       and "the example" in f.message)
        print(json.dumps({"set": f"{name} dev", "documents": report.documents,
                          "findings": dict(counts.most_common()), "shadowed_examples": examples,
                          "seconds": round(report.seconds, 1)}), flush=True)
        summary[name] = {"findings": dict(counts)}
        if options.no_quality:
            continue
        variants = {"original": options.eval_dir}
        if examples:
            fixed = options.work / "eval-shadowed"
            summary[name]["deleted_examples"] = drop_shadowed(copy_set(source, fixed / name),
                                                              report)
            variants["shadowed examples deleted"] = fixed
            fixed = options.work / "eval-moved"
            drop_shadowed(copy_set(source, fixed / name), report, move=True)
            variants["shadowed examples moved to the document that takes them"] = fixed
        if counts["trigger-stopwords"]:
            fixed = options.work / "eval-boilerplate"
            rewritten = strip_boilerplate(copy_set(source, fixed / name), report)
            summary[name]["rewritten_triggers"] = rewritten
            if rewritten:
                variants["boilerplate taken out of triggers"] = fixed
        families: dict[str, str] = {}
        if counts["overlap"]:
            fixed = options.work / "eval-merged"
            summary[name]["merged_documents"] = merge_duplicates(copy_set(source, fixed / name),
                                                                 report)
            variants["near-duplicates merged (labels merged too)"] = fixed
            variants["near-duplicates as families (--families auto)"] = options.eval_dir
            families["near-duplicates as families (--families auto)"] = "auto"
        print(f"\n{name} dev (test half): top-1 / false alarms / F1\n")
        print("| corpus | baseline (oiax design) | calibrated + learned |\n|---|---|---|")
        for label, eval_dir in variants.items():
            measured = quality(name, eval_dir, options.work, families.get(label))
            summary[name][label] = {point: {
                **{c: report["overall"].get(c) for c in COLUMNS},
                # False alarms per kind of negative (banking77_oos: ood_oos and id_oos).
                "false_alarm_rate_by_kind": {
                    kind: figures["false_alarm_rate"]
                    for kind, figures in report.get("kinds", {}).items()
                    if figures.get("false_alarm_rate") is not None}}
                for point, report in measured["reports"].items()}
            print(row(label, measured), flush=True)
        print()
    (options.work / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    if options.json is not None:
        options.json.write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
