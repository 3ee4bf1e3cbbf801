"""``gov hook install|uninstall HARNESS``: gov's entries merged into a harness's own settings.

Each harness keeps its hooks in one JSON file (Claude Code ``.claude/settings.json``, Codex
``.codex/hooks.json``, Gemini CLI ``.gemini/settings.json``, Copilot ``.github/hooks/*.json``,
Cursor ``.cursor/hooks.json``; the user's own under the home folder). Installing reads that
file, removes any entry of gov's (a command that runs ``gov hook HARNESS``, under any path or
quoting: that shape is gov's marker, so a hand-copied ``gov hook claude-code`` is replaced
too), adds gov's entries for the events the hook handles, and writes the file atomically
with a backup of what was there, only when something changed (installing twice is
installing once). Every other key, event and hook is kept in its place. Uninstalling
removes exactly the entries of that shape, and the keys and file installing created.

The command names this gov by absolute path (the console script beside the running Python,
else ``python -m gov.cli.entry``), so a virtualenv that is not on the harness's PATH works;
it is quoted for ``sh -c``. ``examples/harness/`` holds what :func:`settings_for` writes with
the bare program name ``gov``.
"""

from __future__ import annotations

import difflib
import json  # stdlib, not orjson: the harness's own settings (any number) written back as json.dumps does
import os
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..errors import InputError, UsageError
from .harness import HARNESSES

Layout = Literal["nested", "flat"]
MAX_SETTINGS_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class Target:
    """Where one harness keeps its hooks and how one of gov's entries looks there."""

    harness: str
    project: str  # the settings file, relative to the project folder
    user: str  # the user's settings file, relative to the home folder
    home_env: str | None  # a variable that moves the user's folder (its value replaces the first part)
    layout: Layout  # nested: event → [{matcher?, hooks: [hook]}]; flat: event → [hook]
    events: tuple[tuple[str, str | None], ...]  # (event, matcher)
    version: bool  # the file carries "version": 1

    def hook(self, command: str) -> dict[str, Any]:
        if self.harness == "gemini":
            return {"name": "gov", "type": "command", "command": command, "timeout": 10000}
        if self.harness == "copilot":
            return {"type": "command", "bash": command, "timeoutSec": 10}
        if self.harness == "cursor":
            return {"command": command, "timeout": 10}
        return {"type": "command", "command": command, "timeout": 10}


TARGETS: dict[str, Target] = {
    "claude-code": Target("claude-code", ".claude/settings.json", ".claude/settings.json", None,
                          "nested", (("UserPromptSubmit", None), ("SessionStart", "clear|compact"),
                                     ("PostToolUse", None)), False),
    "codex": Target("codex", ".codex/hooks.json", ".codex/hooks.json", "CODEX_HOME", "nested",
                    (("UserPromptSubmit", None), ("PostCompact", None), ("PostToolUse", None)),
                    False),
    "gemini": Target("gemini", ".gemini/settings.json", ".gemini/settings.json", None, "nested",
                     (("BeforeAgent", None), ("SessionStart", "clear"), ("PreCompress", None),
                      ("AfterTool", ".*")), False),
    "copilot": Target("copilot", ".github/hooks/gov.json", ".copilot/hooks/gov.json", "COPILOT_HOME",
                      "flat", (("SessionStart", None), ("PostToolUse", None)), True),
    "cursor": Target("cursor", ".cursor/hooks.json", ".cursor/hooks.json", None, "flat",
                     (("sessionStart", None), ("postToolUse", None)), True),
}
assert tuple(TARGETS) == HARNESSES

# gov's marker: a command that runs `gov hook HARNESS` (any path, any quoting, or
# `python -m gov.cli.entry hook HARNESS`).
_GOV_PROGRAM = re.compile(r"(^|/)gov(\.exe)?$")
_LAUNCHERS = frozenset(("uv", "uvx", "pipx", "poetry", "pdm", "hatch", "rye", "env"))


def target(harness: str) -> Target:
    try:
        return TARGETS[harness]
    except KeyError:
        raise UsageError(f"unknown harness {harness!r}: one of {', '.join(HARNESSES)}") from None


def gov_command(harness: str, program: str | None = None) -> str:
    """The command line a harness runs: this gov by absolute path, quoted for ``sh -c``."""
    return f"{program or this_gov()} hook {harness}"


def this_gov() -> str:
    """This installation's ``gov``, as a shell word that runs without PATH."""
    scripts = Path(sys.executable).parent  # a virtualenv's bin/: not resolved, or the venv is lost
    for name in ("gov", "gov.exe"):
        candidate = scripts / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return shlex.quote(os.path.abspath(candidate))
    return f"{shlex.quote(os.path.abspath(sys.executable))} -m gov.cli.entry"


