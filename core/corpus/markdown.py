"""Parse one markdown policy: ``**Key:** value`` header lines, optional YAML front matter.

Markdown policies carry their routing surface in header lines (``**Agent-trigger:**``,
repeatable ``**Agent-example:**``, ``**Family:**``, ``**Depends-on:**``, ``**Status:**``,
``**Lint-ignore:**``). Each line's number is kept, so ``gov lint`` can point at it.
Agent-ecosystem files (Agent Skills / Claude Code ``SKILL.md``, Cursor ``.mdc``,
Continue rules) carry it in YAML front matter instead; ``description`` is their trigger.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

HEADER_RE = re.compile(r"^\*\*(?P<key>[A-Za-z][A-Za-z -]*?):\*\*[ \t]*(?P<value>.*?)\s*$")
FENCE_RE = re.compile(r"^\s*(```|~~~)")
KNOWN_KEYS = {"agent-trigger", "agent-example", "family", "depends-on", "status", "lint-ignore"}
FRONT_KEY_RE = re.compile(r"^(?P<key>[A-Za-z_][A-Za-z0-9_-]*)\s*:")


class ParseProblem(Exception):
    """A problem in one file, with the line it is on (1-based, or None for the whole file),
    and its short reason for a build's summary ("no description", "not UTF-8", …)."""

    def __init__(self, message: str, line: int | None = None, reason: str = "unreadable") -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.reason = reason


@dataclass
class ParsedMarkdown:
    """What one markdown file says about routing; ``trigger`` is None when it has none."""

    trigger: str | None = None
    trigger_line: int | None = None
    examples: list[str] = field(default_factory=list)
    example_lines: list[int] = field(default_factory=list)
    family: str | None = None
    family_line: int | None = None
    depends_on: list[str] = field(default_factory=list)
    depends_line: int | None = None
    status: str | None = None
    lint_ignore: list[str] = field(default_factory=list)
    lint_ignore_line: int | None = None
    front_matter: dict[str, Any] | None = None
    # The line of each top-level front matter key (``description`` is a skill's trigger).
    front_matter_lines: dict[str, int] = field(default_factory=dict)
    title: str | None = None
    title_line: int | None = None
    # Why the front matter was read leniently (not strict YAML), or None.
    lenient: str | None = None


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
    raise ParseProblem("front matter opened with '---' is never closed", 1,
                       "invalid front matter")


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


_LENIENT_KEY_RE = re.compile(r"^(?P<key>[A-Za-z_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]+(?P<value>.*?))?[ \t]*$")
_BLOCK_RE = re.compile(r"^[|>][+-]?[0-9]?$")
_ITEM_RE = re.compile(r"^[ \t]*-[ \t]+(?P<item>.*?)[ \t]*$")
MAX_LENIENT_ITEMS = 256


