#!/usr/bin/env python3
"""A real skills library built three ways: cold, again with nothing changed, after one edit.

The library is every ``SKILL.md`` folder of the public collections named by ``--source``
(default: claude-code-templates' ``cli-tool/components/skills`` and
antigravity-awesome-skills' ``skills``, checked out beside this repository as
``../lib/cct`` and ``../lib/antigravity``; ``../shared/eval/real_libraries/README.md`` says
how to fetch them). Each skill folder is copied, supporting files included, to
``WORK/corpus/<source>-<its path, '/' as '-'>``, unchanged; nothing is deduplicated (skills
sharing a ``name`` are qualified by their folders, as ``gov index`` does by default).

Each build is ``gov index CORPUS -o INDEX -q`` in a fresh process measured alone (wall,
user + system CPU, peak RSS):

* ``cold``: an empty ``GOV_CACHE_DIR`` and no index;
* ``no-op``: the same command again, nothing changed;
* ``one edit``: one skill's description and first paragraph reworded, then the command again
  (the file is put back afterwards, so the next round starts from the same library).

``--runs`` rounds, the load average printed before each build; the summary gives each
build's range over the rounds against its target (2 cores: cold 25 s and 600 MB, no-op
2 s, one edit 3 s). ``--split`` instead builds cold once in one process and prints the CPU
seconds and peak RSS after each stage (embedding, words model, body words, near-duplicate
families, head fit, the rest)::

    python benchmarks/bench_build_library.py --runs 3
    python benchmarks/bench_build_library.py --split --reuse-corpus
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lib import REPO, gov_command, import_repo, loadavg, run

DEFAULT_SOURCES = (f"cct={REPO.parent / 'lib' / 'cct' / 'skills'}",
                   f"antigravity={REPO.parent / 'lib' / 'antigravity'}")
TARGETS = {"cold": (25.0, 600), "no-op": (2.0, None), "one edit": (3.0, None)}
DESCRIPTION_LINE = re.compile(r"^description: *(\S.*)$", re.MULTILINE)


def skill_folders(root: Path) -> list[Path]:
    """Every folder under ``root`` holding a SKILL.md (in any case, as gov reads it), sorted."""
    return sorted({path.parent for path in root.rglob("*")
                   if path.name.lower() == "skill.md" and path.is_file()})


def make_corpus(target: Path, sources: list[tuple[str, Path]]) -> dict[str, Any]:
    """Copy every skill folder of ``sources`` under a name of its own (see the module's
    docstring); a folder that holds another skill's folder is copied without it."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    counts: dict[str, int] = {}
    copied = 0
    for label, root in sources:
        folders = skill_folders(root)
        skills = set(folders)
        counts[label] = len(folders)

        def nested(where: str, names: list[str], skills: set[Path] = skills) -> list[str]:
            return [item for item in names if Path(where, item) in skills]

        for folder in folders:
            name = "-".join((label, *folder.relative_to(root).parts))
            shutil.copytree(folder, target / name, ignore=nested, symlinks=True)
            copied += 1
    info = {"skills": copied, "by_source": counts}
    (target.parent / "corpus.json").write_text(json.dumps(info))
    return info


def pick_edit(corpus: Path) -> Path:
    """A skill with a one-line description to reword (the first, in name order)."""
    for folder in sorted(corpus.iterdir()):
        skill = folder / "SKILL.md"
        if skill.is_file() and DESCRIPTION_LINE.search(skill.read_text("utf-8", errors="replace")):
            return skill
    raise SystemExit(f"{corpus}: no skill with a one-line description to edit")


def edited(text: str) -> str:
    """One document reworded: its description gains a sentence, its body a first paragraph."""
    match = DESCRIPTION_LINE.search(text)
    assert match is not None
    value = match.group(1).rstrip()
    quote = value[0] if value[0] in "'\"" and value.endswith(value[0]) else ""
    inner = value[1:-1] if quote else value
    value = f"{quote}{inner} Also use it when reviewing a teammate's change.{quote}"
    text = text[:match.start(1)] + value + text[match.end(1):]
    end = text.find("\n---", 4)
    cut = end + len("\n---\n") if text.startswith("---") and end > 0 else 0
    return (text[:cut] + "\nRead the whole change before commenting on any one line of it.\n\n"
            + text[cut:])


def build(python: str, corpus: Path, index: Path, cache: Path) -> dict[str, Any]:
    """One ``gov index`` in a fresh process, measured alone."""
    env = {**os.environ, "GOV_CACHE_DIR": str(cache)}
    env.pop("GOV_INDEX", None)
    load = loadavg()
    child = run([*gov_command(python), "index", str(corpus), "-o", str(index), "-q"], env=env)
    return {"code": child.code, "wall_s": round(child.wall_s, 2), "cpu_s": round(child.cpu_s, 2),
            "peak_rss_mb": round(child.peak_rss_mb), "load": load,
            "stderr_tail": child.stderr[-300:]}


def header_build(index: Path) -> dict[str, Any]:
    import_repo()
    from gov.core.index.fileformat import read_header

    header = read_header(index)
    build = {key: value for key, value in header.get("build", {}).items() if key != "code"}
    return {"documents": header["corpus"]["size"], **build, "bodies": header.get("bodies")}


