"""Labelled prompts: each prompt with the documents that govern it ([] for none).

The input of ``gov calibrate`` and of cross-fitted learning; one bad row is one error
naming its line and field.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InputError


@dataclass
class Labelled:
    """Labelled prompts: each with its expected document names ([] = none governs)."""

    prompts: list[str]
    expected: list[frozenset[str]]
    kinds: list[str | None]
    # Rows whose ``expected`` is null or absent: a labelling sheet's rows nobody labelled yet.
    unlabelled: int = 0

    @property
    def negatives(self) -> int:
        return sum(1 for names in self.expected if not names)


def read_labelled(records: Sequence[tuple[str, Any]]) -> Labelled:
    """Rows as (where, decoded JSON); a row without a prompt, or whose expected is not a list
    of names, is an error there. A row whose ``expected`` is null or absent (a ``gov label``
    sheet's row not labelled yet) is skipped and counted."""
    prompts: list[str] = []
    unlabelled = 0
    expected: list[frozenset[str]] = []
    kinds: list[str | None] = []
    for where, record in records:
        if not isinstance(record, dict):
            raise InputError(f"{where}: expected a JSON object with 'prompt' and 'expected'")
        prompt = record.get("prompt")
        if not isinstance(prompt, str):
            raise InputError(f"{where}: field 'prompt' must be a string")
        names = record.get("expected")
        if names is None:
            unlabelled += 1
            continue
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise InputError(f"{where}: field 'expected' must be a list of document names "
                             "([] for a prompt no document governs)")
        kind = record.get("kind")
        prompts.append(prompt)
        expected.append(frozenset(names))
        kinds.append(kind if isinstance(kind, str) else None)
    if not prompts:
        raise InputError("no labelled prompts to calibrate on"
                         + (f" ({unlabelled} rows have no 'expected' yet)" if unlabelled else ""))
    return Labelled(prompts, expected, kinds, unlabelled)


def read_labelled_jsonl(lines: Iterable[bytes], shown: str = "stdin") -> Labelled:
    """Labelled prompts from JSONL lines; a malformed line is an error naming it."""
    from ..jsonl import read_lines

    records: list[tuple[str, Any]] = []
    for line in read_lines(lines):
        where = f"{shown} line {line.number}"
        if line.error is not None:
            raise InputError(f"{where}: {line.error}")
        records.append((where, line.value))
    return read_labelled(records)