def is_gov_command(command: object, harness: str | None = None) -> bool:
    """Whether ``command`` runs gov's hook (for ``harness``, when given): ``GOV hook HARNESS``
    where GOV is a program named ``gov`` (any folder), ``PYTHON -m gov.cli.entry``, or ``gov``
    behind a launcher (``uv run gov``, ``pipx run gov``, ``env ... gov``)."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if len(words) < 3 or words[-2] != "hook" or words[-1] not in HARNESSES:
        return False
    if harness is not None and words[-1] != harness:
        return False
    program = words[:-2]
    if len(program) == 1:
        return bool(_GOV_PROGRAM.search(program[0]))
    if program[1:] == ["-m", "gov.cli.entry"]:
        return True
    return (os.path.basename(program[0]) in _LAUNCHERS
            and bool(_GOV_PROGRAM.search(program[-1])))


def settings_for(harness: str, program: str | None = None) -> dict[str, Any]:
    """gov's entries alone, as the harness's settings file holds them."""
    spec = target(harness)
    return _merge({}, spec, gov_command(harness, program))


def settings_path(harness: str, project: Path | None = None, user: bool = False,
                  environ: dict[str, str] | None = None) -> Path:
    """The settings file gov installs into: the project's (default: the current folder) or,
    with ``user``, the user's own."""
    spec = target(harness)
    env = dict(os.environ) if environ is None else environ
    if not user:
        return (project or Path.cwd()).absolute() / spec.project
    if spec.home_env and env.get(spec.home_env):
        _first, _, rest = spec.user.partition("/")
        return Path(env[spec.home_env]) / rest
    home = env.get("HOME") or str(Path.home())
    return Path(home) / spec.user


# --- reading and merging ---------------------------------------------------------------


def read_settings(path: Path) -> dict[str, Any] | None:
    """The settings object in ``path``; None when there is no file. A file that is not a JSON
    object is an input error naming its line; nothing is written over it."""
    from ..corpus.markdown import ParseProblem
    from ..corpus.walk import read_bounded

    if not path.exists():
        return None
    try:
        data = read_bounded(path, MAX_SETTINGS_BYTES, "a settings file")
    except ParseProblem as exc:
        raise InputError(f"{path}: {exc}") from None
    if not data.strip():
        return {}
    try:
        obj = json.loads(data)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}: not valid JSON: {exc.msg}",
                         hint="fix the file or move it aside; gov writes nothing over it") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    if not isinstance(obj, dict):
        raise InputError(f"{path}:1: the settings must be a JSON object")
    settings: dict[str, Any] = obj
    if not isinstance(settings.get("hooks", {}), dict):
        raise InputError(f"{path}: field 'hooks' must be an object")
    for event, entries in settings.get("hooks", {}).items():
        if not isinstance(entries, list):
            raise InputError(f"{path}: field 'hooks.{event}' must be an array")
    return settings


def _without_gov(settings: dict[str, Any], spec: Target) -> dict[str, Any]:
    """``settings`` with every gov entry of this harness removed, and the event lists and the
    ``hooks`` object that held only gov's left out."""
    out: dict[str, Any] = json.loads(json.dumps(settings))
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event in list(hooks):
        entries = hooks[event]
        kept: list[Any] = []
        removed = False
        for entry in entries:
            if spec.layout == "flat":
                if isinstance(entry, dict) and _ours(entry, spec):
                    removed = True
                    continue
                kept.append(entry)
                continue
            inner = entry.get("hooks") if isinstance(entry, dict) else None
            if not isinstance(inner, list):
                kept.append(entry)
                continue
            left = [h for h in inner if not (isinstance(h, dict) and _ours(h, spec))]
            if len(left) == len(inner):
                kept.append(entry)
                continue
            removed = True
            if left:
                kept.append({**entry, "hooks": left})
        if removed and not kept:
            del hooks[event]
        else:
            hooks[event] = kept
    if not hooks and "hooks" in settings and settings["hooks"]:
        del out["hooks"]
    return out


def _ours(hook: dict[str, Any], spec: Target) -> bool:
    return any(is_gov_command(hook.get(key), spec.harness) for key in ("command", "bash", "powershell"))


def _merge(settings: dict[str, Any], spec: Target, command: str) -> dict[str, Any]:
    out = _without_gov(settings, spec)
    if spec.version:
        out.setdefault("version", 1)
    hooks = out.setdefault("hooks", {})
    for event, matcher in spec.events:
        if spec.layout == "flat":
            hooks.setdefault(event, []).append(spec.hook(command))
            continue
        group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
        group["hooks"] = [spec.hook(command)]
        hooks.setdefault(event, []).append(group)
    return out


def _skeleton(settings: dict[str, Any], spec: Target) -> bool:
    """Whether what is left is only what installing creates in a new file."""
    rest = {k: v for k, v in settings.items() if not (spec.version and k == "version" and v == 1)}
    return not rest or rest == {"hooks": {}}


