"""The stored index: loading it, and every way its file can be damaged is one clear error."""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import numpy as np
import pytest

from gov.core.corpus.reader import load_corpus
from gov.core.errors import IndexLoadError
from gov.core.index.fileformat import (
    open_index_file,
    write_index_file,
)
from gov.core.index.stored import read_document_names
from gov.core.routing.indexes import build_index, load_index
from tests.conftest import invoke_gov
from tests.fake_encoder import HashedWordsEncoder


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
def test_damage_is_one_error_naming_the_rebuild(fake_index: Path, tmp_path: Path,
                                                name: str, edit, message: str) -> None:  # type: ignore[no-untyped-def]
    bad = corrupt(fake_index, tmp_path / name, edit)
    with pytest.raises(IndexLoadError) as caught:
        load_index(bad)
    assert message in str(caught.value)
    assert "gov index" in str(caught.value)


def test_flipped_array_bit_is_caught_when_verifying(fake_index: Path, tmp_path: Path) -> None:
    data = bytearray(fake_index.read_bytes())
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


def test_model_mismatch_is_an_error(fake_index: Path, tmp_path: Path) -> None:
    opened = open_index_file(fake_index)
    header = dict(opened.header)
    header.pop("arrays")
    header["model"] = dict(header["model"], sha256="0" * 64)
    arrays = {name: np.array(opened.array(name)) for name in opened.header["arrays"]}
    write_index_file(tmp_path / "other", header, arrays)
    with pytest.raises(IndexLoadError, match="different model file"):
        load_index(tmp_path / "other")


def test_document_names_from_the_header_alone(fake_index: Path) -> None:
    names = read_document_names(fake_index)
    assert "deployment" in names and "legacy-release-train" not in names


@pytest.mark.slow
def test_truncated_at_every_tenth_byte_is_one_clear_error(tmp_path: Path,
                                                          fake_encoder: HashedWordsEncoder) -> None:
    import io

    docs = b"".join(json.dumps({"name": f"d{i}", "trigger": f"topic {i} words", "examples": [f"ex {i}"]})
                    .encode() + b"\n" for i in range(3))
    small = tmp_path / "small"
    build_index(load_corpus(["-"], stdin=io.BytesIO(docs))).write(small)
    data = small.read_bytes()
    bad = tmp_path / "cut"
    for offset in range(0, len(data), 10):
        bad.write_bytes(data[:offset])
        with pytest.raises(IndexLoadError) as caught:
            load_index(bad)
        assert "gov index" in str(caught.value), offset


def test_symlink_loop_and_directory(tmp_path: Path) -> None:
    os.symlink(tmp_path / "b", tmp_path / "a")
    os.symlink(tmp_path / "a", tmp_path / "b")
    with pytest.raises(IndexLoadError, match="cannot open the index"):
        load_index(tmp_path / "a")
    result = invoke_gov("route", "x", "-i", str(tmp_path / "a"))
    assert result.returncode == 2 and "Traceback" not in result.stderr.decode()
