"""The hook over crafted indexes: whatever byte, number or header field changed (checksums
recomputed), exit 0, stdout empty or one hook object, at most one line on stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gov.core.index.fileformat import write_index_file
from tests.conftest import POLICIES, REPO
from tests.fuzz.index_mutations import hook_turn, load, mutate, well_behaved


@pytest.fixture(scope="module")
def ann_index(example_index: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example corpus with an approximate-search graph (its vectors reused)."""
    pytest.importorskip("usearch")
    from gov.core.corpus.reader import load_corpus
    from gov.core.routing.indexes import build_index

    path = tmp_path_factory.mktemp("ann") / "index"
    build_index(load_corpus([POLICIES], warn=lambda _m: None), previous=example_index, ann=True,
                ann_candidates=8).write(path)
    return path


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.binary(min_size=7, max_size=12))
def test_hook_over_a_crafted_index_exits_0_with_one_line_at_most(
        data: bytes, example_index: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    target = tmp_path_factory.mktemp("mutated", numbered=True) / "index"
    write_index_file(target, *mutate(*load(example_index), data))
    problem = well_behaved(*hook_turn(target))
    assert problem is None, (data.hex(), problem)


@pytest.mark.parametrize("only, count", [("ann_usearch", 150), (None, 150)])
def test_hook_over_mutated_ann_graphs_never_crashes(ann_index: Path, only: str | None,
                                                    count: int) -> None:
    """In a child process: a graph that made usearch read out of bounds would kill it
    (exit -11), as it killed the hook before the graph's layout was checked."""
    args = [str(ann_index), str(count), "7"] + ([only] if only else [])
    result = subprocess.run([sys.executable, "-m", "tests.fuzz.index_mutations", *args],
                            cwd=REPO, capture_output=True, timeout=900, check=False,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-2000:]
    tally = json.loads(result.stdout.splitlines()[-1])
    assert tally["runs"] == count and tally["bad"] == []


def test_the_real_hook_prints_one_line_for_a_header_naming_another_model(
        example_index: Path, tmp_path: Path) -> None:
    """Through the console script: fastembed's own log lines stay out of the hook's stderr."""
    from tests.index.crafted import craft

    path = craft(example_index, tmp_path / "idx", lambda header, _a: header.update(
        model={"id": "BAAI/bge-small-en-v1.5", "dim": 384, "sha256": None}))
    payload = json.dumps({"prompt": "roll back the release from last night", "cwd": "/tmp"})
    result = subprocess.run([sys.executable, "-m", "gov.cli.entry", "hook", "codex", "-i",
                             str(path), "--serve", "never"], input=payload.encode(),
                            capture_output=True, timeout=120, check=False,
                            env={**os.environ, "GOV_CACHE_DIR": str(tmp_path / "cache")})
    assert result.returncode == 0
    assert result.stderr.count(b"\n") <= 1, result.stderr
    assert "words only" in json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
