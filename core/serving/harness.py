"""What each harness sends a hook and what it accepts back: one table, no I/O.

``gov hook HARNESS`` is one command per harness; the payload's event name says what the
turn is (a prompt, a session starting, a tool that ran, a compaction), and this module
turns (harness, event) into gov's event kind, the session id, and the exact output object
that harness reads. Standard library only: the warm server and the in-process fallback
both render through it.

The contracts, from each harness's published hook reference (copies under
``tests/data/harness/``):

- Claude Code and Codex: ``UserPromptSubmit`` adds ``hookSpecificOutput.additionalContext``
  to the prompt; ``PostToolUse`` reports a tool call; ``SessionStart`` (source ``clear`` or
  ``compact``) and ``PreCompact``/``PostCompact`` mean earlier context is gone.
- Gemini CLI: ``BeforeAgent`` adds ``hookSpecificOutput.additionalContext`` to the turn;
  ``AfterTool`` reports a tool call; ``PreCompress`` compacts. An empty stdout makes Gemini
  read stderr instead, so gov keeps stderr empty unless something is wrong.
- GitHub Copilot: a command hook's ``userPromptSubmitted`` output is dropped, so gov adds
  its context at ``sessionStart`` (top-level ``additionalContext``). Configured with
  PascalCase event names the payload carries ``hook_event_name``; camelCase payloads do
  not, and their kind is read from their shape.
- Cursor: ``beforeSubmitPrompt`` can only allow or stop a prompt; ``sessionStart`` adds
  ``additional_context`` to the conversation's initial context.

Cursor and Copilot also run hooks from ``.claude/settings.json``: a payload that carries
Cursor's ``cursor_version`` or Copilot's ISO ``timestamp`` without a ``transcript_path`` is
answered as that host, so ``gov hook claude-code`` never prints what the real host cannot read.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # `gov hook --help` names the harnesses: no typing module for that
    from typing import Any

HARNESSES = ("claude-code", "codex", "gemini", "copilot", "cursor")

PROMPT = "prompt"
SESSION_START = "session_start"
POST_TOOL = "post_tool"
COMPACT = "compact"

EVENTS: dict[str, str] = {
    "UserPromptSubmit": PROMPT,  # Claude Code, Codex, Copilot (PascalCase)
    "BeforeAgent": PROMPT,  # Gemini CLI
    "userPromptSubmitted": PROMPT,  # Copilot (camelCase)
    "beforeSubmitPrompt": PROMPT,  # Cursor
    "SessionStart": SESSION_START,
    "sessionStart": SESSION_START,
    "PostToolUse": POST_TOOL,  # Claude Code, Codex, Copilot (PascalCase)
    "AfterTool": POST_TOOL,  # Gemini CLI
    "postToolUse": POST_TOOL,  # Copilot (camelCase), Cursor
    "afterMCPExecution": POST_TOOL,  # Cursor
    "afterShellExecution": POST_TOOL,  # Cursor
    "PreCompact": COMPACT,  # Claude Code, Codex
    "PostCompact": COMPACT,  # Codex
    "PreCompress": COMPACT,  # Gemini CLI
    "preCompact": COMPACT,  # Cursor
}
# SessionStart sources after which the agent's context no longer holds earlier turns.
FRESH_CONTEXT_SOURCES = frozenset(("clear", "compact"))

# Hosts whose prompt hook can add context to the prompt; the others get it at session start.
PROMPT_CONTEXT = frozenset(("claude-code", "codex", "gemini"))
START_CONTEXT = frozenset(("copilot", "cursor"))


class UnknownEvent(ValueError):
    """A payload whose event gov does not handle (a settings entry under the wrong event)."""


def host_of(harness: str, payload: dict[str, Any]) -> str:
    """The harness actually running the hook: Cursor and Copilot also run the hooks in
    ``.claude/settings.json``, with their own payloads and their own output rules."""
    if harness not in ("claude-code", "codex"):
        return harness
    if "cursor_version" in payload:
        return "cursor"
    if isinstance(payload.get("timestamp"), str) and "transcript_path" not in payload:
        return "copilot"  # Copilot's VS Code-compatible payload: ISO timestamp, no transcript
    return harness


def event_of(payload: dict[str, Any]) -> tuple[str, str]:
    """(kind, event name) of a payload; the kind from the shape when no name is given.

    Raises :class:`UnknownEvent` for an event name gov does not handle.
    """
    name = payload.get("hook_event_name")
    if isinstance(name, str) and name:
        kind = EVENTS.get(name)
        if kind is None:
            handled = ", ".join(sorted(set(EVENTS) - {"preCompact"}))
            raise UnknownEvent(f"event {name[:40]!r} is not one gov handles ({handled})")
        return kind, name
    if "prompt" in payload:
        return PROMPT, ""
    if "toolName" in payload or "tool_name" in payload:
        return POST_TOOL, ""
    if "source" in payload:
        return SESSION_START, ""
    return PROMPT, ""  # today's bare {"prompt": ...} payloads; a missing prompt is reported


def session_of(payload: dict[str, Any]) -> str | None:
    """The harness's opaque session id (never recorded as it is: see sessions.session_key)."""
    for key in ("session_id", "sessionId", "conversation_id"):
        value = payload.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def cwd_of(payload: dict[str, Any]) -> str | None:
    """The project folder the payload names: ``cwd``, else Cursor's first workspace root."""
    own = payload.get("cwd")
    if isinstance(own, str) and own:
        return own
    roots = payload.get("workspace_roots")
    if isinstance(roots, list) and roots and isinstance(roots[0], str) and roots[0]:
        return roots[0]
    return None


def forgets_context(kind: str, payload: dict[str, Any]) -> bool:
    """Whether this event means the agent's context lost what earlier turns added."""
    if kind == COMPACT:
        return True
    return kind == SESSION_START and payload.get("source") in FRESH_CONTEXT_SOURCES


def prompt_output(host: str, context: str) -> dict[str, Any] | None:
    """The object that adds ``context`` to a prompt, or None where the host drops it."""
    if host in ("claude-code", "codex"):
        return {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                                       "additionalContext": context}}
    if host == "gemini":
        return {"hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": context}}
    return None


def start_output(host: str, context: str) -> dict[str, Any] | None:
    """The object that adds ``context`` at session start, for hosts without per-prompt context."""
    if host == "copilot":
        return {"additionalContext": context}
    if host == "cursor":
        return {"additional_context": context}
    return None
