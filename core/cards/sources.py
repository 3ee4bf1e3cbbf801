"""Read cards from files, globs, directories or stdin, remembering where each came from.

A file holds one card, a JSON array of cards, or JSON Lines. Every card keeps its file
and line (for an array, the line where the element starts, plus its index), so a
report can point a person, or a CI annotation, at it.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from ..bounded import MEGABYTE, read_regular
from ..errors import GovError
from ..jsonl import BOM, decode_line

CARDS_LIMIT = 64 * MEGABYTE  # bytes of one file of cards read at most

STDIN = "-"
_GLOB_CHARS = re.compile(r"[*?\[]")
_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},]', re.DOTALL)
_NON_SPACE = re.compile(r"\S")


class CardSourceError(GovError):
    """A path that cannot be read: missing, unreadable, or a glob that matches nothing."""

    exit_code = 2
    failure_class = "input"


@dataclass(slots=True)
class Record:
    """One card as read: where it came from, and its value or why it could not be read.

    Not frozen: a run makes one per card, and a frozen dataclass's ``__init__`` costs three
    times as much. Treat it as read-only.
    """

    file: str
    line: int | None
    index: int | None
    value: Any = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Sources:
    """The files a list of specs names, and notes on the specs that named none."""

    paths: list[str]
    notes: list[str]


def resolve_sources(specs: Iterable[str]) -> Sources:
    """Expand paths, directories (their ``*.json`` and ``*.jsonl``) and globs, in order.

    A glob that matches nothing, or a directory without cards, is a note as long as some
    other spec named a file (a CI step may list ``*.json`` and ``*.jsonl`` in a repository
    that has one kind only); when none did, it is a ``CardSourceError``. A plain path that
    does not exist is always an error: it was named on purpose.
    """
    paths: list[str] = []
    empty: list[str] = []
    for spec in specs:
        if spec == STDIN:
            paths.append(spec)
        elif os.path.isdir(spec):
            found = sorted(
                str(p) for p in Path(spec).rglob("*") if p.suffix in (".json", ".jsonl") and p.is_file()
            )
            if not found:
                empty.append(f"{spec}: directory holds no .json or .jsonl files")
            paths.extend(found)
        elif os.path.exists(spec):
            paths.append(spec)
        elif _GLOB_CHARS.search(spec):
            found = sorted(p for p in _glob(spec) if os.path.isfile(p))
            if not found:
                empty.append(f"{spec}: no file matches this pattern")
            paths.extend(found)
        else:
            raise CardSourceError(f"{spec}: no such file")
    if empty and not paths:
        raise CardSourceError("; ".join(empty))
    return Sources(paths, empty)


def resolve(specs: Iterable[str]) -> list[str]:
    """The files ``specs`` name (see ``resolve_sources``), without the notes."""
    return resolve_sources(specs).paths


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


def _holds_a_record_line(data: bytes) -> bool:
    """Whether any line of ``data`` is a JSON object on its own, as in JSON Lines."""
    for raw in data.split(b"\n"):
        line = raw.strip()
        if line.startswith(b"{") and line.endswith(b"}"):
            try:
                if isinstance(orjson.loads(line), dict):
                    return True
            except orjson.JSONDecodeError:
                continue
    return False


def json_lines(data: bytes, name: str) -> Iterator[Record]:
    """One record per non-blank line of ``data``, whatever any line holds."""
    if data.startswith(BOM):
        data = data[len(BOM) :]
    loads = orjson.loads
    error = orjson.JSONDecodeError
    for number, raw in enumerate(data.split(b"\n"), 1):
        try:
            # orjson takes the bytes as they are: it checks UTF-8 and refuses NUL bytes and
            # broken escapes, so a line it accepts needs nothing more.
            yield Record(name, number, None, loads(raw))
        except error:
            if raw.strip():  # a blank line is not a record
                line = decode_line(raw.rstrip(b"\r"), number)
                yield Record(name, number, None, line.value, line.error)


def is_jsonl_name(name: str) -> bool:
    """Whether a file's name says it holds JSON Lines (``.jsonl``, ``.ndjson``)."""
    return name.endswith((".jsonl", ".ndjson", ".JSONL", ".NDJSON"))


def parse_document(data: bytes, name: str, *, jsonl: bool = False) -> Iterator[Record]:
    """The cards in one file's bytes: a single card, an array, or JSON Lines.

    With ``jsonl`` (a ``.jsonl`` file) every line is a record of its own, whatever the
    first line holds. Otherwise the bytes are one JSON document, unless they fail to parse
    as one and a line is a JSON object on its own: then they are JSON Lines too.
    """
    if data.startswith(BOM):
        data = data[len(BOM) :]
    if jsonl:
        yield from json_lines(data, name)
        return
    body = data.lstrip()
    if not body:
        return
    first_line = data[: len(data) - len(body)].count(b"\n") + 1
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if not (_looks_like_jsonl(body.split(b"\n", 1)[0]) or _holds_a_record_line(data)):
            yield Record(name, exc.lineno, None, error=f"invalid JSON: {exc}")
            return
        yield from json_lines(data, name)
        return
    if isinstance(value, list):
        text = data.decode("utf-8")
        lines = _lines_of(text, _element_starts(text))
        for index, element in enumerate(value):
            line = lines[index] if index < len(lines) else None
            yield Record(name, line, index, element)
        return
    yield Record(name, first_line, None, value)


def read_cards(
    specs: Iterable[str],
    stdin: IO[bytes] | None = None,
    *,
    note: Callable[[str], None] | None = None,
) -> Iterator[Record]:
    """Every card in ``specs`` (paths, directories, globs, ``-`` for stdin), in order.

    ``note`` hears about specs that named no file while others did.
    """
    sources = resolve_sources(specs)
    if note is not None:
        for message in sources.notes:
            note(message)
    return read_paths(sources.paths, stdin)


def read_paths(paths: Iterable[str], stdin: IO[bytes] | None = None) -> Iterator[Record]:
    """Every card in already resolved ``paths`` (``-`` for stdin), in order."""
    for path in paths:
        if path == STDIN:
            if stdin is None:
                raise CardSourceError("-: no standard input to read")
            data = stdin.read(CARDS_LIMIT + 1)
            if len(data) > CARDS_LIMIT:
                raise CardSourceError(f"-: standard input is over the {CARDS_LIMIT:,}-byte limit "
                                      "for cards; split it into smaller files")
        else:
            try:
                data = read_regular(path, CARDS_LIMIT)
            except OSError as exc:
                raise CardSourceError(f"{path}: cannot read: {exc.strerror or exc}") from None
        yield from parse_document(data, path, jsonl=is_jsonl_name(path))
