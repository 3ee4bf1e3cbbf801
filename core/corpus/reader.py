"""Read a corpus: the routable documents found under one or more paths.

A document is delivered whole, so the corpus keeps each document's full text beside its
routing surface (trigger line and example prompts). Per-file problems are warnings that
name the file (errors with ``strict``); a duplicate name is always an error naming both
sources.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from gov.core import sanitize
from gov.core.corpus.document import Corpus, Document, FileStamp
from gov.core.corpus.markdown import ParseProblem, parse_markdown
from gov.core.corpus.walk import (  # the suffixes and skipped folders are re-exported
    JSONL_SUFFIXES,
    MARKDOWN_SUFFIXES,  # noqa: F401
    SKIP_DIRS,  # noqa: F401
    Walk,
    WalkExpired,
    open_regular,
    read_bounded,
)
from gov.core.errors import CorpusError

MAX_DOCUMENT_BYTES = int(os.environ.get("GOV_MAX_DOCUMENT_BYTES", 4 * 1024 * 1024))
MAX_CORPUS_BYTES = int(os.environ.get("GOV_MAX_CORPUS_BYTES", 1024 * 1024 * 1024))
MAX_NAME_LENGTH = sanitize.MAX_NAME_LENGTH
MAX_DEPENDENCIES = 64
# The staleness check walks roots an index names: it stops after this long.
STALENESS_SECONDS = float(os.environ.get("GOV_STALENESS_SECONDS", 3.0))

Warn = Callable[[str], None]


def _default_warn(message: str) -> None:
    sys.stderr.write(f"gov: warning: {sanitize.clean(message)}\n")


def _relative(path: Path, base: Path) -> str:
    try:
        return os.path.relpath(os.path.abspath(path), os.path.abspath(base))
    except ValueError:
        return str(path)


class _Budget:
    """Bytes left to read for the whole corpus (``GOV_MAX_CORPUS_BYTES``)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.left = total

    def take(self, size: int, shown: str) -> None:
        self.left -= size
        if self.left < 0:
            raise CorpusError(f"{shown}: the corpus is over {self.total:,} bytes (set "
                              "GOV_MAX_CORPUS_BYTES to raise the limit)")


def _read_text(path: Path, shown: str, budget: _Budget | None = None) -> str:
    data = read_bounded(path, MAX_DOCUMENT_BYTES, "one document (set GOV_MAX_DOCUMENT_BYTES "
                        "to raise it)")
    if budget is not None:
        budget.take(len(data), shown)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ParseProblem(f"not valid UTF-8 (byte {exc.start}); save the file as UTF-8", line) from None
    if "\x00" in text:
        raise ParseProblem("contains NUL bytes; is it a binary file?")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def document_text(path: str | os.PathLike[str]) -> str | None:
    """A markdown document's text as the index keeps it, or ``None`` when it cannot be
    read (bounded, regular files only: never a FIFO or a device)."""
    try:
        return _read_text(Path(path), str(path))
    except ParseProblem:
        return None


def _bounded_lines(handle: IO[bytes], budget: _Budget, shown: str) -> Iterator[bytes]:
    """The lines of a JSONL stream, never reading past the corpus budget (one huge line
    included)."""
    while True:
        line = handle.readline(max(budget.left, 0) + 1)
        if not line:
            return
        budget.take(len(line), shown)
        yield line


def _string(value: Any) -> str | None:
    if isinstance(value, str):
        return value.strip()
    return None


def _front_string(front: dict[str, Any], key: str) -> str | None:
    """A front matter value that must be text when present (YAML may give anything)."""
    value = front.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, bool | int | float):
        return str(value)
    raise ParseProblem(f"front matter '{key}' must be a string, not a {type(value).__name__}")


