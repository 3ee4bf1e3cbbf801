"""Build, persist, load and query an index: the corpus made ready to route.

An index holds everything a route and a delivery need, so a hook or server can work from
the index file alone: each document's name, source, surfaces and full text; the lexical
model as plain arrays; the surface embeddings; the model identity; the operating point;
the corpus fingerprint and file stamps (to notice staleness); the divergence reasons.
"""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from gov.core import __version__
from gov.core.corpus.reader import Corpus, FileStamp, corpus_stamps, load_corpus
from gov.core.encode import bundle
from gov.core.encode.tfidf import LexicalArrays, LexicalScorer, fit
from gov.core.errors import GovError, IndexBuildError, IndexLoadError, ModelError
from gov.core.index import doctable, termhash
from gov.core.index.fileformat import (
    IndexFile,
    open_index_file,
    read_array_bytes,
    read_header,
    rebuild_hint,
    write_index_file,
)
from gov.core.routing.point import OperatingPoint, check_model, default_operating_point
from gov.core.routing.select import Route, RouteResult, select
from gov.core.scoring.learned import LearnedArrays, from_arrays, load_learned, softmax_rows
from gov.core.scoring.pooling import SurfaceGroups, mix_bodies

Progress = Callable[[int, int], None]
TRIGGER, EXAMPLE, LEARNED = 0, 1, 2
INDEX_SCHEMA = 1
DEGRADED_LEXICAL = "lexical-only"


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


def default_index_path(cwd: str | os.PathLike[str] | None = None) -> Path:
    """``$GOV_INDEX`` if set, else ``.gov/index`` under ``cwd`` (default: the current folder)."""
    explicit = os.environ.get("GOV_INDEX")
    if explicit:
        return Path(explicit)
    return Path(cwd or os.getcwd()) / ".gov" / "index"


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _surfaces(documents: Sequence[Any]) -> tuple[list[str], list[int], list[int]]:
    texts: list[str] = []
    owners: list[int] = []
    kinds: list[int] = []
    for position, doc in enumerate(documents):
        texts.append(doc.trigger)
        owners.append(position)
        kinds.append(TRIGGER)
        for example in doc.examples:
            texts.append(example)
            owners.append(position)
            kinds.append(EXAMPLE)
    return texts, owners, kinds


SEPARABILITY_SAMPLE = 4000


def separability(trigger_vectors: NDArray[np.float32]) -> float | None:
    """Max minus min cosine between two different documents' trigger embeddings.

    Past ``SEPARABILITY_SAMPLE`` documents it is taken over a fixed sample of them: every
    pair of 100,000 would be a 37 GB matrix, and the figure only feeds a diagnostic.
    """
    if trigger_vectors.shape[0] < 2:
        return None
    if trigger_vectors.shape[0] > SEPARABILITY_SAMPLE:
        rows = np.random.default_rng(0).choice(trigger_vectors.shape[0], SEPARABILITY_SAMPLE,
                                               replace=False)
        trigger_vectors = trigger_vectors[np.sort(rows)]
    sims = trigger_vectors @ trigger_vectors.T
    upper = sims[np.triu_indices(sims.shape[0], k=1)]
    return float(upper.max() - upper.min())


def divergence_reasons(
    point: OperatingPoint, size: int, separation: float | None, model_id: str | None
) -> list[str]:
    """Why this corpus may not behave like the one the operating point was measured on."""
    reasons = []
    measured = point.provenance
    base_size = measured.get("corpus_size")
    if isinstance(base_size, int) and base_size > 0 and size > 0 and (
        size >= 4 * base_size or size * 4 <= base_size
    ):
        reasons.append(
            f"corpus has {size} documents; the operating point was measured on {base_size}"
        )
    if separation is not None:
        if separation < 0.15:
            reasons.append(
                f"documents are hard to tell apart (separability {separation:.2f} < 0.15)"
            )
        base_sep = measured.get("separability")
        if isinstance(base_sep, int | float) and abs(separation - base_sep) > 0.25:
            reasons.append(
                f"separability {separation:.2f} is far from the calibration's {base_sep:.2f}"
            )
    if point.model_id and model_id and point.model_id != model_id:
        reasons.append(f"operating point was measured with {point.model_id}, index uses {model_id}")
    return reasons


def _reuse_vectors(previous: str | os.PathLike[str] | None, model_id: str) -> dict[str, NDArray[np.float32]]:
    """Surface text -> vector from an earlier index of the same model, to re-embed less."""
    if previous is None or not Path(previous).is_file():
        return {}
    try:
        old = open_index_file(previous)
        if (old.header.get("model") or {}).get("id") != model_id:
            return {}
        texts, _, _ = _surfaces(_stored_documents(old.header, old.array))
        vectors = np.array(old.array("embeddings"))
    except (GovError, KeyError, TypeError, ValueError):
        return {}
    if vectors.shape[0] != len(texts):
        return {}
    return dict(zip(texts, vectors, strict=True))


