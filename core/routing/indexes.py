"""Indexes for routing: build one with an operating point, open one, refresh one.

The index layer builds and stores a corpus without knowing what an operating point is;
this module adds the point: which one an index stores (the shipped default unless told),
whether it fits the model, and what it learned (arrays kept inside the index, so the
index file alone routes). :func:`load_index` opens an index as a
:class:`~gov.core.routing.router.Router`; :func:`ensure_index` rebuilds one whose corpus
changed, keeping how it was built.
"""

from __future__ import annotations

import hashlib
import os
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..corpus.document import Corpus
from ..corpus.reader import load_corpus
from ..encode import bundle
from ..errors import GovError, IndexBuildError
from ..index.build import BuiltIndex, Progress, build, code_stamp, kept_index
from ..index.fileformat import read_header
from ..index.header import IndexHeader
from ..index.neighbours import Thresholds
from ..index.stored import open_stored
from . import divergence
from .background import BUILD_PARAMS, bank_prompts, fit_background
from .point import (
    OperatingPoint,
    check_model,
    default_operating_point,
    point_learned,
    stored_or_default,
)
from .router import Router

SHIPPED = (None, "default")


def build_index(
    corpus: Corpus,
    *,
    model_id: str | None = None,
    lexical_only: bool = False,
    operating_point: OperatingPoint | None = None,
    previous: str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
    base: str | os.PathLike[str] | None = None,
    ann: bool = False,
    ann_candidates: int | None = None,
    bodies: bool | None = None,
    families: str = "duplicates",
    duplicates: Thresholds | None = None,
    download: bool = True,
) -> BuiltIndex:
    """Build an index of ``corpus`` that stores ``operating_point`` (and what it learned);
    ``families`` and ``duplicates`` as :func:`gov.core.index.build.build` takes them.

    Without a point the index routes with the shipped default, which is never stored, so a
    newer gov's default applies to an older index. A point measured under another model is
    refused. With a background-gated point (the default), the corpus is measured against
    the background bank and the head is fitted (:mod:`gov.core.routing.background`).
    ``download``: a fastembed ``model_id`` that is not cached may be fetched (the caller
    named it; a rebuild that took the model from an index's header passes False).
    """
    encoder = bundle.spec(model_id)
    model_id = encoder.id
    point = operating_point or default_operating_point()
    shipped = point.source in SHIPPED
    if point.model_id and not lexical_only and not shipped:
        check_model(point, model_id, point.source or "operating point")
    stored_point = point.to_json() if not shipped else None
    extra: dict[str, Any] = {}
    if not lexical_only:
        learned = point_learned(point, encoder.dim)
        if learned is not None:
            extra = {f"learned_{name}": array for name, array in learned.arrays().items()}
    kept = kept_index(previous, corpus, model_id=model_id, lexical_only=lexical_only,
                      base=base, ann=ann, ann_candidates=ann_candidates, bodies=bodies,
                      stored_point=stored_point, extra_arrays=extra, families=families,
                      duplicates=duplicates)
    if kept is not None and same_background(kept, point):
        return kept  # nothing a build reads has changed: the previous index, as it was
    if point.gate == "background" and not lexical_only and corpus.documents:
        _embed_bank(model_id, download)
    built = build(corpus, model_id=model_id, lexical_only=lexical_only, previous=previous,
                  progress=progress, base=base, ann=ann, ann_candidates=ann_candidates,
                  bodies=bodies, stored_point=stored_point, extra_arrays=extra,
                  families=families, duplicates=duplicates, download=download)
    if point.gate == "background" and "embeddings" in built.arrays:
        fit_background(built, point)
    return built


def _embed_bank(model_id: str, download: bool) -> None:
    """The background bank's vectors into the embedding cache before the corpus is embedded,
    by the same encoder: :func:`fit_background` reads them back instead of loading a second
    encoder after the build released the first (on 1,456 skills that reload, on top of
    scikit-learn, set a cold build's peak)."""
    from ..encode.cache import embed_missing
    from ..encode.embedding import model_sha256

    embed_missing(list(dict.fromkeys(bank_prompts())), model_id,
                  model_sha256=model_sha256(model_id), dim=bundle.spec(model_id).dim,
                  cache=True, download=download)


def same_background(built: BuiltIndex, point: OperatingPoint) -> bool:
    """Whether ``built``'s background gate is the one :func:`build_index` would measure for
    ``point``: the same bank and the point's parameters it depends on (or no gate either
    way)."""
    measured = built.header.background
    if point.gate != "background" or "embeddings" not in built.arrays:
        return measured is None
    if measured is None:
        return False
    bank = hashlib.sha256("\n".join(bank_prompts()).encode("utf-8")).hexdigest()
    return bool(measured.get("bank_sha256") == bank and measured.get("params") == {
        name: getattr(point, name) for name in BUILD_PARAMS})