def _markdown_document(path: Path, shown: str, budget: _Budget | None = None) -> Document | None:
    """Parse one markdown file; None (with a ParseProblem raised) when it has no trigger."""
    text = _read_text(path, shown, budget)
    parsed = parse_markdown(text)
    front = parsed.front_matter or {}
    suffix = path.suffix.lower()
    if path.name == "SKILL.md":
        kind, default_name = "skill", path.parent.name
    elif suffix == ".mdc":
        kind, default_name = "mdc", path.stem
    elif front:
        kind, default_name = "rule", path.stem
    else:
        kind, default_name = "markdown", path.stem
    name = _front_string(front, "name") or default_name
    trigger = parsed.trigger
    if trigger is None:
        trigger = _string(front.get("description"))
        if trigger is None and "description" in front:
            raise ParseProblem("front matter 'description' must be a string")
    if trigger is None:
        if front:
            raise ParseProblem("no 'description' in its front matter and no **Agent-trigger:** line")
        raise ParseProblem("no **Agent-trigger:** line")
    if not trigger:
        raise ParseProblem("the trigger is empty", parsed.trigger_line)
    status = parsed.status or (_front_string(front, "status") or "").lower() or None
    family = parsed.family or _front_string(front, "family")
    key = "depends_on" if "depends_on" in front else "depends-on"
    _check_dependencies(parsed.depends_on, "Depends-on")
    depends = parsed.depends_on or _as_names(front.get(key), key)
    return Document(
        name=name,
        trigger=" ".join(trigger.split()),
        examples=tuple(" ".join(example.split()) for example in parsed.examples),
        text=text,
        family=family or None,
        depends_on=tuple(depends),
        source=shown,
        status=status,
        kind=kind,
    )


def _as_names(value: Any, key: str) -> list[str]:
    """``depends_on`` as a list of document names: a comma-separated string or a list of
    strings, each a valid name, at most :data:`MAX_DEPENDENCIES` (checked before any use:
    YAML can make a tiny file into a huge nested value)."""
    if value is None:
        return []
    if isinstance(value, str):
        items = [item.strip() for item in value.split(",") if item.strip()]
    elif isinstance(value, list) and all(isinstance(item, str) for item in value):
        items = [item.strip() for item in value if item.strip()]
    else:
        raise ParseProblem(f"front matter '{key}' must be a list of document names")
    _check_dependencies(items, key)
    return items


def _check_dependencies(items: Sequence[str], key: str) -> None:
    if len(items) > MAX_DEPENDENCIES:
        raise ParseProblem(f"'{key}' lists {len(items)} documents; at most {MAX_DEPENDENCIES}")
    for item in items:
        problem = sanitize.name_problem(item)
        if problem is not None:
            raise ParseProblem(f"'{key}' entry {item[:40]!r} is not a document name: it {problem}")


def _check_name(name: str, where: str) -> None:
    problem = sanitize.name_problem(name)
    if problem is not None:
        raise CorpusError(f"{where}: document name {name[:40]!r} {problem}")


def parse_jsonl_documents(lines: Iterable[bytes], shown: str) -> list[Document]:
    """Read JSONL documents: ``{"name", "trigger", "body", "examples", "family", "depends_on"}``."""
    from gov.core.jsonl import read_lines

    documents = []
    for line in read_lines(lines):
        where = f"{shown}:{line.number}"
        if line.error is not None:
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
        for key in ("examples", "depends_on"):
            value = record.get(key, [])
            if value is None:
                value = []
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise CorpusError(f"{where}: field '{key}' must be a list of strings")
        try:
            _check_dependencies(record.get("depends_on") or [], "depends_on")
        except ParseProblem as exc:
            raise CorpusError(f"{where}: {exc.message}") from None
        name = record["name"].strip()
        _check_name(name, where)
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
            )
        )
    return documents


