"""Document records as arrays, decoded one at a time: what lets 100,000 documents load fast.

The first index format kept every document record (name, source, trigger, examples, ...)
in the JSON header. At 100,000 documents that header is 30 MB: parsing it and making
the records costs more than a second in every process, before any routing. Records now
live in two arrays that stay memory-mapped:

* ``doc_names`` + ``doc_name_offsets``: the names joined by newlines (a name never holds
  one), read one at a time: a route names only the documents it returns;
* ``doc_records`` + ``doc_record_offsets``: one JSON object per document, decoded only
  when that document is asked for (its routes' evidence, ``gov show``).

A route touches the records of the few documents it returns, and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar, overload

import numpy as np
import orjson

RECORD_ARRAYS = ("doc_records", "doc_record_offsets")
ARRAY_NAMES = ("doc_names", "doc_name_offsets", *RECORD_ARRAYS)
T = TypeVar("T")


def build_arrays(names: Sequence[str], records: Sequence[dict[str, Any]]) -> dict[str, np.ndarray]:
    """The arrays for documents ``names`` with JSON-ready ``records`` (same order)."""
    encoded = [orjson.dumps(record) for record in records]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(item) for item in encoded], out=offsets[1:])
    name_offsets = np.zeros(len(names) + 1, dtype=np.int64)
    np.cumsum([len(name.encode("utf-8")) + 1 for name in names], out=name_offsets[1:])
    return {
        "doc_names": np.frombuffer("\n".join(names).encode("utf-8"), dtype=np.uint8),
        "doc_name_offsets": name_offsets,
        "doc_records": np.frombuffer(b"".join(encoded), dtype=np.uint8),
        "doc_record_offsets": offsets,
    }


def names_from_bytes(blob: bytes) -> list[str]:
    text = blob.decode("utf-8")
    return text.split("\n") if text else []


class NameTable(Sequence[str]):
    """Document names read one at a time from the names blob; iterating splits it whole."""

    def __init__(self, blob: np.ndarray, offsets: np.ndarray) -> None:
        self._blob = blob
        self._offsets = offsets

    def __len__(self) -> int:
        return int(self._offsets.shape[0]) - 1

    @overload
    def __getitem__(self, position: int) -> str: ...
    @overload
    def __getitem__(self, position: slice) -> list[str]: ...

    def __getitem__(self, position: int | slice) -> str | list[str]:
        if isinstance(position, slice):
            return [self[i] for i in range(*position.indices(len(self)))]
        position = _checked(position, len(self))
        start, end = int(self._offsets[position]), int(self._offsets[position + 1]) - 1
        return bytes(self._blob[start:end]).decode("utf-8")

    def __iter__(self) -> Iterator[str]:
        return iter(names_from_bytes(bytes(self._blob)))

    def __eq__(self, other: object) -> bool:
        """Equal to any sequence of the same names (a list of names compares as before)."""
        if isinstance(other, Sequence) and not isinstance(other, str | bytes):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


def _checked(position: int, length: int) -> int:
    """A sequence position as Python reads it (negative from the end), or IndexError."""
    if position < 0:
        position += length
    if not 0 <= position < length:
        raise IndexError(position)
    return position


class DocumentTable(Sequence[T]):
    """A read-only sequence of documents, each decoded (and kept) on first access."""

    def __init__(self, arrays: Mapping[str, np.ndarray], make: Callable[[dict[str, Any]], T]
                 ) -> None:
        self._blob = arrays["doc_records"]
        self._offsets = arrays["doc_record_offsets"]
        self._make = make
        self._cache: dict[int, T] = {}

    def record(self, position: int) -> dict[str, Any]:
        start, end = int(self._offsets[position]), int(self._offsets[position + 1])
        value = orjson.loads(bytes(self._blob[start:end]))
        if not isinstance(value, dict):
            raise ValueError(f"document record {position} is not an object")
        return value

    def __len__(self) -> int:
        return int(self._offsets.shape[0]) - 1

    @overload
    def __getitem__(self, position: int) -> T: ...
    @overload
    def __getitem__(self, position: slice) -> list[T]: ...

    def __getitem__(self, position: int | slice) -> T | list[T]:
        if isinstance(position, slice):
            return [self[i] for i in range(*position.indices(len(self)))]
        position = _checked(position, len(self))
        item = self._cache.get(position)
        if item is None:
            item = self._cache[position] = self._make(self.record(position))
        return item

    def __iter__(self) -> Iterator[T]:
        for position in range(len(self)):
            yield self[position]


class SurfaceTexts(Sequence[str]):
    """Surface *i*'s text (a trigger or an example), found through its document's record."""

    def __init__(self, documents: Sequence[Any], surface_doc: np.ndarray, starts: np.ndarray
                 ) -> None:
        self._documents = documents
        self._surface_doc = surface_doc
        self._starts = starts

    def __len__(self) -> int:
        return int(self._surface_doc.shape[0])

    @overload
    def __getitem__(self, position: int) -> str: ...
    @overload
    def __getitem__(self, position: slice) -> list[str]: ...

    def __getitem__(self, position: int | slice) -> str | list[str]:
        if isinstance(position, slice):
            return [self[i] for i in range(*position.indices(len(self)))]
        position = _checked(position, len(self))
        doc = int(self._surface_doc[position])
        rank = position - int(self._starts[doc])
        document = self._documents[doc]
        return str(document.trigger if rank == 0 else document.examples[rank - 1])

    def __iter__(self) -> Iterator[str]:
        for position in range(len(self)):
            yield self[position]
