"""Files gov is pointed at that are not regular files, or far too large: one line each, in
moments (a FIFO used to hang gov route and gov show forever)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from gov.core.bounded import FileTooLarge, NotRegularFile, read_regular
from gov.core.errors import GovError
from gov.core.index.fileformat import read_header
from gov.core.lint.config import load_config
from gov.core.routing.point import load_operating_point
from tests.conftest import run_gov


@pytest.mark.slow
@pytest.mark.parametrize("command", [("route", "roll back the release"), ("show", "deployment")])
def test_an_index_that_is_a_fifo_is_one_line_at_once(tmp_path: Path, command: tuple[str, str]) -> None:
    (tmp_path / ".gov").mkdir()
    os.mkfifo(tmp_path / ".gov" / "index")
    began = time.monotonic()
    result = run_gov(*command, "-i", str(tmp_path / ".gov" / "index"), timeout=10)
    assert time.monotonic() - began <= 3.0
    assert result.returncode == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith(b"gov: error")]
    assert len(errors) == 1, result.stderr
    assert b"Traceback" not in result.stderr and b"internal error" not in result.stderr


def test_an_index_file_that_is_a_fifo_is_refused_unopened(tmp_path: Path) -> None:
    fifo = tmp_path / "index"
    os.mkfifo(fifo)
    with pytest.raises(GovError, match="FIFO"):
        read_header(fifo)


def test_a_point_or_lint_config_that_is_a_fifo_is_an_error(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    for load in (load_operating_point, load_config):
        with pytest.raises(GovError, match="FIFO"):
            load(fifo)  # type: ignore[operator]


def test_a_lint_config_linked_to_a_huge_file_is_refused_unread(tmp_path: Path) -> None:
    huge = tmp_path / "huge"
    with open(huge, "wb") as handle:
        handle.truncate(1536 * 1024 * 1024)  # 1.5 GB, sparse
    link = tmp_path / "gov-lint.json"
    link.symlink_to(huge)
    with pytest.raises(GovError, match="limit"):
        load_config(link)
    with pytest.raises(FileTooLarge):
        read_regular(huge, 1024)
    with pytest.raises(IsADirectoryError):
        read_regular(tmp_path, 1024)
    with pytest.raises(NotRegularFile):
        read_regular("/dev/null", 1024)
