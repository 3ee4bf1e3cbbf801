"""An index's arrays checked against each other when it is opened: a crafted file is one
error, never a crash, a runaway allocation or a silent wrong answer.

A repository can ship ``.gov/index`` and the hook reads it, so the arrays are untrusted
input even when their checksums match (a checksum is recomputed as easily as a byte is
changed). Every array that indexes another is bounds-checked here, once, with vectorised
numpy passes: the surface → document map, the sparse matrix's column pointers and rows,
the term table, the offsets of names, records and texts. Each array must also have the
dtype and shape the builder writes, and names obey the corpus reader's rule
(:func:`gov.core.sanitize.name_problem`). What is cheap only per route (the finiteness of
the surface vectors) is checked on the score rows a route computes instead
(:mod:`gov.core.scoring.scorer`).

What a crafted file costs: see docs/reliability.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import sanitize

# The dtype each array is written with (numpy's ``dtype.str``).
DTYPES = {
    "vocabulary": "|u1", "stop_words": "|u1", "idf": "<f8", "lex_col_ptr": "<i8",
    "lex_col_rows": "<i4", "lex_col_data": "<f8", "surface_doc": "<i4", "surface_kind": "|i1",
    "texts": "|u1", "text_offsets": "<i8", "doc_names": "|u1", "doc_name_offsets": "<i8",
    "doc_records": "|u1", "doc_record_offsets": "<i8", "vocab_hash": "<u8",
    "vocab_hash_col": "<i4", "vocab_offsets": "<i8", "embeddings": "<f4",
    "body_vectors": "<f4", "body_present": "|u1", "ann_usearch": "|u1",
}
TWO_D = frozenset({"embeddings", "body_vectors"})


class Malformed(ValueError):
    """One broken rule between the arrays (the caller names the file and the rebuild)."""


def check_index(array: Callable[[str], np.ndarray], names: Sequence[str],
                manifest: dict[str, Any], header: Any) -> None:
    """Check every array the index holds against the others; raise :class:`Malformed`.

    ``array`` reads one array, ``manifest`` is the header's array manifest (name → entry),
    ``names`` the document names as the index presents them, ``header`` the checked
    :class:`~gov.core.index.header.IndexHeader`.
    """
    for name, wanted in DTYPES.items():
        if name in manifest:
            entry = manifest[name]
            if entry.get("dtype") != wanted:
                raise Malformed(f"array {name!r} has dtype {entry.get('dtype')}, not {wanted}")
            if len(entry.get("shape", ())) != (2 if name in TWO_D else 1):
                raise Malformed(f"array {name!r} has shape {entry.get('shape')}")
    documents = len(names)
    if documents == 0:
        raise Malformed("the index holds no documents")
    if "doc_name_offsets" in manifest:
        _check_names(array("doc_names"), array("doc_name_offsets"), documents)
    else:
        for name in names:
            problem = sanitize.name_problem(name)
            if problem is not None:
                raise Malformed(f"document name {name[:40]!r} {problem}")
    if "doc_record_offsets" in manifest:
        _offsets(array("doc_record_offsets"), documents, len(array("doc_records")),
                 "doc_record_offsets")
    _offsets(array("text_offsets"), documents, len(array("texts")), "text_offsets")
    surfaces = _check_surfaces(array("surface_doc"), array("surface_kind"), documents)
    if header.lexical_rows != surfaces:
        raise Malformed(f"header field lexical.rows is {header.lexical_rows}, the index has "
                        f"{surfaces} surfaces")
    terms = _check_lexical(array("idf"), array("lex_col_ptr"), array("lex_col_rows"),
                           array("lex_col_data"), surfaces)
    if "vocab_hash" in manifest:
        _check_term_table(array("vocab_hash"), array("vocab_hash_col"), array("vocab_offsets"),
                          len(array("vocabulary")), terms)
    if header.model is not None:
        _shape(array("embeddings"), (surfaces, header.model.dim), "embeddings")
    if header.bodies is not None and header.model is not None:
        _shape(array("body_vectors"), (documents, header.model.dim), "body_vectors")
        _shape(array("body_present"), (documents,), "body_present")


def _shape(values: np.ndarray, shape: tuple[int, ...], name: str) -> None:
    if values.shape != shape:
        raise Malformed(f"array {name!r} has shape {list(values.shape)}, expected {list(shape)}")


def _offsets(offsets: np.ndarray, count: int, total: int, name: str, gap: int = 0) -> None:
    """``count + 1`` offsets from 0, each at least ``gap`` past the one before, ending at
    ``total``: every slice they cut lies inside the blob."""
    _shape(offsets, (count + 1,), name)
    if int(offsets[0]) != 0 or int(offsets[-1]) != total:
        raise Malformed(f"array {name!r} must run from 0 to {total}")
    if count and int(np.diff(offsets).min()) < gap:
        raise Malformed(f"array {name!r} is not increasing")


def _check_names(blob: np.ndarray, offsets: np.ndarray, documents: int) -> None:
    """Names joined by newlines: the newlines exactly where the offsets say, valid UTF-8,
    each name within the corpus reader's rule."""
    _offsets(offsets, documents, len(blob) + 1, "doc_name_offsets", gap=2)
    newlines = np.flatnonzero(blob == 10)
    if newlines.size != documents - 1 or not np.array_equal(newlines, offsets[1:-1] - 1):
        raise Malformed("array 'doc_names' does not match 'doc_name_offsets'")
    try:
        text = bytes(blob).decode("utf-8")
    except UnicodeDecodeError:
        raise Malformed("array 'doc_names' is not UTF-8") from None
    bad = sanitize.bad_name_in(text)
    if bad is not None:
        raise Malformed(f"a document name holds the control or invisible character "
                        f"U+{ord(text[bad]):04X}")
    if int(np.diff(offsets).max()) - 1 > sanitize.MAX_NAME_LENGTH:
        # Bytes overcount characters: count characters (UTF-8 lead bytes) per name.
        leads = np.concatenate(([0], np.cumsum((blob & 0xC0) != 0x80)))
        chars = leads[offsets[1:] - 1] - leads[offsets[:-1]]
        if int(chars.max()) > sanitize.MAX_NAME_LENGTH:
            raise Malformed(f"a document name is over {sanitize.MAX_NAME_LENGTH} characters")


