#!/usr/bin/env python3
"""What a hostile index or corpus costs now: the cases of the untrusted-input issue, each
through the real command in a fresh process, measured alone (wall, CPU, peak RSS, exit
code, first line of stderr). One JSON line per case::

    python benchmarks/bench_untrusted.py [--work DIR]

Indexes are crafted from an index of ``examples/policies`` with the real writer (every
checksum right), as a repository shipping ``.gov/index`` could; corpora are folders of
skills with a YAML alias bomb, a link to ``/dev/zero``, a FIFO and links back to the root.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

from bench_build import run_measured  # noqa: E402

from tests.index.crafted import craft  # noqa: E402

PROMPT = "roll back the release from last night, checkout is throwing 500s"
GOV = [sys.executable, "-m", "gov.cli.entry"]


def _set(name: str, position: int, value: Any):  # type: ignore[no-untyped-def]
    def change(_header: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        arrays[name][position] = value
    return change


def _header(**fields: Any):  # type: ignore[no-untyped-def]
    def change(header: dict[str, Any], _arrays: dict[str, np.ndarray]) -> None:
        header.update(fields)
    return change


def bomb_skill(folder: Path) -> None:
    lines = ["---", "name: bomb", "description: Rotating keys", "a: &a [x,x,x,x,x,x,x,x,x]"]
    for level in "bcdefgh":
        previous = chr(ord(level) - 1)
        lines.append(f"{level}: &{level} [" + ",".join([f"*{previous}"] * 9) + "]")
    lines += ["depends_on: [*h,*h,*h,*h,*h,*h,*h,*h,*h]", "---", "Body."]
    (folder / "bomb").mkdir(parents=True)
    (folder / "bomb" / "SKILL.md").write_text("\n".join(lines) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path,
                        default=Path(tempfile.gettempdir()) / "gov-untrusted-costs")
    args = parser.parse_args()
    work = args.work
    work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GOV_CACHE_DIR": str(work / "cache"), "NO_COLOR": "1",
           "GOV_RUNTIME_DIR": tempfile.mkdtemp(prefix="gov-rt-")}
    env.pop("GOV_TELEMETRY_PATH", None)
    good = work / "index"
    if not good.exists():
        run_measured([*GOV, "index", str(REPO / "examples" / "policies"), "-o", str(good), "-q"],
                     env)
    crafted = {
        "int32 2^31-1 in surface_doc (sized a bincount)": _set("surface_doc", 3, 2**31 - 1),
        "int32 2^31-1 in lex_col_rows (sized a bincount)": _set("lex_col_rows", 10, 2**31 - 1),
        "header names another fastembed model": _header(model={
            "id": "BAAI/bge-small-en-v1.5", "dim": 384, "sha256": None}),
        "header roots of /": lambda header, _arrays: (
            header.update(roots=["/"]), header["corpus"].update(base="/")),
    }
    hook_input = work / "hook.json"
    hook_input.write_text(json.dumps({"prompt": PROMPT, "cwd": "/tmp"}))
    for case, change in crafted.items():
        path = craft(good, work / f"crafted-{len(case)}", change)
        for command in (["route", PROMPT, "-i", str(path), "--format", "jsonl"],
                        ["hook", "codex", "-i", str(path), "--serve", "never"]):
            argv = [*GOV, *command]
            if command[0] == "hook":
                argv = ["sh", "-c", '"$@" < "$0"', str(hook_input), *argv]
            measured = run_measured(argv, env)
            first = measured.pop("stderr_tail").strip().splitlines()
            print(json.dumps({"case": case, "command": command[0], **measured,
                              "stderr_last_line": first[-1][:160] if first else ""}), flush=True)
    corpus = work / "hostile-corpus"
    if not corpus.exists():
        bomb_skill(corpus)
        (corpus / "keys").mkdir()
        (corpus / "keys" / "SKILL.md").write_text(
            "---\nname: keys\ndescription: Rotating the keys of a service\n---\nBody.\n")
        for name in ("a", "b"):
            (corpus / name).symlink_to(".")
        (corpus / "zero.md").symlink_to("/dev/zero")
        os.mkfifo(corpus / "pipe.md")
    output = work / "hostile-index"
    output.unlink(missing_ok=True)
    measured = run_measured([*GOV, "index", str(corpus), "-o", str(output)], env)
    tail = measured.pop("stderr_tail")
    print(json.dumps({"case": "corpus: YAML alias bomb (394 bytes), /dev/zero link, FIFO, "
                      "two links to .", "command": "index", **measured,
                      "index_kb": round(output.stat().st_size / 1024, 1) if output.exists()
                      else None, "warnings": tail.count("warning")}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
