"""Build an index from a corpus: fit the words model, embed every surface, lay out arrays.

An index holds all a route and a delivery need, so a hook or server works from the file
alone: each document's name, source, surfaces and text; the TF-IDF models as arrays; the
embeddings; the model; the corpus fingerprint and file stamps (for staleness). What routing
adds (a point and what it learned) arrives as opaque JSON and arrays: the index knows
nothing of routing (:func:`gov.core.routing.indexes.build_index` is the point-aware entry).
"""

from __future__ import annotations

import datetime as dt
import functools
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import __version__
from ..corpus.document import Corpus, Document
from ..encode import bundle
from ..encode.tfidf import LexicalArrays, fit
from ..errors import GovError, IndexBuildError
from . import body_words
from .bodies import Passages
from .fileformat import write_index_file
from .header import CorpusInfo, IndexHeader, ModelInfo
from .neighbours import Thresholds
from .surfaces import TRIGGER, Surfaces, surfaces_of
from .tables import text_arrays

Progress = Callable[[int, int], None]
SEPARABILITY_SAMPLE = 4000
# none; declared (documents sharing a **Family:** line); duplicates (clusters of
# near-duplicates, never joining two documents whose Family lines differ: the default); auto
# (both).
FAMILY_MODES = ("none", "declared", "duplicates", "auto")
# The modes whose families come from the near-duplicate detector.
DETECTED = ("duplicates", "auto")


@dataclass
class BuiltIndex:
    """A freshly built index, in memory until written; ``passages`` (the embedded body
    passages) is kept for the caller and never written."""

    header: IndexHeader
    arrays: dict[str, np.ndarray]
    passages: Passages | None = None

    def write(self, path: str | os.PathLike[str]) -> None:
        try:
            write_index_file(path, self.header.to_json(), self.arrays)
        except OSError as exc:
            raise IndexBuildError(
                f"{path}: cannot write the index: {exc.strerror or exc}; the previous index, if any,"
                " is unchanged"
            ) from None


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


def opened(previous: str | os.PathLike[str] | None) -> Any:
    """The earlier index, opened, or ``None`` (reuse is best effort)."""
    from .stored import open_stored

    if previous is None or not Path(previous).is_file():
        return None
    try:
        return open_stored(previous)
    except GovError:
        return None


def previous_index(previous: str | os.PathLike[str] | None, model_id: str) -> Any:
    """The earlier index of the same model, opened, or ``None``."""
    return old if (old := opened(previous)) is not None and old.model_id == model_id else None


def reuse_vectors(previous: str | os.PathLike[str] | None, model_id: str
                  ) -> dict[str, NDArray[np.float32]]:
    """Surface text -> vector from an earlier index of the same model, to re-embed less."""
    old = previous_index(previous, model_id)
    if old is None:
        return {}
    try:
        texts = surfaces_of(old.documents).texts
        vectors = np.array(old.array("embeddings"))
    except (GovError, KeyError, TypeError, ValueError):
        return {}
    if vectors.shape[0] != len(texts):
        return {}
    return dict(zip(texts, vectors, strict=True))


def _embed_surfaces(texts: list[str], model_id: str, previous: str | os.PathLike[str] | None,
                    progress: Progress | None, download: bool = False, then: int = 0
                    ) -> tuple[NDArray[np.float32], int, int]:
    """Every surface's vector (reusing the previous index's and the disk cache's); how many
    were reused and how many came from the cache. ``then``: texts the build embeds after
    these, counted in the progress total."""
    encoder = bundle.spec(model_id)
    encoder.paths(verify_hash=True)  # a missing or altered file fails before any work
    cache = reuse_vectors(previous, model_id)
    missing = [text for text in dict.fromkeys(texts) if text not in cache]
    reused = len(set(texts)) - len(missing)
    cached = 0
    if missing:
        from ..encode.cache import embed_missing

        fresh, cached = embed_missing(missing, model_id, model_sha256=encoder.weights_sha256,
                                      dim=encoder.dim, progress=_shifted(progress, 0, then),
                                      download=download)
        cache.update(fresh)
    return np.stack([cache[text] for text in texts]).astype(np.float32), reused, cached


