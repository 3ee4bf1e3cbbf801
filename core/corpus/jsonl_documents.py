"""JSONL documents: one JSON object per line (``name``, ``trigger``, ``body``, ``examples``,
``family``, ``depends_on``, ``status``, ``lint_ignore``)."""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import CorpusError
from .document import Document
from .markdown import ParseProblem
from .names import check_dependencies, check_name


def parse_jsonl_documents(lines: Iterable[bytes], shown: str) -> list[Document]:
    """Read JSONL documents: ``{"name", "trigger", "body", "examples", "family", "depends_on",
    "lint_ignore"}``."""
    from ..jsonl import read_lines

    documents = []
    for line in read_lines(lines):
        where = f"{shown}:{line.number}"
        if line.error is not None:
            if line.error.startswith(("line contains a NUL byte", "line is not valid UTF-8")):
                binary = "NUL" in line.error
                raise ParseProblem(("a binary file: " if binary else "") + line.error, line.number,
                                   "binary" if binary else "not UTF-8")
            raise CorpusError(f"{where}: {line.error}")
        record = line.value
        if not isinstance(record, dict):
            raise CorpusError(f"{where}: expected a JSON object with 'name' and 'trigger'")
        for key in ("name", "trigger"):
            if not isinstance(record.get(key), str) or not record[key].strip():
                raise CorpusError(f"{where}: field '{key}' must be a non-empty string")
        for key in ("body", "family", "status"):
            if record.get(key) is not None and not isinstance(record[key], str):
                raise CorpusError(f"{where}: field '{key}' must be a string")
        for key in ("examples", "depends_on", "lint_ignore"):
            value = record.get(key, [])
            if value is None:
                value = []
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise CorpusError(f"{where}: field '{key}' must be a list of strings")
        try:
            check_dependencies(record.get("depends_on") or [], "depends_on")
            check_dependencies(record.get("lint_ignore") or [], "lint_ignore")
        except ParseProblem as exc:
            raise CorpusError(f"{where}: {exc.message}") from None
        name = record["name"].strip()
        check_name(name, where)
        documents.append(
            Document(
                name=name,
                trigger=" ".join(record["trigger"].split()),
                examples=tuple(" ".join(e.split()) for e in record.get("examples") or [] if e.strip()),
                text=record.get("body") or "",
                family=(record.get("family") or None),
                depends_on=tuple(record.get("depends_on") or []),
                source=f"{shown}:{line.number}",
                status=(record.get("status") or "").lower() or None,
                kind="jsonl",
                lint_ignore=tuple(record.get("lint_ignore") or []),
            )
        )
    return documents
