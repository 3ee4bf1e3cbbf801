"""Where telemetry goes when GOV_TELEMETRY_PATH cannot be used: a relative path is refused
(it would split the log across working folders), an unwritable log is said once on stderr by
``gov route``, and the hook stays silent and counts the loss for ``gov doctor``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gov.core import telemetry
from gov.core.doctor import check_telemetry
from gov.core.telemetry import sinks
from gov.core.telemetry.losses import count_loss, read_losses
from gov.core.telemetry.sinks import JsonlSink, RefusedSink, sink_for
from tests.conftest import run_gov


@pytest.fixture
def heard() -> list[str]:
    messages: list[str] = []
    sinks.on_loss(messages.append)
    yield messages  # type: ignore[misc]
    sinks.on_loss(None)


def test_sink_for_resolves_home_and_refuses_relative_paths(tmp_path: Path) -> None:
    assert sink_for("") is None and sink_for("  ") is None
    absolute = sink_for(str(tmp_path / "log.jsonl"))
    assert isinstance(absolute, JsonlSink) and absolute.path == str(tmp_path / "log.jsonl")
    home = sink_for("~/state/log.jsonl", home="/home/someone")
    assert isinstance(home, JsonlSink) and home.path == "/home/someone/state/log.jsonl"
    for raw in ("log.jsonl", "./logs/t.jsonl", "../t.jsonl"):
        refused = sink_for(raw)
        assert isinstance(refused, RefusedSink) and "relative path" in refused.reason


def test_a_relative_path_writes_nothing_in_the_working_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, heard: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(telemetry.ENV_PATH, "telemetry.jsonl")
    before = telemetry.stats()["sink_errors"]
    telemetry.record(outcome="abstained", adapter="cli")
    assert list(tmp_path.iterdir()) == []
    assert telemetry.stats()["sink_errors"] == before + 1
    assert len(heard) == 1 and "GOV_TELEMETRY_PATH='telemetry.jsonl' is a relative path" in heard[0]


def test_an_unwritable_log_is_heard_with_its_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, heard: list[str]) -> None:
    (tmp_path / "file").write_text("")
    log = tmp_path / "file" / "t.jsonl"
    monkeypatch.setenv(telemetry.ENV_PATH, str(log))
    telemetry.record(outcome="abstained", adapter="cli")
    assert len(heard) == 1 and str(log) in heard[0]


def test_warn_on_loss_says_it_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(telemetry.ENV_PATH, "relative.jsonl")
    telemetry.warn_on_loss()
    try:
        for _ in range(3):
            telemetry.record(outcome="abstained", adapter="cli")
    finally:
        sinks.on_loss(None)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gov: warning: telemetry: ")


def test_losses_are_counted_with_the_last_reason(tmp_path: Path) -> None:
    assert read_losses(tmp_path) is None
    count_loss(tmp_path, "first reason")
    count_loss(tmp_path, "second reason")
    losses = read_losses(tmp_path)
    assert losses is not None and losses.count == 2 and losses.reason == "second reason"
    assert losses.first <= losses.last
    count_loss(tmp_path / "missing-folder", "never raises")


def test_doctor_names_a_refused_an_unwritable_and_a_lossy_log(tmp_path: Path) -> None:
    assert check_telemetry(tmp_path, {}).status == "info"
    relative = check_telemetry(tmp_path, {"GOV_TELEMETRY_PATH": "t.jsonl"})
    assert relative.status == "warn" and "relative path" in relative.detail and relative.fix
    (tmp_path / "file").write_text("")
    under = tmp_path / "file" / "t.jsonl"
    unwritable = check_telemetry(tmp_path, {"GOV_TELEMETRY_PATH": str(under)})
    assert unwritable.status == "warn" and str(under) in unwritable.detail
    good = {"GOV_TELEMETRY_PATH": str(tmp_path / "logs" / "t.jsonl")}
    assert check_telemetry(tmp_path, good).status == "ok"
    count_loss(tmp_path, "cannot write the telemetry log /x: Permission denied")
    lossy = check_telemetry(tmp_path, good)
    assert lossy.status == "warn" and "1 hook event(s) lost" in lossy.detail
    assert "Permission denied" in lossy.detail


@pytest.fixture(scope="module")
def lexical_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One small words-only index for the module's tests, which only read it."""
    tmp_path = tmp_path_factory.mktemp("lexical")
    corpus = tmp_path / "corpus" / "deploy"
    corpus.mkdir(parents=True)
    (corpus / "SKILL.md").write_text("---\nname: deploy\ndescription: Deploying the service "
                                     "to production and rolling it back\n---\nBody.\n")
    index = tmp_path / "index"
    built = run_gov("index", str(corpus.parent), "-o", str(index), "--lexical-only", "--quiet")
    assert built.returncode == 0, built.stderr
    return index


@pytest.mark.slow
def test_route_says_an_unwritable_log_once(lexical_index: Path, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    env = {"GOV_TELEMETRY_PATH": str(tmp_path / "file" / "t.jsonl"),
           "GOV_RUNTIME_DIR": str(tmp_path / "run")}
    rows = "".join(json.dumps({"prompt": f"deploy the service {i}"}) + "\n" for i in range(3))
    done = run_gov("route", "-i", str(lexical_index), "--lexical-only", "--format", "jsonl",
                   input=rows, env=env)
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.decode().splitlines() if "telemetry" in line]
    assert len(warnings) == 1 and str(tmp_path / "file" / "t.jsonl") in warnings[0]


@pytest.mark.slow
def test_one_shot_route_refuses_a_relative_path_in_every_folder(lexical_index: Path,
                                                                tmp_path: Path) -> None:
    for name in ("one", "two"):
        folder = tmp_path / name
        folder.mkdir()
        done = run_gov("route", "deploy the service", "-i", str(lexical_index), "--lexical-only",
                       "--format", "json", cwd=folder,
                       env={"GOV_TELEMETRY_PATH": "telemetry.jsonl",
                            "GOV_RUNTIME_DIR": str(tmp_path / "run")})
        assert done.returncode == 0, done.stderr
        assert list(folder.iterdir()) == []
        lines = done.stderr.decode().splitlines()
        assert [line for line in lines if "relative path" in line] == [
            "gov: warning: telemetry: " + sinks.relative_path_reason("telemetry.jsonl")]


@pytest.mark.slow
def test_the_hook_stays_silent_and_doctor_counts_the_loss(lexical_index: Path,
                                                         tmp_path: Path) -> None:
    work = tmp_path / "project"
    work.mkdir()
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    env = {"GOV_TELEMETRY_PATH": "telemetry.jsonl", "GOV_RUNTIME_DIR": str(run)}
    payload = json.dumps({"prompt": "deploy the service to production", "cwd": str(work)})
    for _ in range(2):
        done = run_gov("hook", "claude-code", "-i", str(lexical_index), "--serve", "never",
                       input=payload, env=env, cwd=work)
        assert done.returncode == 0 and done.stderr == b"", done.stderr
    assert list(work.iterdir()) == []
    losses = read_losses(run)
    assert losses is not None and losses.count >= 2 and "relative path" in losses.reason
    doctor = run_gov("doctor", "-i", str(lexical_index), "--format", "json", env=env, cwd=work)
    check = next(c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "telemetry")
    assert check["status"] == "warn" and "hook event(s) lost" in check["detail"]
    assert os.path.exists(run / "telemetry-lost.json")