def _reuse_bodies(previous: str | os.PathLike[str] | None, model_id: str
                  ) -> dict[str, NDArray[np.float32]]:
    """Document content hash -> body vector from an earlier index built with bodies."""
    if previous is None or not Path(previous).is_file():
        return {}
    try:
        old = open_index_file(previous)
        if (old.header.get("model") or {}).get("id") != model_id or not old.header.get("bodies"):
            return {}
        documents = _stored_documents(old.header, old.array)
        vectors = np.array(old.array("body_vectors"))
        hashes = [doc.content_hash for doc in documents]
    except (GovError, KeyError, TypeError, ValueError):
        return {}
    if vectors.shape[0] != len(hashes):
        return {}
    return dict(zip(hashes, vectors, strict=True))


def _body_vectors(documents: Sequence[Any], model_id: str, dim: int,
                  previous: str | os.PathLike[str] | None, progress: Progress | None
                  ) -> tuple[NDArray[np.float32], NDArray[np.uint8], dict[str, Any]]:
    """One vector per document: the mean of its passages' vectors (zeros: no body); which
    documents have a body (kept apart, so a load need not read the vectors); a summary."""
    from gov.core.corpus.passages import passages
    from gov.core.encode.cache import embed_missing
    from gov.core.encode.embedding import model_sha256

    reused = _reuse_bodies(previous, model_id)
    per_doc = {i: passages(doc.text) for i, doc in enumerate(documents)
               if doc.content_hash not in reused}
    missing = list(dict.fromkeys(text for chunks in per_doc.values() for text in chunks))
    fresh: dict[str, NDArray[np.float32]] = {}
    if missing:
        fresh, _ = embed_missing(missing, model_id, model_sha256=model_sha256(model_id),
                                 dim=dim, progress=progress)
    out = np.zeros((len(documents), dim), dtype=np.float32)
    for i, doc in enumerate(documents):
        if doc.content_hash in reused:
            out[i] = reused[doc.content_hash]
        elif per_doc[i]:
            out[i] = np.mean([fresh[text] for text in per_doc[i]], axis=0)
    present = (np.abs(out).sum(axis=1) > 0).astype(np.uint8)
    return out, present, {"documents": int(present.sum()), "passages_embedded": len(missing),
                          "reused": len(documents) - len(per_doc)}


