"""``gov route --input FILE.parquet``: each row routed as its JSON line would be."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import invoke_gov


def test_parquet_input_routes_as_its_rows_in_jsonl(fake_index: Path, tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rows = [{"prompt": "roll the new build out to production tonight", "id": 1},
            {"prompt": "rotate the leaked api key from the repo", "id": 2},
            {"prompt": None, "id": 3},
            {"prompt": "what is the weather like in Lisbon today?", "id": 4}]
    table = pa.table({"prompt": [r["prompt"] for r in rows], "id": [r["id"] for r in rows]})
    source = tmp_path / "prompts.parquet"
    pq.write_table(table, source, row_group_size=2)
    jsonl = "".join(json.dumps(r) + "\n" for r in rows).encode()
    expected = invoke_gov("route", "-i", str(fake_index), input=jsonl)
    done = invoke_gov("route", "-i", str(fake_index), "--input", str(source))
    assert done.stdout == expected.stdout and done.returncode == expected.returncode == 1
    out = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert [row.get("id") for row in out] == [1, 2, None, 4]
    assert out[2]["error"]["line"] == 3  # the Parquet row number
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"not parquet at all")
    bad = invoke_gov("route", "-i", str(fake_index), "--input", str(broken))
    assert bad.returncode == 2 and "broken.parquet: not a readable Parquet file" in bad.stderr.decode()
    missing = invoke_gov("route", "-i", str(fake_index), "--input", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2 and "no such file" in missing.stderr.decode()
    texts = invoke_gov("route", "-i", str(fake_index), "--input", str(source), "--text")
    assert texts.returncode == 2 and "Parquet" in texts.stderr.decode()
