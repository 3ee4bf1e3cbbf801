"""What an index holds, document by document, and what its build left out (``gov list``).

Reads the header and the document table only: no scorer, no model, no arrays of vectors.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..corpus.document import Skip
from .stored import StoredIndex


@dataclass(frozen=True)
class Listed:
    """One indexed document as ``gov list`` shows it. ``family`` is its declared
    ``**Family:**``; ``family_id`` the routing family the index gave it (``None`` when the
    index has no routing families); ``notes`` how it was read when not as written."""

    name: str
    source: str
    kind: str
    trigger: str
    family: str | None
    family_id: int | None
    notes: tuple[str, ...]
    retired: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "source": self.source, "kind": self.kind,
                "trigger": self.trigger, "family": self.family, "family_id": self.family_id,
                "notes": list(self.notes)}


def listed_documents(stored: StoredIndex) -> Iterator[Listed]:
    """The index's documents in their stored order, each with its notes and family."""
    notes: dict[str, list[str]] = {}
    for name, note in stored.header.corpus.notes:
        notes.setdefault(name, []).append(note)
    families = stored.families()
    for position, doc in enumerate(stored.documents):
        yield Listed(doc.name, doc.source, doc.kind, doc.trigger, doc.family,
                     None if families is None else int(families[position]),
                     tuple(notes.get(doc.name, ())))


def skipped_files(stored: StoredIndex) -> list[Skip]:
    """The candidate files the build left out, with the reason (an index built before
    reasons were kept names the files alone)."""
    corpus = stored.header.corpus
    if corpus.problems or not corpus.skipped:
        return list(corpus.problems)
    return [Skip(file, None, "skipped (rebuild the index to keep the reason)", "unknown")
            for file in corpus.skipped]