def build_index(
    corpus: Corpus,
    *,
    model_id: str = bundle.DEFAULT_MODEL_ID,
    lexical_only: bool = False,
    operating_point: OperatingPoint | None = None,
    previous: str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
    base: str | os.PathLike[str] | None = None,
    ann: bool = False,
    ann_candidates: int | None = None,
    bodies: bool = False,
) -> BuiltIndex:
    """Fit the lexical model and embed every surface (reusing ``previous``'s vectors);
    with ``ann``, also store an approximate-search graph over them (``core/index/ann.py``)."""
    documents = corpus.documents
    if not documents:
        raise IndexBuildError("the corpus has no routable documents; nothing to index")
    point = operating_point or (default_operating_point(bodies=True) if bodies
                                else default_operating_point())
    texts, owners, kinds = _surfaces(documents)
    lexical = fit(texts)
    embeddings: NDArray[np.float32] | None = None
    model: dict[str, Any] | None = None
    reused = cached = 0
    if not lexical_only:
        if model_id == bundle.DEFAULT_MODEL_ID:
            for check in bundle.check_bundle(verify_hash=True):
                if not check.ok:
                    raise ModelError(f"embedding model {check.role}: {check.problem}")
        cache = _reuse_vectors(previous, model_id)
        missing = [text for text in dict.fromkeys(texts) if text not in cache]
        reused = len(set(texts)) - len(missing)
        from gov.core.encode.embedding import model_sha256

        if missing:
            from gov.core.encode.cache import embed_missing

            dim = bundle.DIMENSION if model_id == bundle.DEFAULT_MODEL_ID else None
            fresh, cached = embed_missing(missing, model_id, model_sha256=model_sha256(model_id),
                                          dim=dim, progress=progress)
            cache.update(fresh)
        embeddings = np.stack([cache[text] for text in texts]).astype(np.float32)

        model = {"id": model_id, "dim": int(embeddings.shape[1]), "sha256": model_sha256(model_id)}
    trigger_rows = [i for i, kind in enumerate(kinds) if kind == TRIGGER]
    separation = separability(embeddings[trigger_rows]) if embeddings is not None else None
    shipped = point.source in (None, "default", "default-bodies")
    if point.model_id and model and point.model_id != model["id"] and not shipped:
        check_model(point, model["id"], point.source or "operating point")
    reasons = divergence_reasons(point, len(documents), separation, model["id"] if model else None)
    base_path = Path(base) if base is not None else Path.cwd()
    header: dict[str, Any] = {
        "gov_index": INDEX_SCHEMA,
        "created": _now(),
        "gov_version": __version__,
        "model": model,
        "corpus": {
            "fingerprint": corpus.fingerprint,
            "size": len(documents),
            "retired": [doc.name for doc in corpus.retired],
            "skipped": list(corpus.skipped),
            "stamps": [[s.path, s.size, s.mtime_ns] for s in corpus.stamps],
            "base": str(base_path.resolve()),
        },
        "roots": list(corpus.roots),
        "lexical": {"ngram_range": list(lexical.ngram_range), "rows": lexical.n_rows},
        "operating_point": point.to_json() if point.source not in (None, "default") else None,
        "separability": separation,
        "divergence": reasons,
        "build": {"surfaces": len(texts), "reused_vectors": reused, "cached_vectors": cached},
    }
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
        "surface_doc": np.asarray(owners, dtype=np.int32),
        "surface_kind": np.asarray(kinds, dtype=np.int8),
        "texts": np.frombuffer(b"".join(encoded_texts), dtype=np.uint8),
        "text_offsets": offsets,
    }
    # Document records and the term lookup as arrays: a load maps them and reads only what
    # a route touches (see core/index/doctable.py and core/index/termhash.py).
    records = [
        {
            "name": doc.name,
            "source": doc.source,
            "trigger": doc.trigger,
            "examples": list(doc.examples),
            "family": doc.family,
            "depends_on": list(doc.depends_on),
            "kind": doc.kind,
            "hash": doc.content_hash,
        }
        for doc in documents
    ]
    arrays.update(doctable.build_arrays([doc.name for doc in documents], records))
    arrays.update(termhash.build_arrays(lexical.vocabulary))
    if bodies:
        if embeddings is None:
            raise IndexBuildError("--bodies needs embeddings: it cannot be combined with --lexical-only")
        arrays["body_vectors"], arrays["body_present"], header["bodies"] = _body_vectors(
            documents, model_id, int(embeddings.shape[1]), previous, progress)
    if ann:
        if embeddings is None:
            raise IndexBuildError("--ann needs embeddings: it cannot be combined with --lexical-only")
        from gov.core.index import ann as approximate

        arrays[approximate.ARRAY], header["ann"] = approximate.build(
            embeddings, candidates=ann_candidates)
    if embeddings is not None:
        arrays["embeddings"] = embeddings
        learned = _point_learned(point, int(embeddings.shape[1]))
        if learned is not None:
            # Keep what the point learned inside the index, so the index file alone routes.
            for name, array in learned.arrays().items():
                arrays[f"learned_{name}"] = array
    return BuiltIndex(header, arrays)


def _point_learned(point: OperatingPoint, dim: int | None) -> LearnedArrays | None:
    """The learned arrays of an explicit point file (``None`` when it has none)."""
    path = point.learned_path()
    if path is None or point.learned is None:
        return None
    return load_learned(path, point.learned, dim)


@dataclass
class BuiltIndex:
    """A freshly built index, in memory until written."""

    header: dict[str, Any]
    arrays: dict[str, np.ndarray]

    def write(self, path: str | os.PathLike[str]) -> None:
        try:
            write_index_file(path, self.header, self.arrays)
        except OSError as exc:
            raise IndexBuildError(
                f"{path}: cannot write the index: {exc.strerror or exc}; the previous index, if any,"
                " is unchanged"
            ) from None


def _doc_from_header(entry: dict[str, Any]) -> IndexedDocument:
    return IndexedDocument(
        name=entry["name"],
        source=entry.get("source", ""),
        trigger=entry["trigger"],
        examples=tuple(entry.get("examples") or ()),
        family=entry.get("family"),
        depends_on=tuple(entry.get("depends_on") or ()),
        kind=entry.get("kind", "markdown"),
        content_hash=entry.get("hash", ""),
    )


def read_document_names(path: str | os.PathLike[str]) -> list[str]:
    """The document names in an index, reading the header and one array (no numpy needed)."""
    header = read_header(path)
    if "documents" in header:  # written before the document table
        return [entry["name"] for entry in header["documents"]]
    return doctable.names_from_bytes(read_array_bytes(path, "doc_names", header))


def _stored_documents(header: dict[str, Any], array: Callable[[str], np.ndarray]
                      ) -> Sequence[IndexedDocument]:
    """The indexed documents: decoded on demand from their arrays, or from an old header."""
    if "documents" in header:
        return [_doc_from_header(entry) for entry in header["documents"]]
    return doctable.DocumentTable({name: array(name) for name in doctable.RECORD_ARRAYS},
                                  _doc_from_header)