def _shifted(progress: Progress | None, before: int, after: int) -> Progress | None:
    """``progress`` for one stage of a build's embedding: ``before`` texts were embedded in
    earlier stages and ``after`` come in later ones, so a bar's total (and time left) spans
    every stage from the start."""
    if progress is None:
        return None
    report = progress

    def stage(done: int, total: int) -> None:
        report(before + done, before + total + after)

    return stage


def corpus_info(corpus: Corpus, base: Path) -> CorpusInfo:
    """What an index records of the corpus it was built from."""
    return CorpusInfo(
        fingerprint=corpus.fingerprint,
        size=len(corpus.documents),
        retired=tuple(doc.name for doc in corpus.retired),
        skipped=tuple(corpus.skipped),
        stamps=tuple(corpus.stamps),
        base=str(base.resolve()),
        problems=tuple(corpus.problems),
        notes=tuple((doc.name, note) for doc in corpus.documents for note in doc.notes),
    )


@functools.cache
def code_stamp() -> int:
    """A digest of gov's library as installed (code and shipped data), so an index built by
    other code is never kept, even under the same version. About 2 MB read, once."""
    import hashlib

    root = Path(__file__).resolve().parent.parent
    digest = hashlib.blake2b(digest_size=6)  # an int under 2**48: header.build keeps ints
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".json", ".jsonl") and path.is_file():
            digest.update(str(path.relative_to(root)).encode("utf-8", "surrogatepass"))
            digest.update(path.read_bytes())
    return int.from_bytes(digest.digest(), "big")


def kept_index(previous: str | os.PathLike[str] | None, corpus: Corpus, *,
               model_id: str | None = None, lexical_only: bool = False,
               base: str | os.PathLike[str] | None = None, ann: bool = False,
               ann_candidates: int | None = None, bodies: bool | None = None,
               stored_point: Mapping[str, Any] | None = None,
               extra_arrays: Mapping[str, np.ndarray] | None = None,
               families: str = "duplicates", duplicates: Thresholds | None = None,
               ) -> BuiltIndex | None:
    """``previous`` itself when :func:`build` with these arguments would build it again
    (``None`` otherwise): the same routable content (the corpus fingerprint), roots, gov
    version and code (:func:`code_stamp`), model and options. A rebuild of an unchanged
    corpus then embeds, fits and measures nothing; only what the corpus read says beyond
    its documents (file stamps, skipped files, notes) is taken from this read. What routing stored on top (the
    background gate) is the caller's to compare (:mod:`gov.core.routing.indexes`)."""
    from .bodies import wanted

    old = opened(previous)
    if old is None:
        return None
    header = old.header
    base_path = Path(base) if base is not None else Path.cwd()
    model = None if lexical_only else bundle.spec(model_id).id
    grouping = header.families or {}
    expected_ann = None
    if ann:
        from . import ann as approximate

        expected_ann = ann_candidates or approximate.SETTINGS["candidates"]
    if (header.gov_version != __version__ or header.build.get("code") != code_stamp()
            or header.corpus.fingerprint != corpus.fingerprint
            or header.corpus.size != len(corpus.documents)
            or tuple(header.roots) != tuple(corpus.roots)
            or header.corpus.base != str(base_path.resolve())
            or header.model_id != model
            or (header.bodies is not None) != (model is not None
                                               and wanted(bodies, len(corpus.documents)))
            or (header.ann or {}).get("candidates") != expected_ann
            or grouping.get("mode") != families
            or (families in DETECTED and grouping.get("thresholds")
                != (duplicates or Thresholds()).to_json())
            or header.operating_point != (dict(stored_point) if stored_point is not None
                                          else None)
            or not body_words.current(header.body_words)):
        return None
    names = list(old.raw_header.get("arrays", {}))
    extra = dict(extra_arrays or {})
    learned = [name for name in names if name.startswith("learned_")]
    if sorted(learned) != sorted(extra) or not all(
            np.array_equal(old.array(name), extra[name]) for name in learned):
        return None
    try:
        arrays = {name: np.array(old.array(name)) for name in names}
    except (GovError, KeyError, OSError, ValueError):
        return None
    surfaces = int(header.build.get("surfaces", old.surface_doc.size))
    kept = {**header.build, "reused_vectors": surfaces if model else 0, "cached_vectors": 0,
            "kept": True}
    bodies_kept = None if header.bodies is None else {
        **header.bodies, "passages_cached": header.bodies.get("passages", 0)}
    created = dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    return BuiltIndex(replace(header, created=created, corpus=corpus_info(corpus, base_path),
                              build=kept, bodies=bodies_kept), arrays)