def load_corpus(
    paths: Sequence[str | os.PathLike[str]],
    *,
    strict: bool = False,
    warn: Warn | None = None,
    stdin: IO[bytes] | None = None,
    base: str | os.PathLike[str] | None = None,
) -> Corpus:
    """Read every document under ``paths`` (folders, files, or ``-`` for JSONL on stdin).

    Sources are recorded relative to ``base`` (default: the current directory). Files
    without a trigger are skipped with a warning (an error when ``strict``).
    """
    warn = warn or _default_warn
    base_path = Path(base) if base is not None else Path.cwd()
    if not paths:
        raise CorpusError("no corpus paths given")
    found: list[Document] = []
    skipped: list[str] = []
    stamps: list[FileStamp] = []
    roots: list[str] = []

    def problem(shown: str, exc: ParseProblem) -> None:
        where = f"{shown}:{exc.line}" if exc.line else shown
        message = f"{where}: {exc.message}"
        if strict:
            raise CorpusError(f"{message} (strict mode)")
        warn(f"skipping {message}")
        skipped.append(shown)

    budget = _Budget(MAX_CORPUS_BYTES)
    for raw in paths:
        if str(raw) == "-":
            source = stdin if stdin is not None else sys.stdin.buffer
            roots.append("-")
            found.extend(parse_jsonl_documents(_bounded_lines(source, budget, "<stdin>"),
                                               "<stdin>"))
            continue
        root = Path(raw)
        roots.append(_relative(root, base_path))
        if not root.exists():
            raise CorpusError(f"{raw}: no such file or folder")
        if root.is_dir():
            files = list(Walk(warn=warn).files(root))
            if not files:
                warn(f"{raw}: no markdown or JSONL documents found")
        elif root.is_file():
            files = [root]
        else:
            raise CorpusError(f"{raw}: not a regular file or folder (a FIFO, device or socket)")
        for path in files:
            shown = _relative(path, base_path)
            try:
                stat = path.stat()
                stamps.append(FileStamp(shown, stat.st_size, stat.st_mtime_ns, file_sha256(path)))
            except OSError as exc:
                problem(shown, ParseProblem(f"cannot read the file: {exc.strerror or exc}"))
                continue
            if path.name.lower().endswith(JSONL_SUFFIXES):
                try:
                    with os.fdopen(open_regular(path), "rb") as handle:
                        found.extend(parse_jsonl_documents(_bounded_lines(handle, budget, shown),
                                                           shown))
                except ParseProblem as exc:
                    problem(shown, exc)
                except OSError as exc:
                    raise CorpusError(f"{shown}: cannot read the file: {exc.strerror or exc}") from None
                continue
            try:
                doc = _markdown_document(path, shown, budget)
            except ParseProblem as exc:
                problem(shown, exc)
                continue
            if doc is not None:
                _check_name(doc.name, shown)
                found.append(doc)

    seen: dict[str, Document] = {}
    for doc in found:
        if doc.name in seen:
            raise CorpusError(
                f"duplicate document name {doc.name!r} in {seen[doc.name].source} and {doc.source};"
                " rename one of them"
            )
        seen[doc.name] = doc
    routable = [doc for doc in found if doc.routable]
    retired = [doc for doc in found if not doc.routable]
    return Corpus(routable, retired, skipped, roots, stamps)


def file_sha256(path: Path) -> str | None:
    """The sha256 of a file's bytes (``None`` when it cannot be read)."""
    try:
        with path.open("rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError:
        return None


def corpus_stamps(roots: Sequence[str], base: Path, *, seconds: float | None = None,
                  recorded: Sequence[FileStamp] = ()) -> list[FileStamp] | None:
    """The stamps the corpus under ``roots`` would have now, without parsing any file, or
    ``None`` when finding them took longer than ``seconds`` (default: ``GOV_STALENESS_SECONDS``,
    3; the roots come from an index, which may name ``/``).

    Links out of a root are not followed; the ``recorded`` stamps under such a link (files
    the build reached through it) are looked at one by one instead.
    """
    budget = STALENESS_SECONDS if seconds is None else seconds
    walk = Walk(follow_outside=False, deadline=time.monotonic() + budget)
    stamps = []
    try:
        for raw in roots:
            if raw == "-":
                continue
            root = base / raw
            files: Iterable[Path] = (walk.files(root) if root.is_dir()
                                     else [root] if root.is_file() else [])
            for count, path in enumerate(files):
                if count % 256 == 255 and time.monotonic() > (walk.deadline or 0):
                    return None
                try:
                    stat = path.stat()
                except OSError:
                    continue
                stamps.append(FileStamp(_relative(path, base), stat.st_size, stat.st_mtime_ns))
    except (WalkExpired, CorpusError):  # out of time, or a folder that cannot be read
        return None
    if walk.outside:
        prefixes = tuple(_relative(Path(link), base) + os.sep for link in walk.outside)
        for stamp in recorded:
            if stamp.path.startswith(prefixes):
                try:
                    stat = (base / stamp.path).stat()
                except OSError:
                    continue
                stamps.append(FileStamp(stamp.path, stat.st_size, stat.st_mtime_ns))
    return stamps