# --- the change ------------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """What install or uninstall did (or, dry, would do) to one settings file."""

    path: Path
    action: Literal["created", "updated", "unchanged", "removed", "deleted", "absent"]
    events: tuple[str, ...]  # the events gov's entries were added to or removed from
    command: str | None
    backup: Path | None
    diff: str

    def summary(self) -> str:
        if self.action == "unchanged":
            return f"{self.path}: already holds gov's hooks; nothing changed"
        if self.action == "absent":
            return f"{self.path}: holds no gov hooks; nothing changed"
        what = {"created": "created with", "updated": "added", "removed": "removed",
                "deleted": "removed"}[self.action]
        line = f"{self.path}: {what} gov's hooks for {', '.join(self.events)}"
        if self.action == "deleted":
            line += "; the file held nothing else and is gone"
        if self.command:
            line += f", running {self.command}"
        if self.backup is not None:
            line += f"; the previous file is in {self.backup}"
        return line


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + ".gov-backup")


def _text(settings: dict[str, Any]) -> str:
    return json.dumps(settings, indent=2, ensure_ascii=False) + "\n"


def _diff(path: Path, before: str, after: str) -> str:
    return "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True),
                                        str(path), str(path)))


def install(harness: str, path: Path, *, program: str | None = None, dry_run: bool = False) -> Change:
    """Merge gov's entries for ``harness`` into the settings file at ``path``."""
    spec = target(harness)
    command = gov_command(harness, program)
    current = read_settings(path)
    merged = _merge(current or {}, spec, command)
    if current is not None and merged == current:
        return Change(path, "unchanged", (), command, None, "")
    before = "" if current is None else _read_text(path)
    after = _text(merged)
    events = tuple(event for event, _ in spec.events)
    backup = None if current is None else backup_path(path)
    if not dry_run:
        _write(path, after, before if current is not None else None, backup)
    return Change(path, "created" if current is None else "updated", events, command, backup,
                  _diff(path, before, after))


def uninstall(harness: str, path: Path, *, dry_run: bool = False) -> Change:
    """Remove gov's entries for ``harness`` from the settings file at ``path``."""
    spec = target(harness)
    current = read_settings(path)
    if current is None:
        return Change(path, "absent", (), None, None, "")
    left = _without_gov(current, spec)
    if left == current:
        return Change(path, "absent", (), None, None, "")
    events = tuple(e for e, entries in current.get("hooks", {}).items()
                   if left.get("hooks", {}).get(e) != entries)
    before = _read_text(path)
    backup = backup_path(path)
    if _skeleton(left, spec):  # only gov's entries: nothing of anyone else's to back up
        if not dry_run:
            path.unlink()
        return Change(path, "deleted", events, None, None, _diff(path, before, ""))
    after = _text(left)
    if not dry_run:
        _write(path, after, before, backup)
    return Change(path, "removed", events, None, backup, _diff(path, before, after))


def _read_text(path: Path) -> str:
    from ..corpus.walk import read_bounded

    data: bytes = read_bounded(path, MAX_SETTINGS_BYTES, "a settings file")
    return data.decode("utf-8")


def _write(path: Path, text: str, previous: str | None, backup: Path | None) -> None:
    from ..atomic import write_bytes_atomic

    try:
        if backup is not None and previous is not None:
            write_bytes_atomic(backup, previous.encode("utf-8"))
        write_bytes_atomic(path, text.encode("utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot write: {exc.strerror or exc}") from None


# --- finding installed hooks (gov doctor) ----------------------------------------------


@dataclass(frozen=True)
class Installed:
    """One settings file that runs gov's hook."""

    harness: str
    path: Path
    commands: tuple[str, ...]
    project: Path | None  # the project folder it belongs to; None for the user's own settings


def installed_in(folder: Path, home: Path | None = None) -> list[Installed]:
    """The settings files in ``folder`` and the folders above it (to the repository root or
    the home folder), and the user's own, that run ``gov hook``."""
    seen: set[Path] = set()
    found: list[Installed] = []
    candidates: list[tuple[str, Path, Path | None]] = []
    here = folder.absolute()
    while True:
        for harness in HARNESSES:
            spec = TARGETS[harness]
            paths = [here / spec.project]
            if harness == "copilot" and (here / ".github" / "hooks").is_dir():
                paths = sorted((here / ".github" / "hooks").glob("*.json"))
            candidates += [(harness, p, here) for p in paths]
        if (here / ".git").exists() or (home is not None and here == home) or here.parent == here:
            break
        here = here.parent
    env = None if home is None else {**os.environ, "HOME": str(home)}
    for harness in HARNESSES:
        candidates.append((harness, settings_path(harness, user=True, environ=env), None))
    for harness, path, project in candidates:
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        try:
            settings = read_settings(path)
        except InputError:
            continue
        commands = tuple(sorted({c for c in _commands(settings or {}) if is_gov_command(c)}))
        if commands:
            found.append(Installed(harness, path, commands, project))
    return found


def _commands(settings: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for entries in (settings.get("hooks") or {}).values():
        for entry in entries if isinstance(entries, list) else []:
            inner = entry.get("hooks", [entry]) if isinstance(entry, dict) else []
            for hook in inner if isinstance(inner, list) else []:
                if isinstance(hook, dict):
                    out += [hook[k] for k in ("command", "bash") if isinstance(hook.get(k), str)]
    return out
