"""Finding a corpus's files, and reading them, without being trapped by the folder.

A corpus is often a folder someone else wrote (a cloned repository, a skill pack), and an
index records its roots, so a crafted index can point the staleness check anywhere. So:

* a folder is read once however many links lead to it (two links to ``.`` would otherwise
  make the walk exponential), and a loop is a warning, not a hang;
* only regular files are candidates: a FIFO, a device (a link to ``/dev/zero``) or a
  socket with a document's suffix is skipped with a warning, never opened for reading;
* every read is bounded (:func:`read_bounded`), and opening never blocks;
* a walk can be told not to follow links out of its root, and to stop at a deadline
  (the staleness check of an index, whose roots come from the index itself).
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import CorpusError
from .markdown import ParseProblem

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdc")
JSONL_SUFFIXES = (".jsonl", ".ndjson")
SKIP_DIRS = frozenset({".git", ".hg", ".svn", ".gov", "node_modules", "__pycache__", ".venv"})
SHOWN_HIDDEN = (".cursor", ".continue", ".claude")
# A repository's own files, never documents, whatever their suffix: a collection's README
# (any case), and the licence, notice, attribution, changelog and community files (in
# capitals, as repositories name them: a lower-case ``security.md`` may be a policy). The
# harnesses' always-on memory files (AGENTS.md, CLAUDE.md, GEMINI.md) are loaded whole by
# the harness, not routed.
_README = re.compile(r"^readme(?:[._-][a-z]{2}(?:[-_][a-z]{2,4})?)?(?:\.[a-z]+)?$", re.IGNORECASE)
_REPOSITORY_FILE = re.compile(
    r"^(?:[A-Z0-9_-]*_)?(?:LICEN[CS]E|COPYING|NOTICE|ATTRIBUTIONS?|CHANGELOG|CHANGES|HISTORY"
    r"|CONTRIBUTING|CONTRIBUTORS|CODE_OF_CONDUCT|SECURITY|AUTHORS|CODEOWNERS|AGENTS|CLAUDE"
    r"|GEMINI)(?:[._-].*)?$")


def is_skill_file(name: str) -> bool:
    """Whether ``name`` is a skill's file (``SKILL.md``, in any case)."""
    return name.lower() == "skill.md"


def repository_file(name: str) -> bool:
    """Whether the file ``name`` is a repository's own file (README.md, README.zh-CN.md,
    LICENSE, CHANGELOG.md, ANTHROPIC_ATTRIBUTION.md, …), never a document (a ``.mdc`` file
    always is one)."""
    if name.lower().endswith(".mdc"):  # a Cursor rule is a rule, whatever its name
        return False
    return _README.match(name) is not None or _REPOSITORY_FILE.match(name) is not None

Warn = Callable[[str], None]
# What is said of a link out of the corpus that is not read as a document, whatever the reason.
LEAVES = "a link that leaves the corpus (its target is not read)"


class WalkExpired(Exception):
    """The walk ran past its deadline (only walks given one)."""