class Index:
    """A loaded index: route prompts, serve whole documents."""

    def __init__(self, source: IndexFile | BuiltIndex, path: str | None = None,
                 operating_point: OperatingPoint | None = None, lexical_only: bool = False,
                 model_id: str | None = None, exact: bool = False) -> None:
        self.path = path
        self._file = source if isinstance(source, IndexFile) else None
        self._built = source if isinstance(source, BuiltIndex) else None
        self.header = source.header
        where = path or "index"
        try:
            self.documents: Sequence[IndexedDocument] = _stored_documents(self.header, self._array)
            self.names: Sequence[str] = (
                [doc.name for doc in self.documents] if "documents" in self.header
                else doctable.NameTable(self._array("doc_names"), self._array("doc_name_offsets"))
                if self._has_array("doc_name_offsets")
                else doctable.names_from_bytes(bytes(self._array("doc_names"))))
            if len(self.names) != len(self.documents):
                raise ValueError("document names and records differ in number")
            self.model = self.header.get("model")
            terms = (termhash.TermTable.from_arrays(
                {name: self._array(name) for name in termhash.ARRAY_NAMES},
                self._array("vocabulary")) if self._has_array("vocab_hash") else None)
            # With the term table the vocabulary is never split into strings.
            vocabulary = "" if terms else bytes(self._array("vocabulary")).decode("utf-8")
            stop_words = bytes(self._array("stop_words")).decode("utf-8")
            lexical = LexicalArrays(
                vocabulary=vocabulary.split("\n") if vocabulary else [],
                stop_words=stop_words.split("\n") if stop_words else [],
                idf=self._array("idf"),
                col_ptr=self._array("lex_col_ptr"),
                col_rows=self._array("lex_col_rows"),
                col_data=self._array("lex_col_data"),
                n_rows=int(self.header["lexical"]["rows"]),
                ngram_range=tuple(self.header["lexical"]["ngram_range"]),
            )
            self.surface_doc = self._array("surface_doc")
            self.surface_kind = self._array("surface_kind")
        except (KeyError, TypeError, ValueError, UnicodeDecodeError) as exc:
            raise IndexLoadError(f"{where}: index is malformed ({exc})",
                                 hint=rebuild_hint(where, self.header)) from None
        self.lexical = LexicalScorer(lexical, terms)
        self._positions: dict[str, int] | None = None
        self._groups = SurfaceGroups.of_owners(self.surface_doc, len(self.documents))
        self._starts = self._groups.starts
        self.surface_texts: Sequence[str] = (
            _surfaces(self.documents)[0] if isinstance(self.documents, list)
            else doctable.SurfaceTexts(self.documents, self.surface_doc, self._starts))
        self.embeddings: NDArray[np.float32] | None = None
        self.degraded: str | None = None
        self.degraded_reason: str | None = None
        if self.model and not lexical_only:
            self.embeddings = self._array("embeddings")
        else:
            self.degraded = DEGRADED_LEXICAL
            self.degraded_reason = ("the index was built without embeddings" if not self.model
                                    else "lexical-only routing was requested")
        self._encoder: Any = None
        # Body vectors (gov index --bodies): one per document, zeros where it has no body.
        self.body_vectors: NDArray[np.float32] | None = None
        self.body_present: NDArray[np.bool_] | None = None
        if self.embeddings is not None and self.header.get("bodies"):
            self.body_vectors = self._array("body_vectors")
            self.body_present = np.asarray(self._array("body_present"), dtype=bool)
        # The approximate-search graph, when the index has one and exact search is not asked.
        self.nearest: Any = None
        if self.embeddings is not None and self.header.get("ann") and not exact:
            from gov.core.index.ann import ARRAY, NearestSurfaces

            self.nearest = NearestSurfaces(self._array(ARRAY), self.header["ann"], where)
        self.learned_vectors: NDArray[np.float32] | None = None
        self.learned_doc: NDArray[np.int64] | None = None
        self.learned_texts: list[str] = []
        self._surface_vectors = self.embeddings
        self._surface_starts = self._starts
        self._surface_groups = self._groups
        self.classifier: tuple[NDArray[np.float32], NDArray[np.float32],
                               NDArray[np.int64]] | None = None
        self.operating_point = self._resolve_point(operating_point, where)
        self._apply_learned(operating_point is not None, where)
        self.route_ms: float | None = None

    @property
    def _position(self) -> dict[str, int]:
        """Name → position, built on first use (a route that only names its documents never
        needs it, and at 100,000 documents it costs a one-shot route tens of ms)."""
        if self._positions is None:
            self._positions = {name: i for i, name in enumerate(self.names)}
        return self._positions

    def _array(self, name: str) -> np.ndarray:
        if self._file is not None:
            return self._file.array(name)
        assert self._built is not None
        if name not in self._built.arrays:
            raise KeyError(name)
        return self._built.arrays[name]

    def _resolve_point(self, explicit: OperatingPoint | None, where: str) -> OperatingPoint:
        model_id = (self.model or {}).get("id")
        if explicit is not None:
            if model_id:
                check_model(explicit, model_id, explicit.source or "operating point")
            return explicit
        stored = self.header.get("operating_point")
        if stored:
            from gov.core.routing.point import from_json

            return from_json(stored, f"{where} (stored operating point)")
        return default_operating_point()

    # -- identity -------------------------------------------------------------------
    @property
    def fingerprint(self) -> str:
        return str(self.header["corpus"]["fingerprint"])

    @property
    def divergence(self) -> list[str]:
        return list(self.header.get("divergence") or [])

    @property
    def model_id(self) -> str | None:
        return (self.model or {}).get("id")

    def is_stale(self) -> bool:
        """Whether the corpus files changed since the build (by size and mtime)."""
        corpus = self.header["corpus"]
        recorded = [FileStamp(p, s, m) for p, s, m in corpus.get("stamps", [])]
        roots = [r for r in self.header.get("roots", []) if r != "-"]
        if not roots:
            return False
        now = corpus_stamps(roots, Path(corpus.get("base", ".")))
        return sorted(now, key=lambda s: s.path) != sorted(recorded, key=lambda s: s.path)

    # -- documents ------------------------------------------------------------------
    def document(self, name: str) -> IndexedDocument:
        position = self._position.get(name)
        if position is None:
            raise KeyError(name)
        return self.documents[position]

    def text(self, name: str) -> str:
        """The whole document, as it was indexed."""
        position = self._position[name]
        offsets = self._array("text_offsets")
        start, end = int(offsets[position]), int(offsets[position + 1])
        return bytes(self._array("texts")[start:end]).decode("utf-8")

    # -- routing --------------------------------------------------------------------
    def encoder(self) -> Any:
        """The query encoder, loaded on first use; on failure routing degrades to lexical."""
        if self._encoder is None and self.degraded is None:
            from gov.core.encode.embedding import get_encoder

            try:
                self._encoder = get_encoder(self.model_id or bundle.DEFAULT_MODEL_ID)
            except ModelError as exc:
                self.degraded = DEGRADED_LEXICAL
                self.degraded_reason = exc.message
        return self._encoder

    def use_encoder(self, encoder: Any) -> None:
        """Route with this query encoder instead of the shared one (the MCP server and Ray
        actors give theirs a thread count of their own)."""
        if self.degraded is None:
            self._encoder = encoder

    def _apply_learned(self, explicit: bool, where: str) -> None:
        """Load what the point learned: from the file beside an explicit point, else the index."""
        point = self.operating_point
        if point.learned_surfaces is None or point.learned is None or self.embeddings is None:
            return
        dim = int(self.embeddings.shape[1])
        if explicit:
            learned = _point_learned(point, dim)
        else:
            stored = {name: self._array(f"learned_{name}") for name in
                      ("vectors", "classifier_weights", "classifier_bias")
                      if self._has_array(f"learned_{name}")}
            if not stored:
                return
            learned = from_arrays(stored, point.learned, f"{where} (stored learned arrays)", dim)
        if learned is None:
            return
        self.set_learned(learned.vectors, learned.names, learned.texts)
        self.set_classifier(learned.classifier_weights, learned.classifier_bias,
                            learned.classifier_names)

    def _has_array(self, name: str) -> bool:
        try:
            self._array(name)
        except (KeyError, GovError):
            return False
        return True

    def set_learned(self, vectors: NDArray[np.float32], names: Sequence[str],
                    texts: Sequence[str]) -> None:
        """Add learned example surfaces (from calibration) for the semantic scorer."""
        unknown = [name for name in names if name not in self._position]
        if unknown:
            raise IndexLoadError(f"learned surfaces name documents not in the index: {unknown[:3]}")
        self.learned_vectors = np.asarray(vectors, dtype=np.float32)
        self.learned_doc = np.array([self._position[n] for n in names], dtype=np.int64)
        self.learned_texts = list(texts)
        if self.embeddings is None:
            return
        # One matrix of every surface grouped by document: one product and one reduceat.
        owners = np.concatenate([self.surface_doc.astype(np.int64), self.learned_doc])
        order = np.argsort(owners, kind="stable")
        self._surface_vectors = np.ascontiguousarray(
            np.vstack([self.embeddings, self.learned_vectors])[order])
        self._surface_groups = SurfaceGroups.of_owners(owners, len(self.documents))
        self._surface_starts = self._surface_groups.starts

    def set_classifier(self, weights: NDArray[np.float32], bias: NDArray[np.float32],
                       names: Sequence[str]) -> None:
        """Add the learned classifier; documents it does not know get probability 0."""
        unknown = [name for name in names if name not in self._position]
        if unknown:
            raise IndexLoadError(f"the learned classifier names documents not in the index: "
                                 f"{unknown[:3]}")
        if not len(names):
            self.classifier = None
            return
        columns = np.array([self._position[n] for n in names], dtype=np.int64)
        self.classifier = (np.asarray(weights, dtype=np.float32),
                           np.asarray(bias, dtype=np.float32), columns)

    def learned_scores(self, vectors: NDArray[np.float32]) -> NDArray[np.float64] | None:
        """The learned classifier's probability per document: shape (queries, documents)."""
        if self.classifier is None:
            return None
        weights, bias, columns = self.classifier
        probabilities = softmax_rows(vectors @ weights.T + bias)
        out = np.zeros((vectors.shape[0], len(self.documents)), dtype=np.float64)
        # Rows past the named documents (the "no document" class) only take probability away.
        out[:, columns] = probabilities[:, : columns.size]
        return out

    def score_many(self, prompts: Sequence[str]
                   ) -> tuple[NDArray[np.float64], NDArray[np.float32] | None]:
        """Score prompts once for calibration: lexical per document, and the prompt vectors
        (calibration derives every semantic pooling from them itself)."""
        vectors = self.embed(prompts) if self.degraded is None else None
        lexical = np.zeros((len(prompts), len(self.documents)), dtype=np.float64)
        for row, prompt in enumerate(prompts):
            lexical[row] = self.lexical_scores(prompt)
        return lexical, vectors

    def lexical_scores(self, prompt: str) -> NDArray[np.float64]:
        return self._per_document(self.lexical.scores(prompt))

    def _per_document(self, rows: NDArray[np.float64]) -> NDArray[np.float64]:
        """Each document's best surface score from per-surface lexical scores."""
        return self._groups.best(rows)

    def semantic_scores(self, vectors: NDArray[np.float32], learned: bool = True,
                        pool: str | None = None, body_weight: float | None = None,
                        ) -> NDArray[np.float32]:
        """Per-document cosine for each query vector: shape (queries, documents).

        ``pool`` (default: the operating point's ``semantic_pool``) turns a document's surface
        similarities into one score: their best, their mean, or the two averaged. Learned
        surfaces count unless ``learned`` is false (calibration adds each fold's own). With
        body vectors, ``body_weight`` (default: the point's) mixes in the body evidence.
        """
        assert self.embeddings is not None
        if self.nearest is not None:
            scores = self._semantic_nearest(vectors, learned, pool or self.operating_point.semantic_pool)
        else:
            if learned and self._surface_vectors is not None:
                matrix, groups = self._surface_vectors, self._surface_groups
            else:
                matrix, groups = self.embeddings, self._groups
            scores = groups.pool(vectors @ matrix.T, pool or self.operating_point.semantic_pool)
        weight = self.operating_point.body_weight if body_weight is None else body_weight
        if weight > 0.0 and self.body_vectors is not None:
            scores = self.mix_bodies(scores, vectors, weight)
        return scores

    def mix_bodies(self, scores: NDArray[np.floating[Any]], vectors: NDArray[np.float32],
                   weight: float) -> NDArray[np.float32]:
        """Mix each document's mean passage similarity into its semantic score (documents
        without a body keep theirs; under approximate search, so do the unreached ones at 0)."""
        assert self.body_vectors is not None and self.body_present is not None
        present = self.body_present[None, :]
        if self.nearest is not None:
            present = present & (scores != 0.0)
        mixed = mix_bodies(scores, vectors @ np.asarray(self.body_vectors).T, present, weight)
        return np.asarray(mixed, dtype=np.float32)

    def _semantic_nearest(self, vectors: NDArray[np.float32], learned: bool,
                          pool: str) -> NDArray[np.float32]:
        """``semantic_scores`` through the approximate-search graph: the documents of the
        nearest surfaces (the graph's, and the nearest learned ones, which are few and
        searched exactly) are scored exactly over all their surfaces; the rest score 0."""
        assert self.embeddings is not None and self.nearest is not None
        out = np.zeros((vectors.shape[0], len(self.documents)), dtype=np.float32)
        use_learned = learned and self.learned_vectors is not None and self.learned_doc is not None
        learned_sims = (vectors @ self.learned_vectors.T
                        if use_learned and self.learned_vectors is not None else None)
        for row, hits in enumerate(self.nearest.search(vectors)):
            docs = self.surface_doc[hits].astype(np.int64)
            if learned_sims is not None and self.learned_doc is not None and learned_sims.shape[1]:
                take = min(self.nearest.candidates, learned_sims.shape[1])
                nearest_learned = np.argpartition(-learned_sims[row], take - 1)[:take]
                docs = np.concatenate([docs, self.learned_doc[nearest_learned]])
            docs = np.unique(docs)
            surfaces = np.concatenate([np.arange(segment.start, segment.stop)
                                       for segment in map(self._segment, docs.tolist())])
            sims = self.embeddings[surfaces] @ vectors[row]
            owner = np.searchsorted(docs, self.surface_doc[surfaces])
            if use_learned and learned_sims is not None and self.learned_doc is not None:
                mine = np.flatnonzero(np.isin(self.learned_doc, docs))
                sims = np.concatenate([sims, learned_sims[row, mine]])
                owner = np.concatenate([owner, np.searchsorted(docs, self.learned_doc[mine])])
            order = np.argsort(owner, kind="stable")
            groups = SurfaceGroups.of_owners(owner[order], docs.size)
            out[row, docs] = groups.pool(sims[order], pool)
        return out

    def embed(self, prompts: Sequence[str]) -> NDArray[np.float32] | None:
        encoder = self.encoder()
        if encoder is None:
            return None
        try:
            return encoder.embed(prompts)  # type: ignore[no-any-return]
        except Exception as exc:  # a runtime failure mid-route degrades, never aborts
            self.degraded = DEGRADED_LEXICAL
            self.degraded_reason = f"embedding failed: {exc}"
            self._encoder = None
            return None

    def route(self, prompt: str, *, record: bool = True) -> RouteResult:
        return self.route_many([prompt], record=record)[0]

    def route_many(self, prompts: Sequence[str], *, record: bool = True) -> list[RouteResult]:
        """Route a batch of prompts (one embedding call for the whole batch).

        With telemetry on, each prompt records a ``library`` event unless ``record`` is
        False (the CLI, hook and MCP adapters record their own events instead).
        """
        started = time.perf_counter()
        vectors = self.embed(prompts) if self.degraded is None else None
        semantic = self.semantic_scores(vectors) if vectors is not None else None
        learned = self.learned_scores(vectors) if vectors is not None else None
        results = []
        for row, prompt in enumerate(prompts):
            surfaces = self.lexical.scores(prompt)  # once per prompt: _why reuses it
            sem = semantic[row] if semantic is not None else None
            results.append(self._routes(prompt, self._per_document(surfaces), sem,
                                        vectors[row] if vectors is not None else None,
                                        learned[row] if learned is not None else None,
                                        surface_lexical=surfaces))
        self.route_ms = (time.perf_counter() - started) * 1000.0
        if record:
            self._record_library(results, started)
        return results

    def _record_library(self, results: list[RouteResult], started: float) -> None:
        from gov.core import telemetry

        if not telemetry.enabled():
            return
        share = (self.route_ms or 0.0) / max(len(results), 1)
        for result in results:
            attempt = telemetry.attempt("library", start=started)
            attempt.result(result.names, route_ms=share, degraded=result.degraded,
                           corpus_size=len(self.names), index_fingerprint=self.fingerprint,
                           operating_point_id=self.operating_point.id, known=self._position)
            attempt.close()

    def _routes(self, prompt: str, lexical: NDArray[np.float64],
                semantic: NDArray[np.float32] | None, vector: NDArray[np.float32] | None,
                learned: NDArray[np.float64] | None = None, *,
                surface_lexical: NDArray[np.float64] | None = None) -> RouteResult:
        chosen, confidence = select(lexical, semantic, self.operating_point, learned)
        routes = [
            Route(self.names[c.doc], c.fused, c.lexical, c.semantic,
                  self._why(prompt, c.doc, c.lexical is not None, c.semantic is not None, vector,
                            surface_lexical))
            for c in chosen
        ]
        if self.operating_point.expand_dependencies:
            routes.extend(self._dependencies(routes))
        notices = list(self.divergence)
        return RouteResult(routes, degraded=self.degraded if semantic is None else None,
                           confidence=confidence, notices=notices)

    def _dependencies(self, routes: list[Route]) -> list[Route]:
        present = {route.name for route in routes}
        extra = []
        for route in list(routes):
            for name in self.document(route.name).depends_on:
                if name in self._position and name not in present:
                    present.add(name)
                    extra.append(Route(name, 0.0, None, None, f"dependency of {route.name}",
                                       dependency_of=route.name))
        return extra

    def _segment(self, doc: int) -> slice:
        start = int(self._starts[doc])
        return slice(start, start + int(self._groups.counts[doc]))

    def _why(self, prompt: str, doc: int, lexical: bool, semantic: bool,
             vector: NDArray[np.float32] | None,
             surface_lexical: NDArray[np.float64] | None = None) -> str:
        parts = []
        segment = self._segment(doc)
        if lexical:
            if surface_lexical is None:
                surface_lexical = self.lexical.scores(prompt)
            rows = surface_lexical[segment]
            best = segment.start + int(np.argmax(rows))
            words = self.lexical.matched_terms(prompt, self.surface_texts[best])
            if not words:
                words = self.lexical.matched_terms(prompt, " ".join(self.surface_texts[segment]))
            if words:
                parts.append("words: " + ", ".join(words))
        if semantic and vector is not None and self.embeddings is not None:
            sims = self.embeddings[segment] @ vector
            best = segment.start + int(np.argmax(sims))
            label, text = ("trigger", None) if int(self.surface_kind[best]) == TRIGGER else (
                "example", self.surface_texts[best])
            best_score = float(sims.max())
            if self.learned_vectors is not None and self.learned_doc is not None:
                mine = np.flatnonzero(self.learned_doc == doc)
                if mine.size:
                    learned = self.learned_vectors[mine] @ vector
                    if float(learned.max()) > best_score:
                        label, text = "learned example", self.learned_texts[int(mine[np.argmax(learned)])]
            if text is None:
                parts.append("meaning: trigger")
            else:
                shown = text if len(text) <= 80 else text[:77] + "..."
                parts.append(f'meaning: {label} "{shown}"')
        return "; ".join(parts)


