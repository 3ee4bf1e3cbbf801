"""An index whose header or array manifest misses keys: one error naming what is wrong,
never ``internal error: KeyError``."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import orjson
import pytest

from gov.core.errors import GovError
from gov.core.index.fileformat import PREFIX, _align, read_array_bytes
from gov.core.index.stored import open_stored, read_document_names

ENTRY_KEYS = ("dtype", "shape", "offset", "nbytes", "sha256")


def _rewrite(source: Path, target: Path, change: Any) -> None:
    raw = source.read_bytes()
    magic, version, flags, header_len, _total, _digest = PREFIX.unpack(raw[:PREFIX.size])
    header = orjson.loads(raw[PREFIX.size:PREFIX.size + header_len])
    arrays = raw[_align(PREFIX.size + header_len):]
    change(header)
    body = orjson.dumps(header)
    start = _align(PREFIX.size + len(body))
    total = start + len(arrays)
    prefix = PREFIX.pack(magic, version, flags, len(body), total, hashlib.sha256(body).digest())
    target.write_bytes(prefix + body + bytes(start - PREFIX.size - len(body)) + arrays)


def _drop_entry_key(key: str) -> Any:
    def change(header: dict[str, Any]) -> None:
        for entry in header["arrays"].values():
            entry.pop(key, None)
    return change


@pytest.mark.parametrize("key", ENTRY_KEYS)
def test_a_manifest_entry_missing_a_key_is_one_line(_fake_index_file: Path, tmp_path: Path,
                                                    key: str) -> None:
    crafted = tmp_path / "index"
    _rewrite(_fake_index_file, crafted, _drop_entry_key(key))
    with pytest.raises(GovError) as caught:
        open_stored(crafted, verify=True)
    assert "\n" not in str(caught.value) and str(crafted) in str(caught.value)
    for load in (lambda: read_document_names(crafted),
                 lambda: read_array_bytes(crafted, "doc_offsets")):
        try:
            load()  # a reader that needs no array may succeed; none may raise anything else
        except GovError as exc:
            assert "\n" not in str(exc)


def test_every_header_key_dropped_is_one_line(_fake_index_file: Path, tmp_path: Path) -> None:
    raw = _fake_index_file.read_bytes()
    header_len = PREFIX.unpack(raw[:PREFIX.size])[3]
    keys = list(orjson.loads(raw[PREFIX.size:PREFIX.size + header_len]))
    for key in keys:
        crafted = tmp_path / f"index-{key}"
        _rewrite(_fake_index_file, crafted, lambda header, key=key: header.pop(key))
        try:
            open_stored(crafted, verify=True)
        except GovError as exc:
            assert "\n" not in str(exc)
