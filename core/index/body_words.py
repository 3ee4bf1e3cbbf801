"""Body words: each document's body as words evidence, beside its routing surfaces.

A real library's one-line descriptions are short and generic ("Expert in modern web
development"), while the tool, framework or error a user names ("stryker", "semgrep",
"@AppStorage") is in the body. The surfaces' TF-IDF cannot see it and the body's summary
vector blurs it, so each document's body (front matter, title and gov header lines left
out, so an example line is never its own evidence) gets a TF-IDF of its own: single words
as their light stem, counts taken as 1 + ln(count) so a long body does not win by
repetition. A prompt's cosine to a document's body, times :data:`WEIGHT`, is added to its
lexical score for that document wherever the lexical score is used (the ranking, the
background gate and the thresholds measured at build), so the gate's bank is scored the
same way as every prompt. Measured in ``docs/quality.md`` ("Body words").

The arrays are stored under their own names, with a hashed term table like the surfaces'
(:mod:`gov.core.index.termhash`), so a load builds no dict.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..encode.tfidf import LexicalArrays, LexicalScorer
from . import termhash

if TYPE_CHECKING:
    from ..corpus.document import Document

# Added to the lexical score per unit of body cosine: under the shipped point's lexical
# weight (0.25), the body cosine itself in the fused score. Chosen by the first route's
# rightness over sixteen corpora (``docs/quality.md``, "Body words").
WEIGHT = 4.0
PREFIX = "bw_"
# What the arrays mean (the text read, stemming, counts): an index of another version is
# rebuilt, not kept, when its corpus is indexed again.
VERSION = 1
NGRAM_RANGE = (1, 1)
ARRAYS = ("idf", "col_ptr", "col_rows", "col_data", "vocabulary")


def document_text(doc: Document) -> str:
    """What a document's body words are read from: its text less the front matter, gov's
    header lines (``**Agent-example:**`` and the like) and its title. Name, title and
    trigger are the surfaces' words already; counted again here they would double the
    words' weight on corpora whose bodies say nothing (intent corpora with one neutral
    sentence), measured in ``docs/quality.md``."""
    from ..corpus.markdown import is_header_line, split_front_matter

    _, rest, _ = split_front_matter(doc.text)
    return "\n".join(line for line in rest.splitlines()
                     if not is_header_line(line) and not line.startswith("# "))


def fit_arrays(documents: Sequence[Document]) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays to store and the header's summary (build time: scikit-learn)."""
    from ..encode.tfidf import fit

    fitted = fit([document_text(doc) for doc in documents], ngram_range=NGRAM_RANGE,
                 sublinear=True, stem=True)
    arrays: dict[str, np.ndarray] = {
        PREFIX + "vocabulary": np.frombuffer("\n".join(fitted.vocabulary).encode("utf-8"),
                                             dtype=np.uint8),
        PREFIX + "idf": fitted.idf,
        PREFIX + "col_ptr": fitted.col_ptr,
        PREFIX + "col_rows": fitted.col_rows,
        PREFIX + "col_data": fitted.col_data,
    }
    arrays.update({PREFIX + name: value
                   for name, value in termhash.build_arrays(fitted.vocabulary).items()})
    return arrays, {"version": VERSION, "weight": WEIGHT, "terms": len(fitted.vocabulary)}


def current(summary: Mapping[str, Any] | None) -> bool:
    """Whether an index's body words (its header's summary) are what a build makes now."""
    return (summary is not None and summary.get("version") == VERSION
            and summary.get("weight") == WEIGHT)


def scorer(stored: Any, stop_words: Sequence[str]) -> tuple[LexicalScorer, float] | None:
    """The body-words scorer of an opened index and its weight (``None``: the index has
    none)."""
    info = stored.header.body_words
    if info is None or not stored.has_array(PREFIX + "idf"):
        return None
    names: Mapping[str, np.ndarray] = {name: stored.array(PREFIX + name)
                                       for name in termhash.ARRAY_NAMES}
    terms = termhash.TermTable.from_arrays(names, stored.array(PREFIX + "vocabulary"))
    arrays = LexicalArrays(
        vocabulary=[], stop_words=list(stop_words), idf=stored.array(PREFIX + "idf"),
        col_ptr=stored.array(PREFIX + "col_ptr"), col_rows=stored.array(PREFIX + "col_rows"),
        col_data=stored.array(PREFIX + "col_data"), n_rows=len(stored.names),
        ngram_range=NGRAM_RANGE, sublinear=True, stem=True)
    return LexicalScorer(arrays, terms), float(info["weight"])
