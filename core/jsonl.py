"""A JSONL reader that never loses a line: each line yields a value or an error.

Pipelines chain on "one output line per input line", so a bad line must become an
error at its position, not an exception that ends the stream.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson

BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class Line:
    """One non-blank input line: its 1-based number and its value or error."""

    number: int
    value: Any = None
    error: str | None = None


def decode_line(raw: bytes, number: int) -> Line:
    """Parse one line of bytes (without its newline) into a :class:`Line`."""
    if number == 1 and raw.startswith(BOM):
        raw = raw[len(BOM) :]
    if b"\x00" in raw:
        return Line(number, error="line contains a NUL byte")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Line(number, error=f"line is not valid UTF-8 (byte {exc.start})")
    try:
        return Line(number, value=orjson.loads(text))
    except orjson.JSONDecodeError as exc:
        return Line(number, error=f"invalid JSON: {exc}")
    except RecursionError:
        return Line(number, error="invalid JSON: nested too deeply")


def read_lines(stream: Iterable[bytes]) -> Iterator[Line]:
    """Yield a :class:`Line` for every non-blank line of a binary stream.

    Blank (whitespace-only) lines are not records and are skipped; line numbers still
    count them so errors point at the right place in the file.
    """
    for number, raw in enumerate(stream, start=1):
        stripped = raw.rstrip(b"\r\n")
        if number == 1 and stripped.startswith(BOM):
            stripped = stripped[len(BOM) :]
        if not stripped.strip():
            continue
        yield decode_line(stripped, number)


def dumps(value: Any) -> bytes:
    """One JSON line (with its newline), as gov writes every JSONL record."""
    return orjson.dumps(value, option=orjson.OPT_APPEND_NEWLINE)
