"""Output formats as classes in one registry: text, json, jsonl, github, sarif.

A command hands a reporter *views* of what it found: items (one routed row, one card,
one finding), streamed as they come, and at most one summary at the end. A view knows
its JSON form and how it reads as text; one that points at a file also gives
annotations (GitHub workflow commands, SARIF). A reporter decides only the format, so a
new format is one class added to :data:`REPORTERS`, and every command that offers it
writes it the same way.

* text: each item's text, then the summary's (rich, honouring ``--color``);
* json: one JSON document: the items as an array, else the summary, indented;
* jsonl: one JSON line per item (the summary, when there are no items);
* github: ``::error file=…,line=…::message`` lines for the annotations;
* sarif: one SARIF 2.1.0 log of the annotations that point at a file (GitHub code
  scanning shows them on the files); a summary view that offers ``rules()`` names the
  tool's rules, else each annotation's ``rule`` (or title) becomes one.

This module is the one place formats are registered (:data:`REPORTERS`, whose names are
:data:`FORMATS`) and chosen: ``--format`` offers only registered names
(:func:`check_formats`), a command that writes one JSON value goes through
:func:`write_json` (the writer every JSON and JSONL reporter uses), and card results,
which stream at thousands a second, are written by :func:`write_card_results`.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    from rich.console import Console


@dataclass(frozen=True)
class Annotation:
    """A finding tied to a place in a file, for CI annotations."""

    level: str  # error, warning or notice
    message: str
    file: str | None = None
    line: int | None = None
    title: str | None = None
    rule: str | None = None  # a stable id (SARIF's ruleId)


def shown(text: str) -> str:
    """Text from a file or an index, for a text view: control sequences made visible
    (:func:`gov.core.sanitize.escape_terminal`), rich markup escaped. Never obeyed by the
    terminal, never read as markup."""
    from rich.markup import escape

    from gov.core.sanitize import escape_terminal

    return escape(escape_terminal(text))


class View(Protocol):
    """What a reporter needs of an item or a summary."""

    def json(self) -> Any: ...

    def text(self, console: Console) -> None: ...


def annotations_of(view: View) -> Iterable[Annotation]:
    """A view's annotations (none, for a view that points at no file)."""
    method = getattr(view, "annotations", None)
    return method() if method is not None else ()


class Reporter:
    """Writes one command's items and summary in one format."""

    name: ClassVar[str]

    def __init__(self, stream: IO[bytes] | None = None) -> None:
        self.stream = stream if stream is not None else sys.stdout.buffer
        self.items = 0

    def item(self, view: View) -> None:
        self.items += 1

    def close(self, summary: View | None = None) -> None:
        self.stream.flush()

    def _json(self, value: Any, indent: bool) -> None:
        self.stream.write(json_bytes(value, indent=indent))


def json_bytes(value: Any, *, indent: bool = False) -> bytes:
    """One JSON document as gov writes it: compact (a JSONL line) or indented by two, always
    with its newline."""
    import orjson

    option = orjson.OPT_APPEND_NEWLINE | (orjson.OPT_INDENT_2 if indent else 0)
    return orjson.dumps(value, option=option)


def write_json(value: Any, *, indent: bool = False, stream: IO[bytes] | None = None) -> None:
    """Write one JSON document (:func:`json_bytes`) to ``stream`` (default stdout): the
    writer for a command whose output is one value rather than items and a summary."""
    (stream if stream is not None else sys.stdout.buffer).write(json_bytes(value, indent=indent))


class TextReporter(Reporter):
    name = "text"

    def __init__(self, stream: IO[bytes] | None = None) -> None:
        super().__init__(stream)
        from . import conventions

        self.console = conventions.console()

    def _draw(self, view: View) -> None:
        # Drawn into a string first: rich turns a closed pipe into exit 1 itself, while a
        # plain write lets the shared convention end quietly with 141.
        with self.console.capture() as drawn:
            view.text(self.console)
        self.stream.write(drawn.get().encode("utf-8"))

    def item(self, view: View) -> None:
        super().item(view)
        self._draw(view)

    def close(self, summary: View | None = None) -> None:
        if summary is not None:
            self._draw(summary)
        super().close()


class JsonReporter(Reporter):
    name = "json"

    def __init__(self, stream: IO[bytes] | None = None) -> None:
        super().__init__(stream)
        self.collected: list[Any] = []

    def item(self, view: View) -> None:
        super().item(view)
        self.collected.append(view.json())

    def close(self, summary: View | None = None) -> None:
        if self.items or summary is None:
            self._json(self.collected, indent=True)
        else:
            self._json(summary.json(), indent=True)
        super().close()


class JsonlReporter(Reporter):
    name = "jsonl"

    def item(self, view: View) -> None:
        super().item(view)
        self._json(view.json(), indent=False)

    def close(self, summary: View | None = None) -> None:
        if summary is not None and not self.items:
            self._json(summary.json(), indent=False)
        super().close()


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(annotation: Annotation) -> str:
    """One GitHub Actions workflow command (``::error file=…,line=…::message``)."""
    props = []
    if annotation.file:
        props.append(f"file={_escape_property(annotation.file)}")
    if annotation.line is not None:
        props.append(f"line={annotation.line}")
    if annotation.title:
        props.append(f"title={_escape_property(annotation.title)}")
    head = f"::{annotation.level}" + (" " + ",".join(props) if props else "")
    return f"{head}::{_escape_data(annotation.message)}"


