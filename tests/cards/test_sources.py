"""Reading cards: one card, an array, or JSON Lines, each card with its file and line."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from gov.core.cards.sources import CardSourceError, parse_document, read_cards, resolve

from .conftest import base_card


def records(data: bytes) -> list[tuple[int | None, int | None, object, str | None]]:
    return [(r.line, r.index, r.value, r.error) for r in parse_document(data, "f")]


def test_single_pretty_card_reports_the_line_it_starts_on() -> None:
    card = base_card()
    got = records(b"\n\n" + json.dumps(card, indent=2).encode())
    assert got == [(3, None, card, None)]


def test_array_elements_keep_their_index_and_start_line() -> None:
    a, b = base_card(task_id="a"), base_card(task_id='b, [tricky] {"x"}')
    text = "[\n  " + json.dumps(a, indent=2).replace("\n", "\n  ") + ",\n\n  " + json.dumps(b) + "\n]"
    got = records(text.encode())
    assert [(line, index) for line, index, _, _ in got] == [
        (2, 0),
        (2 + len(json.dumps(a, indent=2).splitlines()) + 1, 1),
    ]
    assert [value for _, _, value, _ in got] == [a, b]


def test_empty_array_and_empty_file_hold_no_cards() -> None:
    assert records(b"[]") == []
    assert records(b"  \n") == []


def test_jsonl_keeps_line_numbers_across_blank_and_broken_lines() -> None:
    a, b = base_card(task_id="a"), base_card(task_id="b")
    data = (json.dumps(a) + "\n\n{not json}\n" + json.dumps(b) + "\n").encode()
    got = records(data)
    assert [(line, value) for line, _, value, _ in got] == [(1, a), (3, None), (4, b)]
    assert got[1][3] is not None and got[1][3].startswith("invalid JSON")


def test_jsonl_with_a_broken_first_line_still_reads_the_rest() -> None:
    data = b'{"task_id": "a", oops}\n' + json.dumps(base_card()).encode() + b"\n"
    got = records(data)
    assert got[0][3] is not None and got[1][2] == base_card()


def test_broken_pretty_json_is_one_error_at_its_line() -> None:
    got = records(b'{\n  "task_id": "a",\n  oops\n}\n')
    assert len(got) == 1 and got[0][0] == 3 and got[0][3] is not None


def test_bom_is_ignored() -> None:
    assert records(b"\xef\xbb\xbf" + json.dumps(base_card()).encode()) == [(1, None, base_card(), None)]


def test_resolve_expands_directories_and_globs_in_order(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    for name in ("b.json", "a.jsonl", "sub/c.json", "notes.txt"):
        (tmp_path / name).write_text("{}")
    assert resolve([str(tmp_path)]) == [str(tmp_path / n) for n in ("a.jsonl", "b.json", "sub/c.json")]
    assert resolve([str(tmp_path / "*.json")]) == [str(tmp_path / "b.json")]
    assert resolve([str(tmp_path / "**" / "*.json")]) == [
        str(tmp_path / "b.json"), str(tmp_path / "sub" / "c.json")
    ]  # fmt: skip


@pytest.mark.parametrize("spec", ["missing.json", "nothing-*.json"])
def test_resolve_refuses_paths_that_name_no_file(tmp_path: Path, spec: str) -> None:
    with pytest.raises(CardSourceError, match=r"missing\.json|nothing-"):
        resolve([str(tmp_path / spec)])


def test_read_cards_reads_stdin_for_dash() -> None:
    stdin = io.BytesIO(json.dumps(base_card()).encode())
    [record] = list(read_cards(["-"], stdin))
    assert (record.file, record.line, record.value) == ("-", 1, base_card())


# --- a JSON Lines file is read line by line, whatever its first line holds ---------------

BROKEN_FIRST_LINES = [b'{"task_id": "a",', b"garbage", b"[1, 2", b'"unterminated', b"{", b"]"]


@pytest.mark.parametrize("first", BROKEN_FIRST_LINES)
def test_a_jsonl_file_with_a_broken_first_line_gives_one_result_per_line(tmp_path: Path, first: bytes) -> None:
    a, b = base_card(task_id="a"), base_card(task_id="b")
    path = tmp_path / "cards.jsonl"
    path.write_bytes(first + b"\n" + json.dumps(a).encode() + b"\n\n" + json.dumps(b).encode() + b"\n")
    got = [(r.line, r.value, r.error is not None) for r in read_cards([str(path)])]
    assert got == [(1, None, True), (2, a, False), (4, b, False)]


@pytest.mark.parametrize("first", BROKEN_FIRST_LINES)
def test_stdin_with_a_broken_first_line_is_read_as_json_lines_when_later_lines_are_cards(first: bytes) -> None:
    a = base_card(task_id="a")
    stdin = io.BytesIO(first + b"\n" + json.dumps(a).encode() + b"\n")
    got = [(r.line, r.value, r.error is not None) for r in read_cards(["-"], stdin)]
    assert got == [(1, None, True), (2, a, False)]


@pytest.mark.slow
def test_verify_reports_every_line_of_a_jsonl_file_with_a_broken_first_line(tmp_path: Path) -> None:
    from tests.conftest import run_gov

    from .conftest import NOW, jsonl

    path = tmp_path / "run.jsonl"
    cards = [base_card(task_id=f"t-{n}") for n in range(3)]
    path.write_text('{"task_id": "t-0", "outcome": \n' + "".join(json.dumps(c) + "\n" for c in cards[1:]))
    out = run_gov("card", "verify", str(path), "--now", NOW, "-f", "jsonl")
    results = jsonl(out.stdout)
    assert [(r["line"], r["valid"]) for r in results] == [(1, False), (2, True), (3, True)]
    assert results[0]["errors"][0]["rule"] == "json"
    assert out.returncode == 1


# --- a pattern that matches nothing is a note when another pattern matched ---------------


def test_a_pattern_matching_nothing_is_a_note_when_another_matched(tmp_path: Path) -> None:
    from gov.core.cards.sources import resolve_sources

    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "a.json").write_text("{}")
    (tmp_path / "empty").mkdir()
    got = resolve_sources([str(tmp_path / "cards/**/*.json"), str(tmp_path / "cards/**/*.jsonl"),
                           str(tmp_path / "empty")])  # fmt: skip
    assert got.paths == [str(tmp_path / "cards" / "a.json")]
    assert got.notes == [f"{tmp_path / 'cards/**/*.jsonl'}: no file matches this pattern",
                         f"{tmp_path / 'empty'}: directory holds no .json or .jsonl files"]  # fmt: skip
    with pytest.raises(CardSourceError, match=r"\*\*/\*\.jsonl: no file matches"):
        resolve_sources([str(tmp_path / "cards/**/*.jsonl"), str(tmp_path / "x/*.json")])
    with pytest.raises(CardSourceError, match=r"missing\.json: no such file"):
        resolve_sources([str(tmp_path / "cards/**/*.json"), str(tmp_path / "missing.json")])


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["json", "jsonl"])
def test_the_documented_ci_step_passes_in_a_repository_with_one_kind_of_card(tmp_path: Path, kind: str) -> None:
    import os
    import re
    import subprocess

    import yaml

    from tests.conftest import gov_on_path

    from .conftest import REPO

    workflow = yaml.safe_load((REPO / "examples" / "ci" / "github-actions.yml").read_text())
    [example_step] = [s for s in workflow["jobs"]["verify-cards"]["steps"]
                      if s.get("name") == "gov card verify"]  # fmt: skip
    docs = (REPO / "docs" / "cards.md").read_text()
    [block] = [b for b in re.findall(r"```yaml\n(.*?)```", docs, re.DOTALL) if "gov card verify '" in b
               or "gov card verify cards" in b]  # fmt: skip
    [docs_step] = yaml.safe_load(block)
    repo = tmp_path / "repo"
    (repo / "cards" / "sub").mkdir(parents=True)
    card = json.dumps(base_card(timestamp="2025-06-01T09:00:00Z"))
    (repo / "cards" / "sub" / f"run.{kind}").write_text(card + "\n")
    env = gov_on_path(tmp_path, {**os.environ, "NO_COLOR": "1", "GIT_AUTHOR_DATE": "2025-06-01T12:00:00Z",
                                 "GIT_COMMITTER_DATE": "2025-06-01T12:00:00Z"})  # fmt: skip
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "-C", str(repo), "add", "."], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-qm", "cards"], check=True, env=env)
    for step in (example_step, docs_step):
        out = subprocess.run(["sh", "-c", step["run"]], cwd=repo, env=env, capture_output=True,
                             timeout=60, check=False)  # fmt: skip
        assert out.returncode == 0, (step["run"], out.stderr.decode())
