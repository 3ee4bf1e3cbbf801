"""A stored index opened for reading: its header, documents, surfaces and arrays.

This is the index's identity and contents, and nothing about scoring or routing: the
scorers (:mod:`gov.core.scoring`) read the arrays through it, and the router
(:mod:`gov.core.routing`) decides what to do with the scores. Arrays stay memory-mapped;
documents are decoded one at a time (:mod:`gov.core.index.doctable`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ..corpus.reader import corpus_stamps, file_sha256
from ..encode import bundle
from ..encode.tfidf import LexicalArrays
from ..errors import GovError, IndexLoadError
from . import doctable, termhash
from .fileformat import (
    IndexFile,
    open_index_file,
    read_array_bytes,
    read_header,
    rebuild_hint,
)
from .header import IndexHeader
from .surfaces import surfaces_of
from .validate import check_index

if TYPE_CHECKING:
    from .build import BuiltIndex


@dataclass(frozen=True)
class IndexedDocument:
    """A document as the index keeps it (its full text is read on demand)."""

    name: str
    source: str
    trigger: str
    examples: tuple[str, ...]
    family: str | None
    depends_on: tuple[str, ...]
    kind: str
    content_hash: str


def document_record(entry: dict[str, Any]) -> IndexedDocument:
    """An :class:`IndexedDocument` from its stored JSON record, every field type-checked
    (a ValueError names the field: the record comes from a file gov may not have written)."""
    def text(key: str, default: str | None = "") -> Any:
        value = entry.get(key, default)
        if not (isinstance(value, str) or (value is None and default is None)):
            raise ValueError(f"document record field {key!r} must be a string")
        return value

    def texts(key: str) -> tuple[str, ...]:
        value = entry.get(key) or []
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ValueError(f"document record field {key!r} must be a list of strings")
        return tuple(value)

    if not isinstance(entry.get("name"), str) or not isinstance(entry.get("trigger"), str):
        raise ValueError("document record fields 'name' and 'trigger' must be strings")
    return IndexedDocument(
        name=entry["name"],
        source=text("source"),
        trigger=entry["trigger"],
        examples=texts("examples"),
        family=text("family", None),
        depends_on=texts("depends_on"),
        kind=text("kind", "markdown"),
        content_hash=text("hash"),
    )


def stored_documents(header: dict[str, Any], array: Callable[[str], np.ndarray]
                     ) -> Sequence[IndexedDocument]:
    """The indexed documents: decoded on demand from their arrays, or from an old header."""
    if "documents" in header:  # written before the document table
        return [document_record(entry) for entry in header["documents"]]
    return doctable.DocumentTable({name: array(name) for name in doctable.RECORD_ARRAYS},
                                  document_record)


def read_document_names(path: str | os.PathLike[str]) -> list[str]:
    """The document names in an index, reading the header and one array (no numpy needed)."""
    header = read_header(path)
    if "documents" in header:  # written before the document table
        return [entry["name"] for entry in header["documents"]]
    return doctable.names_from_bytes(read_array_bytes(path, "doc_names", header))


class StoredIndex:
    """An index file (or a freshly built index) opened for reading."""

    def __init__(self, source: IndexFile | BuiltIndex, path: str | None = None) -> None:
        self.path = path
        self.where = path or "index"
        self._file = source if isinstance(source, IndexFile) else None
        self._arrays = None if isinstance(source, IndexFile) else source.arrays
        if isinstance(source, IndexFile):
            self.raw_header: dict[str, Any] = source.header
            self.header = IndexHeader.from_json(source.header, self.where)
        else:
            self.raw_header = source.header.to_json()
            self.header = source.header
        self._positions: dict[str, int] | None = None
        try:
            self.documents: Sequence[IndexedDocument] = stored_documents(self.raw_header,
                                                                          self.array)
            self.names: Sequence[str] = (
                [doc.name for doc in self.documents] if "documents" in self.raw_header
                else doctable.NameTable(self.array("doc_names"), self.array("doc_name_offsets"))
                if self.has_array("doc_name_offsets")
                else doctable.names_from_bytes(bytes(self.array("doc_names"))))
            if len(self.names) != len(self.documents):
                raise ValueError("document names and records differ in number")
            self.surface_doc: NDArray[np.int32] = self.array("surface_doc")
            self.surface_kind: NDArray[np.int8] = self.array("surface_kind")
            if self._file is not None:  # a file may come from anywhere; a fresh build not
                check_index(self.array, self.names, self.raw_header["arrays"], self.header)
        except (KeyError, TypeError, ValueError, UnicodeDecodeError, IndexError) as exc:
            raise self.malformed(exc) from None

    def malformed(self, problem: object) -> IndexLoadError:
        return IndexLoadError(f"{self.where}: index is malformed ({problem})",
                              hint=rebuild_hint(self.where, self.raw_header))

    # -- arrays -----------------------------------------------------------------------
    def array(self, name: str) -> np.ndarray:
        if self._file is not None:
            return self._file.array(name)
        assert self._arrays is not None
        if name not in self._arrays:
            raise KeyError(name)
        return self._arrays[name]

    def has_array(self, name: str) -> bool:
        try:
            self.array(name)
        except (KeyError, GovError):
            return False
        return True

    def lexical_arrays(self) -> tuple[LexicalArrays, termhash.TermTable | None]:
        """The TF-IDF model as stored, and its hashed term table (``None`` in old indexes)."""
        try:
            terms = (termhash.TermTable.from_arrays(
                {name: self.array(name) for name in termhash.ARRAY_NAMES},
                self.array("vocabulary")) if self.has_array("vocab_hash") else None)
            # With the term table the vocabulary is never split into strings.
            vocabulary = "" if terms else bytes(self.array("vocabulary")).decode("utf-8")
            stop_words = bytes(self.array("stop_words")).decode("utf-8")
            arrays = LexicalArrays(
                vocabulary=vocabulary.split("\n") if vocabulary else [],
                stop_words=stop_words.split("\n") if stop_words else [],
                idf=self.array("idf"),
                col_ptr=self.array("lex_col_ptr"),
                col_rows=self.array("lex_col_rows"),
                col_data=self.array("lex_col_data"),
                n_rows=self.header.lexical_rows,
                ngram_range=self.header.ngram_range,
            )
        except (KeyError, TypeError, ValueError, UnicodeDecodeError) as exc:
            raise self.malformed(exc) from None
        return arrays, terms

    def families(self) -> NDArray[np.int32] | None:
        """Each document's routing family id (``None``: no two documents share one)."""
        if self.header.families is None or not self.header.families.get("families"):
            return None
        try:
            ids = np.asarray(self.array("doc_family"))
        except KeyError as exc:
            raise self.malformed(exc) from None
        if ids.shape != (len(self.names),) or ids.dtype != np.int32:
            raise self.malformed("doc_family does not give one family id per document")
        return ids

    # -- identity -----------------------------------------------------------------------
    @property
    def fingerprint(self) -> str:
        return self.header.corpus.fingerprint

    @property
    def model_id(self) -> str | None:
        return self.header.model_id

    @property
    def base(self) -> Path:
        """The folder document sources are relative to."""
        return Path(self.header.corpus.base)

    def is_stale(self) -> bool:
        """Whether the corpus changed since the build: a file added, removed or resized, or
        one whose time changed and whose content did too (a fresh checkout of the same
        corpus is not stale). The walk follows no link out of a root and gives up after a
        few seconds (the roots are the index's word, and may be ``/``): then not known stale."""
        roots = [r for r in self.header.roots if r != "-"]
        if not roots:
            return False
        found = corpus_stamps(roots, self.base, recorded=self.header.corpus.stamps)
        if found is None:
            return False
        now = {stamp.path: stamp for stamp in found}
        recorded = {stamp.path: stamp for stamp in self.header.corpus.stamps}
        if now.keys() != recorded.keys():
            return True
        for path, stamp in now.items():
            then = recorded[path]
            if stamp.size != then.size:
                return True
            if stamp.mtime_ns != then.mtime_ns and (
                    then.sha256 is None or file_sha256(self.base / path) != then.sha256):
                return True
        return False

    # -- documents ----------------------------------------------------------------------
    @property
    def positions(self) -> dict[str, int]:
        """Name → position, built on first use (a route that only names its documents never
        needs it, and at 100,000 documents it costs a one-shot route tens of ms)."""
        if self._positions is None:
            self._positions = {name: i for i, name in enumerate(self.names)}
        return self._positions

    def position(self, name: str) -> int | None:
        return self.positions.get(name)

    def document(self, name: str) -> IndexedDocument:
        position = self.positions.get(name)
        if position is None:
            raise KeyError(name)
        return self.documents[position]

    def unknown(self, name: str) -> str:
        """What to say when ``name`` is not a routable document here: that it is retired,
        or the nearest names, never the whole list (48 KB at 1,354 documents)."""
        import difflib

        if name in self.header.corpus.retired:
            return (f"{name!r} is retired (its **Status:** leaves it out of routing); the index "
                    "keeps only routable documents")
        close = difflib.get_close_matches(name, list(self.names), n=3, cutoff=0.6)
        if not close:
            lowered = name.lower()
            close = [known for known in self.names if lowered in known.lower()][:3]
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        return f"no document named {name!r} among the index's {len(self.names)}{hint}"

    def text(self, name: str) -> str:
        """The whole document, as it was indexed."""
        position = self.positions[name]
        offsets = self.array("text_offsets")
        start, end = int(offsets[position]), int(offsets[position + 1])
        return bytes(self.array("texts")[start:end]).decode("utf-8")

    def surface_texts(self, starts: NDArray[np.int64]) -> Sequence[str]:
        """Surface *i*'s text, found through its document (``starts``: each document's first
        surface)."""
        if isinstance(self.documents, list):
            return surfaces_of(self.documents).texts
        return doctable.SurfaceTexts(self.documents, self.surface_doc, starts)


def open_stored(path: str | os.PathLike[str], *, verify: bool = False) -> StoredIndex:
    """Open an index file; every problem is one :class:`IndexLoadError` naming the rebuild."""
    opened = open_index_file(path, verify=verify)
    stored = StoredIndex(opened, path=str(path))
    model = stored.header.model
    if model and not bundle.spec(model.id).accepts(model.dim, model.sha256):
        raise IndexLoadError(f"{path}: index was built with a different model file than the one "
                             "installed", hint=rebuild_hint(str(path), stored.raw_header))
    return stored
