"""``gov label``: the prompts it picks, the sheet it writes, that ``gov calibrate`` reads the
sheet as is, and the interactive loop (fed its answers as a stream)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from gov.cli.commands.label import label_loop
from gov.core.routing.indexes import load_index
from tests.conftest import EXAMPLES, invoke_gov

ROWS = [json.loads(line) for line in (EXAMPLES / "labelled.jsonl").read_text().splitlines()]


def prompts_file(tmp_path: Path) -> Path:
    path = tmp_path / "history.txt"
    # A duplicate and a blank line, as a real history export has them.
    path.write_text("\n".join([r["prompt"] for r in ROWS] + ["", ROWS[0]["prompt"]]) + "\n")
    return path


def test_label_writes_a_sheet_of_distinct_prompts_with_guesses(fake_index: Path,
                                                               tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.jsonl"
    result = invoke_gov("label", str(prompts_file(tmp_path)), "-i", str(fake_index), "-k", "12",
                        "--out", str(sheet))
    assert result.returncode == 0, result.stderr
    assert b"picked 12 of 134 prompts" in result.stderr
    rows = [json.loads(line) for line in sheet.read_text().splitlines()]
    assert len(rows) == 12 and len({r["prompt"] for r in rows}) == 12
    names = set(load_index(fake_index).names)
    for row in rows:
        assert row["expected"] is None and row["why"]
        assert 1 <= len(row["guesses"]) <= 3
        assert all(g["name"] in names and isinstance(g["score"], float) for g in row["guesses"])
        scores = [g["score"] for g in row["guesses"]]
        assert scores == sorted(scores, reverse=True)
    # Spread across documents: no one best guess takes most of the picks.
    firsts = [r["guesses"][0]["name"] for r in rows]
    assert max(firsts.count(name) for name in firsts) <= 4


def test_the_picks_are_the_uncertain_ones(fake_index: Path) -> None:
    from gov.core.calibration.choose import choose, standing

    router = load_index(fake_index)
    candidates = standing(router, [r["prompt"] for r in ROWS])
    picked = choose(candidates, 10)
    rest = sorted(set(range(len(ROWS))) - set(picked))
    assert candidates.value[picked].mean() > candidates.value[rest].mean()


def test_calibrate_reads_the_sheet_as_is_and_counts_the_unlabelled(fake_index: Path,
                                                                   tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.jsonl"
    assert invoke_gov("label", str(prompts_file(tmp_path)), "-i", str(fake_index), "-k", "20",
                      "--out", str(sheet)).returncode == 0
    rows = [json.loads(line) for line in sheet.read_text().splitlines()]
    truth = {r["prompt"]: r["expected"] for r in ROWS}
    for row in rows[:15]:
        row["expected"] = truth[row["prompt"]]
    sheet.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = invoke_gov("calibrate", "-i", str(fake_index), "--max-fa", "0.1", "--format", "json",
                        input=sheet.read_bytes())
    assert result.returncode == 0, result.stderr
    assert b"skipped 5 rows with no 'expected' yet" in result.stderr
    assert b"15 labels, " in result.stderr
    # No row labelled at all: one line saying so.
    empty = invoke_gov("calibrate", "-i", str(fake_index),
                       input="".join(json.dumps({"prompt": r["prompt"], "expected": None}) + "\n"
                                     for r in rows[:3]))
    assert empty.returncode == 2
    assert b"no labelled prompts to calibrate on (3 rows have no 'expected' yet)" in empty.stderr


def test_jsonl_prompts_keep_their_fields_and_a_bad_line_is_named(fake_index: Path,
                                                                 tmp_path: Path) -> None:
    source = tmp_path / "log.jsonl"
    source.write_text("".join(json.dumps({"prompt": r["prompt"], "ticket": i}) + "\n"
                              for i, r in enumerate(ROWS[:30])))
    result = invoke_gov("label", str(source), "-i", str(fake_index), "-k", "5")
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == 5 and all(isinstance(r["ticket"], int) for r in rows)
    source.write_text(source.read_text() + '{"text": "no prompt here"}\n')
    bad = invoke_gov("label", str(source), "-i", str(fake_index))
    assert bad.returncode == 2
    assert bad.stderr.decode().strip().endswith(f"{source} line 31: field 'prompt' must be a "
                                                "string")


def test_interactive_needs_a_terminal_and_a_sheet(fake_index: Path, tmp_path: Path) -> None:
    prompts = str(prompts_file(tmp_path))
    no_out = invoke_gov("label", prompts, "-i", str(fake_index), "--interactive")
    assert no_out.returncode == 2 and b"--interactive needs --out FILE" in no_out.stderr
    piped = invoke_gov("label", prompts, "-i", str(fake_index), "--interactive", "--out",
                       str(tmp_path / "s.jsonl"))
    assert piped.returncode == 2 and b"--interactive needs a terminal" in piped.stderr


def sheet_rows() -> list[dict[str, Any]]:
    return [{"prompt": f"prompt {i}", "guesses": [{"name": "a", "score": 0.5},
                                                   {"name": "b", "score": 0.4}],
             "expected": None} for i in range(4)]


def answers(*lines: str) -> Any:
    stream: Iterator[str] = iter(lines)
    return lambda _prompt: next(stream, None)


def test_the_loop_labels_one_prompt_at_a_time_saves_and_resumes() -> None:
    rows = sheet_rows()
    saved: list[list[dict[str, Any]]] = []
    said: list[str] = []

    def save(current: Sequence[dict[str, Any]]) -> None:
        saved.append(json.loads(json.dumps(list(current))))

    # A wrong key is asked again; 2 picks the second guess; n: none governs it; q stops.
    done = label_loop(rows, save, answers("7\n", "2\n", "n\n", "q\n"), said.append)
    assert done == (2, 0)
    assert rows[0]["expected"] == ["b"] and rows[1]["expected"] == []
    assert rows[2]["expected"] is None
    assert len(saved) == 2 and saved[-1][1]["expected"] == []
    assert any("answer 1-2, n, s or q" in line for line in said)
    assert any(line.startswith("\n[1/4, 0 answered] prompt 0") for line in said)
    assert said[-1] == "stopped: 2 of 4 answered"
    # Resumed: the answered rows are not asked again; s skips, end of input stops.
    said.clear()
    done = label_loop(rows, save, answers("s\n", "1\n"), said.append)
    assert done == (1, 1)
    assert rows[2].get("skipped") is True and rows[3]["expected"] == ["a"]
    assert said[0].startswith("\n[3/4, 2 answered] prompt 2")
    assert said[-1] == "done: 4 of 4 answered"
