"""A cache folder gov cannot write (read-only, not a folder, a full disk) ends a build with one
line naming the folder and what to do, never "internal error"."""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from gov.core.encode import cache as embed_cache
from gov.core.encode.cache import embed_missing, model_folder
from gov.core.errors import GovError
from tests.encode.test_cache import DIM, FakeEncoder, use

TEXTS = [f"surface number {i}" for i in range(12)]


def _one_line(exc: GovError, folder: Path) -> str:
    message = str(exc)
    assert "\n" not in message
    assert str(folder) in message
    assert "GOV_EMBED_CACHE=0" in message and "GOV_CACHE_DIR" in message
    return message


def test_a_cache_folder_under_a_file_is_one_line(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("GOV_CACHE_DIR", str(tmp_path / "file" / "cache"))
    monkeypatch.setenv("GOV_EMBED_CACHE", "1")
    use(monkeypatch, FakeEncoder())
    with pytest.raises(GovError) as raised:
        embed_missing(TEXTS, "m", model_sha256="abc", dim=DIM)
    assert raised.value.exit_code == 2
    assert "Not a directory" in _one_line(raised.value, model_folder("m", "abc"))


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_a_read_only_cache_folder_is_one_line(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOV_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("GOV_EMBED_CACHE", "1")
    tmp_path.chmod(0o500)
    use(monkeypatch, FakeEncoder())
    try:
        with pytest.raises(GovError) as raised:
            embed_missing(TEXTS, "m", model_sha256="abc", dim=DIM)
    finally:
        tmp_path.chmod(0o700)
    assert "Permission denied" in _one_line(raised.value, model_folder("m", "abc"))


def test_a_full_disk_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOV_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("GOV_EMBED_CACHE", "1")

    @contextlib.contextmanager
    def full(_path: object, **_kwargs: object) -> Iterator[object]:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        yield  # pragma: no cover

    monkeypatch.setattr(embed_cache, "atomic_writer", full)
    use(monkeypatch, FakeEncoder())
    with pytest.raises(GovError) as raised:
        embed_missing(TEXTS, "m", model_sha256="abc", dim=DIM)
    assert "No space left on device" in _one_line(raised.value, model_folder("m", "abc"))
