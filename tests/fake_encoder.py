"""A deterministic stand-in for the embedding model, for fast tests of logic.

Each text becomes its hashed word unigrams and bigrams in 384 signed dimensions,
l2-normalised: the same text always gives the same vector (in any process), texts that
share words are near, and nothing is loaded or downloaded. It knows nothing of meaning,
so a test that makes a claim about routing quality belongs on the real model (``model``).

A test installs it with the ``fake_encoder`` fixture (``tests/conftest.py``), which replaces
``gov.core.encode.embedding.get_encoder`` for the build and the route paths alike; gov's
own code never knows.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from gov.core.encode import bundle

WORD = re.compile(r"\w+")
BIGRAM_WEIGHT = 0.5


def hashed(gram: str, dim: int) -> tuple[int, float]:
    """The column and sign of one word or word pair."""
    digest = hashlib.blake2b(gram.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest[:4], "little") % dim, 1.0 if digest[4] & 1 else -1.0


class HashedWordsEncoder:
    """Hashed word n-grams into ``dim`` dimensions, l2-normalised; records what it embeds."""

    model_id = bundle.default_id()
    dim = bundle.spec().dim

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def vector(self, text: str) -> NDArray[np.float32]:
        out = np.zeros(self.dim, dtype=np.float64)
        words = WORD.findall(text.lower())
        grams = [(word, 1.0) for word in words]
        grams += [(f"{a} {b}", BIGRAM_WEIGHT) for a, b in itertools.pairwise(words)]
        for gram, weight in grams:
            column, sign = hashed(gram, self.dim)
            out[column] += sign * weight
        norm = float(np.linalg.norm(out))
        if norm == 0.0:  # no words (or words that cancel): one fixed unit vector
            out[hashed("", self.dim)[0]] = norm = 1.0
        return (out / norm).astype(np.float32)

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.embedded.extend(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.vector(text) for text in texts])
