"""The index file: round trip, and every way it can be damaged is one clear error."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from gov.core.errors import IndexLoadError
from gov.core.index.fileformat import ALIGN, open_index_file, read_header, write_index_file
from gov.core.index.stored import read_document_names
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


def test_no_pickle_anywhere(example_index: Path) -> None:
    raw = example_index.read_bytes()
    assert b"\x80\x04\x95" not in raw[:4096]  # a pickle protocol 4 opcode header
    opened = open_index_file(example_index)
    assert all(entry["dtype"] != "|O" for entry in opened.header["arrays"].values())


def corrupt(src: Path, dst: Path, edit) -> Path:  # type: ignore[no-untyped-def]
    data = bytearray(src.read_bytes())
    dst.write_bytes(bytes(edit(data)))
    return dst


@pytest.mark.parametrize(
    ("name", "edit", "message"),
    [
        ("truncated", lambda d: d[: len(d) // 2], "truncated"),
        ("tiny", lambda d: d[:10], "too short"),
        ("trailing", lambda d: d + b"extra", "trailing bytes"),
        ("magic", lambda d: b"NOTANIDX" + d[8:], "not a gov index"),
        ("version", lambda d: d[:8] + struct.pack("<I", 99) + d[12:], "format version 99"),
        ("header-bit", lambda d: d[:100] + bytes([d[100] ^ 1]) + d[101:], "checksum"),
    ],
)
def test_damage_is_one_error_naming_the_rebuild(example_index: Path, tmp_path: Path,
                                                name: str, edit, message: str) -> None:  # type: ignore[no-untyped-def]
    bad = corrupt(example_index, tmp_path / name, edit)
    with pytest.raises(IndexLoadError) as caught:
        load_index(bad)
    assert message in str(caught.value)
    assert "gov index" in str(caught.value)


def test_flipped_array_bit_is_caught_when_verifying(example_index: Path, tmp_path: Path) -> None:
    data = bytearray(example_index.read_bytes())
    data[-5] ^= 0x10  # inside the last array
    bad = tmp_path / "flipped"
    bad.write_bytes(bytes(data))
    load_index(bad)  # a mapped one-shot load checks the header only
    with pytest.raises(IndexLoadError, match="fails its checksum"):
        load_index(bad, verify=True)


def test_directory_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(IndexLoadError, match="is a folder"):
        load_index(tmp_path)
    with pytest.raises(IndexLoadError, match="no index here"):
        load_index(tmp_path / "nope")


def test_model_mismatch_is_an_error(example_index: Path, tmp_path: Path) -> None:
    opened = open_index_file(example_index)
    header = dict(opened.header)
    header.pop("arrays")
    header["model"] = dict(header["model"], sha256="0" * 64)
    arrays = {name: np.array(opened.array(name)) for name in opened.header["arrays"]}
    write_index_file(tmp_path / "other", header, arrays)
    with pytest.raises(IndexLoadError, match="different model file"):
        load_index(tmp_path / "other")


def test_document_names_from_the_header_alone(example_index: Path) -> None:
    names = read_document_names(example_index)
    assert "deployment" in names and "legacy-release-train" not in names
