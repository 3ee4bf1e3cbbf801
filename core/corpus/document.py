"""The corpus as records: one governing document, the file stamps, the whole corpus.

A document is delivered whole, so it keeps its full text beside its routing surface
(trigger line and example prompts). The fingerprint identifies the routable content:
equal fingerprints route identically.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import NamedTuple

import orjson

RETIRED_STATUSES = frozenset({"retired", "draft", "superseded", "deprecated", "withdrawn"})
PARSER_VERSION = 2  # 2: lenient front matter, control bytes removed, shared names qualified


@dataclass(frozen=True)
class Document:
    """One governing document: its routing surface and its whole text."""

    name: str
    trigger: str
    examples: tuple[str, ...] = ()
    text: str = ""
    family: str | None = None
    depends_on: tuple[str, ...] = ()
    source: str = ""
    status: str | None = None
    kind: str = "markdown"
    # Lint rules switched off for this document (``**Lint-ignore:**``); routing ignores it.
    lint_ignore: tuple[str, ...] = ()
    # How the file was read when it was not as written (front matter read leniently, the
    # name qualified by its folder, the trigger taken from the first paragraph); routing
    # ignores them, ``gov list`` shows them.
    notes: tuple[str, ...] = ()

    @property
    def routable(self) -> bool:
        return self.status not in RETIRED_STATUSES

    @property
    def content_hash(self) -> str:
        """A hash of everything about the document that routing or delivery depends on."""
        payload = orjson.dumps(
            [self.name, self.trigger, list(self.examples), self.text, self.family,
             list(self.depends_on), self.status],
        )
        return hashlib.sha256(payload).hexdigest()


@dataclass(frozen=True)
class FileStamp:
    """What a corpus file looked like when it was read, to notice a stale index cheaply: a
    changed size or set of files is stale; a changed time alone (a fresh checkout) is stale
    only if the content's sha256 changed too."""

    path: str
    size: int
    mtime_ns: int
    sha256: str | None = None


class Skip(NamedTuple):
    """A candidate file that is not in the corpus: the file, the line (or None), the whole
    problem, and its short reason for a summary ("no description", "not UTF-8", …)."""

    file: str
    line: int | None
    problem: str
    reason: str = "unreadable"


@dataclass
class Corpus:
    """Routable documents (in a stable order), the ones left out, and the files read."""

    documents: list[Document]
    retired: list[Document] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    roots: list[str] = field(default_factory=list)
    stamps: list[FileStamp] = field(default_factory=list)
    # Why each skipped file was skipped.
    problems: list[Skip] = field(default_factory=list)
    # Candidate files read (documents found in them, or skipped).
    candidates: int = 0
    # Names two or more documents shared: the name and the sources holding it.
    collisions: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)

    @property
    def reasons(self) -> dict[str, int]:
        """How many files were skipped for each short reason, most first."""
        counts: dict[str, int] = {}
        for skip in self.problems:
            counts[skip.reason] = counts.get(skip.reason, 0) + 1
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))

    @property
    def lenient(self) -> list[Document]:
        """The documents read with a note (see :attr:`Document.notes`)."""
        return [doc for doc in (*self.documents, *self.retired) if doc.notes]

    @property
    def names(self) -> list[str]:
        return [doc.name for doc in self.documents]

    @property
    def fingerprint(self) -> str:
        """Identifies the routable content: equal fingerprints route identically."""
        digest = hashlib.sha256(f"gov-corpus-v{PARSER_VERSION}".encode())
        for doc in sorted(self.documents, key=lambda d: d.name):
            digest.update(doc.content_hash.encode())
        return digest.hexdigest()
