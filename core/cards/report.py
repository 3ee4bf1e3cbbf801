"""Per-card results and the four ways of writing them: text, json, jsonl, github.

A result names where the card is (file, line, index), which task it reports, whether it
is valid (with each problem's field path and rule) and, for ``verify``, the verdict
fields ovi-cards reports. Writers stream, so a long JSONL file starts printing at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import IO, TYPE_CHECKING, Any

import orjson

from .contracts import Contract
from .plain import CardData, is_card
from .schema import Problem, explain
from .sources import Record
from .verify import judge, verdict

if TYPE_CHECKING:
    from .repo_checks import Repo

FORMATS = ("text", "json", "jsonl", "github")
# Results are written in batches: one write per card costs more than checking it, yet a
# reader at the other end of a pipe should still see the first results early.
_FLUSH_BYTES = 1 << 16
_FLUSH_RESULTS = 256
_EMPTY_VERDICT: dict[str, Any] = {
    "contract_id": None,
    "passed": False,
    "hard_failures": [],
    "soft_failures": [],
    "checks_passed": [],
    "adjusted_confidence": None,
    "confidence_delta": None,
}


def _where(record: Record, value: Any) -> dict[str, Any]:
    task_id = value.get("task_id") if isinstance(value, dict) else None
    card_type = value.get("card_type") if isinstance(value, dict) else None
    return {
        "file": record.file,
        "line": record.line,
        "index": record.index,
        "task_id": task_id if isinstance(task_id, str) else None,
        "card_type": card_type if isinstance(card_type, str) else None,
    }


def checked(record: Record) -> tuple[CardData | None, list[Problem]]:
    """The record's card, or why it is not one: the plain rules decide, the schema explains."""
    if record.error is not None:
        return None, [Problem("$", "json", record.error)]
    if is_card(record.value):
        return record.value, []
    problems = explain(record.value)
    # The property tests hold the schema to the same answer; should it ever find nothing,
    # the card is still refused, and says so.
    return None, problems or [Problem("$", "rules", "refused by the card rules")]


def validation_results(records: Iterable[Record]) -> Iterator[dict[str, Any]]:
    """One result per record: valid, or the problems with their field paths and rules."""
    for record in records:
        result = _where(record, record.value)
        _, problems = checked(record)
        result["valid"] = not problems
        result["errors"] = [p.to_json() for p in problems]
        yield result


def verification_results(
    records: Iterable[Record],
    contract: Contract,
    *,
    now: datetime,
    strict: bool = False,
    repo: Repo | None = None,
) -> Iterator[dict[str, Any]]:
    """One result per record: its validity and, when valid, the contract's verdict (with the
    repository checks when ``repo`` is given)."""
    for record in records:
        value = record.value
        if record.error is None and is_card(value):  # the common case, in one dict literal
            where = _location(record.file, record.line, record.index) if repo is not None else ""
            (contract_id, passed, hard, soft, checks_passed, adjusted, delta,
             summary) = judge(value, contract, now, strict, repo, where)  # fmt: skip
            yield {"file": record.file, "line": record.line, "index": record.index,
                   "task_id": value["task_id"], "card_type": value["card_type"],
                   "valid": True, "errors": [], "contract_id": contract_id, "passed": passed,
                   "hard_failures": hard, "soft_failures": soft, "checks_passed": checks_passed,
                   "adjusted_confidence": adjusted, "confidence_delta": delta,
                   "summary": summary}  # fmt: skip
            continue
        result = _where(record, value)
        card, problems = checked(record)
        result["valid"] = card is not None
        result["errors"] = [p.to_json() for p in problems]
        if card is None:
            result.update(_EMPTY_VERDICT)
            result["summary"] = "The card is invalid, so it was not verified."
        else:
            where = location(result) if repo is not None else ""
            result.update(verdict(card, contract, now, strict, repo, where))
        yield result


@dataclass
class Tally:
    """Counts for the closing notice and the exit code."""

    cards: int = 0
    invalid: int = 0
    failed: int = 0
    warned: int = 0

    @property
    def ok(self) -> bool:
        return self.invalid == 0 and self.failed == 0

    def add(self, result: dict[str, Any]) -> None:
        self.cards += 1
        if not result["valid"]:
            self.invalid += 1
        elif result.get("passed") is False:
            self.failed += 1
        elif result.get("soft_failures"):
            self.warned += 1

    def describe(self, verifying: bool) -> str:
        noun = "card" if self.cards == 1 else "cards"
        if not verifying:
            return f"{self.cards} {noun}: {self.cards - self.invalid} valid, {self.invalid} invalid"
        passed = self.cards - self.invalid - self.failed
        return (
            f"{self.cards} {noun}: {passed} passed ({self.warned} with soft failures), "
            f"{self.failed} failed, {self.invalid} invalid"
        )


def _location(file: str, line: int | None, index: int | None) -> str:
    text = str(file)
    if line is not None:
        text += f":{line}"
    if index is not None:
        text += f" [{index}]"
    return text


