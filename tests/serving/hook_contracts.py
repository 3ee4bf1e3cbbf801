"""What each harness accepts on a hook's stdout, and recorded payloads to send it.

The output rules come from each harness's published contract (``tests/data/harness/``):
Codex publishes JSON Schemas, used as they are; for the others the schema below states what
their reference documents, with no key they do not name.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema

from tests.conftest import REPO

DATA = REPO / "tests" / "data"
HARNESS = DATA / "harness"


def fixture(name: str) -> Any:
    return json.loads((HARNESS / name).read_text())


CODEX_PROMPT_OUTPUT = json.loads((DATA / "codex-user-prompt-submit.output.schema.json").read_text())
CODEX_PROMPT_INPUT = json.loads((DATA / "codex-user-prompt-submit.input.schema.json").read_text())
CODEX_TOOL_INPUT = fixture("codex-post-tool-use.input.schema.json")


def _context_object(event: str) -> dict[str, Any]:
    """Claude Code's and Gemini CLI's ``hookSpecificOutput`` with ``additionalContext``."""
    return {
        "type": "object", "additionalProperties": False, "required": ["hookSpecificOutput"],
        "properties": {"hookSpecificOutput": {
            "type": "object", "additionalProperties": False,
            "required": ["hookEventName", "additionalContext"],
            "properties": {"hookEventName": {"const": event},
                           "additionalContext": {"type": "string", "minLength": 1}}}},
    }


CLAUDE_PROMPT_OUTPUT = _context_object("UserPromptSubmit")
GEMINI_PROMPT_OUTPUT = _context_object("BeforeAgent")
COPILOT_START_OUTPUT = {  # sessionStart: "can inject additionalContext into the session"
    "type": "object", "additionalProperties": False, "required": ["additionalContext"],
    "properties": {"additionalContext": {"type": "string", "minLength": 1}},
}
CURSOR_START_OUTPUT = {  # sessionStart output: {env?, additional_context?}
    "type": "object", "additionalProperties": False, "required": ["additional_context"],
    "properties": {"additional_context": {"type": "string", "minLength": 1},
                   "env": {"type": "object"}},
}
assert set(fixture("cursor-session-start.output.example.json")) >= {"additional_context"}
assert set(fixture("gemini-before-agent.output.example.json")["hookSpecificOutput"]) == {
    "hookEventName", "additionalContext"}

# Every object a harness's hook may print. A claude-code or codex hook also runs under
# Cursor and Copilot (which read .claude/settings.json) and then answers as they expect.
OUTPUTS: dict[str, list[dict[str, Any]]] = {
    "claude-code": [CLAUDE_PROMPT_OUTPUT, COPILOT_START_OUTPUT, CURSOR_START_OUTPUT],
    "codex": [CODEX_PROMPT_OUTPUT, COPILOT_START_OUTPUT, CURSOR_START_OUTPUT],
    "gemini": [GEMINI_PROMPT_OUTPUT],
    "copilot": [COPILOT_START_OUTPUT],
    "cursor": [CURSOR_START_OUTPUT],
}


def valid_output(harness: str, stdout: bytes) -> dict[str, Any]:
    """The one JSON object on ``stdout``, checked against what ``harness`` accepts."""
    assert stdout.endswith(b"\n") and stdout.count(b"\n") == 1, stdout
    obj = json.loads(stdout)
    errors = []
    for schema in OUTPUTS[harness]:
        try:
            jsonschema.validate(obj, schema)
            return obj  # type: ignore[no-any-return]
        except jsonschema.ValidationError as exc:
            errors.append(exc.message)
    raise AssertionError(f"{harness} cannot read {obj!r}: {errors}")


def context_of(obj: dict[str, Any]) -> str:
    """The text an output object adds to the agent's context."""
    if "hookSpecificOutput" in obj:
        return obj["hookSpecificOutput"]["additionalContext"]  # type: ignore[no-any-return]
    return obj.get("additionalContext") or obj["additional_context"]  # type: ignore[no-any-return]


# --- recorded payloads, per harness and event ----------------------------------------


def prompt_payload(harness: str, prompt: str, cwd: Path | str, session: str = "s-1") -> dict[str, Any]:
    """A prompt event as ``harness`` sends it (its published example, our prompt and cwd)."""
    if harness == "claude-code":
        data = fixture("claude-user-prompt-submit.input.example.json")
    elif harness == "codex":
        data = {"cwd": "", "hook_event_name": "UserPromptSubmit", "model": "gpt-5-codex",
                "permission_mode": "default", "prompt": "", "session_id": "", "transcript_path": None,
                "turn_id": "t-1"}
    elif harness == "gemini":
        data = fixture("gemini-before-agent.input.synthesized.json")
        data["transcript_path"] = ""
    elif harness == "copilot":  # PascalCase config: the VS Code compatible payload
        data = {"hook_event_name": "UserPromptSubmit", "session_id": "",
                "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "", "prompt": ""}
    else:
        data = copy.deepcopy(fixture("cursor-common.input.example.json"))
        data.update({"hook_event_name": "beforeSubmitPrompt", "prompt": "", "attachments": []})
    data.update({"prompt": prompt, "cwd": str(cwd)})
    _cursor_roots(harness, data)
    data["conversation_id" if harness == "cursor" else "session_id"] = session
    if harness == "codex":
        jsonschema.validate(data, CODEX_PROMPT_INPUT)
    return data  # type: ignore[no-any-return]


def start_payload(harness: str, cwd: Path | str, source: str = "startup",
                  session: str = "s-1") -> dict[str, Any]:
    """A session-start event as ``harness`` sends it."""
    if harness == "claude-code":
        data = fixture("claude-session-start.input.example.json")
    elif harness == "gemini":
        data = fixture("gemini-session-start.input.synthesized.json")
    elif harness == "copilot":
        data = {"hook_event_name": "SessionStart", "session_id": session,
                "timestamp": "2026-01-01T00:00:00.000Z", "source": "new"}
    elif harness == "cursor":
        data = copy.deepcopy(fixture("cursor-common.input.example.json"))
        data.update({"hook_event_name": "sessionStart", "session_id": session,
                     "is_background_agent": False, "composer_mode": "agent"})
    else:
        data = {"hook_event_name": "SessionStart", "session_id": session, "cwd": "",
                "transcript_path": None, "model": "gpt-5-codex", "source": "startup"}
    data.update({"cwd": str(cwd), "source": source} if harness != "copilot" else {"cwd": str(cwd)})
    _cursor_roots(harness, data)
    data["conversation_id" if harness == "cursor" else "session_id"] = session
    return data  # type: ignore[no-any-return]


def _cursor_roots(harness: str, data: dict[str, Any]) -> None:
    """Cursor's prompt and session events name the project in ``workspace_roots``, not cwd."""
    if harness == "cursor":
        data["workspace_roots"] = [data.pop("cwd")]
        data.pop("source", None)