def load_index(
    path: str | os.PathLike[str],
    *,
    operating_point: OperatingPoint | None = None,
    verify: bool = False,
    lexical_only: bool = False,
    exact: bool = False,
) -> Index:
    """Open an index file; every problem is one :class:`IndexLoadError` naming the rebuild.

    ``exact`` ignores an approximate-search graph (``gov index --ann``) and reads every vector.
    """
    opened = open_index_file(path, verify=verify)
    header = opened.header
    shown = str(path)
    if header.get("gov_index") != INDEX_SCHEMA:
        raise IndexLoadError(f"{shown}: unknown index schema {header.get('gov_index')!r}",
                             hint=rebuild_hint(shown, header))
    model = header.get("model")
    if model and model.get("id") == bundle.DEFAULT_MODEL_ID and model.get("sha256") != bundle.MODEL_SHA256:
        raise IndexLoadError(f"{shown}: index was built with a different model file than the one "
                             "installed", hint=rebuild_hint(shown, header))
    return Index(opened, path=shown, operating_point=operating_point, lexical_only=lexical_only,
                 exact=exact)


def _build_options(header: dict[str, Any]) -> dict[str, Any]:
    """The ``build_index`` options an index was built with: model, bodies, graph."""
    options: dict[str, Any] = {"bodies": bool(header.get("bodies"))}
    if (header.get("model") or {}).get("id"):
        options["model_id"] = header["model"]["id"]
    if header.get("ann"):
        options.update(ann=True, ann_candidates=int(header["ann"]["candidates"]))
    return options