def location(result: dict[str, Any]) -> str:
    """Where a result's card is: ``file:line [index]``."""
    return _location(result["file"], result.get("line"), result.get("index"))


class _Style:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color else text


def _text_lines(result: dict[str, Any], verifying: bool, style: _Style) -> list[str]:
    task = result["task_id"] or "-"
    if not result["valid"]:
        lines = [f"{style('INVALID', '1;31')} {location(result)}  {task}"]
        for error in result["errors"]:
            lines.append(f"    {error['path']}: {error['message']} ({error['rule']})")
        return lines
    if not verifying:
        return [f"{style('VALID', '32')}   {location(result)}  {task}"]
    if not result["passed"]:
        label = style("FAIL", "1;31")
    elif result["soft_failures"]:
        label = style("WARN", "33")
    else:
        label = style("PASS", "32")
    score = f"{result['adjusted_confidence']}"
    if result["confidence_delta"]:
        score = f"{result['adjusted_confidence'] - result['confidence_delta']:.4g} -> {score}"
    head = f"{label}    {location(result)}  {task}  {result['contract_id']}  confidence {score}"
    lines = [head]
    if result["hard_failures"]:
        lines.append(f"    hard: {', '.join(result['hard_failures'])}")
    if result["soft_failures"]:
        lines.append(f"    soft: {', '.join(result['soft_failures'])}")
    if result["hard_failures"] or result["soft_failures"] or not result["passed"]:
        lines.append(f"    {result['summary']}")
    return lines


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _github_line(result: dict[str, Any], verifying: bool) -> str | None:
    props = []
    if result["file"] != "-":
        props.append(f"file={_escape_property(str(result['file']))}")
    if result.get("line") is not None:
        props.append(f"line={result['line']}")
    task = result["task_id"] or "card"
    if not result["valid"]:
        level, title = "error", f"invalid card {task}"
        message = "; ".join(f"{e['path']}: {e['message']} ({e['rule']})" for e in result["errors"])
    elif not verifying:
        return None
    elif not result["passed"]:
        level, title = "error", f"card {task} failed verification"
        message = _verdict_message(result)
    elif result["soft_failures"]:
        level, title = "warning", f"card {task} has soft failures"
        message = _verdict_message(result)
    else:
        return None
    props.append(f"title={_escape_property(title)}")
    return f"::{level} {','.join(props)}::{_escape_data(message)}"


def _verdict_message(result: dict[str, Any]) -> str:
    parts = []
    if result["hard_failures"]:
        parts.append("hard: " + ", ".join(result["hard_failures"]))
    if result["soft_failures"]:
        parts.append("soft: " + ", ".join(result["soft_failures"]))
    parts.append(f"adjusted confidence {result['adjusted_confidence']}")
    return "; ".join(parts) + ". " + str(result["summary"])


def write_results(
    results: Iterable[dict[str, Any]],
    out: IO[bytes],
    fmt: str,
    *,
    verifying: bool,
    color: bool = False,
) -> Tally:
    """Write ``results`` to ``out`` in ``fmt`` and count them."""
    tally = Tally()
    if fmt == "json":
        collected = []
        for result in results:
            tally.add(result)
            collected.append(result)
        out.write(orjson.dumps(collected, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
        return tally
    if fmt == "jsonl":
        return _write_jsonl(results, out, tally)
    style = _Style(color)
    pending: list[bytes] = []
    size = 0
    for result in results:
        tally.add(result)
        if fmt == "jsonl":
            chunk = orjson.dumps(result, option=orjson.OPT_APPEND_NEWLINE)
        elif fmt == "github":
            line = _github_line(result, verifying)
            if line is None:
                continue
            chunk = line.encode() + b"\n"
        else:
            chunk = "\n".join(_text_lines(result, verifying, style)).encode() + b"\n"
        pending.append(chunk)
        size += len(chunk)
        if size >= _FLUSH_BYTES or len(pending) >= _FLUSH_RESULTS:
            out.write(b"".join(pending))
            out.flush()
            pending, size = [], 0
    if pending:
        out.write(b"".join(pending))
    return tally


def _write_jsonl(results: Iterable[dict[str, Any]], out: IO[bytes], tally: Tally) -> Tally:
    """JSON Lines, the pipe's format: ``write_results`` with its per-result work inlined."""
    dumps = orjson.dumps
    newline = orjson.OPT_APPEND_NEWLINE
    pending: list[bytes] = []
    cards = invalid = failed = warned = size = 0
    for result in results:
        cards += 1
        if not result["valid"]:
            invalid += 1
        elif result.get("passed") is False:
            failed += 1
        elif result.get("soft_failures"):
            warned += 1
        chunk = dumps(result, option=newline)
        pending.append(chunk)
        size += len(chunk)
        if size >= _FLUSH_BYTES or len(pending) >= _FLUSH_RESULTS:
            out.write(b"".join(pending))
            out.flush()
            pending, size = [], 0
    if pending:
        out.write(b"".join(pending))
    tally.cards, tally.invalid, tally.failed, tally.warned = cards, invalid, failed, warned
    return tally
