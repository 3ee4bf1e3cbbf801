"""The index file format: an exact, aligned round trip, no pickle, and its version."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gov.core.errors import IndexLoadError
from gov.core.index.fileformat import (
    ALIGN,
    FORMAT_VERSION,
    PREFIX,
    open_index_file,
    read_header,
    write_index_file,
)
from gov.core.routing.indexes import load_index


def test_round_trip_is_exact_and_aligned(tmp_path: Path) -> None:
    arrays = {
        "a": np.arange(10, dtype=np.float32).reshape(2, 5),
        "b": np.array([1, 2, 3], dtype=np.int64),
        "empty": np.zeros(0, dtype=np.float64),
        "bytes": np.frombuffer(b"hello", dtype=np.uint8),
    }
    write_index_file(tmp_path / "f", {"x": 1, "roots": ["p"]}, arrays)
    opened = open_index_file(tmp_path / "f", verify=True)
    assert opened.header["x"] == 1
    for name, array in arrays.items():
        np.testing.assert_array_equal(opened.array(name), array)
        assert opened.header["arrays"][name]["offset"] % ALIGN == 0
    assert read_header(tmp_path / "f")["x"] == 1


def test_no_pickle_anywhere(fake_index: Path) -> None:
    raw = fake_index.read_bytes()
    assert b"\x80\x04\x95" not in raw[:4096]  # a pickle protocol 4 opcode header
    opened = open_index_file(fake_index)
    assert all(entry["dtype"] != "|O" for entry in opened.header["arrays"].values())


def test_another_versions_index(fake_index: Path, tmp_path: Path) -> None:
    data = bytearray(fake_index.read_bytes())
    magic, _version, flags, header_len, total, digest = PREFIX.unpack(bytes(data[: PREFIX.size]))
    data[: PREFIX.size] = PREFIX.pack(magic, FORMAT_VERSION + 1, flags, header_len, total, digest)
    (tmp_path / "v2").write_bytes(bytes(data))
    with pytest.raises(IndexLoadError, match=f"version {FORMAT_VERSION + 1}"):
        load_index(tmp_path / "v2")
