"""TF-IDF over routing surfaces: fitted with scikit-learn, applied with numpy alone.

Building fits scikit-learn's ``TfidfVectorizer`` (word 1-3 grams, English stop words,
l2 norm) and keeps what scoring needs as plain arrays: the vocabulary, the idf vector and
the surface-by-term matrix in compressed sparse column form. Routing re-implements the
analyzer and the transform in numpy so that a route never imports scikit-learn or scipy,
and the scores are identical (``tests/encode/test_tfidf.py`` compares them).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, cast

import numpy as np
from numpy.typing import NDArray

TOKEN_PATTERN = r"(?u)\b\w\w+\b"
NGRAM_RANGE = (1, 3)
_TOKEN_RE = re.compile(TOKEN_PATTERN)


@dataclass
class LexicalArrays:
    """The fitted model as arrays; ``col_*`` is the matrix in CSC form (surfaces × terms)."""

    vocabulary: list[str]
    stop_words: list[str]
    idf: NDArray[np.float64]
    col_ptr: NDArray[np.int64]
    col_rows: NDArray[np.int32]
    col_data: NDArray[np.float64]
    n_rows: int
    ngram_range: tuple[int, int] = NGRAM_RANGE
    # A prompt's term counts as 1 + ln(count), as scikit-learn's ``sublinear_tf`` does.
    sublinear: bool = False
    # Words are reduced to a light stem (:func:`stem`) before counting.
    stem: bool = False


def fit(texts: Sequence[str], *, ngram_range: tuple[int, int] = NGRAM_RANGE,
        sublinear: bool = False, stem: bool = False) -> LexicalArrays:
    """Fit TF-IDF on ``texts`` (one row each) with scikit-learn; build time only.

    ``sublinear``: term counts as 1 + ln(count), for long texts (whole documents), where a
    word said twenty times is not twenty times the evidence. ``stem``: words as their light
    stem (:func:`stem`), so "pin its version" meets "versions are pinned"."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, TfidfVectorizer

    if stem:
        words = frozenset(ENGLISH_STOP_WORDS)
        vectorizer = TfidfVectorizer(
            analyzer=lambda text: ngrams(tokens(text, words, stemmed=True), ngram_range),
            norm="l2", use_idf=True, smooth_idf=True, sublinear_tf=sublinear)
    else:
        vectorizer = TfidfVectorizer(
            lowercase=True,
            token_pattern=TOKEN_PATTERN,
            ngram_range=ngram_range,
            stop_words="english",
            norm="l2",
            use_idf=True,
            smooth_idf=True,
            sublinear_tf=sublinear,
        )
    try:
        matrix = vectorizer.fit_transform(list(texts))
    except ValueError:
        # Every surface is made only of stop words: an empty vocabulary scores nothing.
        return LexicalArrays(
            vocabulary=[],
            stop_words=sorted(ENGLISH_STOP_WORDS),
            idf=np.zeros(0, dtype=np.float64),
            col_ptr=np.zeros(1, dtype=np.int64),
            col_rows=np.zeros(0, dtype=np.int32),
            col_data=np.zeros(0, dtype=np.float64),
            n_rows=len(texts),
            ngram_range=ngram_range,
            sublinear=sublinear,
            stem=stem,
        )
    csc = matrix.tocsc()
    csc.sort_indices()
    vocabulary = [""] * len(vectorizer.vocabulary_)
    for term, column in vectorizer.vocabulary_.items():
        vocabulary[column] = term
    return LexicalArrays(
        vocabulary=vocabulary,
        stop_words=sorted(ENGLISH_STOP_WORDS),
        idf=np.asarray(vectorizer.idf_, dtype=np.float64),
        col_ptr=np.asarray(csc.indptr, dtype=np.int64),
        col_rows=np.asarray(csc.indices, dtype=np.int32),
        col_data=np.asarray(csc.data, dtype=np.float64),
        n_rows=matrix.shape[0],
        ngram_range=ngram_range,
        sublinear=sublinear,
        stem=stem,
    )


def tokens(text: str, stop_words: frozenset[str] | set[str], stemmed: bool = False) -> list[str]:
    """Lower-cased word tokens of two or more characters, stop words removed (then, with
    ``stemmed``, each as its :func:`stem`)."""
    words = [token for token in _TOKEN_RE.findall(text.lower()) if token not in stop_words]
    return [stem(word) for word in words] if stemmed else words


# Suffix, replacement, and the least length a word must have for the rule to apply: plurals
# and the commonest verb endings only, so a stem stays a readable word.
_SUFFIXES = (("ies", "y", 5), ("ing", "", 5), ("ed", "", 5), ("es", "", 5), ("s", "", 4))


