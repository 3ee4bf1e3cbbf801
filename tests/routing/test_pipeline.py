"""The batch entry point gives the rows ``gov route`` writes, error rows included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gov.core.routing.indexes import load_index
from gov.core.routing.pipeline import BatchCounts, route_jsonl, route_rows
from tests.conftest import invoke_gov, run_gov

MIXED = (
    b'\xef\xbb\xbf{"prompt": "rotate the leaked stripe key", "id": 1, "routes": "old"}\n'
    b"not json\n"
    b"\n"
    b'{"id": 3}\n'
    b'{"prompt": 42}\n'
    b'["a list"]\n'
    b"   \n"
    b'{"prompt": "roll back the release from last night", "meta": {"k": [1, null]}}\n'
    b'{"prompt": "what is the capital of france"}\n'
    b'{"prompt": "bad \xff byte"}\n'
)


def cli_rows(index: Path, data: bytes, batch_size: int, *, fresh: bool = True
             ) -> list[dict]:  # type: ignore[type-arg]
    """The rows ``gov route`` writes, from a fresh process or (not ``fresh``) this one."""
    gov = run_gov if fresh else invoke_gov
    result = gov("route", "-i", str(index), "--batch-size", str(batch_size), input=data)
    return [json.loads(line) for line in result.stdout.decode().splitlines()]


@pytest.mark.parametrize("batch_size", [1, 3, 32])
def test_route_jsonl_matches_the_command(example_index: Path, batch_size: int) -> None:
    index = load_index(example_index)
    ours = list(route_jsonl(index, MIXED.splitlines(keepends=True), batch_size=batch_size))
    assert ours == cli_rows(example_index, MIXED, batch_size)
    counts = BatchCounts()
    for row in ours:
        counts.add(row)
    assert (counts.rows, counts.errors) == (8, 5)
    assert counts.abstained == sum(1 for row in ours if row.get("routes") == [])


@pytest.mark.parametrize("batch_size", [1, 3, 32])
def test_route_jsonl_gives_the_command_rows_in_every_shape(fake_index: Path, batch_size: int) -> None:
    index = load_index(fake_index)
    trigger = index.document("secrets-management").trigger.encode()
    data = MIXED + b'{"prompt": "' + trigger + b'", "n": 11}\n'
    ours = list(route_jsonl(index, data.splitlines(keepends=True), batch_size=batch_size))
    assert ours == cli_rows(fake_index, data, batch_size, fresh=False)
    counts = BatchCounts()
    for row in ours:
        counts.add(row)
    assert (counts.rows, counts.errors) == (9, 5)
    assert counts.abstained == sum(1 for row in ours if row.get("routes") == [])
    assert [row.get("error", {}).get("line") for row in ours] == [
        None, 2, 4, 5, 6, None, None, 10, None]
    routed = ours[-1]
    assert routed["n"] == 11 and routed["routes"][0]["name"] == "secrets-management"
    assert set(routed["routes"][0]) == {"name", "score", "lexical", "semantic", "why"}
    assert ours[0]["id"] == 1 and ours[0]["routes"] != "old"  # gov's key replaces the input's
    assert ours[5]["meta"] == {"k": [1, None]}  # other fields pass through untouched


def test_route_rows_passes_fields_through_and_reports_bad_rows(fake_index: Path) -> None:
    index = load_index(fake_index)
    rows = [{"prompt": "rotate the leaked stripe key", "id": 7, "confidence": "x"}, {"id": 8},
            "text", {"prompt": None}]
    out = route_rows(index, rows, lines=[10, 11, 12, 13])
    assert out[0]["id"] == 7 and isinstance(out[0]["routes"], list)
    assert out[0].get("confidence") != "x"  # gov's key replaces the input's
    assert out[1:] == [
        {"error": {"line": 11, "message": "field 'prompt' is missing"}},
        {"error": {"line": 12, "message": "expected a JSON object with a 'prompt' field"}},
        {"error": {"line": 13, "message": "field 'prompt' must be a string"}},
    ]
    assert route_rows(index, []) == []
    with pytest.raises(ValueError, match="line numbers"):
        route_rows(index, rows, lines=[1])


def test_line_numbers_continue_from_first_line(fake_index: Path) -> None:
    index = load_index(fake_index)
    out = list(route_jsonl(index, [b"oops\n", b"\n", b'{"x": 1}\n'], first_line=41))
    assert [row["error"]["line"] for row in out] == [41, 43]
