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
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import IO, Any

from gov.core.corpus.document import Corpus, Document, FileStamp
from gov.core.corpus.markdown import ParseProblem, parse_markdown
from gov.core.errors import CorpusError

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdc")
JSONL_SUFFIXES = (".jsonl", ".ndjson")
SKIP_DIRS = frozenset({".git", ".hg", ".svn", ".gov", "node_modules", "__pycache__", ".venv"})
MAX_DOCUMENT_BYTES = int(os.environ.get("GOV_MAX_DOCUMENT_BYTES", 4 * 1024 * 1024))
MAX_NAME_LENGTH = 200

Warn = Callable[[str], None]


def _default_warn(message: str) -> None:
    sys.stderr.write(f"gov: warning: {message}\n")


def _relative(path: Path, base: Path) -> str:
    try:
        return os.path.relpath(os.path.abspath(path), os.path.abspath(base))
    except ValueError:
        return str(path)


def _walk(root: Path) -> Iterable[Path]:
    """Candidate files under ``root``, sorted; a skill folder yields only its SKILL.md."""
    if (root / "SKILL.md").is_file():
        yield root / "SKILL.md"
        return
    try:
        entries = sorted(os.scandir(root), key=lambda entry: entry.name)
    except OSError as exc:
        raise CorpusError(f"{root}: cannot read the folder: {exc.strerror or exc}") from None
    for entry in entries:
        if entry.name.startswith(".") and entry.name not in (".cursor", ".continue", ".claude"):
            continue
        if entry.name in SKIP_DIRS:
            continue
        path = Path(entry.path)
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        if is_dir:
            yield from _walk(path)
        elif entry.name.lower().endswith(MARKDOWN_SUFFIXES + JSONL_SUFFIXES):
            yield path


def _read_text(path: Path, shown: str) -> str:
    try:
        size = path.stat().st_size
        if size > MAX_DOCUMENT_BYTES:
            raise ParseProblem(
                f"file is {size:,} bytes, over the {MAX_DOCUMENT_BYTES:,}-byte limit for one "
                "document (set GOV_MAX_DOCUMENT_BYTES to raise it)"
            )
        data = path.read_bytes()
    except PermissionError:
        raise ParseProblem("permission denied") from None
    except IsADirectoryError:
        raise ParseProblem("is a directory, not a file") from None
    except OSError as exc:
        raise ParseProblem(f"cannot read the file: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ParseProblem(f"not valid UTF-8 (byte {exc.start}); save the file as UTF-8", line) from None
    if "\x00" in text:
        raise ParseProblem("contains NUL bytes; is it a binary file?")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _string(value: Any) -> str | None:
    if isinstance(value, str):
        return value.strip()
    return None


def _markdown_document(path: Path, shown: str) -> Document | None:
    """Parse one markdown file; None (with a ParseProblem raised) when it has no trigger."""
    text = _read_text(path, shown)
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
    name = _string(front.get("name")) or default_name
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
    status = parsed.status or (_string(front.get("status")) or "").lower() or None
    family = parsed.family or _string(front.get("family"))
    depends = parsed.depends_on or _as_names(front.get("depends_on", front.get("depends-on")))
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


def _as_names(value: Any) -> list[str]:
    if isinstance(value, str):
        return [item.strip() for item in value.split(",") if item.strip()]
    if isinstance(value, list):
        return [str(item).strip() for item in value if str(item).strip()]
    return []


def _check_name(name: str, where: str) -> None:
    if not name or len(name) > MAX_NAME_LENGTH or any(ch in name for ch in "\n\r\t\x00"):
        raise CorpusError(
            f"{where}: document name {name[:40]!r} must be 1-{MAX_NAME_LENGTH} characters "
            "on one line"
        )


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

    for raw in paths:
        if str(raw) == "-":
            source = stdin if stdin is not None else sys.stdin.buffer
            roots.append("-")
            found.extend(parse_jsonl_documents(source, "<stdin>"))
            continue
        root = Path(raw)
        roots.append(_relative(root, base_path))
        if not root.exists():
            raise CorpusError(f"{raw}: no such file or folder")
        files = [root] if root.is_file() else list(_walk(root))
        if root.is_dir() and not files:
            warn(f"{raw}: no markdown or JSONL documents found")
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
                    with path.open("rb") as handle:
                        found.extend(parse_jsonl_documents(handle, shown))
                except OSError as exc:
                    raise CorpusError(f"{shown}: cannot read the file: {exc.strerror or exc}") from None
                continue
            try:
                doc = _markdown_document(path, shown)
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


def corpus_stamps(roots: Sequence[str], base: Path) -> list[FileStamp]:
    """The stamps the corpus under ``roots`` would have now, without parsing any file."""
    stamps = []
    for raw in roots:
        if raw == "-":
            continue
        root = base / raw
        if not root.exists():
            continue
        files = [root] if root.is_file() else list(_walk(root))
        for path in files:
            try:
                stat = path.stat()
            except OSError:
                continue
            stamps.append(FileStamp(_relative(path, base), stat.st_size, stat.st_mtime_ns))
    return stamps