@dataclass
class Walk:
    """One walk's rules and memory: folders seen (by device and inode), links left out."""

    warn: Warn | None = None
    follow_outside: bool = True
    deadline: float | None = None
    visited: set[tuple[int, int]] = field(default_factory=set)
    outside: list[str] = field(default_factory=list)
    leaving: set[str] = field(default_factory=set)  # candidate files that are links out

    def note(self, message: str) -> None:
        if self.warn is not None:
            self.warn(message)

    def files(self, root: Path) -> Iterator[Path]:
        """Candidate files under the folder ``root``, sorted: every SKILL.md at any depth, and
        every markdown, ``.mdc`` or JSONL file that is not a repository's own file
        (:func:`repository_file`) nor a skill's supporting file (anything but a SKILL.md
        in or below a folder that holds one)."""
        real_root = os.path.realpath(root)
        yield from self._folder(root, real_root)

    def _folder(self, folder: Path, real_root: str, in_skill: bool = False) -> Iterator[Path]:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise WalkExpired(str(folder))
        try:
            info = os.stat(folder)
        except OSError as exc:
            raise CorpusError(f"{folder}: cannot read the folder: {exc.strerror or exc}") from None
        key = (info.st_dev, info.st_ino)
        if key in self.visited:
            self.note(f"skipping {folder}: a link to a folder already read (a symlink loop, or "
                      "two links to one folder); its documents are read once")
            return
        self.visited.add(key)
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError as exc:
            raise CorpusError(f"{folder}: cannot read the folder: {exc.strerror or exc}") from None
        skills = [entry for entry in entries if is_skill_file(entry.name)
                  and _regular(Path(entry.path))]
        if skills:  # SKILL.md (a SKILL.MD too; one, if a folder holds both)
            yield Path(skills[0].path)
            in_skill = True
        for entry in entries:
            if entry.name.startswith(".") and entry.name not in SHOWN_HIDDEN:
                continue
            if entry.name in SKIP_DIRS:
                continue
            path = Path(entry.path)
            candidate = (not in_skill and entry.name.lower().endswith(MARKDOWN_SUFFIXES
                                                                        + JSONL_SUFFIXES)
                         and not repository_file(entry.name))
            # A link out of the corpus is described as only that: whether its target exists,
            # is a FIFO or cannot be read would tell whoever reads the warnings about files
            # outside the folder they were shown.
            leaves = entry.is_symlink() and not _inside(_resolved(path), real_root)
            try:
                mode = entry.stat().st_mode  # follows links: a link to a folder is a folder
            except OSError:
                if candidate:
                    self.note(f"skipping {path}: " + (LEAVES if leaves else
                                                      "a broken link or an unreadable file"))
                continue
            if stat.S_ISDIR(mode):
                if leaves and not self.follow_outside:
                    self.outside.append(str(path))
                    continue
                if leaves and not os.access(path, os.R_OK | os.X_OK):
                    self.note(f"skipping {path}: {LEAVES}")
                    continue
                yield from self._folder(path, real_root, in_skill)
            elif candidate:
                if stat.S_ISREG(mode) and not (leaves and not os.access(path, os.R_OK)):
                    if leaves:
                        self.leaving.add(str(path))
                    yield path
                else:
                    self.note(f"skipping {path}: " + (
                        LEAVES if leaves else "not a regular file (a FIFO, device or socket)"))


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _resolved(path: Path) -> str:
    """Where a link points, or "" when it cannot be read (a link the process may not follow,
    such as another process's ``/proc/PID/cwd``): outside every corpus."""
    try:
        return os.path.realpath(path)
    except OSError:
        return ""


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def looks_like_repository_file(path: Path) -> bool:
    """A markdown file named in capitals (QUICKSTART.md, IMPLEMENTATION_SUMMARY.md) without a
    trigger: documentation about the repository, not a document to route."""
    stem = path.name.split(".")[0]
    return stem.isupper() and not is_skill_file(path.name)


def open_regular(path: Path) -> int:
    """A descriptor for reading ``path``, which must be a regular file. Opening never blocks
    (a FIFO without a writer) and never takes a terminal; a non-regular file is a problem."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except PermissionError:
        raise ParseProblem("permission denied") from None
    except IsADirectoryError:
        raise ParseProblem("is a directory, not a file") from None
    except OSError as exc:
        raise ParseProblem(f"cannot read the file: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ParseProblem("not a regular file (a FIFO, device or socket); skipped",
                               reason="not a regular file")
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bounded(path: Path, limit: int, what: str) -> bytes:
    """At most ``limit`` bytes of the regular file ``path``; more is a problem naming
    ``what`` (the limit's setting). The file's size is never trusted: a read stops at the
    limit whatever ``stat`` said."""
    fd = open_regular(path)
    with os.fdopen(fd, "rb") as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise ParseProblem(f"cannot read the file: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise ParseProblem(f"file is over the {limit:,}-byte limit for {what}",
                           reason="too large")
    return data
