"""Sinks: whole-line appends under concurrency, precedence, and never raising."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path
from typing import Any

import orjson
import pytest

from gov.core import telemetry
from gov.core.telemetry.report import summarize

WRITERS = 8
EVENTS_EACH = 1500


def _event(**fields: Any) -> dict[str, Any]:
    return telemetry.make_event(**{"outcome": "routed", "adapter": "hook",
                                   "routes": ["deployment"], **fields})


def _writer(path: str, writer: int, go: Any, via_env: bool) -> None:
    """One hook-like process appending EVENTS_EACH events; the sequence rides in corpus_size."""
    if via_env:
        os.environ[telemetry.ENV_PATH] = path
    else:
        telemetry.set_sink(telemetry.JsonlSink(path))
    # Long, varied lines (up to ~3.5 KB) so that a torn or interleaved write would show.
    names = [f"{chr(97 + writer)}-{i}-" + "-".join(["governing-policy"] * 11)
             for i in range(telemetry.MAX_ROUTES)]
    go.wait()
    for seq in range(EVENTS_EACH):
        telemetry.emit(telemetry.make_event(
            outcome="routed", adapter="hook", routes=names[: 1 + (seq * 7 + writer) % 16],
            corpus_size=writer * 1_000_000 + seq, attempts=writer + 1,
        ))


@pytest.mark.slow
def test_concurrent_writers_never_tear_or_interleave_lines(tmp_path: Path) -> None:
    path = str(tmp_path / "state" / "telemetry.jsonl")  # the folder does not exist yet
    context = multiprocessing.get_context("spawn")
    go = context.Event()
    workers = [context.Process(target=_writer, args=(path, w, go, w % 2 == 0))
               for w in range(WRITERS)]
    for worker in workers:
        worker.start()
    go.set()
    for worker in workers:
        worker.join(timeout=300)
        assert worker.exitcode == 0
    data = Path(path).read_bytes()
    assert data.endswith(b"\n")
    lines = data.split(b"\n")[:-1]
    assert len(lines) == WRITERS * EVENTS_EACH
    seen: dict[int, list[int]] = {w: [] for w in range(WRITERS)}
    for line in lines:
        event = telemetry.validate_event(orjson.loads(line))  # every line whole and valid
        writer, seq = divmod(event["corpus_size"], 1_000_000)
        assert event["attempts"] == writer + 1
        assert all(name[0] == chr(97 + writer) for name in event["routes"])
        seen[writer].append(seq)
    for writer in range(WRITERS):
        assert seen[writer] == list(range(EVENTS_EACH))  # each writer's lines, in its order


def test_each_event_is_one_line_appended(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"earlier": "content stays"}\n')
    sink = telemetry.JsonlSink(path)
    sink.emit(_event())
    sink.emit(_event(routes=["on-call"]))
    lines = path.read_bytes().splitlines()
    assert lines[0] == b'{"earlier": "content stays"}'
    assert [orjson.loads(line)["routes"] for line in lines[1:]] == [["deployment"], ["on-call"]]


def test_short_writes_are_finished(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.jsonl"
    real_write = os.write
    calls = []

    def dribble(fd: int, data: Any) -> int:
        calls.append(len(data))
        return real_write(fd, bytes(data[:7]))

    monkeypatch.setattr(os, "write", dribble)
    telemetry.JsonlSink(path).emit(_event())
    monkeypatch.undo()
    assert len(calls) > 10
    assert orjson.loads(path.read_bytes())["routes"] == ["deployment"]


def test_a_torn_tail_costs_only_itself(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"ts":"2026-12-01T10:00:00.000Z","v":1,"outco')  # a writer died here
    telemetry.JsonlSink(path).emit(_event())
    lines = path.read_bytes().splitlines()
    assert len(lines) == 2 and orjson.loads(lines[1])["outcome"] == "routed"
    report = summarize(path.open("rb"))
    assert report["events"] == 1 and report["skipped_lines"]["torn"] == 1


def test_no_sink_by_default() -> None:
    assert telemetry.active_sink() is None and not telemetry.enabled()
    telemetry.emit(_event())  # goes nowhere, and that is fine
    telemetry.record(outcome="abstained", adapter="cli")


def test_environment_turns_on_a_jsonl_sink(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    monkeypatch.setenv(telemetry.ENV_PATH, str(first))
    sink = telemetry.active_sink()
    assert isinstance(sink, telemetry.JsonlSink) and sink.path == str(first)
    telemetry.record(outcome="abstained", adapter="cli")
    monkeypatch.setenv(telemetry.ENV_PATH, str(second))
    telemetry.record(outcome="abstained", adapter="cli")
    assert len(first.read_bytes().splitlines()) == 1
    assert len(second.read_bytes().splitlines()) == 1
    monkeypatch.setenv(telemetry.ENV_PATH, "  ")
    assert telemetry.active_sink() is None


def test_environment_path_expands_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv(telemetry.ENV_PATH, "~/gov/t.jsonl")
    telemetry.record(outcome="abstained", adapter="cli")
    assert (tmp_path / "gov" / "t.jsonl").is_file()


def test_an_explicit_sink_beats_the_environment(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    env_log = tmp_path / "env.jsonl"
    monkeypatch.setenv(telemetry.ENV_PATH, str(env_log))
    memory = telemetry.MemorySink()
    telemetry.set_sink(memory)
    assert telemetry.active_sink() is memory
    telemetry.record(outcome="abstained", adapter="library")
    assert len(memory.events) == 1 and not env_log.exists()


def test_an_explicit_none_turns_telemetry_off_whatever_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env_log = tmp_path / "env.jsonl"
    monkeypatch.setenv(telemetry.ENV_PATH, str(env_log))
    telemetry.set_sink(None)
    assert not telemetry.enabled()
    telemetry.record(outcome="abstained", adapter="library")
    assert not env_log.exists()
    telemetry.reset_sink()  # back to the environment
    telemetry.record(outcome="abstained", adapter="library")
    assert len(env_log.read_bytes().splitlines()) == 1


def test_a_sink_needs_an_emit_method() -> None:
    with pytest.raises(TypeError):
        telemetry.set_sink(object())  # type: ignore[arg-type]


class _Raising:
    def emit(self, event: dict[str, Any]) -> None:
        raise RuntimeError("sink is down")


@pytest.mark.parametrize("sink", [
    _Raising(),
    telemetry.JsonlSink("/dev/full"),  # disk full: ENOSPC on write
    telemetry.JsonlSink(os.devnull + "/under-a-file/t.jsonl"),  # not a folder
    telemetry.JsonlSink("/"),  # a folder, not a file
], ids=["raising", "disk-full", "not-a-folder", "a-folder"])
def test_a_broken_sink_never_raises(sink: telemetry.Sink) -> None:
    telemetry.set_sink(sink)
    before = telemetry.stats()["sink_errors"]
    telemetry.emit(_event())
    telemetry.record(outcome="routed", adapter="hook", routes=["deployment"])
    with telemetry.attempt("hook") as t:
        t.result(["deployment"])
    with pytest.raises(LookupError, match="the adapter's own"), telemetry.attempt("cli"):
        raise LookupError("the adapter's own error passes through unchanged")
    assert telemetry.stats()["sink_errors"] == before + 4


def test_a_write_that_makes_no_progress_is_an_error_not_a_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    telemetry.set_sink(telemetry.JsonlSink(tmp_path / "t.jsonl"))
    monkeypatch.setattr(os, "write", lambda fd, data: 0)
    before = telemetry.stats()["sink_errors"]
    telemetry.emit(_event())
    monkeypatch.undo()
    assert telemetry.stats()["sink_errors"] == before + 1


def test_bad_events_are_counted_not_raised() -> None:
    memory = telemetry.MemorySink()
    telemetry.set_sink(memory)
    before = telemetry.stats()["invalid"]
    telemetry.emit({"outcome": "routed"})
    telemetry.emit("not even a dict")  # type: ignore[arg-type]
    telemetry.record(outcome="exploded", adapter="cli")
    telemetry.record(outcome="routed", adapter="cli", surprise=1)
    assert memory.events == []
    assert telemetry.stats()["invalid"] == before + 4


def test_a_log_we_may_append_to_but_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "shared.jsonl"
    path.write_bytes(b"")
    real_open = os.open

    def no_read(file: Any, flags: int, mode: int = 0o777) -> int:
        if flags & os.O_RDWR:
            raise PermissionError(13, "Permission denied")
        return real_open(file, flags, mode)

    monkeypatch.setattr(os, "open", no_read)
    telemetry.JsonlSink(path).emit(_event())
    monkeypatch.undo()
    assert orjson.loads(path.read_bytes())["outcome"] == "routed"