def _check_surfaces(surface_doc: np.ndarray, kinds: np.ndarray, documents: int) -> int:
    """Surfaces grouped by document in order, every document with at least one (its
    trigger): the owner starts at 0, steps by 0 or 1, and ends at the last document."""
    surfaces = int(surface_doc.shape[0])
    _shape(kinds, (surfaces,), "surface_kind")
    if surfaces < documents or int(surface_doc[0]) != 0 or int(surface_doc[-1]) != documents - 1:
        raise Malformed("array 'surface_doc' does not map surfaces onto the documents")
    steps = np.diff(surface_doc)
    if steps.size and (int(steps.min()) < 0 or int(steps.max()) > 1):
        raise Malformed("array 'surface_doc' is not grouped by document")
    if surfaces and (int(kinds.min()) < 0 or int(kinds.max()) > 1):
        raise Malformed("array 'surface_kind' holds an unknown kind")
    return surfaces


def _check_lexical(idf: np.ndarray, col_ptr: np.ndarray, col_rows: np.ndarray,
                   col_data: np.ndarray, surfaces: int) -> int:
    """The TF-IDF matrix: finite idf weights, column pointers cutting the row and value
    arrays, every row a surface."""
    terms = int(idf.shape[0])
    if terms and not (np.isfinite(idf).all() and float(idf.min()) > 0.0):
        raise Malformed("array 'idf' holds a weight that is not a positive finite number")
    _offsets(col_ptr, terms, int(col_rows.shape[0]), "lex_col_ptr")
    _shape(col_data, col_rows.shape, "lex_col_data")
    if col_rows.size and (int(col_rows.min()) < 0 or int(col_rows.max()) >= surfaces):
        raise Malformed("array 'lex_col_rows' names a surface the index does not have")
    return terms


def _check_term_table(hashes: np.ndarray, columns: np.ndarray, offsets: np.ndarray,
                      blob_size: int, terms: int) -> None:
    """The hashed term table: sorted hashes (``searchsorted`` needs them), columns that
    are terms, offsets cutting the vocabulary blob."""
    _shape(hashes, (terms,), "vocab_hash")
    _shape(columns, (terms,), "vocab_hash_col")
    _offsets(offsets, terms, blob_size + 1 if terms else 0, "vocab_offsets", gap=1)
    if terms and (int(columns.min()) < 0 or int(columns.max()) >= terms):
        raise Malformed("array 'vocab_hash_col' names a term the index does not have")
    if terms > 1 and bool((hashes[1:] < hashes[:-1]).any()):
        raise Malformed("array 'vocab_hash' is not sorted")
