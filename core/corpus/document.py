"""The corpus as records: one governing document, the file stamps, the whole corpus.

A document is delivered whole, so it keeps its full text beside its routing surface
(trigger line and example prompts). The fingerprint identifies the routable content:
equal fingerprints route identically.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import orjson

RETIRED_STATUSES = frozenset({"retired", "draft", "superseded", "deprecated", "withdrawn"})
PARSER_VERSION = 1


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


@dataclass
class Corpus:
    """Routable documents (in a stable order), the ones left out, and the files read."""

    documents: list[Document]
    retired: list[Document] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    roots: list[str] = field(default_factory=list)
    stamps: list[FileStamp] = field(default_factory=list)

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
