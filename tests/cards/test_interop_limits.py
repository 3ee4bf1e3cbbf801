"""Hostile A2A and MCP input to ``gov card import``: a huge key, a huge stdin."""

from __future__ import annotations

import io
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from gov.core.cards import a2a
from gov.core.cards.interop import import_cards
from gov.core.cards.sources import CARDS_LIMIT, CardSourceError


def _nested_under_a_long_key(key_chars: int, depth: int = 40) -> bytes:
    """A response whose every level sits under one long key: the paths gov names grow with
    each level unless the key is refused first."""
    key = "k" * key_chars
    inner: dict[str, object] = {"parts": [{"data": {"card_type": "task", "schema_version": "1"},
                                           "metadata": {a2a.EXTENSION_URI: {}}}]}
    for _ in range(depth):
        inner = {key: inner}
    return orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": inner})


def test_a_key_over_the_limit_is_one_problem_and_nothing_is_read() -> None:
    data = _nested_under_a_long_key(a2a.MAX_KEY_CHARS + 1, depth=3)
    items = list(import_cards(["-"], stdin=io.BytesIO(data)).items)
    assert len(items) == 1
    assert items[0].value is None and items[0].problem is not None
    assert f"a key of {a2a.MAX_KEY_CHARS + 1:,} characters" in items[0].problem
    assert len(items[0].problem) < 300


def test_a_key_at_the_limit_is_read() -> None:
    data = _nested_under_a_long_key(a2a.MAX_KEY_CHARS, depth=3)
    items = list(import_cards(["-"], stdin=io.BytesIO(data)).items)
    assert len(items) == 1 and items[0].value == {"card_type": "task", "schema_version": "1"}


def test_stdin_over_the_cards_limit_is_refused_unparsed() -> None:
    class Endless(io.RawIOBase):
        served = 0

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
            buffer[:] = b" " * len(buffer)
            self.served += len(buffer)
            return len(buffer)

    source = Endless()
    with pytest.raises(CardSourceError, match="over the"):
        list(import_cards(["-"], stdin=io.BufferedReader(source)).items)
    assert source.served <= CARDS_LIMIT + 2 * io.DEFAULT_BUFFER_SIZE


_MEASURED = ("import resource, subprocess, sys\n"
             "code = subprocess.run(sys.argv[1:]).returncode\n"
             "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
             "sys.stderr.write(f'PEAK_KB={peak}\\n')\n"
             "sys.exit(code)")


@pytest.mark.slow
def test_a_30_mb_key_through_the_cli_is_one_line_in_little_memory(tmp_path: Path) -> None:
    """A 30 MB key (twice, in a 60 MB response) is one line, read in little memory."""
    from tests.conftest import gov_command, gov_env

    data = _nested_under_a_long_key(30_000_000, depth=2)
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-c", _MEASURED,
                             *gov_command("card", "import", "--from", "a2a", "-")],
                            input=data, capture_output=True, env=gov_env(None), timeout=120,
                            check=False)
    assert time.monotonic() - started < 60
    err = result.stderr.decode()
    lines = err.strip().splitlines()
    peak_mb = int(lines[-1].removeprefix("PEAK_KB=")) / 1024
    assert result.returncode == 2, err[-500:]  # bad input
    assert any("a key of 30,000,000 characters" in line for line in lines), err[-500:]
    assert len(result.stderr) < 2000 and len(result.stdout) < 2000
    assert "internal error" not in err
    print(f"peak {peak_mb:.0f} MB")
    assert peak_mb < 600, f"{peak_mb:.0f} MB"