def divergence_of(built: BuiltIndex) -> list[str]:
    """The divergence notices a freshly built index will route with."""
    return divergence.reasons(stored_or_default(built.header.operating_point, "index"),
                              built.header)


def load_index(
    path: str | os.PathLike[str],
    *,
    operating_point: OperatingPoint | None = None,
    verify: bool = False,
    lexical_only: bool = False,
    exact: bool = False,
) -> Router:
    """Open an index file for routing; every problem is one error naming the rebuild.

    ``exact`` ignores an approximate-search graph (``gov index --ann``) and reads every vector.
    """
    return Router(open_stored(path, verify=verify), operating_point=operating_point,
                  lexical_only=lexical_only, exact=exact)


def build_options(header: IndexHeader) -> dict[str, Any]:
    """The :func:`build_index` options an index was built with: model, bodies, graph,
    families."""
    options: dict[str, Any] = {"bodies": header.bodies is not None}
    mode = (header.families or {}).get("mode")
    if mode in ("declared", "none"):
        options["families"] = mode
    if header.families is not None and mode in ("duplicates", "auto"):
        options["families"] = mode
        thresholds = header.families.get("thresholds")
        if isinstance(thresholds, dict):
            options["duplicates"] = Thresholds(**{key: float(value) for key, value
                                                  in thresholds.items()
                                                  if key in Thresholds.__dataclass_fields__})
    if header.model_id:
        options["model_id"] = header.model_id
    if header.ann:
        options.update(ann=True, ann_candidates=int(header.ann["candidates"]))
    return options


def same_roots(header: IndexHeader, corpus_paths: Sequence[str | os.PathLike[str]]) -> bool:
    """Whether an index was built from exactly these corpus paths."""
    wanted = sorted(str(Path(p).resolve()) for p in corpus_paths)
    base = Path(header.corpus.base)
    return wanted == sorted(str((base / r).resolve()) for r in header.roots)


def built_from(target: str | os.PathLike[str],
               corpus_paths: Sequence[str | os.PathLike[str]]) -> bool | None:
    """Whether the file at ``target`` is an index of exactly ``corpus_paths`` (``None``: there
    is no file; ``False`` also for a file whose header cannot be read)."""
    if not os.path.lexists(target):
        return None
    try:
        header = IndexHeader.from_json(read_header(target), str(target))
    except GovError:
        return False
    return same_roots(header, corpus_paths)


def beside(target: str | os.PathLike[str], corpus_paths: Sequence[str | os.PathLike[str]]
           ) -> Path:
    """Where an index of ``corpus_paths`` goes when ``target`` holds another corpus's:
    beside it, named by the corpus roots (the same corpus finds the same file again)."""
    roots = "\n".join(sorted(str(Path(p).resolve()) for p in corpus_paths))
    digest = hashlib.sha256(roots.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    path = Path(target)
    return path.with_name(f"{path.name}-{digest}")


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
) -> tuple[Router, bool]:
    """Load ``index_path`` if it is fresh for ``corpus_paths``, else (re)build it; return
    (router, rebuilt).

    A rebuild keeps how the previous index was built: its model, body evidence and
    approximate-search graph (an edit to one document must not quietly drop them). A file
    at ``index_path`` that is not an index of ``corpus_paths`` is never overwritten
    (:class:`~gov.core.errors.IndexBuildError` names the command that would).
    """
    target = Path(index_path)
    if built_from(target, corpus_paths) is False:
        quoted = " ".join(shlex.quote(str(p)) for p in corpus_paths)
        raise IndexBuildError(
            f"{target} holds an index of another corpus (or is not an index); not replacing it",
            hint=f"to replace it: gov index {quoted} -o {shlex.quote(str(target))}; or name "
                 "another index file with -i")
    kept: dict[str, Any] = {}
    if target.is_file():
        try:
            current = load_index(target, operating_point=operating_point,
                                 lexical_only=lexical_only, exact=exact)
            kept = build_options(current.header)
            # An index built by other code (an older gov) is rebuilt too: it may lack what the
            # code now reads (the remark probe), as `gov index` would rebuild it.
            if (same_roots(current.header, corpus_paths) and not current.is_stale()
                    and current.header.build.get("code") == code_stamp()):
                return current, False
        except GovError:
            pass
    corpus = load_corpus(corpus_paths, strict=strict, warn=warn)
    built = build_index(corpus, lexical_only=lexical_only, operating_point=operating_point,
                        previous=target if target.is_file() else None, progress=progress,
                        download=False, **({} if lexical_only else kept))
    built.write(target)
    return load_index(target, operating_point=operating_point, lexical_only=lexical_only,
                      exact=exact), True
