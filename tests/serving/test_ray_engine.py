"""Routing on a local Ray cluster gives the single-process output, byte for byte."""

from __future__ import annotations

import importlib.util
import io
import json
from pathlib import Path

import pytest

from gov.core.serving import ray_engine
from tests.conftest import invoke_gov, run_gov

# Ray is imported by the cluster fixture, not at collection (it takes seconds).
pytestmark = pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                                reason="Ray is not installed (pip install 'gov[ray]')")

PROMPTS = [
    "rotate the leaked stripe key", "roll back the release from last night",
    "what is the capital of france", "rename this variable to snake case",
    "who is on call for the payments service tonight", "add a column to the orders table",
]


def make_input(path: Path, count: int = 50) -> bytes:
    lines = []
    for i in range(count):
        if i == 7:
            lines.append("not json")
        elif i == 20:
            lines.append("")
        else:
            lines.append(json.dumps({"id": i, "prompt": f"{PROMPTS[i % len(PROMPTS)]} ({i})"}))
    data = ("\n".join(lines) + "\n").encode()
    path.write_bytes(data)
    return data


def test_shards_hold_whole_batches_and_count_lines(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    make_input(source)
    pieces = ray_engine.shards(source, batch_size=4, shard_records=10)
    assert pieces[0].start == 0 and pieces[0].first_line == 1
    data = source.read_bytes()
    assert b"".join(data[s.start : s.end] for s in pieces) == data
    records = [sum(1 for line in data[s.start : s.end].splitlines() if line.strip())
               for s in pieces]
    assert all(n == 8 for n in records[:-1])  # 10 rounded down to whole batches of 4
    for piece in pieces:
        assert piece.first_line == data[: piece.start].count(b"\n") + 1
    assert ray_engine.shards(tmp_path / "in.jsonl", 4, 1000)[0].end == len(data)


@pytest.fixture(scope="module")
def local_ray() -> object:
    """One local cluster for the module; ``gov route`` subprocesses join it by address."""
    import ray

    context = ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield context.address_info["address"]
    ray.shutdown()


def test_ray_output_equals_single_process(example_index: Path, tmp_path: Path,
                                          local_ray: object) -> None:
    source = tmp_path / "in.jsonl"
    data = make_input(source)
    single = run_gov("route", "-i", str(example_index), "--batch-size", "4", input=data)
    out = io.BytesIO()
    run = ray_engine.route_file(example_index, source, out, concurrency=2, batch_size=4,
                                shard_records=8)
    assert out.getvalue() == single.stdout
    assert (run.rows, run.errors, run.shards) == (49, 1, 7)
    # Each actor that got a shard loaded the index and model once (a busy machine may leave one idle).
    assert 1 <= len(run.load_seconds) <= 2 and all(s > 0 for s in run.load_seconds)


def test_the_command_on_ray_writes_what_the_local_engine_writes(
        example_index: Path, tmp_path: Path, local_ray: str) -> None:
    source = tmp_path / "in.jsonl"
    make_input(source, 20)
    local = run_gov("route", "-i", str(example_index), "--input", str(source))
    assert local.returncode == 1  # one malformed line
    on_ray = run_gov("route", "-i", str(example_index), "--input", str(source), "--engine", "ray",
                     "--actors", "1", env={"RAY_ADDRESS": local_ray})
    assert on_ray.returncode == 1 and on_ray.stdout == local.stdout
    err = on_ray.stderr.decode()
    assert "ray: 20 rows" in err and "1 input line(s) were malformed" in err
    piped = run_gov("route", "-i", str(example_index), "--engine", "ray", "--actors", "1",
                    input=source.read_bytes(), env={"RAY_ADDRESS": local_ray})
    assert piped.stdout == local.stdout


@pytest.mark.parametrize("args", [["a prompt"], ["--text"], ["--format", "json"],
                                  ["--on-error", "fail"]])
def test_the_ray_engine_refuses_what_it_cannot_do(fake_index: Path, args: list[str]) -> None:
    done = invoke_gov("route", "-i", str(fake_index), "--engine", "ray", *args, input=b"")
    assert done.returncode == 2 and "--engine ray" in done.stderr.decode()


def test_parquet_input_on_ray_writes_what_the_local_engine_writes(
        example_index: Path, tmp_path: Path, local_ray: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    prompts = [f"deploy service number {i} to production" for i in range(30)]
    source = tmp_path / "in.parquet"
    pq.write_table(pa.table({"prompt": prompts, "n": list(range(30))}), source, row_group_size=7)
    local = run_gov("route", "-i", str(example_index), "--input", str(source))
    on_ray = run_gov("route", "-i", str(example_index), "--input", str(source), "--engine", "ray",
                     "--actors", "1", env={"RAY_ADDRESS": local_ray})
    assert local.returncode == 0 and on_ray.returncode == 0, on_ray.stderr
    assert on_ray.stdout == local.stdout and len(local.stdout.splitlines()) == 30
