"""The index header as a typed record: what an index says about itself, checked on load.

The header is JSON inside the index file (see :mod:`gov.core.index.fileformat`). A
repository can ship an index, so every field is type-checked when it is read: a value of
the wrong type is one :class:`~gov.core.errors.IndexLoadError` naming the field and the
rebuild command, never a ``KeyError`` deep inside a route.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..corpus.document import FileStamp, Skip
from ..errors import IndexLoadError
from .fileformat import rebuild_hint

INDEX_SCHEMA = 1


@dataclass(frozen=True)
class ModelInfo:
    """The embedding model the surfaces were encoded with."""

    id: str
    dim: int
    sha256: str | None


@dataclass(frozen=True)
class CorpusInfo:
    """The corpus the index was built from: identity, what was left out, file stamps."""

    fingerprint: str
    size: int
    retired: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
    stamps: tuple[FileStamp, ...] = ()
    base: str = "."
    # Why each skipped file was skipped, and the documents read with a note (name, note).
    problems: tuple[Skip, ...] = ()
    notes: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class IndexHeader:
    """Everything an index records about how it was built (arrays are described apart)."""

    created: str
    gov_version: str
    model: ModelInfo | None
    corpus: CorpusInfo
    roots: tuple[str, ...]
    lexical_rows: int
    ngram_range: tuple[int, int]
    operating_point: dict[str, Any] | None = None
    separability: float | None = None
    build: dict[str, int] = field(default_factory=dict)
    bodies: dict[str, int] | None = None
    ann: dict[str, Any] | None = None
    # Routing families (documents the router spends at most one route on): how they were
    # formed; the ids are the ``doc_family`` array.
    families: dict[str, Any] | None = None
    # What the routing layer measured on this corpus at build (the background gate's
    # statistics); opaque to the index, which stores it as given.
    background: dict[str, Any] | None = None
    # Body words (:mod:`gov.core.index.body_words`): their weight and vocabulary size.
    body_words: dict[str, Any] | None = None
    schema: int = INDEX_SCHEMA

    @property
    def model_id(self) -> str | None:
        return self.model.id if self.model else None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "gov_index": self.schema,
            "created": self.created,
            "gov_version": self.gov_version,
            "model": None if self.model is None else {
                "id": self.model.id, "dim": self.model.dim, "sha256": self.model.sha256},
            "corpus": {
                "fingerprint": self.corpus.fingerprint,
                "size": self.corpus.size,
                "retired": list(self.corpus.retired),
                "skipped": list(self.corpus.skipped),
                "stamps": [[s.path, s.size, s.mtime_ns, s.sha256] for s in self.corpus.stamps],
                "base": self.corpus.base,
                "problems": [list(skip) for skip in self.corpus.problems],
                "notes": [list(note) for note in self.corpus.notes],
            },
            "roots": list(self.roots),
            "lexical": {"ngram_range": list(self.ngram_range), "rows": self.lexical_rows},
            "operating_point": self.operating_point,
            "separability": self.separability,
            "build": dict(self.build),
        }
        if self.bodies is not None:
            out["bodies"] = dict(self.bodies)
        if self.ann is not None:
            out["ann"] = dict(self.ann)
        if self.families is not None:
            out["families"] = dict(self.families)
        if self.background is not None:
            out["background"] = dict(self.background)
        if self.body_words is not None:
            out["body_words"] = dict(self.body_words)
        return out

    @classmethod
    def from_json(cls, raw: dict[str, Any], where: str) -> IndexHeader:
        """Check and convert a decoded header; every problem names the field."""
        check = _Checker(raw, where)
        schema = raw.get("gov_index")
        if schema != INDEX_SCHEMA:
            raise IndexLoadError(f"{where}: unknown index schema {schema!r}",
                                 hint=rebuild_hint(where, raw))
        model_raw = check.optional_object("model")
        model = None
        if model_raw is not None:
            model = ModelInfo(check.string(model_raw, "model.id"),
                              check.count(model_raw, "model.dim"),
                              check.optional_string(model_raw, "model.sha256"))
        corpus_raw = check.object(raw, "corpus")
        stamps = []
        for item in check.list(corpus_raw, "corpus.stamps", required=False):
            if (not isinstance(item, list) or len(item) not in (3, 4)
                    or not isinstance(item[0], str)
                    or not all(isinstance(v, int) and not isinstance(v, bool) for v in item[1:3])
                    or (len(item) == 4 and not isinstance(item[3], str | None))):
                raise check.bad("corpus.stamps", "must hold [path, size, mtime, sha256] entries")
            stamps.append(FileStamp(item[0], item[1], item[2], item[3] if len(item) == 4 else None))
        corpus = CorpusInfo(
            fingerprint=check.string(corpus_raw, "corpus.fingerprint"),
            size=check.count(corpus_raw, "corpus.size"),
            retired=check.strings(corpus_raw, "corpus.retired"),
            skipped=check.strings(corpus_raw, "corpus.skipped"),
            stamps=tuple(stamps),
            base=check.optional_string(corpus_raw, "corpus.base") or ".",
            problems=tuple(Skip(*item) for item in check.rows(
                corpus_raw, "corpus.problems", (str, int | None, str, str))),
            notes=tuple((item[0], item[1]) for item in check.rows(
                corpus_raw, "corpus.notes", (str, str))),
        )
        lexical = check.object(raw, "lexical")
        ngrams = check.list(lexical, "lexical.ngram_range")
        if (len(ngrams) != 2 or not all(isinstance(n, int) and not isinstance(n, bool)
                                        for n in ngrams) or not 1 <= ngrams[0] <= ngrams[1] <= 5):
            raise check.bad("lexical.ngram_range", "must be [low, high] with 1 <= low <= high <= 5")
        separability = raw.get("separability")
        if separability is not None and (not isinstance(separability, int | float)
                                         or isinstance(separability, bool)
                                         or not math.isfinite(separability)):
            raise check.bad("separability", "must be a finite number or null")
        build = check.optional_object("build") or {}
        bodies = check.optional_object("bodies")
        body_words = check.optional_object("body_words")
        if body_words is not None:
            weight = body_words.get("weight")
            if (not isinstance(weight, int | float) or isinstance(weight, bool)
                    or not math.isfinite(weight) or not 0.0 <= weight <= 100.0):
                raise check.bad("body_words.weight", "must be a number from 0 to 100")
        return cls(
            created=check.optional_string(raw, "created") or "",
            gov_version=check.optional_string(raw, "gov_version") or "",
            model=model,
            corpus=corpus,
            roots=check.strings(raw, "roots"),
            lexical_rows=check.count(lexical, "lexical.rows"),
            ngram_range=(int(ngrams[0]), int(ngrams[1])),
            operating_point=check.optional_object("operating_point"),
            separability=None if separability is None else float(separability),
            build={k: v for k, v in build.items() if isinstance(v, int)},
            bodies=None if bodies is None else {k: v for k, v in bodies.items()
                                                if isinstance(v, int)},
            ann=check.optional_object("ann"),
            families=check.optional_object("families"),
            background=check.optional_object("background"),
            body_words=body_words,
        )


class _Checker:
    """Field checks that raise one error naming the index file, the field and the rebuild."""

    def __init__(self, raw: dict[str, Any], where: str) -> None:
        self.raw = raw
        self.where = where

    def bad(self, name: str, rule: str) -> IndexLoadError:
        return IndexLoadError(f"{self.where}: index header field {name!r} {rule}",
                              hint=rebuild_hint(self.where, self.raw))

    def _get(self, parent: dict[str, Any], name: str) -> Any:
        return parent.get(name.rsplit(".", 1)[-1])

    def object(self, parent: dict[str, Any], name: str) -> dict[str, Any]:
        value = self._get(parent, name)
        if not isinstance(value, dict):
            raise self.bad(name, "must be an object")
        return value

    def optional_object(self, name: str) -> dict[str, Any] | None:
        value = self.raw.get(name)
        if value is not None and not isinstance(value, dict):
            raise self.bad(name, "must be an object or null")
        return value

    def string(self, parent: dict[str, Any], name: str) -> str:
        value = self._get(parent, name)
        if not isinstance(value, str):
            raise self.bad(name, "must be a string")
        return value

    def optional_string(self, parent: dict[str, Any], name: str) -> str | None:
        value = self._get(parent, name)
        if value is not None and not isinstance(value, str):
            raise self.bad(name, "must be a string or null")
        return value

    def count(self, parent: dict[str, Any], name: str) -> int:
        value = self._get(parent, name)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise self.bad(name, "must be a whole number >= 0")
        return value

    def list(self, parent: dict[str, Any], name: str, required: bool = True) -> list[Any]:
        value = self._get(parent, name)
        if value is None and not required:
            return []
        if not isinstance(value, list):
            raise self.bad(name, "must be a list")
        return value

    def rows(self, parent: dict[str, Any], name: str, types: tuple[Any, ...]
             ) -> tuple[tuple[Any, ...], ...]:
        """An optional list of fixed-length rows, each item of its type (bools are not ints)."""
        values = self.list(parent, name, required=False)
        for row in values:
            if (not isinstance(row, list) or len(row) != len(types)
                    or any(isinstance(v, bool) or not isinstance(v, t)
                           for v, t in zip(row, types, strict=True))):
                raise self.bad(name, f"must hold rows of {len(types)} values")
        return tuple(tuple(row) for row in values)

    def strings(self, parent: dict[str, Any], name: str) -> tuple[str, ...]:
        values = self.list(parent, name, required=False)
        if not all(isinstance(v, str) for v in values):
            raise self.bad(name, "must be a list of strings")
        return tuple(values)