def build(
    corpus: Corpus,
    *,
    model_id: str | None = None,
    lexical_only: bool = False,
    previous: str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
    base: str | os.PathLike[str] | None = None,
    ann: bool = False,
    ann_candidates: int | None = None,
    bodies: bool | None = None,
    stored_point: Mapping[str, Any] | None = None,
    extra_arrays: Mapping[str, np.ndarray] | None = None,
    families: str = "duplicates",
    duplicates: Thresholds | None = None,
    download: bool = False,
) -> BuiltIndex:
    """Fit the lexical model and embed every surface (reusing ``previous``'s vectors); with
    ``bodies``, one summary vector per document from its first passages; with ``ann``, an
    approximate-search graph (``bodies`` None: up to ``bodies.MAX_DOCUMENTS`` documents).
    ``stored_point`` and ``extra_arrays`` are kept as given
    (routing's business). ``download``: fetch a fastembed model that is not cached (only
    when the user named it).

    ``families``: "declared" groups documents with the same ``**Family:**``; "auto" also
    groups clusters of near-duplicates (``duplicates`` sets when two are); "none" neither.
    ``model_id`` None: the default model.
    """
    model_id = bundle.spec(model_id).id
    documents = corpus.documents
    _check_buildable(corpus, lexical_only, ann)
    layout = surfaces_of(documents)
    embeddings: NDArray[np.float32] | None = None
    model: ModelInfo | None = None
    reused = cached = 0
    body: _Body | None = None
    if not lexical_only:
        embeddings, model, reused, cached, body = _embed(documents, layout, model_id, previous,
                                                         progress, download, bodies)
    lexical = fit(layout.texts)
    trigger_rows = [i for i, kind in enumerate(layout.kinds) if kind == TRIGGER]
    base_path = Path(base) if base is not None else Path.cwd()
    header = IndexHeader(
        created=dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        gov_version=__version__,
        model=model,
        corpus=corpus_info(corpus, base_path),
        roots=tuple(corpus.roots),
        lexical_rows=lexical.n_rows,
        ngram_range=lexical.ngram_range,
        operating_point=dict(stored_point) if stored_point is not None else None,
        separability=separability(embeddings[trigger_rows]) if embeddings is not None else None,
        build={"surfaces": len(layout.texts), "reused_vectors": reused, "cached_vectors": cached,
               "code": code_stamp()},
    )
    arrays = text_arrays(documents, layout, lexical)
    embedded: Passages | None = None
    if embeddings is not None:
        arrays["embeddings"] = embeddings
        if body is not None:
            arrays["body_vectors"], arrays["body_present"], summary, embedded = body
            header = replace(header, bodies=summary)
        if ann:
            from . import ann as approximate

            arrays[approximate.ARRAY], info = approximate.build(embeddings,
                                                               candidates=ann_candidates)
            header = replace(header, ann=info)
        for name, array in (extra_arrays or {}).items():
            arrays[name] = array
    words, summary = body_words.fit_arrays(documents)
    arrays.update(words)
    header = replace(header, body_words=summary)
    header = _with_families(header, arrays, documents, families, duplicates, layout, embeddings,
                            lexical)
    return BuiltIndex(header, arrays, embedded)


# A document's body vectors, which documents have one, their summary, the passages embedded.
_Body = tuple[NDArray[np.float32], NDArray[np.uint8], dict[str, int], Passages]


def _check_buildable(corpus: Corpus, lexical_only: bool, ann: bool) -> None:
    """Refuse before any work: an empty corpus (naming the first file skipped for want of a
    trigger, the usual cause) or options that cannot go together."""
    if not corpus.documents:
        if corpus.skipped:
            raise IndexBuildError(
                f"no routable documents: {len(corpus.skipped)} file(s) have no trigger (first: "
                f"{corpus.skipped[0]}); add a line such as '**Agent-trigger:** when this "
                "applies' under each title, or a 'description:' in the front matter")
        raise IndexBuildError("the corpus has no routable documents; nothing to index")
    if lexical_only and ann:
        raise IndexBuildError("--ann needs embeddings: it cannot be combined with --lexical-only")


