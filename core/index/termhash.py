"""Term → column lookup with no work at load: sorted 64-bit hashes searched by numpy.

A corpus of 100,000 documents has a vocabulary of about a million word 1-3 grams.
Splitting that vocabulary into strings and building a dict costs about half a second in
every fresh process, more than a one-shot route may spend in total. The index instead
keeps, beside the vocabulary blob (terms joined by newlines):

* ``vocab_hash``: the blake2b-64 hash of every term, sorted (``<u8``);
* ``vocab_hash_col``: the column of the term with each sorted hash (``<i4``);
* ``vocab_offsets``: where term *c* starts in the blob (``<i8``, one extra at the end).

A prompt's few dozen terms are hashed, found with one ``numpy.searchsorted`` over the
memory-mapped hashes, and each hit is checked against the term's bytes in the blob, so a
hash collision can never match a different term. Only the pages touched are read.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

ARRAY_NAMES = ("vocab_hash", "vocab_hash_col", "vocab_offsets")


def term_hash(term: str) -> int:
    digest = hashlib.blake2b(term.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def build_arrays(vocabulary: Sequence[str]) -> dict[str, np.ndarray]:
    """The three lookup arrays for ``vocabulary`` (term *c* is column *c*)."""
    hashes = np.fromiter((term_hash(term) for term in vocabulary), dtype=np.uint64,
                         count=len(vocabulary))
    order = np.argsort(hashes, kind="stable")
    lengths = np.fromiter((len(term.encode("utf-8")) + 1 for term in vocabulary), dtype=np.int64,
                          count=len(vocabulary))
    offsets = np.zeros(len(vocabulary) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return {"vocab_hash": hashes[order], "vocab_hash_col": order.astype(np.int32),
            "vocab_offsets": offsets}


class TermTable:
    """Find terms' columns from the lookup arrays and the vocabulary blob (all mapped)."""

    def __init__(self, hashes: NDArray[np.uint64], columns: NDArray[np.int32],
                 offsets: NDArray[np.int64], blob: NDArray[np.uint8]) -> None:
        self.hashes = hashes
        self.columns = columns
        self.offsets = offsets
        self.blob = blob

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray], blob: np.ndarray) -> TermTable:
        return cls(arrays["vocab_hash"], arrays["vocab_hash_col"], arrays["vocab_offsets"], blob)

    def __len__(self) -> int:
        return int(self.hashes.shape[0])

    def term(self, column: int) -> str:
        start, end = int(self.offsets[column]), int(self.offsets[column + 1]) - 1
        return bytes(self.blob[start:end]).decode("utf-8")

    def find(self, terms: Sequence[str]) -> list[int | None]:
        """The column of each term, or ``None`` for a term not in the vocabulary."""
        if not terms or not len(self):
            return [None] * len(terms)
        wanted = np.fromiter((term_hash(t) for t in terms), dtype=np.uint64, count=len(terms))
        slots = np.searchsorted(self.hashes, wanted)
        found: list[int | None] = []
        size = len(self)
        for term, key, slot in zip(terms, wanted.tolist(), slots.tolist(), strict=True):
            column = None
            # Equal hashes sit together; check each candidate's bytes (a collision is rare).
            while slot < size and int(self.hashes[slot]) == key:
                candidate = int(self.columns[slot])
                if self.term(candidate) == term:
                    column = candidate
                    break
                slot += 1
            found.append(column)
        return found
