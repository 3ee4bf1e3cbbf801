"""Routing surfaces: the texts a document is matched by, in the order the index stores them.

Each document contributes its trigger line, then its example lines; surfaces are grouped
by document in document order, so one document's surfaces are one contiguous slice. The
kinds are stored in the index (``surface_kind``); learned surfaces, added from labelled
prompts by calibration, are the third kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

TRIGGER, EXAMPLE, LEARNED = 0, 1, 2


class HasSurfaces(Protocol):
    @property
    def trigger(self) -> str: ...
    @property
    def examples(self) -> Sequence[str]: ...


@dataclass
class Surfaces:
    """Parallel lists: each surface's text, owning document (position) and kind."""

    texts: list[str] = field(default_factory=list)
    owners: list[int] = field(default_factory=list)
    kinds: list[int] = field(default_factory=list)


def surfaces_of(documents: Sequence[HasSurfaces]) -> Surfaces:
    """The surfaces of ``documents``, grouped by document in order."""
    out = Surfaces()
    for position, doc in enumerate(documents):
        out.texts.append(doc.trigger)
        out.owners.append(position)
        out.kinds.append(TRIGGER)
        for example in doc.examples:
            out.texts.append(example)
            out.owners.append(position)
            out.kinds.append(EXAMPLE)
    return out
