"""Parse one markdown policy: ``**Key:** value`` header lines, optional YAML front matter.

Markdown policies carry their routing surface in header lines (``**Agent-trigger:**``,
repeatable ``**Agent-example:**``, ``**Family:**``, ``**Depends-on:**``, ``**Status:**``).
Agent-ecosystem files (Agent Skills / Claude Code ``SKILL.md``, Cursor ``.mdc``,
Continue rules) carry it in YAML front matter instead; ``description`` is their trigger.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

HEADER_RE = re.compile(r"^\*\*(?P<key>[A-Za-z][A-Za-z -]*?):\*\*[ \t]*(?P<value>.*?)\s*$")
FENCE_RE = re.compile(r"^\s*(```|~~~)")
KNOWN_KEYS = {"agent-trigger", "agent-example", "family", "depends-on", "status"}


class ParseProblem(Exception):
    """A problem in one file, with the line it is on (1-based, or None for the whole file)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass
class ParsedMarkdown:
    """What one markdown file says about routing; ``trigger`` is None when it has none."""

    trigger: str | None = None
    trigger_line: int | None = None
    examples: list[str] = field(default_factory=list)
    family: str | None = None
    depends_on: list[str] = field(default_factory=list)
    status: str | None = None
    front_matter: dict[str, Any] | None = None


def split_front_matter(text: str) -> tuple[str | None, str, int]:
    """Split ``---`` YAML front matter from the rest; return (yaml, body, body's first line)."""
    if not text.startswith("---"):
        return None, text, 1
    lines = text.split("\n")
    if lines[0].rstrip() != "---":
        return None, text, 1
    for number in range(1, len(lines)):
        if lines[number].rstrip() in ("---", "..."):
            return "\n".join(lines[1:number]), "\n".join(lines[number + 1 :]), number + 2
    raise ParseProblem("front matter opened with '---' is never closed", 1)


_LOADER: Any = None


def _loader() -> Any:
    """PyYAML's safe loader, refusing aliases: ``*name`` lets a few hundred bytes of front
    matter stand for a structure of billions of items (front matter never needs one)."""
    global _LOADER
    if _LOADER is None:
        import yaml

        class NoAliasLoader(yaml.SafeLoader):
            def compose_node(self, parent: Any, index: Any) -> Any:
                if self.check_event(yaml.AliasEvent):
                    event = self.peek_event()  # type: ignore[no-untyped-call]
                    raise yaml.composer.ComposerError(
                        None, None, "aliases (*name) are not allowed in front matter",
                        event.start_mark)
                return super().compose_node(parent, index)

        _LOADER = NoAliasLoader
    return _LOADER


def load_yaml(source: str) -> dict[str, Any]:
    """Read front matter with a real YAML parser (safe loader: no object construction, no
    aliases)."""
    import yaml

    try:
        value = yaml.load(source, Loader=_loader())  # a safe loader (see _loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise ParseProblem(f"front matter is not valid YAML: {problem}", line) from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ParseProblem("front matter must be a YAML mapping of keys to values", 2)
    return value


def _split_list(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def is_header_line(line: str) -> bool:
    """Whether ``line`` is one of gov's routing header lines (``**Agent-trigger:** …``)."""
    match = HEADER_RE.match(line)
    return match is not None and match["key"].strip().lower() in KNOWN_KEYS


def parse_markdown(text: str) -> ParsedMarkdown:
    """Read the routing header lines (outside code fences) and any front matter."""
    front_source, body, first_line = split_front_matter(text)
    parsed = ParsedMarkdown()
    if front_source is not None:
        parsed.front_matter = load_yaml(front_source)
    in_fence = False
    for offset, line in enumerate(body.split("\n")):
        number = first_line + offset
        if FENCE_RE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        match = HEADER_RE.match(line)
        if match is None:
            continue
        key = match["key"].strip().lower()
        value = match["value"].strip()
        if key not in KNOWN_KEYS:
            continue
        if key == "agent-trigger":
            if parsed.trigger_line is not None:
                raise ParseProblem(
                    f"a second **Agent-trigger:** line (the first is on line {parsed.trigger_line});"
                    " a document has exactly one",
                    number,
                )
            parsed.trigger = value
            parsed.trigger_line = number
        elif key == "agent-example":
            if value:
                parsed.examples.append(value)
        elif key == "family":
            parsed.family = value or None
        elif key == "depends-on":
            parsed.depends_on = _split_list(value)
        elif key == "status":
            parsed.status = value.lower() or None
    return parsed
