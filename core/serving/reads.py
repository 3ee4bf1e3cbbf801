"""Which documents a tool call opened: ``gov show NAME``, a read of a document's file, or
``get_policy`` / a ``gov://documents/NAME`` resource over MCP.

A post-tool hook payload (Claude Code and Codex ``PostToolUse``, Gemini CLI ``AfterTool``,
Copilot ``postToolUse``, Cursor ``postToolUse`` / ``afterShellExecution`` /
``afterMCPExecution``) names the tool and its input. Only names the index holds come out
of here, each with how it was read; nothing of the command, path or input is kept.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

import orjson

SHELL_TOOLS = frozenset(("bash", "run_shell_command", "shell", "powershell", "exec_command",
                         "local_shell", "terminal"))
READ_TOOLS = frozenset(("read", "read_file", "view", "readfile", "open_file", "read_many_files"))
PATH_KEYS = ("file_path", "path", "absolute_path", "filePath", "target_file", "file", "paths")
READERS = frozenset(("cat", "less", "more", "head", "tail", "bat", "nl", "view", "sed", "awk"))
GOV_OPTIONS_WITH_VALUES = frozenset(("-i", "--index", "-f", "--format", "--color"))
RESOURCE_PREFIX = "gov://documents/"
ENTRY_MODULE = ".".join(("gov", "cli", "entry"))  # `python -m` of the gov command
MAX_INPUT = 64 * 1024  # characters of a command or input looked at
MAX_PATHS = 64  # paths of one tool call, or words of one command, looked at


class Catalogue:
    """An index's document names and the files they were read from (absolute paths)."""

    __slots__ = ("_real", "basenames", "fingerprint", "names", "paths")

    def __init__(self, names: list[str], sources: dict[str, str],
                 fingerprint: str | None = None) -> None:
        self.names = frozenset(names)
        self.fingerprint = fingerprint
        self.paths = {os.path.normpath(path): name for name, path in sources.items()}
        self.basenames = frozenset(os.path.basename(path) for path in self.paths)
        self._real: dict[str, str] | None = None  # resolved once, on the first need

    def by_path(self, text: str, cwd: str | None) -> str | None:
        """The document whose file ``text`` names (relative to ``cwd``), if any."""
        if os.path.basename(text) not in self.basenames:
            return None
        path = os.path.normpath(os.path.join(cwd or "/", os.path.expanduser(text)))
        found = self.paths.get(path)
        if found is None:
            real = os.path.realpath(path)
            if self._real is None:
                self._real = {os.path.realpath(known): name for known, name in self.paths.items()}
            found = self.paths.get(real) or self._real.get(real)
        return found


def tool_call(payload: dict[str, Any]) -> tuple[str, Any]:
    """(tool name, tool input) from any harness's post-tool payload."""
    if isinstance(payload.get("command"), str) and "tool_name" not in payload:
        return "shell", {"command": payload["command"]}  # Cursor afterShellExecution
    name: Any = payload.get("tool_name", payload.get("toolName"))
    arguments: Any = payload.get("tool_input", payload.get("toolArgs"))
    if isinstance(arguments, str):  # Cursor afterMCPExecution, older Copilot: JSON text
        try:
            arguments = orjson.loads(arguments[:MAX_INPUT])
        except ValueError:
            arguments = {"command": arguments}
    context = payload.get("mcp_context")
    if isinstance(context, dict) and isinstance(context.get("tool_name"), str):
        name = "mcp:" + context["tool_name"]  # Gemini CLI's MCP tools carry the real name
    return (name if isinstance(name, str) else ""), arguments


def _last_segment(tool: str) -> str:
    for separator in ("__", ":", "/"):
        tool = tool.rsplit(separator, 1)[-1]
    return tool


def reads(payload: dict[str, Any], catalogue: Catalogue, cwd: str | None) -> list[tuple[str, str]]:
    """The (document, via) pairs a tool call opened, each once, in order."""
    tool, arguments = tool_call(payload)
    found: dict[str, str] = {}
    lowered = tool.lower()
    last = _last_segment(lowered)
    if lowered in SHELL_TOOLS or (isinstance(arguments, dict) and lowered not in READ_TOOLS
                                  and isinstance(arguments.get("command"), (str, list))):
        command = arguments.get("command") if isinstance(arguments, dict) else None
        if isinstance(command, list):
            command = shlex.join(str(part) for part in command)
        if isinstance(command, str):
            for name, via in _shell_reads(command[:MAX_INPUT], catalogue, cwd):
                found.setdefault(name, via)
    if lowered in READ_TOOLS or last in READ_TOOLS:
        for text in _paths(arguments):
            document = catalogue.by_path(text, cwd)
            if document is not None:
                found.setdefault(document, "file")
    if (last == "get_policy" or lowered.endswith("_get_policy")) and isinstance(arguments, dict):
        asked = arguments.get("name")
        if isinstance(asked, str) and asked in catalogue.names:
            found.setdefault(asked, "mcp")
    for text in _strings(arguments):
        if text.startswith(RESOURCE_PREFIX):
            uri_name = unquote(text[len(RESOURCE_PREFIX):])
            if uri_name in catalogue.names:
                found.setdefault(uri_name, "mcp")
    return list(found.items())


def _paths(arguments: Any) -> Iterator[str]:
    if not isinstance(arguments, dict):
        return
    for key in PATH_KEYS:
        value = arguments.get(key)
        if isinstance(value, str):
            yield value
        elif isinstance(value, list):
            yield from (item for item in value[:MAX_PATHS] if isinstance(item, str))


def _strings(value: Any, depth: int = 0) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif depth < 4 and isinstance(value, dict):
        for item in list(value.values())[:64]:
            yield from _strings(item, depth + 1)
    elif depth < 4 and isinstance(value, list):
        for item in value[:64]:
            yield from _strings(item, depth + 1)


def _words(command: str) -> list[list[str]]:
    """The simple commands of a shell line, as words (``;``, ``&&``, ``||``, ``|`` split)."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:  # an unbalanced quote: read it as plain words
        tokens = command.split()
    commands: list[list[str]] = [[]]
    for token in tokens:
        if token and all(c in ";&|()" for c in token):
            commands.append([])
        else:
            commands[-1].append(token)
    return [words for words in commands if words]


def _shell_reads(command: str, catalogue: Catalogue, cwd: str | None) -> Iterator[tuple[str, str]]:
    for words in _words(command):
        while words and (("=" in words[0] and not words[0].startswith("="))
                         or words[0] in ("sudo", "env", "command", "exec", "time", "nice")):
            words = words[1:]
        if not words:
            continue
        program = os.path.basename(words[0])
        rest = words[1:]
        if program.startswith("python") and rest[:1] == ["-m"] and rest[1:2] == [ENTRY_MODULE]:
            program, rest = "gov", rest[2:]
        if program == "gov" and rest[:1] == ["show"]:
            name = _first_argument(rest[1:])
            if name is not None and name in catalogue.names:
                yield name, "show"
        elif program in READERS:
            for word in rest[:MAX_PATHS]:
                if not word.startswith("-"):
                    found = catalogue.by_path(word, cwd)
                    if found is not None:
                        yield found, "file"


def _first_argument(words: list[str]) -> str | None:
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in GOV_OPTIONS_WITH_VALUES:
            skip = True
        elif not word.startswith("-"):
            return word
    return None
