"""Read cards from files, globs, directories or stdin, remembering where each came from.

A file holds one card, a JSON array of cards, or JSON Lines. Every card keeps its file
and line (for an array, the line where the element starts, plus its index), so a
report can point a person, or a CI annotation, at it.
"""

from __future__ import annotations

import glob
import io
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from gov.core.errors import GovError
from gov.core.jsonl import BOM, read_lines

STDIN = "-"
_GLOB_CHARS = re.compile(r"[*?\[]")
_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},]', re.DOTALL)
_NON_SPACE = re.compile(r"\S")


class CardSourceError(GovError):
    """A path that cannot be read: missing, unreadable, or a glob that matches nothing."""

    exit_code = 2
    failure_class = "input"


@dataclass(frozen=True, slots=True)
class Record:
    """One card as read: where it came from, and its value or why it could not be read."""

    file: str
    line: int | None
    index: int | None
    value: Any = None
    error: str | None = None


def resolve(specs: Iterable[str]) -> list[str]:
    """Expand paths, directories (their ``*.json`` and ``*.jsonl``) and globs, in order.

    Raises ``CardSourceError`` for anything that names no readable file.
    """
    paths: list[str] = []
    for spec in specs:
        if spec == STDIN:
            paths.append(spec)
        elif os.path.isdir(spec):
            found = sorted(
                str(p) for p in Path(spec).rglob("*") if p.suffix in (".json", ".jsonl") and p.is_file()
            )
            if not found:
                raise CardSourceError(f"{spec}: directory holds no .json or .jsonl files")
            paths.extend(found)
        elif os.path.exists(spec):
            paths.append(spec)
        elif _GLOB_CHARS.search(spec):
            found = sorted(p for p in _glob(spec) if os.path.isfile(p))
            if not found:
                raise CardSourceError(f"{spec}: no file matches this pattern")
            paths.extend(found)
        else:
            raise CardSourceError(f"{spec}: no such file")
    return paths


def _glob(spec: str) -> list[str]:
    """Files matching ``spec``; ``**`` goes through pathlib, which never descends into a
    linked folder (``glob.glob`` does, and two links to ``.`` make it run forever)."""
    if "**" not in spec:
        return glob.glob(spec)
    parts = Path(spec).parts
    fixed = next(i for i, part in enumerate(parts) if _GLOB_CHARS.search(part))
    anchor = Path(*parts[:fixed]) if fixed else Path(".")
    return [str(path) for path in anchor.glob(str(Path(*parts[fixed:])))]


def _element_starts(text: str) -> list[int]:
    """Offsets where the elements of the top-level JSON array in ``text`` begin."""
    starts: list[int] = []
    depth = 0
    for token in _STRUCTURE.finditer(text):
        char = token.group()
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        if depth == 1 and char in "[,":
            nxt = _NON_SPACE.search(text, token.end())
            if nxt is not None and nxt.group() != "]":
                starts.append(nxt.start())
    return starts


def _lines_of(text: str, offsets: list[int]) -> list[int]:
    lines: list[int] = []
    line, last = 1, 0
    for offset in offsets:
        line += text.count("\n", last, offset)
        last = offset
        lines.append(line)
    return lines


def _looks_like_jsonl(head: bytes) -> bool:
    """Whether a file's first line is a record of its own (JSON Lines), not a fragment."""
    head = head.strip()
    if len(head) > 1 and head.startswith(b"{") and head.endswith(b"}"):
        return True
    try:
        orjson.loads(head)
    except orjson.JSONDecodeError:
        return False
    return True


def parse_document(data: bytes, name: str) -> Iterator[Record]:
    """The cards in one file's bytes: a single card, an array, or JSON Lines."""
    if data.startswith(BOM):
        data = data[len(BOM) :]
    body = data.lstrip()
    if not body:
        return
    first_line = data[: len(data) - len(body)].count(b"\n") + 1
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if not _looks_like_jsonl(body.split(b"\n", 1)[0]):
            yield Record(name, exc.lineno, None, error=f"invalid JSON: {exc}")
            return
        for item in read_lines(io.BytesIO(data)):
            yield Record(name, item.number, None, item.value, item.error)
        return
    if isinstance(value, list):
        text = data.decode("utf-8")
        lines = _lines_of(text, _element_starts(text))
        for index, element in enumerate(value):
            line = lines[index] if index < len(lines) else None
            yield Record(name, line, index, element)
        return
    yield Record(name, first_line, None, value)


def read_cards(specs: Iterable[str], stdin: IO[bytes] | None = None) -> Iterator[Record]:
    """Every card in ``specs`` (paths, directories, globs, ``-`` for stdin), in order."""
    for path in resolve(specs):
        if path == STDIN:
            if stdin is None:
                raise CardSourceError("-: no standard input to read")
            data = stdin.read()
        else:
            try:
                data = Path(path).read_bytes()
            except OSError as exc:
                raise CardSourceError(f"{path}: cannot read: {exc.strerror or exc}") from None
        yield from parse_document(data, path)
