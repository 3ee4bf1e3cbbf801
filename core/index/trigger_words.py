"""A trigger's content words: what a trigger is about, in any order.

Function words are left out and the rest lightly stemmed (:func:`content_words`), and
:class:`TriggerWords` weighs each word by its rarity among a corpus's triggers, so two
triggers are compared by the words that name their subject (the near-duplicate detector's
"trigger-words" signal, its template filter and its narrower copies, ``index/neighbours.py``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

# Words that say nothing of what a trigger is about (any order, any corpus).
_FUNCTION_WORDS = """
a about above across after again against all also am an and any are as at be been before
being below between both but by can could did do does doing down during each either etc
for from further had has have having he her here hers him his how however i if in into
is it its itself just may me might more most must my no nor not of off on once only or
other our ours out over own per same shall she should so some such than that the their
theirs them then there these they this those through to too under until up upon us very
via was we were what whatever when whenever where whether which while who whom whose why
will with within without would yet you your yours
"""
FUNCTION_WORDS = frozenset(_FUNCTION_WORDS.split())
_WORD_RE = re.compile(r"(?u)\b\w\w+\b")
_SUFFIXES = (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""))


def _stem(word: str) -> str:
    """A light stem, so that "services", "service" and "deploying", "deploy" meet."""
    if not word.endswith("ss"):
        for suffix, replacement in _SUFFIXES:
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                word = word[: len(word) - len(suffix)] + replacement
                break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def content_words(text: str) -> frozenset[str]:
    """A trigger's content words, stemmed, in no order."""
    return frozenset(_stem(word) for word in _WORD_RE.findall(text.lower().replace("_", " "))
                     if word not in FUNCTION_WORDS)


class TriggerWords:
    """Each document's trigger as a bag of content words, each weighted by its rarity among
    the triggers (smoothed inverse document frequency), so that a template every trigger
    shares counts little and the words that name the subject count most."""

    def __init__(self, texts: Sequence[str]) -> None:
        from scipy.sparse import csr_matrix

        vocabulary: dict[str, int] = {}
        rows: list[int] = []
        columns: list[int] = []
        for document, text in enumerate(texts):
            for word in sorted(content_words(text)):
                rows.append(document)
                columns.append(vocabulary.setdefault(word, len(vocabulary)))
        documents = len(texts)
        frequency = np.bincount(np.asarray(columns, dtype=np.int64), minlength=len(vocabulary))
        idf = np.log((1.0 + documents) / (1.0 + frequency)) + 1.0
        self.weights = csr_matrix((idf[columns], (rows, columns)),
                                  shape=(documents, len(vocabulary)))
        self.totals = np.asarray(self.weights.sum(axis=1), dtype=np.float64).ravel()

    def shared(self, a: NDArray[np.int64], b: NDArray[np.int64]) -> NDArray[np.float64]:
        """The weight of the words each pair ``a[k]``, ``b[k]`` has in common."""
        if a.size == 0:
            return np.zeros(0)
        theirs = self.weights[b].copy()
        theirs.data[:] = 1.0
        return np.asarray(self.weights[a].multiply(theirs).sum(axis=1), dtype=np.float64).ravel()
