"""``gov label``: pick the prompts whose labels would help most, and a sheet to label them on."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from gov.core.errors import UsageError

from .. import conventions, options, reporters
from ..options import IndexOpt
from ..resolve import open_index

HELP = """Pick the K prompts of a file of real prompts (plain text, one per line, or JSONL with
a "prompt" field: a harness history export, a support log) whose labels would help
calibration most: near the gate, split between two documents, spread across documents, no
near-copies. Writes a labelling sheet (JSONL: the prompt, gov's best guesses with their
scores, why it was picked, and "expected": null) to --out or stdout (--format json: one
array). Fill in "expected" (a
list of document names, [] for a prompt no document governs) in an editor, or with
--interactive in a terminal (1/2/3 picks a guess, n: none governs it, s: skip, q: stop;
the sheet is saved after every answer and a rerun resumes it). `gov calibrate` reads the
sheet as is: rows whose "expected" is still null are skipped and counted.

Example:

    gov label history.txt -i .gov/index -k 25 --out sheet.jsonl

    gov label history.txt -i .gov/index --out sheet.jsonl --interactive

    gov calibrate -i .gov/index --out point.json < sheet.jsonl
"""

Ask = Callable[[str], "str | None"]
Say = Callable[[str], None]


def register(app: typer.Typer) -> None:
    app.command("label", help=HELP)(label_command)


@options.shared(formats=("jsonl", "json"), tty="jsonl")
def label_command(
    prompts: Annotated[Path, typer.Argument(
        help="Real prompts: plain text, one per line, or JSONL with a 'prompt' field.",
        dir_okay=False)],
    index: IndexOpt = None,
    count: Annotated[int, typer.Option(
        "--count", "-k", min=1, max=10_000, help="How many prompts to pick (default 25).",
    )] = 25,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", dir_okay=False,
        help="Write the sheet here (default: stdout); with --interactive, resume it if it "
             "exists.")] = None,
    interactive: Annotated[bool, typer.Option(
        "--interactive", help="Label the sheet here, one prompt at a time (needs a terminal "
                              "and --out).")] = False,
    *,
    view: options.Output,
) -> int:
    from gov.core.calibration import choose

    if interactive and out is None:
        raise UsageError("--interactive needs --out FILE: the sheet is saved after every answer")
    if interactive and not (conventions.is_tty(sys.stdin) and conventions.is_tty(sys.stderr)):
        raise UsageError("--interactive needs a terminal; without one, fill in the sheet's "
                         "'expected' fields in an editor")
    if interactive and out is not None and out.exists():
        rows = choose.read_sheet(out)
        conventions.notice(f"resuming {out}: {_done(rows)} of {len(rows)} rows answered")
    else:
        texts, records = choose.read_prompts(prompts)
        loaded = open_index(index)
        candidates = choose.standing(loaded, texts)
        picked = choose.choose(candidates, count)
        rows = choose.sheet_rows(loaded, candidates, picked, records)
        if out is None:
            sys.stdout.buffer.write(reporters.json_bytes(rows) if view.format == "json"
                                    else b"".join(reporters.json_bytes(row) for row in rows))
            sys.stdout.flush()
        else:
            choose.write_sheet(out, rows)
        conventions.notice(f"picked {len(rows)} of {len(texts)} prompts"
                           + (f"; wrote {out}" if out is not None else ""))
    if interactive and out is not None:
        target = out

        def save(current: Sequence[dict[str, Any]]) -> None:
            choose.write_sheet(target, current)

        def ask(prompt: str) -> str | None:
            sys.stderr.write(prompt)
            sys.stderr.flush()
            line = sys.stdin.readline()
            return line if line else None

        def say(text: str) -> None:
            sys.stderr.write(text + "\n")

        label_loop(rows, save, ask, say)
    elif out is not None:
        conventions.notice(f"fill in 'expected' (names, or [] for none), then: gov calibrate "
                           f"--out point.json < {out}")
    return 0


def _done(rows: Sequence[dict[str, Any]]) -> int:
    return sum(1 for row in rows if row.get("expected") is not None or row.get("skipped"))


def label_loop(rows: list[dict[str, Any]], save: Callable[[Sequence[dict[str, Any]]], None],
               ask: Ask, say: Say) -> tuple[int, int]:
    """Ask for each unanswered row in turn (1/2/3: a guess, n: none, s: skip, q: stop),
    saving after every answer; return (labelled, skipped) in this session. ``ask`` returns
    ``None`` at the end of input (stop, as q does)."""
    from gov.core.sanitize import escape_terminal

    labelled = skipped = 0
    total = len(rows)
    for number, row in enumerate(rows, start=1):
        if row.get("expected") is not None or row.get("skipped"):
            continue
        guesses = [g["name"] for g in row.get("guesses", []) if isinstance(g, dict)
                   and isinstance(g.get("name"), str)][:3]
        say(f"\n[{number}/{total}, {_done(rows)} answered] {escape_terminal(row['prompt'])}")
        for choice, guess in enumerate(row.get("guesses", [])[:3], start=1):
            score = guess.get("score")
            shown = f" ({score:.3f})" if isinstance(score, int | float) else ""
            say(f"  {choice}) {escape_terminal(str(guess.get('name')))}{shown}")
        say("  n) no document governs it   s) skip   q) stop (saved; rerun to resume)")
        while True:
            answer = ask("> ")
            if answer is None:
                say(f"stopped: {_done(rows)} of {total} answered")
                return labelled, skipped
            key = answer.strip().lower()
            if key in ("1", "2", "3") and int(key) <= len(guesses):
                row["expected"] = [guesses[int(key) - 1]]
                row.pop("skipped", None)
                labelled += 1
            elif key == "n":
                row["expected"] = []
                row.pop("skipped", None)
                labelled += 1
            elif key == "s":
                row["skipped"] = True
                skipped += 1
            elif key == "q":
                say(f"stopped: {_done(rows)} of {total} answered")
                return labelled, skipped
            else:
                say(f"  answer 1-{len(guesses)}, n, s or q" if guesses
                    else "  answer n, s or q")
                continue
            save(rows)
            break
    say(f"done: {_done(rows)} of {total} answered")
    return labelled, skipped
