"""Document records as arrays: decoded on demand, the same records as before."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from gov.core.index.doctable import DocumentTable, SurfaceTexts, build_arrays, names_from_bytes


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


def test_an_index_keeps_records_in_arrays_and_still_reads_old_headers(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from gov.core.corpus.reader import Document, load_corpus
    from gov.core.index.fileformat import open_index_file, write_index_file
    from gov.core.index.stored import read_document_names
    from gov.core.routing.indexes import build_index, load_index

    source = tmp_path / "docs.jsonl"
    source.write_text("".join(
        f'{{"name": "doc-{i}", "trigger": "rotate the {w} keys of team {i}", '
        f'"examples": ["{w} rotation {i}"], "body": "body {i}"}}\n'
        for i, w in enumerate(["api", "ssh", "tls", "gpg", "db"])))
    corpus = load_corpus([source])
    assert isinstance(corpus.documents[0], Document)
    new = tmp_path / "new"
    build_index(corpus, lexical_only=True).write(new)
    opened = open_index_file(new)
    assert "documents" not in opened.header
    assert read_document_names(new) == [f"doc-{i}" for i in range(5)]

    # The layout before the document table: records in the header, no lookup arrays.
    old_header = dict(opened.header)
    old_header.pop("arrays")
    table = DocumentTable({n: opened.array(n) for n in ("doc_records", "doc_record_offsets")},
                          dict)
    old_header["documents"] = list(table)
    keep = {n: np.array(opened.array(n)) for n in opened.header["arrays"]
            if not n.startswith(("doc_", "vocab_"))}
    old = tmp_path / "old"
    write_index_file(old, old_header, keep)
    assert read_document_names(old) == read_document_names(new)

    fresh, legacy = load_index(new), load_index(old)
    assert fresh.names == legacy.names and list(fresh.scorer.surface_texts) == list(legacy.scorer.surface_texts)
    assert fresh.document("doc-3") == legacy.document("doc-3") and fresh.text("doc-2") == "body 2"
    for prompt in ("rotate tls keys for team 2", "ssh rotation", "nothing here"):
        assert fresh.route(prompt, record=False) == legacy.route(prompt, record=False)


def test_names_read_one_at_a_time_and_compare_as_a_list() -> None:
    from gov.core.index.doctable import NameTable

    arrays = build_arrays(["a", "bé", "c"], [{}, {}, {}])
    names = NameTable(arrays["doc_names"], arrays["doc_name_offsets"])
    assert names[1] == "bé" and names[-1] == "c" and names[0:2] == ["a", "bé"]
    expected = ["a", "bé", "c"]
    assert names == expected and expected == names and names != ["a"]
    assert list(names) == ["a", "bé", "c"] and len(names) == 3
    with pytest.raises(IndexError):
        names[3]
