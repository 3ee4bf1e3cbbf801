"""Read a corpus: the routable documents found under one or more paths.

A document is delivered whole, so the corpus keeps each document's full text beside its
routing surface (trigger line and example prompts). Files are read as the harnesses read
them: front matter that is not strict YAML is read leniently, control bytes are removed,
and an agent or command file without a description takes its first paragraph; each such
document carries a note saying so. A file that still cannot be a document is skipped with
its reason (an error with ``strict``), and the build goes on. Names two documents share are
qualified by their folders (``on_duplicate``). ``docs/corpus.md`` states the rules.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from .. import sanitize
from ..errors import CorpusError
from .document import Corpus, Document, FileStamp, Skip
from .jsonl_documents import parse_jsonl_documents
from .markdown import (
    ParseProblem,
    first_paragraph,
    parse_markdown,
    split_front_matter,
)
from .names import (  # the duplicate policies are re-exported
    MAX_DEPENDENCIES,  # noqa: F401
    ON_DUPLICATE,
    OnDuplicate,
    as_names,
    check_dependencies,
    unique_names,
)
from .walk import (  # the suffixes and skipped folders are re-exported
    JSONL_SUFFIXES,
    LEAVES,
    MARKDOWN_SUFFIXES,  # noqa: F401
    SKIP_DIRS,  # noqa: F401
    Walk,
    WalkExpired,
    is_skill_file,
    looks_like_repository_file,
    open_regular,
    read_bounded,
)

MAX_DOCUMENT_BYTES = int(os.environ.get("GOV_MAX_DOCUMENT_BYTES", 4 * 1024 * 1024))
MAX_CORPUS_BYTES = int(os.environ.get("GOV_MAX_CORPUS_BYTES", 1024 * 1024 * 1024))
MAX_NAME_LENGTH = sanitize.MAX_NAME_LENGTH
# The staleness check walks roots an index names: it stops after this long.
STALENESS_SECONDS = float(os.environ.get("GOV_STALENESS_SECONDS", 3.0))

Warn = Callable[[str], None]
# Folders whose markdown files are agents or commands: without a description, their first
# paragraph is one (as Claude Code reads a command).
AGENT_FOLDERS = frozenset({"agents", "commands"})
# Bytes no text holds: C0 controls but tab and newlines, and DEL.
_CONTROL_BYTES = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Skipped files a build names one by one before it only counts them.
SHOWN_SKIPS = 10


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


def _decode(data: bytes) -> tuple[str, int]:
    """UTF-8 text with control bytes removed (and how many were), LF line ends. Bytes that
    are not UTF-8, or text that is mostly NUL bytes, are a problem."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ParseProblem(f"not valid UTF-8 (byte {exc.start}); save the file as UTF-8", line,
                           "not UTF-8") from None
    nuls = text.count("\x00")
    if nuls and nuls * 8 > len(text):
        raise ParseProblem(f"a binary file ({nuls:,} NUL bytes in {len(text):,})", None, "binary")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    cleaned = _CONTROL_BYTES.sub("", text)
    return cleaned, len(text) - len(cleaned)


def _read_text(path: Path, shown: str, budget: _Budget | None = None) -> tuple[str, int]:
    data = read_bounded(path, MAX_DOCUMENT_BYTES, "one document (set GOV_MAX_DOCUMENT_BYTES "
                        "to raise it)")
    if budget is not None:
        budget.take(len(data), shown)
    return _decode(data)


def document_text(path: str | os.PathLike[str]) -> str | None:
    """A markdown document's text as the index keeps it, or ``None`` when it cannot be
    read (bounded, regular files only: never a FIFO or a device)."""
    try:
        return _read_text(Path(path), str(path))[0]
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
    raise ParseProblem(f"front matter '{key}' must be a string, not a {type(value).__name__}",
                       reason="invalid front matter")