def stem(word: str) -> str:
    """A light stem: "libraries" -> "library", "pinned" -> "pin", "versions" -> "version";
    a word that ends in "ss" keeps its "s"."""
    for suffix, replacement, least in _SUFFIXES:
        if len(word) >= least and word.endswith(suffix) and not (
                suffix == "s" and word.endswith("ss")):
            word = word[: len(word) - len(suffix)] + replacement
            if suffix in ("ing", "ed") and len(word) > 2 and word[-1] == word[-2] \
                    and word[-1] not in "lsz":
                word = word[:-1]
            break
    return word


def ngrams(words: list[str], ngram_range: tuple[int, int] = NGRAM_RANGE) -> list[str]:
    """Word n-grams exactly as scikit-learn builds them (after stop-word removal)."""
    low, high = ngram_range
    out = list(words) if low == 1 else []
    for n in range(max(low, 2), min(high, len(words)) + 1):
        out.extend(" ".join(words[i : i + n]) for i in range(len(words) - n + 1))
    return out


class TermLookup(Protocol):
    """Finds terms' columns without a dict (the index's hashed term table)."""

    def find(self, terms: Sequence[str]) -> list[int | None]: ...


class LexicalScorer:
    """Scores a prompt against every surface from the persisted arrays (numpy only)."""

    def __init__(self, arrays: LexicalArrays, terms: TermLookup | None = None) -> None:
        """``terms`` (the index's hashed term table) replaces the dict built from
        ``arrays.vocabulary``, which a large index then need not load at all."""
        self.arrays = arrays
        self.stop_words = frozenset(arrays.stop_words)
        self.terms = terms
        self._lookup: dict[str, int] | None = None

    @property
    def lookup(self) -> dict[str, int]:
        if self._lookup is None:
            self._lookup = {term: column for column, term in enumerate(self.arrays.vocabulary)}
        return self._lookup

    def vector(self, text: str) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """The prompt's l2-normalised TF-IDF vector as (columns, weights)."""
        counts = Counter(ngrams(tokens(text, self.stop_words, self.arrays.stem),
                                self.arrays.ngram_range))
        if self.terms is not None:
            found = self.terms.find(list(counts))
            pairs = [(column, count) for column, count in zip(found, counts.values(), strict=True)
                     if column is not None]
        else:
            lookup = self.lookup
            pairs = [(lookup[term], count) for term, count in counts.items() if term in lookup]
        if not pairs:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
        columns = np.fromiter((c for c, _ in pairs), dtype=np.int64, count=len(pairs))
        weights = np.fromiter((n for _, n in pairs), dtype=np.float64, count=len(pairs))
        if self.arrays.sublinear:
            weights = 1.0 + np.log(weights)
        weights *= self.arrays.idf[columns]
        norm = float(np.sqrt(np.dot(weights, weights)))
        if norm > 0.0:
            weights /= norm
        return columns, weights

    def scores(self, text: str) -> NDArray[np.float64]:
        """Cosine similarity between the prompt and each surface (rows of the matrix)."""
        n_rows = self.arrays.n_rows
        columns, weights = self.vector(text)
        if columns.size == 0:
            return np.zeros(n_rows, dtype=np.float64)
        ptr, rows, data = self.arrays.col_ptr, self.arrays.col_rows, self.arrays.col_data
        starts, ends = ptr[columns], ptr[columns + 1]
        lengths = ends - starts
        total = int(lengths.sum())
        if total == 0:
            return np.zeros(n_rows, dtype=np.float64)
        # Gather every (row, value) of the prompt's columns in one vectorised step, then sum
        # per row in that same order (bincount adds like a sequential ``np.add.at``).
        offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(total)
        summed = np.bincount(rows[offsets], weights=data[offsets] * np.repeat(weights, lengths),
                             minlength=n_rows)
        return cast("NDArray[np.float64]", summed)

    def matched_terms(self, prompt: str, surface: str, limit: int = 5) -> list[str]:
        """Words of the prompt (stop words removed) that also occur in ``surface``."""
        surface_words = set(tokens(surface, self.stop_words))
        seen: list[str] = []
        for word in tokens(prompt, self.stop_words):
            if word in surface_words and word not in seen:
                seen.append(word)
                if len(seen) == limit:
                    break
        return seen

    def document_frequency(self, term: str) -> int | None:
        """How many surfaces hold ``term`` (``None``: not in the vocabulary), read back from
        its smoothed idf: idf = ln((1 + n) / (1 + df)) + 1."""
        column = self.terms.find([term])[0] if self.terms is not None else self.lookup.get(term)
        if column is None:
            return None
        idf = float(self.arrays.idf[column])
        return max(0, round((1 + self.arrays.n_rows) / float(np.exp(idf - 1.0)) - 1))