class GithubReporter(Reporter):
    name = "github"

    def _write(self, view: View) -> None:
        for annotation in annotations_of(view):
            self.stream.write((workflow_command(annotation) + "\n").encode("utf-8"))

    def item(self, view: View) -> None:
        super().item(view)
        self._write(view)

    def close(self, summary: View | None = None) -> None:
        if summary is not None:
            self._write(summary)
        super().close()


@dataclass(frozen=True)
class RuleInfo:
    """What SARIF says about one rule: id, one-line summary, what it checks, its default
    level (error, warning or note)."""

    id: str
    summary: str
    description: str
    level: str = "warning"


SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_LEVEL = {"error": "error", "warning": "warning", "notice": "note", "note": "note"}


class SarifReporter(Reporter):
    """A SARIF 2.1.0 log: one run of the tool ``gov``, a result per annotation with a file.

    GitHub code scanning reads ``ruleId`` and the first location's file and ``startLine``;
    file paths are written relative to the working folder, as the repository root is when
    CI runs ``gov`` there. Annotations without a file (a note about the run) become the
    invocation's notifications.
    """

    name = "sarif"

    def __init__(self, stream: IO[bytes] | None = None) -> None:
        super().__init__(stream)
        self.annotations: list[Annotation] = []

    def item(self, view: View) -> None:
        super().item(view)
        self.annotations.extend(annotations_of(view))

    def close(self, summary: View | None = None) -> None:
        if summary is not None:
            self.annotations.extend(annotations_of(summary))
        rules_of = getattr(summary, "rules", None) if summary is not None else None
        self._json(sarif_log(self.annotations, list(rules_of()) if rules_of else []),
                   indent=True)
        super().close()


def _sarif_uri(path: str) -> str:
    from pathlib import PurePath
    from urllib.parse import quote

    return quote(PurePath(path).as_posix(), safe="/._-~")


def sarif_log(annotations: list[Annotation], rules: list[RuleInfo]) -> dict[str, Any]:
    """The SARIF 2.1.0 log of ``annotations`` (``rules``: the tool's rule table)."""
    import hashlib

    from gov.core import __version__

    table = list(rules)
    known = {rule.id for rule in table}
    for annotation in annotations:
        rule_id = annotation.rule or annotation.title or "gov"
        if annotation.file and rule_id not in known:
            table.append(RuleInfo(rule_id, annotation.title or rule_id,
                                  annotation.title or rule_id, SARIF_LEVEL[annotation.level]))
            known.add(rule_id)
    index = {rule.id: number for number, rule in enumerate(table)}
    results = []
    notifications = []
    for annotation in annotations:
        level = SARIF_LEVEL[annotation.level]
        if not annotation.file:
            notifications.append({"level": level, "message": {"text": annotation.message}})
            continue
        rule_id = annotation.rule or annotation.title or "gov"
        line = annotation.line if annotation.line and annotation.line >= 1 else 1
        identity = f"{rule_id}\0{annotation.file}\0{annotation.message}".encode()
        results.append({
            "ruleId": rule_id,
            "ruleIndex": index[rule_id],
            "level": level,
            "message": {"text": annotation.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": _sarif_uri(annotation.file),
                                     "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": line}}}],
            "partialFingerprints": {"govFinding/v1": hashlib.sha256(identity).hexdigest()[:32]},
        })
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "gov",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": [{
                    "id": rule.id,
                    "name": "".join(part.capitalize() for part in rule.id.split("-")),
                    "shortDescription": {"text": rule.summary[:1024]},
                    "fullDescription": {"text": rule.description[:1024]},
                    "help": {"text": rule.description[:1024]},
                    "defaultConfiguration": {"level": rule.level},
                } for rule in table],
            }},
            "invocations": [{"executionSuccessful": True,
                             "toolExecutionNotifications": notifications}],
            "results": results,
        }],
    }


REPORTERS: dict[str, type[Reporter]] = {
    cls.name: cls for cls in (TextReporter, JsonReporter, JsonlReporter, GithubReporter,
                              SarifReporter)
}


FORMATS: tuple[str, ...] = tuple(REPORTERS)


def check_formats(formats: Iterable[str]) -> tuple[str, ...]:
    """``formats`` as a tuple, each a registered one (a command cannot offer a format the
    registry has no writer for)."""
    chosen = tuple(formats)
    unknown = [name for name in chosen if name not in REPORTERS]
    if unknown:
        raise ValueError(f"not registered output formats: {', '.join(unknown)} "
                         f"(registered: {', '.join(FORMATS)})")
    return chosen


def write_card_results(results: Iterable[dict[str, Any]], fmt: str, *, verifying: bool,
                       color: bool = False, stream: IO[bytes] | None = None) -> Any:
    """Card check results in ``fmt`` (one of :data:`gov.core.cards.report.FORMATS`, all
    registered here), counted: their writers live beside the checks, batched for speed."""
    from gov.core.cards.report import FORMATS as CARD_FORMATS
    from gov.core.cards.report import write_results

    if fmt not in check_formats(CARD_FORMATS):
        raise ValueError(f"card results are not written as {fmt!r}")
    return write_results(results, stream if stream is not None else sys.stdout.buffer, fmt,
                         verifying=verifying, color=color)


def reporter(name: str, stream: IO[bytes] | None = None) -> Reporter:
    """The reporter for format ``name`` (one of :data:`REPORTERS`)."""
    return REPORTERS[name](stream)


def report(name: str, summary: View) -> None:
    """Write a command's one result (no items) in format ``name``."""
    reporter(name).close(summary)