def _markdown_document(path: Path, shown: str, budget: _Budget | None = None,
                       agent: bool = False) -> Document:
    """Parse one markdown file (``agent``: an agent or command file, whose first paragraph
    is its description when it has none). A file that cannot be a document is a
    :class:`ParseProblem`."""
    text, removed = _read_text(path, shown, budget)
    parsed = parse_markdown(text)
    notes = [parsed.lenient] if parsed.lenient else []
    if removed:
        notes.append(f"{removed:,} control byte(s) removed")
    front = parsed.front_matter or {}
    suffix = path.suffix.lower()
    if is_skill_file(path.name):
        kind, default_name = "skill", path.parent.name
    elif suffix == ".mdc":
        kind, default_name = "mdc", path.stem
    elif front:
        kind, default_name = "rule", path.stem
    else:
        kind, default_name = "markdown", path.stem
    if default_name.endswith(".instructions"):  # Copilot's NAME.instructions.md
        default_name = default_name.removesuffix(".instructions")
    name = _front_string(front, "name") or default_name
    trigger = parsed.trigger
    if trigger is None:
        trigger = _string(front.get("description"))
        if trigger is None and "description" in front:
            raise ParseProblem("front matter 'description' must be a string",
                               parsed.front_matter_lines.get("description"),
                               "invalid front matter")
    if not trigger and agent and parsed.trigger is None:
        trigger = first_paragraph(split_front_matter(text)[1])
        if trigger:
            notes.append("no description: its first paragraph is the trigger")
    if trigger is None:
        if front:
            raise ParseProblem("no 'description' in its front matter and no **Agent-trigger:** line",
                               reason="no description")
        raise ParseProblem("no **Agent-trigger:** line", reason="no description")
    if not trigger:
        raise ParseProblem("the trigger is empty", parsed.trigger_line or
                           parsed.front_matter_lines.get("description"), "no description")
    status = parsed.status or (_front_string(front, "status") or "").lower() or None
    family = parsed.family or _front_string(front, "family")
    key = "depends_on" if "depends_on" in front else "depends-on"
    check_dependencies(parsed.depends_on, "Depends-on")
    depends = parsed.depends_on or as_names(front.get(key), key)
    key = "lint_ignore" if "lint_ignore" in front else "lint-ignore"
    check_dependencies(parsed.lint_ignore, "Lint-ignore")
    ignore = parsed.lint_ignore or as_names(front.get(key), key)
    problem = sanitize.name_problem(name)
    if problem is not None:
        raise ParseProblem(f"document name {name[:40]!r} {problem}",
                           parsed.front_matter_lines.get("name"), "invalid name")
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
        lint_ignore=tuple(ignore),
        notes=tuple(notes),
    )


def load_corpus(
    paths: Sequence[str | os.PathLike[str]],
    *,
    strict: bool = False,
    warn: Warn | None = None,
    stdin: IO[bytes] | None = None,
    base: str | os.PathLike[str] | None = None,
    on_duplicate: OnDuplicate = "qualify",
) -> Corpus:
    """Read every document under ``paths`` (folders, files, or ``-`` for JSONL on stdin).

    Sources are recorded relative to ``base`` (default: the current directory). A file that
    cannot be a document is skipped with its reason (an error when ``strict``); the skipped
    files are warned about once, together, at the end. Names two documents share are
    qualified by their folders (``on_duplicate="qualify"``), left to the first document
    (``"first"``; the others are skipped) or an error naming every collision (``"error"``).
    """
    if on_duplicate not in ON_DUPLICATE:
        raise CorpusError(f"on_duplicate must be one of {', '.join(ON_DUPLICATE)}, "
                          f"not {on_duplicate!r}")
    warn = warn or _default_warn
    base_path = Path(base) if base is not None else Path.cwd()
    if not paths:
        raise CorpusError("no corpus paths given")
    loader = _Loader(strict, warn, base_path)
    for raw in paths:
        if str(raw) == "-":
            loader.read_stdin(stdin if stdin is not None else sys.stdin.buffer)
        else:
            loader.read_root(raw)
    found, dropped, collisions = unique_names(loader.found, loader.folders, on_duplicate, warn)
    problems = loader.problems + dropped
    _warn_skipped(problems, warn)
    lenient = sum(1 for doc in found if any(n.startswith("front matter read leniently")
                                             for n in doc.notes))
    if lenient:
        warn(f"{lenient:,} file(s)' front matter read leniently (not strict YAML, read as the "
             "harnesses read it); gov list --lenient shows them")
    corpus = Corpus([doc for doc in found if doc.routable], [doc for doc in found if not doc.routable],
                    [skip.file for skip in problems], loader.roots, loader.stamps, problems)
    corpus.candidates = loader.candidates
    corpus.collisions = collisions
    return corpus


