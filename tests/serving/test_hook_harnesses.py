"""``gov hook HARNESS`` for every harness: its recorded payloads in, what it accepts out.

Real subprocesses (the hook's lean path is the point), the real model, recorded payloads
from each harness's published contract (``tests/data/harness/``), the settings examples in
``examples/harness/`` run as the harness would run them, and a fuzz of argv and stdin.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gov.cli.commands.hook import main as hook_main
from gov.core.serving import wire
from gov.core.serving.harness import EVENTS, HARNESSES
from gov.core.serving.hook_context import CATALOGUE_MAX_BYTES, MAX_BYTES
from gov.core.serving.protocol import request, socket_name
from tests.conftest import POLICIES, REPO, gov_on_path
from tests.serving.hook_contracts import (
    context_of,
    fixture,
    prompt_payload,
    start_payload,
    valid_output,
)
from tests.serving.test_server import start_server

ROUTED = "roll back last night's release, checkout is throwing 500s"
NAMES = sorted(p.stem for p in POLICIES.glob("*.md") if "**Status:** retired" not in p.read_text())


def run_hook(*args: str, payload: Any, env: dict[str, str], cwd: Path | None = None,
             python_args: tuple[str, ...] = ()) -> subprocess.CompletedProcess[bytes]:
    stdin = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    full = {**os.environ, **env}
    full.pop("PYTHONDONTWRITEBYTECODE", None)
    full.pop("GOV_INDEX", None)
    full.pop("GOV_TELEMETRY_PATH", None) if "GOV_TELEMETRY_PATH" not in env else None
    return subprocess.run([sys.executable, *python_args, str(REPO / "scripts" / "gov"), "hook", *args],
                          input=stdin, capture_output=True, env=full, cwd=cwd, timeout=120,
                          check=False)


@pytest.fixture()
def project(tmp_path: Path, example_index: Path) -> Path:
    """A project folder with its index where the hook looks by default."""
    folder = tmp_path / "project"
    (folder / ".gov").mkdir(parents=True)
    shutil.copyfile(example_index, folder / ".gov" / "index")
    return folder


@pytest.fixture()
def runtime(tmp_path: Path) -> dict[str, str]:
    return {"GOV_RUNTIME_DIR": str(tmp_path / "rt")}


@pytest.fixture()
def server(runtime: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    proc = start_server(runtime, idle=300)
    yield proc
    proc.terminate()
    proc.wait(timeout=30)


# --- each harness's contract ---------------------------------------------------------


@pytest.mark.parametrize("harness", ["claude-code", "codex", "gemini"])
def test_prompt_harnesses_add_the_paragraph_in_their_own_object(harness: str, project: Path,
                                                                runtime: dict[str, str]) -> None:
    result = run_hook(harness, "--serve", "never", payload=prompt_payload(harness, ROUTED, project),
                      env=runtime)
    assert result.returncode == 0 and result.stderr == b""
    obj = valid_output(harness, result.stdout)
    context = context_of(obj)
    assert "deployment" in context and "gov show" in context
    assert len(context.encode()) <= MAX_BYTES


@pytest.mark.parametrize("harness", ["copilot", "cursor"])
def test_prompt_events_of_harnesses_that_drop_their_output_print_nothing(
        harness: str, project: Path, runtime: dict[str, str]) -> None:
    result = run_hook(harness, "--serve", "never", payload=prompt_payload(harness, ROUTED, project),
                      env=runtime)
    assert result.returncode == 0 and result.stdout == b"" and result.stderr == b""


@pytest.mark.parametrize("harness", ["copilot", "cursor"])
def test_session_start_gives_the_document_names_and_how_to_ask(harness: str, project: Path,
                                                               runtime: dict[str, str]) -> None:
    result = run_hook(harness, "--serve", "never", payload=start_payload(harness, project),
                      env=runtime)
    assert result.returncode == 0 and result.stderr == b""
    context = context_of(valid_output(harness, result.stdout))
    assert all(name in context for name in NAMES)
    assert "gov show NAME" in context and "route_policies" in context
    assert len(context.encode()) <= CATALOGUE_MAX_BYTES
    body = (POLICIES / "deployment.md").read_text().split("\n\n", 3)[-1]
    assert body[:60] not in context  # names only, never rule text


def test_copilot_camel_case_payloads_are_told_apart_by_their_shape(project: Path,
                                                                   runtime: dict[str, str]) -> None:
    start = fixture("copilot-session-start.input.legacy-example.json") | {"cwd": str(project)}
    assert "hook_event_name" not in start
    result = run_hook("copilot", "--serve", "never", payload=start, env=runtime)
    assert "deployment" in context_of(valid_output("copilot", result.stdout))
    prompt = fixture("copilot-user-prompt-submitted.input.legacy-example.json") | {
        "cwd": str(project), "prompt": ROUTED}
    result = run_hook("copilot", "--serve", "never", payload=prompt, env=runtime)
    assert result.returncode == 0 and result.stdout == b"" and result.stderr == b""


def test_session_start_prints_nothing_where_prompts_carry_context(project: Path,
                                                                  runtime: dict[str, str]) -> None:
    for harness in ("claude-code", "codex", "gemini"):
        result = run_hook(harness, "--serve", "never", payload=start_payload(harness, project, "clear"),
                          env=runtime)
        assert result.returncode == 0 and result.stdout == b"" and result.stderr == b"", harness


def test_a_claude_code_hook_run_by_cursor_or_copilot_answers_as_they_expect(
        project: Path, runtime: dict[str, str]) -> None:
    """Cursor and Copilot also run the hooks in .claude/settings.json."""
    cursor_prompt = prompt_payload("cursor", ROUTED, project)
    result = run_hook("claude-code", "--serve", "never", payload=cursor_prompt, env=runtime)
    assert result.stdout == b"" and result.stderr == b""  # Cursor cannot read a context object
    result = run_hook("claude-code", "--serve", "never", payload=start_payload("cursor", project),
                      env=runtime)
    assert "additional_context" in valid_output("cursor", result.stdout)
    copilot_prompt = prompt_payload("copilot", ROUTED, project)
    result = run_hook("claude-code", "--serve", "never", payload=copilot_prompt, env=runtime)
    assert result.stdout == b"" and result.stderr == b""


def test_an_event_gov_does_not_handle_is_one_line_on_stderr(project: Path,
                                                            runtime: dict[str, str]) -> None:
    payload = fixture("claude-pre-tool-use.bash.input.example.json") | {"cwd": str(project)}
    result = run_hook("claude-code", "--serve", "never", payload=payload, env=runtime)
    assert result.returncode == 0 and result.stdout == b""
    assert result.stderr.decode().count("\n") == 1 and "PreToolUse" in result.stderr.decode()


# --- warm: the server renders the same bytes ------------------------------------------


def test_the_warm_server_renders_what_the_hook_would_for_every_harness(
        server: subprocess.Popen[bytes], project: Path, runtime: dict[str, str]) -> None:
    payloads = [(h, prompt_payload(h, ROUTED, project, session=f"w-{h}")) for h in HARNESSES]
    payloads += [(h, start_payload(h, project, session=f"w-{h}")) for h in HARNESSES]
    for harness, payload in payloads:
        warm = run_hook(harness, "--no-session-memory", payload=payload, env=runtime)
        cold = run_hook(harness, "--serve", "never", payload=payload, env=runtime)
        assert warm.returncode == 0 and warm.stdout == cold.stdout and warm.stderr == cold.stderr
    info = request(wire.Ping(), path=Path(runtime["GOV_RUNTIME_DIR"]) / socket_name())
    assert info is not None and info.requests >= len(payloads)


@pytest.mark.slow
def test_problems_reach_stderr_through_the_server_too(server: subprocess.Popen[bytes], tmp_path: Path,
                                                      runtime: dict[str, str]) -> None:
    result = run_hook("gemini", payload=prompt_payload("gemini", ROUTED, tmp_path), env=runtime)
    assert result.returncode == 0 and result.stdout == b""
    assert result.stderr.decode() == f"gov hook: no index at {tmp_path}/.gov/index (build one with: gov index PATH -o {tmp_path}/.gov/index)\n"
    result = run_hook("gemini", "--bogus", payload=b"{}", env=runtime)
    assert result.stdout == b"" and "unknown argument '--bogus'" in result.stderr.decode()


def test_the_warm_hook_process_imports_almost_nothing(server: subprocess.Popen[bytes], project: Path,
                                                      runtime: dict[str, str]) -> None:
    """The client reads stdin, talks to the socket and prints: the library stays unimported."""
    result = run_hook("codex", payload=prompt_payload("codex", ROUTED, project), env=runtime,
                      python_args=("-X", "importtime"))
    assert "deployment" in context_of(valid_output("codex", result.stdout))
    lines = [line for line in result.stderr.decode().splitlines() if line.startswith("import time:")]
    imported = {line.rsplit("|", 1)[1].strip() for line in lines[1:]}
    assert {"gov.cli.commands.hook", "_socket"} <= imported
    heavy = {"re", "json", "typing", "pathlib", "tempfile", "dataclasses", "enum", "socket",
             "hashlib", "binascii", "numpy", "typer"}
    assert not imported & heavy, imported & heavy
    # of the library, only the package markers, the identity the socket is named by, the
    # hook's grammar (which imports nothing) and the wire (standard library only: the
    # request and reply the socket carries); of the CLI, the hook's module alone
    library = {name for name in imported if name.startswith("gov.core")}
    assert library <= {"gov.core", "gov.core.serving", "gov.core.serving.identity",
                       "gov.core.serving.hook_grammar", "gov.core.serving.wire"}, library
    assert {name for name in imported if name.startswith("gov.cli")} == {
        "gov.cli", "gov.cli.entry", "gov.cli.commands", "gov.cli.commands.hook"}


# --- the settings examples, run as the harness runs them ------------------------------

EXAMPLES = REPO / "examples" / "harness"


def commands(settings_file: str) -> dict[str, list[str]]:
    """Each event's commands in a settings file, in any of the harnesses' two layouts."""
    hooks = json.loads((EXAMPLES / settings_file).read_text())["hooks"]
    found: dict[str, list[str]] = {}
    for event, entries in hooks.items():
        for entry in entries:
            for hook in entry.get("hooks", [entry]):
                found.setdefault(event, []).append(hook.get("command") or hook["bash"])
    return found


def payload_for(harness: str, event: str, project: Path) -> dict[str, Any]:
    if event in ("UserPromptSubmit", "BeforeAgent", "beforeSubmitPrompt"):
        return prompt_payload(harness, ROUTED, project)
    if event in ("SessionStart", "sessionStart"):
        return start_payload(harness, project, "clear" if harness != "copilot" else "new")
    if event in ("PostToolUse", "AfterTool", "postToolUse"):
        base = start_payload(harness, project)
        base.pop("source", None)
        return base | {"hook_event_name": event, "tool_name": "Bash",
                       "tool_input": {"command": "gov show deployment"}, "tool_response": {}}
    if event in ("PreCompress", "PostCompact", "PreCompact"):
        base = start_payload(harness, project)
        base.pop("source", None)
        return base | {"hook_event_name": event, "trigger": "auto"}
    raise AssertionError(f"no recorded payload for {harness} {event}")


EXAMPLE_FILES = [("claude-code", "settings.json"), ("codex", "codex-hooks.json"),
                 ("gemini", "gemini-settings.json"), ("copilot", "copilot-hooks.json"),
                 ("cursor", "cursor-hooks.json")]


@pytest.mark.parametrize(("harness", "settings_file"), EXAMPLE_FILES)
def test_each_settings_example_routes_a_recorded_payload_end_to_end(
        harness: str, settings_file: str, server: subprocess.Popen[bytes], project: Path,
        runtime: dict[str, str], tmp_path: Path) -> None:
    env = gov_on_path(tmp_path, {**os.environ, **runtime})
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    found = commands(settings_file)
    assert found and all(cmd == f"gov hook {harness}" for cmds in found.values() for cmd in cmds)
    for event, cmds in found.items():
        assert event in EVENTS, event
        payload = payload_for(harness, event, project)
        for command in cmds:
            result = subprocess.run(shlex.split(command), input=json.dumps(payload).encode(),
                                    capture_output=True, env=env, cwd=project, timeout=120, check=False)
            assert result.returncode == 0 and result.stderr == b"", (event, result.stderr)
            if EVENTS[event] == "prompt" or (EVENTS[event] == "session_start"
                                             and harness in ("copilot", "cursor")):
                assert "deployment" in context_of(valid_output(harness, result.stdout)), event
            else:
                assert result.stdout == b"", event


# --- any argv, any stdin ---------------------------------------------------------------

FIELDS = st.sampled_from(["prompt", "cwd", "session_id", "sessionId", "conversation_id",
                          "hook_event_name", "source", "tool_name", "toolName", "tool_input",
                          "cursor_version", "timestamp", "transcript_path", "workspace_roots"])
VALUES = st.one_of(st.text(max_size=40), st.integers(), st.none(), st.sampled_from(sorted(EVENTS)),
                   st.sampled_from([ROUTED, "clear", "compact", "Bash", "2026-01-01T00:00:00Z"]),
                   st.lists(st.text(max_size=10), max_size=2))
ARGS = st.lists(st.one_of(st.sampled_from(["-i", "--index", "--serve", "never", "auto",
                                           "--no-session-memory", "--operating-point", "-x",
                                           "--", "=", *HARNESSES]),
                          st.text(max_size=12)), max_size=4)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(harness=st.sampled_from(HARNESSES), argv=ARGS, stdin=st.one_of(
    st.binary(max_size=200),
    st.dictionaries(FIELDS, VALUES, max_size=6).map(lambda d: json.dumps(d).encode())))
def test_every_harness_exits_0_with_nothing_or_what_it_accepts(
        harness: str, argv: list[str], stdin: bytes, example_index: Path) -> None:
    if "--help" in argv or "-h" in argv:
        return
    out, err = io.BytesIO(), io.StringIO()
    full = [harness, *argv, "--serve", "never"]
    if "-i" not in argv and "--index" not in argv:
        full += ["-i", str(example_index)]
    assert hook_main(full, stdin=io.BytesIO(stdin), stdout=out, stderr=err) == 0
    if out.getvalue():
        valid_output(harness, out.getvalue())
    assert err.getvalue().count("\n") <= 1
