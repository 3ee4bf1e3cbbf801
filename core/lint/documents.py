"""Documents as lint sees them: their surfaces, and the file line of each.

Whether a corpus is read from its folders or from an index, each document's text is at
hand (an index stores it whole), so its header lines are parsed again here for their line
numbers and its ``**Lint-ignore:**`` rules. A JSONL document is one line of its file:
every finding about it points there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..corpus.markdown import ParsedMarkdown, ParseProblem, parse_markdown


@dataclass(frozen=True)
class LintDocument:
    """One routable document: name, file, surfaces, relations, and where each line is."""

    name: str
    file: str | None
    kind: str
    trigger: str
    examples: tuple[str, ...]
    family: str | None
    depends_on: tuple[str, ...]
    text: str
    trigger_line: int | None = None
    example_lines: tuple[int | None, ...] = ()
    family_line: int | None = None
    depends_line: int | None = None
    ignore_line: int | None = None
    title: str | None = None
    ignore: frozenset[str] = field(default_factory=frozenset)

    def surface_lines(self) -> list[int | None]:
        """The line of each surface: the trigger's, then each example's."""
        return [self.trigger_line, *self.example_lines]

    @property
    def first_line(self) -> int | None:
        return self.trigger_line


def split_source(source: str, kind: str) -> tuple[str | None, int | None]:
    """A document's file and line from its source (``file.jsonl:12`` for JSONL)."""
    if not source:
        return None, None
    if kind == "jsonl":
        path, _, number = source.rpartition(":")
        if number.isdigit() and path:
            return (None if path == "<stdin>" else path), int(number)
    return source, None


def _parsed(text: str) -> ParsedMarkdown | None:
    try:
        return parse_markdown(text)
    except ParseProblem:
        return None


def lint_document(name: str, source: str, kind: str, trigger: str, examples: Sequence[str],
                  family: str | None, depends_on: Sequence[str], text: str,
                  ignore: Sequence[str] | None = None) -> LintDocument:
    """A :class:`LintDocument`, with the lines found by parsing ``text`` (a markdown file's
    whole text); ``ignore`` when known already (a JSONL document's ``lint_ignore``)."""
    path, line = split_source(source, kind)
    common = dict(name=name, file=path, kind=kind, trigger=trigger, examples=tuple(examples),
                  family=family, depends_on=tuple(depends_on), text=text)
    if kind == "jsonl":
        return LintDocument(**common, trigger_line=line,  # type: ignore[arg-type]
                            example_lines=tuple(line for _ in examples), family_line=line,
                            depends_line=line, ignore_line=line,
                            ignore=frozenset(ignore or ()))
    parsed = _parsed(text)
    if parsed is None:
        return LintDocument(**common, ignore=frozenset(ignore or ()))  # type: ignore[arg-type]
    front = parsed.front_matter_lines
    trigger_line = parsed.trigger_line or front.get("description")
    example_lines: list[int | None] = list(parsed.example_lines)
    example_lines += [None] * (len(examples) - len(example_lines))
    family_line = parsed.family_line or front.get("family")
    depends_line = parsed.depends_line or front.get("depends_on") or front.get("depends-on")
    ignore_line = parsed.lint_ignore_line or front.get("lint-ignore") or front.get("lint_ignore")
    if ignore is None:
        ignore = parsed.lint_ignore or _front_ignore(parsed)
    return LintDocument(**common, trigger_line=trigger_line,  # type: ignore[arg-type]
                        example_lines=tuple(example_lines[: len(examples)]),
                        family_line=family_line, depends_line=depends_line,
                        ignore_line=ignore_line, title=parsed.title, ignore=frozenset(ignore))


def _front_ignore(parsed: ParsedMarkdown) -> list[str]:
    front = parsed.front_matter or {}
    value = front.get("lint-ignore", front.get("lint_ignore"))
    if isinstance(value, str):
        return [item.strip() for item in value.split(",") if item.strip()]
    if isinstance(value, list):
        return [str(item).strip() for item in value if str(item).strip()]
    return []