class _Loader:
    """Documents with their folders (to qualify shared names), skips, stamps, one budget."""

    def __init__(self, strict: bool, warn: Warn, base_path: Path) -> None:
        self.strict, self.warn, self.base_path = strict, warn, base_path
        self.found: list[Document] = []
        self.folders: list[tuple[str, ...]] = []  # each found document's folders, outermost first
        self.problems: list[Skip] = []
        self.stamps: list[FileStamp] = []
        self.roots: list[str] = []
        self.candidates = 0
        self.leaving: set[str] = set()  # links out of the corpus: a problem with one says only that
        self.budget = _Budget(MAX_CORPUS_BYTES)

    def problem(self, shown: str, exc: ParseProblem) -> None:  # skipped, or strict's error
        if shown in self.leaving:
            exc = ParseProblem(LEAVES, reason="unreadable")
        where = f"{shown}:{exc.line}" if exc.line else shown
        if self.strict:
            raise CorpusError(f"{where}: {exc.message} (strict mode)")
        self.problems.append(Skip(shown, exc.line, exc.message, exc.reason))

    def add(self, documents: Iterable[Document], where: tuple[str, ...]) -> None:
        for doc in documents:
            self.found.append(doc)
            self.folders.append(where)

    def read_stdin(self, source: IO[bytes]) -> None:  # the path "-": JSONL on stdin
        self.roots.append("-")
        self.candidates += 1
        try:
            self.add(parse_jsonl_documents(_bounded_lines(source, self.budget, "<stdin>"),
                                           "<stdin>"), ("stdin",))
        except ParseProblem as exc:
            self.problem("<stdin>", exc)

    def read_root(self, raw: str | os.PathLike[str]) -> None:
        """A folder's document files, or one file; folders named from the path's own down."""
        root = Path(raw)
        self.roots.append(_relative(root, self.base_path))
        if not root.exists():
            raise CorpusError(f"{raw}: no such file or folder")
        if root.is_dir():
            walk = Walk(warn=self.warn)
            files = list(walk.files(root))
            self.leaving.update(_relative(Path(link), self.base_path) for link in walk.leaving)
            if not files:
                self.warn(f"{raw}: no markdown or JSONL documents found")
            top = Path(os.path.abspath(root))
        elif root.is_file():
            files = [root]
            top = Path(os.path.abspath(root)).parent
        else:
            raise CorpusError(f"{raw}: not a regular file or folder (a FIFO, device or socket)")
        outer: tuple[str, ...] = (top.name,) if top.name else ()
        for path in files:
            self.read_file(path, top, outer)

    def read_file(self, path: Path, top: Path, outer: tuple[str, ...]) -> None:
        """One file's stamp and documents; a README or TODO without a description is no file."""
        self.candidates += 1
        shown = _relative(path, self.base_path)
        where = outer + Path(os.path.abspath(path)).parent.relative_to(top).parts
        agent = any(part.lower() in AGENT_FOLDERS for part in where)
        try:
            stat = path.stat()
            self.stamps.append(FileStamp(shown, stat.st_size, stat.st_mtime_ns, file_sha256(path)))
        except OSError as exc:
            self.problem(shown, ParseProblem(f"cannot read the file: {exc.strerror or exc}"))
            return
        if path.name.lower().endswith(JSONL_SUFFIXES):
            try:
                with os.fdopen(open_regular(path), "rb") as handle:
                    self.add(parse_jsonl_documents(_bounded_lines(handle, self.budget, shown),
                                                   shown), (*where, path.name.split(".")[0]))
            except (ParseProblem, OSError) as exc:
                self.problem(shown, exc if isinstance(exc, ParseProblem) else
                             ParseProblem(f"cannot read the file: {exc.strerror or exc}"))
            return
        try:
            doc = _markdown_document(path, shown, self.budget, agent)
        except ParseProblem as exc:
            if (exc.reason == "no description" and looks_like_repository_file(path)
                    and shown not in self.leaving):
                self.candidates -= 1  # QUICKSTART.md, TODO.md: about the repository, not a document
                return
            self.problem(shown, exc)
            return
        self.add([doc], where)


def _warn_skipped(problems: Sequence[Skip], warn: Warn) -> None:
    for skip in problems[:SHOWN_SKIPS]:
        where = f"{skip.file}:{skip.line}" if skip.line else skip.file
        warn(f"skipping {where}: {skip.problem}")
    if len(problems) > SHOWN_SKIPS:
        warn(f"… and {len(problems) - SHOWN_SKIPS:,} more skipped file(s); gov index --skipped "
             "(or gov list --skipped) lists them all with the reason")


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