def ensure_index(
    corpus_paths: Sequence[str | os.PathLike[str]],
    index_path: str | os.PathLike[str],
    *,
    operating_point: OperatingPoint | None = None,
    lexical_only: bool = False,
    strict: bool = False,
    warn: Callable[[str], None] | None = None,
    progress: Progress | None = None,
    exact: bool = False,
) -> tuple[Index, bool]:
    """Load ``index_path`` if it is fresh for ``corpus_paths``, else (re)build it; return (index, rebuilt).

    A rebuild keeps how the previous index was built: its model, body evidence and
    approximate-search graph (an edit to one document must not quietly drop them).
    """
    target = Path(index_path)
    kept: dict[str, Any] = {}
    if target.is_file():
        try:
            current = load_index(target, operating_point=operating_point, lexical_only=lexical_only,
                                 exact=exact)
            kept = _build_options(current.header)
            wanted = sorted(str(Path(p).resolve()) for p in corpus_paths)
            base = Path(current.header["corpus"].get("base", "."))
            have = sorted(str((base / r).resolve()) for r in current.header.get("roots", []))
            if wanted == have and not current.is_stale():
                return current, False
        except GovError:
            pass
    corpus = load_corpus(corpus_paths, strict=strict, warn=warn)
    built = build_index(corpus, lexical_only=lexical_only, operating_point=operating_point,
                        previous=target if target.is_file() else None, progress=progress,
                        **({} if lexical_only else kept))
    built.write(target)
    return load_index(target, operating_point=operating_point, lexical_only=lexical_only,
                      exact=exact), True
