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
