"""gov index's progress bar: on a terminal it counts documents and texts and shows the time
left; without colour under NO_COLOR; not at all in a pipe."""

from __future__ import annotations

import os
import re
import subprocess
import threading
from pathlib import Path

import pytest

from tests.conftest import POLICIES, gov_command, gov_env

COLOUR = re.compile(rb"\x1b\[(?:3[0-9]|9[0-7]|38;)")  # a foreground colour
ESCAPE = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


def _index_on_a_terminal(tmp_path: Path, env: dict[str, str | None]) -> tuple[int, bytes]:
    """``gov index`` with its stderr on a pseudo-terminal (an empty cache unless ``env`` names
    one: it embeds everything)."""
    import pty

    parent, child = pty.openpty()
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(parent, 65536)
            except OSError:  # the child side closed
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        process = subprocess.run(
            gov_command("index", str(POLICIES), "-o", str(tmp_path / "idx")),
            stdout=subprocess.DEVNULL, stderr=child, stdin=subprocess.DEVNULL, timeout=300,
            env=gov_env({"GOV_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "160", **env}),
            check=False)
    finally:
        os.close(child)
        reader.join(timeout=10)
        os.close(parent)
    return process.returncode, b"".join(chunks)


@pytest.mark.slow
@pytest.mark.model
@pytest.mark.parametrize("colour", [False, True])
def test_a_terminal_shows_documents_texts_and_time_left(tmp_path: Path, colour: bool) -> None:
    # uncoloured from an empty cache; coloured with the suite's (the background bank's vectors
    # read back, the documents' texts embedded: the same bar, sooner)
    cache = {} if not colour else {"GOV_CACHE_DIR": os.environ["GOV_CACHE_DIR"]}
    code, shown = _index_on_a_terminal(tmp_path, {"NO_COLOR": None if colour else "1",
                                                  "TERM": "xterm-256color", **cache})
    assert code == 0, shown[-500:]
    plain = ESCAPE.sub(b"", shown)
    assert b"embedding 22 documents" in plain
    done = [(int(a), int(b)) for a, b in re.findall(rb"(\d+)/(\d+) texts", plain)]
    assert done and done[-1][0] == done[-1][1] > 22  # every text counted, and more than one each
    assert re.search(rb"elapsed, +\d+:\d\d:\d\d left", plain)
    assert bool(COLOUR.search(shown)) is colour  # NO_COLOR: the same bar, uncoloured


@pytest.mark.slow
@pytest.mark.model
def test_a_pipe_gets_no_bar(tmp_path: Path) -> None:
    result = subprocess.run(
        gov_command("index", str(POLICIES), "-o", str(tmp_path / "idx")),
        capture_output=True, env=gov_env(),  # the suite's cache: the documents still embed
        timeout=300, check=False)
    assert result.returncode == 0, result.stderr[-500:]
    assert b"embedding" not in result.stderr and b"\x1b[" not in result.stderr
