"""The arrays every index stores for its documents' texts and words.

Texts are one byte array with offsets, the words model is plain arrays, and the document
records and term lookup are mapped arrays (:mod:`gov.core.index.doctable`,
:mod:`gov.core.index.termhash`), so a load maps them and reads only what a route touches.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..corpus.document import Document
from ..encode.tfidf import LexicalArrays
from . import doctable, termhash
from .surfaces import Surfaces


def text_arrays(documents: Sequence[Document], layout: Surfaces,
                lexical: LexicalArrays) -> dict[str, np.ndarray]:
    """The words model, the surfaces' owners and kinds, every document's full text, and
    the document records and term lookup as arrays."""
    encoded_texts = [doc.text.encode("utf-8") for doc in documents]
    offsets = np.zeros(len(documents) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(text) for text in encoded_texts])
    arrays: dict[str, np.ndarray] = {
        "vocabulary": np.frombuffer("\n".join(lexical.vocabulary).encode("utf-8"), dtype=np.uint8),
        "stop_words": np.frombuffer("\n".join(lexical.stop_words).encode("utf-8"), dtype=np.uint8),
        "idf": lexical.idf,
        "lex_col_ptr": lexical.col_ptr,
        "lex_col_rows": lexical.col_rows,
        "lex_col_data": lexical.col_data,
        "surface_doc": np.asarray(layout.owners, dtype=np.int32),
        "surface_kind": np.asarray(layout.kinds, dtype=np.int8),
        "texts": np.frombuffer(b"".join(encoded_texts), dtype=np.uint8),
        "text_offsets": offsets,
    }
    # Document records and the term lookup as arrays: a load maps them and reads only what
    # a route touches (see gov.core.index.doctable and gov.core.index.termhash).
    records = [
        {"name": doc.name, "source": doc.source, "trigger": doc.trigger,
         "examples": list(doc.examples), "family": doc.family,
         "depends_on": list(doc.depends_on), "kind": doc.kind, "hash": doc.content_hash}
        for doc in documents
    ]
    arrays.update(doctable.build_arrays([doc.name for doc in documents], records))
    arrays.update(termhash.build_arrays(lexical.vocabulary))
    return arrays