def _embed(documents: Sequence[Document], layout: Surfaces, model_id: str,
           previous: str | os.PathLike[str] | None, progress: Progress | None, download: bool,
           bodies: bool | None) -> tuple[NDArray[np.float32], ModelInfo, int, int, _Body | None]:
    """Every text embedded (surfaces, then body passages) on one progress scale: the
    surface vectors, the model, vectors reused and cached, and the body vectors."""
    from ..encode.embedding import model_sha256
    from .bodies import distinct_passages, first_passages, wanted

    per_doc = first_passages(documents) if wanted(bodies, len(documents)) else None
    passages = len(distinct_passages(per_doc)) if per_doc is not None else 0
    embeddings, reused, cached = _embed_surfaces(layout.texts, model_id, previous, progress,
                                                 download, then=passages)
    model = ModelInfo(model_id, int(embeddings.shape[1]), model_sha256(model_id))
    body: _Body | None = None
    if per_doc is not None:
        from .bodies import body_vectors

        body = body_vectors(documents, model_id, int(embeddings.shape[1]),
                            _shifted(progress, len(set(layout.texts)) - reused, 0),
                            download=download, per_doc=per_doc)
    # The last text is embedded: the encoder's session and the arena its runs grew go
    # now, before scikit-learn is imported for the words model and the head is fitted,
    # so they never stack (a cold build of 1,456 skills peaked at 637 MB, now 576).
    from ..encode.embedding import release

    release("build")
    return embeddings, model, reused, cached, body


def _with_families(header: IndexHeader, arrays: dict[str, np.ndarray],
                   documents: Sequence[Document], families: str, duplicates: Thresholds | None,
                   layout: Surfaces, embeddings: NDArray[np.float32] | None,
                   lexical: LexicalArrays) -> IndexHeader:
    """Add the families' array, if any, and record how they were found either way (a
    refresh keeps the mode; a kept index knows what it was built with)."""
    grouped = family_arrays(documents, families, duplicates, layout, embeddings, lexical)
    if grouped is not None:
        arrays["doc_family"], summary = grouped
        return replace(header, families=summary)
    recorded: dict[str, Any] = {"mode": families}
    if families in DETECTED:
        recorded.update(clusters=0, thresholds=(duplicates or Thresholds()).to_json())
    return replace(header, families=recorded)


def family_arrays(documents: Sequence[Document], mode: str, duplicates: Thresholds | None,
                  layout: Surfaces, embeddings: NDArray[np.float32] | None,
                  lexical: LexicalArrays) -> tuple[NDArray[np.int32], dict[str, Any]] | None:
    """The ``doc_family`` array and its header summary; ``None`` when no two documents share
    a family (the router then needs nothing). Documents are their positions."""
    from . import neighbours

    if mode not in FAMILY_MODES:
        raise IndexBuildError(f"families must be one of {', '.join(FAMILY_MODES)}, not {mode!r}")
    if mode == "none":
        return None
    groups: list[list[int]] = []
    summary: dict[str, Any] = {"mode": mode}
    declared = [doc.family for doc in documents]
    if mode in DETECTED:
        thresholds = duplicates or Thresholds()
        found = neighbours.exact_pairs(
            neighbours.Layout.of(np.asarray(layout.owners), np.asarray(layout.kinds),
                                 len(documents)),
            embeddings, (lexical.col_ptr, lexical.col_rows, lexical.col_data), thresholds,
            texts=[doc.trigger for doc in documents])
        if mode == "duplicates":
            # A Family line names related documents, which may both route; two documents
            # whose Family lines differ are never one routing family, whatever they say.
            found = [pair for pair in found if not (
                declared[pair.a] and declared[pair.b] and declared[pair.a] != declared[pair.b])]
        groups = neighbours.clusters(found, len(documents))
        summary.update(clusters=len(groups), thresholds=thresholds.to_json())
    ids = neighbours.family_ids(declared if mode in ("declared", "auto") else
                                [None] * len(documents), groups)
    sizes = np.bincount(ids, minlength=len(documents))
    shared = int((sizes > 1).sum())
    if shared == 0:
        return None
    summary.update(families=shared, documents=int(sizes[sizes > 1].sum()))
    return ids, summary
