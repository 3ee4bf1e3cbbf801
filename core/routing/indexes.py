"""Indexes for routing: build one with an operating point, open one, refresh one.

The index layer builds and stores a corpus without knowing what an operating point is;
this module adds the point: which one an index stores (the shipped default unless told),
whether it fits the model, and what it learned (arrays kept inside the index, so the
index file alone routes). :func:`load_index` opens an index as a
:class:`~gov.core.routing.router.Router`; :func:`ensure_index` rebuilds one whose corpus
changed, keeping how it was built.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from gov.core.corpus.document import Corpus
from gov.core.corpus.reader import load_corpus
from gov.core.encode import bundle
from gov.core.errors import GovError
from gov.core.index.build import BuiltIndex, Progress, build
from gov.core.index.header import IndexHeader
from gov.core.index.stored import open_stored
from gov.core.routing import divergence
from gov.core.routing.background import fit_background
from gov.core.routing.point import (
    OperatingPoint,
    check_model,
    default_operating_point,
    point_learned,
    stored_or_default,
)
from gov.core.routing.router import Router

SHIPPED = (None, "default")


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
    bodies: bool = True,
) -> BuiltIndex:
    """Build an index of ``corpus`` that stores ``operating_point`` (and what it learned).

    Without a point the index routes with the shipped default, which is never stored, so a
    newer gov's default applies to an older index. A point measured under another model is
    refused. With a background-gated point (the default), the corpus is measured against
    the background bank and the head is fitted (:mod:`gov.core.routing.background`).
    """
    point = operating_point or default_operating_point()
    shipped = point.source in SHIPPED
    if point.model_id and not lexical_only and not shipped:
        check_model(point, model_id, point.source or "operating point")
    stored_point = point.to_json() if not shipped else None
    extra: dict[str, Any] = {}
    if not lexical_only:
        dim = bundle.DIMENSION if model_id == bundle.DEFAULT_MODEL_ID else None
        learned = point_learned(point, dim)
        if learned is not None:
            extra = {f"learned_{name}": array for name, array in learned.arrays().items()}
    built = build(corpus, model_id=model_id, lexical_only=lexical_only, previous=previous,
                  progress=progress, base=base, ann=ann, ann_candidates=ann_candidates,
                  bodies=bodies, stored_point=stored_point, extra_arrays=extra)
    if point.gate == "background" and "embeddings" in built.arrays:
        fit_background(built, point)
    return built


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
    """The :func:`build_index` options an index was built with: model, bodies, graph."""
    options: dict[str, Any] = {"bodies": header.bodies is not None}
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
    approximate-search graph (an edit to one document must not quietly drop them).
    """
    target = Path(index_path)
    kept: dict[str, Any] = {}
    if target.is_file():
        try:
            current = load_index(target, operating_point=operating_point,
                                 lexical_only=lexical_only, exact=exact)
            kept = build_options(current.header)
            if same_roots(current.header, corpus_paths) and not current.is_stale():
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