def _unquote(value: str) -> str:
    """A scalar with its matching outer quotes removed (``"a: b"`` → ``a: b``)."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        inner = value[1:-1]
        return inner.replace("''", "'") if value[0] == "'" else inner.replace('\\"', '"')
    return value


def _flow_list(value: str) -> list[str]:
    return [_unquote(item.strip()) for item in value[1:-1].split(",") if item.strip()][
        :MAX_LENIENT_ITEMS]


def lenient_front_matter(source: str) -> dict[str, Any]:
    """Front matter read as the harnesses read it when it is not strict YAML: one
    ``key: value`` per top-level line, the value taken as written (``globs: **/*``,
    ``tools: *``, ``description: Use this agent when: …``); a ``|`` or ``>`` block, indented
    continuation lines and ``- item`` lists; ``[a, b]`` lists; outer quotes removed. Lines
    that fit none of these are ignored. Never fails, never builds anything but strings and
    lists of strings."""
    out: dict[str, Any] = {}
    key: str | None = None
    block: str | None = None  # "|" or ">" while reading a block scalar
    parts: list[str] = []
    items: list[str] = []

    def close() -> None:
        if key is None:
            return
        if items and not parts:
            out[key] = items[:MAX_LENIENT_ITEMS]
        elif block == "|":
            out[key] = "\n".join(parts).strip("\n")
        else:
            out[key] = _unquote(" ".join(part.strip() for part in parts if part.strip()))

    for line in source.split("\n"):
        match = _LENIENT_KEY_RE.match(line)
        if match is not None:
            close()
            key, block, parts, items = match["key"], None, [], []
            value = match["value"] or ""
            if _BLOCK_RE.match(value):
                block = value[0]
            elif value.startswith("[") and value.endswith("]"):
                out[key] = _flow_list(value)
                key = None
            elif value:
                parts = [value]
            continue
        if key is None or not line.strip():
            if key is not None and block == "|":
                parts.append("")
            continue
        item = _ITEM_RE.match(line)
        if item is not None and not parts and block is None:
            items.append(_unquote(item["item"]))
        elif line[:1] in " \t":
            parts.append(line.strip())
        else:  # a line at the margin that is not a key: not part of any value
            close()
            key = None
    close()
    return out


def front_matter_key_lines(source: str) -> dict[str, int]:
    """The file line of each top-level key of front matter (which starts on line 2)."""
    lines: dict[str, int] = {}
    for offset, line in enumerate(source.split("\n")):
        match = FRONT_KEY_RE.match(line)
        if match is not None and match["key"] not in lines:
            lines[match["key"]] = offset + 2
    return lines


def _split_list(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def is_header_line(line: str) -> bool:
    """Whether ``line`` is one of gov's routing header lines (``**Agent-trigger:** …``)."""
    match = HEADER_RE.match(line)
    return match is not None and match["key"].strip().lower() in KNOWN_KEYS


def parse_markdown(text: str, *, lenient: bool = True) -> ParsedMarkdown:
    """Read the routing header lines (outside code fences) and any front matter.

    Front matter that is not strict YAML is read the way the harnesses read it (see
    :func:`lenient_front_matter`) and ``lenient`` says why; with ``lenient=False`` it is a
    :class:`ParseProblem`."""
    front_source, body, first_line = split_front_matter(text)
    parsed = ParsedMarkdown()
    if front_source is not None:
        try:
            parsed.front_matter = load_yaml(front_source)
        except ParseProblem as exc:
            if not lenient:
                raise
            parsed.front_matter = lenient_front_matter(front_source)
            detail = exc.message.removeprefix("front matter is not valid YAML: ")
            where = f", line {exc.line}" if exc.line else ""
            parsed.lenient = f"front matter read leniently (not strict YAML: {detail}{where})"
        parsed.front_matter_lines = front_matter_key_lines(front_source)
    in_fence = False
    for offset, line in enumerate(body.split("\n")):
        number = first_line + offset
        if FENCE_RE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if parsed.title is None and line.startswith("# "):
            parsed.title, parsed.title_line = line[2:].strip(), number
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
                parsed.example_lines.append(number)
        elif key == "family":
            parsed.family, parsed.family_line = value or None, number
        elif key == "depends-on":
            parsed.depends_on, parsed.depends_line = _split_list(value), number
        elif key == "status":
            parsed.status = value.lower() or None
        elif key == "lint-ignore":
            parsed.lint_ignore.extend(_split_list(value))
            parsed.lint_ignore_line = parsed.lint_ignore_line or number
    return parsed


_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MARKUP = re.compile(r"[*_`>#]+")


def first_paragraph(body: str, limit: int = 400) -> str | None:
    """The first paragraph of prose in a markdown body (not a heading, list, table, code,
    HTML or a gov header line), links read as their text; ``None`` when there is none of
    at least three words."""
    paragraph: list[str] = []
    in_fence = False
    for line in [*body.split("\n"), ""]:
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            in_fence = not in_fence
            paragraph = []
            continue
        prose = (stripped and not in_fence and not stripped.startswith(("#", "|", "<", "- ", "* ",
                                                                       "---", "==="))
                 and HEADER_RE.match(stripped) is None)
        if prose:
            paragraph.append(stripped)
            continue
        text = " ".join(_MARKUP.sub("", _LINK.sub(r"\1", " ".join(paragraph))).split())
        paragraph = []
        if len(text.split()) >= 3:
            return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"
    return None
