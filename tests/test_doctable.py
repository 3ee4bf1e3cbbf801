"""Document records as arrays: decoded on demand, the same records as before."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from gov.core.doctable import DocumentTable, SurfaceTexts, build_arrays, names_from_bytes


@dataclass
class Doc:
    trigger: str
    examples: list[str]


RECORDS = [{"name": "a", "trigger": "t-a", "examples": []},
           {"name": "b", "trigger": "t-b", "examples": ["e-b1", "e-b2"]},
           {"name": "ü", "trigger": "t-ü", "examples": ["e-ü"]}]


def test_records_decode_lazily_and_once() -> None:
    arrays = build_arrays([r["name"] for r in RECORDS], RECORDS)
    made: list[str] = []

    def make(record: dict) -> Doc:  # type: ignore[type-arg]
        made.append(record["name"])
        return Doc(record["trigger"], record["examples"])

    table = DocumentTable(arrays, make)
    assert len(table) == 3 and made == []
    assert table[1].examples == ["e-b1", "e-b2"] and table[-1].trigger == "t-ü"
    assert table[1] is table[1] and made == ["b", "ü"]
    assert [d.trigger for d in table] == ["t-a", "t-b", "t-ü"]
    assert [d.trigger for d in table[0:2]] == ["t-a", "t-b"]
    with pytest.raises(IndexError):
        table[3]
    assert names_from_bytes(bytes(arrays["doc_names"])) == ["a", "b", "ü"]
    assert names_from_bytes(b"") == []

    surface_doc = np.array([0, 1, 1, 1, 2, 2], dtype=np.int32)
    starts = np.array([0, 1, 4])
    texts = SurfaceTexts(table, surface_doc, starts)
    assert list(texts) == ["t-a", "t-b", "e-b1", "e-b2", "t-ü", "e-ü"]
    assert texts[1:4] == ["t-b", "e-b1", "e-b2"] and len(texts) == 6
