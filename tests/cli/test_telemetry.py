"""``gov telemetry report`` through the real entry point: in this process, and once in a fresh one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from gov.core import telemetry
from tests.conftest import invoke_gov, run_gov


def gov(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None,
        cwd: Path | None = None, fresh: bool = False) -> subprocess.CompletedProcess[str]:
    """``gov telemetry ARGS`` (in a fresh process when ``fresh``) with no telemetry log and no
    colour setting of its own."""
    env = {telemetry.ENV_PATH: None, "NO_COLOR": None, "FORCE_COLOR": None, **(env or {})}
    done = (run_gov("telemetry", *args, input=stdin, cwd=cwd, env=env, timeout=300) if fresh
            else invoke_gov("telemetry", *args, input=stdin, cwd=cwd, env=env))
    return subprocess.CompletedProcess(done.args, done.returncode,
                                       done.stdout.decode(), done.stderr.decode())


def _corpus(tmp_path: Path, names: list[str]) -> Path:
    folder = tmp_path / "policies"
    folder.mkdir()
    for name in names:
        (folder / f"{name}.md").write_text(
            f"# {name}\n\n**Agent-trigger:** anything about {name.replace('-', ' ')}\n\n"
            f"The rules for {name}.\n"
        )
    return folder


CORPUS = ["deployment", "on-call", "incident-response", "testing", "code-review"]


@pytest.mark.slow
def test_text_report_on_a_known_log(known_log_file: Path, tmp_path: Path) -> None:
    done = gov("report", str(known_log_file), "--corpus", str(_corpus(tmp_path, CORPUS)), fresh=True)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "gov telemetry: 10 events" in out
    assert "\x1b[" not in out  # not a terminal: plain
    for figure in ("routed", "50.0%", "abstained", "30.0%", "failed", "20.0%", "index_load",
                   "10.0%", "degraded", "Latency", "delivered", "warm route", "Delivered latency",
                   "Per day", "2025-12-01", "2025-12-02", "Most routed", "deployment"):
        assert figure in out, figure
    assert "3 of 5 routed at least once" in out
    never = next(line for line in out.splitlines() if line.startswith("NEVER ROUTED (2): "))
    assert sorted(never.split(": ")[1].split(", ")) == ["code-review", "testing"]
    assert "Skipped 1 torn and 2 foreign lines." in out
    assert "█" in out and "▒" in out and "░" in out  # the charts were drawn


def test_json_report(known_log_file: Path) -> None:
    done = gov("report", str(known_log_file), "--format", "json")
    assert done.returncode == 0, done.stderr
    report = orjson.loads(done.stdout)
    assert report["events"] == 10
    assert {k: v["count"] for k, v in report["outcomes"].items()} == {
        "routed": 5, "abstained": 3, "failed": 2}
    assert report["documents"]["never_routed"] is None
    assert report["skipped_lines"]["torn"] == 1


def test_names_from_an_index(known_log_file: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    built = invoke_gov("index", str(_corpus(tmp_path, CORPUS)), "-o", str(index), "--lexical-only",
                       "--quiet")
    assert built.returncode == 0, built.stderr.decode()
    done = gov("report", str(known_log_file), "-i", str(index), "--all-indexes", "--format", "json")
    assert done.returncode == 0, done.stderr
    documents = orjson.loads(done.stdout)["documents"]
    assert sorted(documents["never_routed"]) == ["code-review", "testing"]
    assert documents["corpus_size"] == 5


def test_stdin_and_since(known_log: list[bytes]) -> None:
    done = gov("report", "-", "--since", "2025-12-02", "--format", "json",
               stdin=b"".join(known_log))
    assert done.returncode == 0, done.stderr
    report = orjson.loads(done.stdout)
    assert report["events"] == 6 and report["skipped_lines"]["before_since"] == 4


def test_the_log_defaults_to_the_environment(known_log_file: Path) -> None:
    done = gov("report", "--format", "json", env={telemetry.ENV_PATH: str(known_log_file)})
    assert done.returncode == 0, done.stderr
    assert orjson.loads(done.stdout)["events"] == 10


@pytest.mark.slow
def test_events_written_by_gov_are_read_back(tmp_path: Path) -> None:
    log = tmp_path / "t.jsonl"
    writer = (
        "from gov.core import telemetry\n"
        "for i in range(7):\n"
        "    with telemetry.attempt('hook') as t:\n"
        "        t.result(['deployment'] if i % 2 else [], route_ms=1.5)\n"
    )
    subprocess.run([sys.executable, "-c", writer], env={**os.environ, telemetry.ENV_PATH: str(log)},
                   check=True, timeout=120)
    report = orjson.loads(gov("report", str(log), "--format", "json").stdout)
    assert report["outcomes"]["routed"]["count"] == 3
    assert report["outcomes"]["abstained"]["count"] == 4
    assert report["adapters"] == {"hook": 7}


def test_an_empty_log_is_not_called_healthy(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    done = gov("report", str(empty))
    assert done.returncode == 1
    assert "0 events" in done.stdout
    assert "No events is not the same as healthy" in done.stdout


def test_a_missing_log_is_one_line_error(tmp_path: Path) -> None:
    done = gov("report", str(tmp_path / "nope.jsonl"))
    assert done.returncode == 2
    assert done.stderr.startswith("gov: error: no telemetry log at ")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


@pytest.mark.parametrize("args", [
    ["report", "x.jsonl", "--since", "last tuesday"],
    ["report", "x.jsonl", "-i", "idx", "--corpus", "dir"],
    ["report", "x.jsonl", "--format", "yaml"],
    ["report"],  # no FILE and no GOV_TELEMETRY_PATH
])
def test_usage_errors_exit_2_with_one_line(args: list[str]) -> None:
    done = gov(*args)
    assert done.returncode == 2
    assert done.stderr.startswith("gov: error: ") and done.stderr.count("\n") == 1


def test_colour_only_when_asked_or_on_a_terminal(known_log_file: Path) -> None:
    coloured = gov("report", str(known_log_file), "--color", "always")
    assert "\x1b[" in coloured.stdout
    plain = gov("report", str(known_log_file), "--color", "auto", env={"NO_COLOR": "1"})
    assert "\x1b[" not in plain.stdout and plain.returncode == 0


def test_help_has_a_worked_example() -> None:
    for args in (["--help"], ["report", "--help"]):
        done = gov(*args)
        assert done.returncode == 0
        assert "Example:" in done.stdout and "gov telemetry report" in done.stdout


def test_never_routed_is_capped_with_a_count_and_all_lists_them(known_log_file: Path,
                                                                 tmp_path: Path) -> None:
    names = CORPUS + [f"policy-{i:02d}" for i in range(40)]  # 42 never routed
    corpus = str(_corpus(tmp_path, names))
    short = gov("report", str(known_log_file), "--corpus", corpus)
    assert short.returncode == 0, short.stderr
    flat = " ".join(short.stdout.split())  # however the terminal wrapped it
    assert "NEVER ROUTED (42): " in flat
    listed = flat.split("NEVER ROUTED (42): ")[1].split(" … and ")[0].split(", ")
    assert len(listed) == 20
    assert "… and 22 more; --all lists them" in flat
    every = " ".join(gov("report", str(known_log_file), "--corpus", corpus, "--all").stdout.split())
    assert "more; --all" not in every and all(f"policy-{i:02d}" in every for i in range(40))
    as_json = orjson.loads(gov("report", str(known_log_file), "--corpus", corpus,
                               "--format", "json").stdout)
    assert len(as_json["documents"]["never_routed"]) == 42  # machines get the whole list