SPLIT = """
import json, os, resource, sys, time
stages = []
def mark(what):
    stages.append((what, time.process_time(),
                   resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
import gov.core.encode.cache as cache, gov.core.routing.indexes as indexes
import gov.core.scoring.learned as learned, gov.core.index.build as build
import gov.core.index.body_words as body_words
def wrap(module, name, label):
    function = getattr(module, name)
    def wrapper(*args, **kwargs):
        mark("before"); result = function(*args, **kwargs); mark(label(args)); return result
    setattr(module, name, wrapper)
wrap(cache, "embed_missing", lambda args: f"embed {len(args[0])} texts")
wrap(build, "fit", lambda args: "words model")
wrap(body_words, "fit_arrays", lambda args: "body words")
wrap(build, "family_arrays", lambda args: "near-duplicate families")
wrap(learned, "fit_classifier", lambda args: f"head fit ({args[0].shape[0]} rows)")
from gov.core.corpus.reader import load_corpus
mark("start")
corpus = load_corpus([sys.argv[1]], warn=lambda _m: None)
mark("read the corpus")
indexes.build_index(corpus)
mark("build (the rest)")
last_cpu = stages[0][1]
for what, cpu, peak in stages[1:]:
    if what == "before":
        what = "between stages (surfaces, the gate, arrays)"
    if what != "before" and cpu - last_cpu >= 0.05:
        print(json.dumps({"stage": what, "cpu_s": round(cpu - last_cpu, 2),
                          "peak_rss_mb": round(peak)}))
    last_cpu = cpu
print(json.dumps({"stage": "total", "cpu_s": round(stages[-1][1] - stages[0][1], 2),
                  "peak_rss_mb": round(stages[-1][2])}))
"""


def split(python: str, corpus: Path, work: Path) -> None:
    """A cold build in one process, its CPU seconds and peak RSS after each stage."""
    cache = Path(tempfile.mkdtemp(prefix="cache-", dir=work))
    try:
        child = run([python, "-c", SPLIT, str(corpus)], env={**os.environ,
                                                              "GOV_CACHE_DIR": str(cache)})
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    print(child.stdout.decode().strip() if child.code == 0 else child.stderr[-2000:])


def span(values: list[float], unit: str) -> str:
    low, high = min(values), max(values)
    return f"{low:g} {unit}" if low == high else f"{low:g}-{high:g} {unit}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", action="append", metavar="LABEL=FOLDER",
                        help="a collection of skills (repeatable; default: cct and antigravity "
                             "beside this repository)")
    parser.add_argument("--runs", type=int, default=1, help="rounds of cold, no-op, one edit")
    parser.add_argument("--work", type=Path,
                        default=Path(tempfile.gettempdir()) / "gov-bench-library",
                        help="folder for the copied library, indexes and caches")
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter whose gov builds (default: this one)")
    parser.add_argument("--split", action="store_true",
                        help="instead: one cold build in one process, CPU and peak RSS by stage")
    parser.add_argument("--reuse-corpus", action="store_true",
                        help="keep WORK/corpus if it is there instead of copying it afresh")
    args = parser.parse_args()
    sources = []
    for item in args.source or DEFAULT_SOURCES:
        label, _, folder = item.partition("=")
        if not folder or not Path(folder).is_dir():
            parser.error(f"--source {item!r}: give LABEL=FOLDER, an existing folder")
        sources.append((label, Path(folder)))
    args.work.mkdir(parents=True, exist_ok=True)
    corpus = args.work / "corpus"
    if args.reuse_corpus and (args.work / "corpus.json").is_file() and corpus.is_dir():
        info = json.loads((args.work / "corpus.json").read_text())
    else:
        info = make_corpus(corpus, sources)
    print(json.dumps({"measure": "corpus", "folder": str(corpus), **info}), flush=True)
    if args.split:
        split(args.python, corpus, args.work)
        return 0
    skill = pick_edit(corpus)
    original = skill.read_bytes()
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in TARGETS}
    for round_ in range(args.runs):
        cache = Path(tempfile.mkdtemp(prefix="cache-", dir=args.work))
        index = args.work / "index"
        index.unlink(missing_ok=True)
        try:
            for name in TARGETS:
                if name == "one edit":
                    skill.write_text(edited(original.decode("utf-8")), "utf-8")
                measured = build(args.python, corpus, index, cache)
                measured.update(header_build(index) if index.exists() else {})
                results[name].append(measured)
                print(json.dumps({"measure": name, "round": round_ + 1, **measured}), flush=True)
                time.sleep(1.0)
        finally:
            skill.write_bytes(original)
            shutil.rmtree(cache, ignore_errors=True)
    print(f"\n{info['skills']} skills ({', '.join(f'{k} {v}' for k, v in info['by_source'].items())}),"
          f" {args.runs} round(s); target on 2 cores in brackets")
    print(f"{'build':<10} {'wall':>16} {'CPU (user+sys)':>18} {'peak RSS':>16}  exit")
    for name, (wall_target, rss_target) in TARGETS.items():
        rows = results[name]
        wall = span([row["wall_s"] for row in rows], "s")
        cpu = span([row["cpu_s"] for row in rows], "s")
        rss = span([row["peak_rss_mb"] for row in rows], "MB")
        codes = ",".join(str(row["code"]) for row in rows)
        print(f"{name:<10} {wall:>11} [{wall_target:g}] {cpu:>18} {rss:>10}"
              f" {f'[{rss_target}]' if rss_target else '':>5}  {codes}")
    return 0 if all(row["code"] == 0 for rows in results.values() for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
