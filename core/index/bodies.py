"""Body evidence at build time: one summary vector per document, from its first passages.

A document's body is split into passages (:mod:`gov.core.corpus.passages`); the first
:data:`PASSAGES_PER_DOCUMENT` are embedded and the document keeps their mean, which the
scorer counts as one more surface of the document. Why the first few: a body's opening
passages say what it is about, and averaging a long skill's 64 passages costs long
builds and blurs the summary (measured in ``docs/quality.md``). The passage vectors
themselves are handed to the build's caller (the background head trains on them) and
never stored. Which documents have a body is its own small array, so a load never reads
the vectors to know.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

PASSAGES_PER_DOCUMENT = 8
# Past this many documents a build leaves bodies out unless asked for them: at 100,000
# documents their passages were two thirds of a 28-minute build (``docs/scale.md``), and
# what they add was measured on corpora of at most a few hundred documents.
MAX_DOCUMENTS = 20_000
Progress = Callable[[int, int], None]


def wanted(bodies: bool | None, documents: int) -> bool:
    """Whether a build embeds bodies: as asked, else (``None``) up to :data:`MAX_DOCUMENTS`."""
    return bodies if bodies is not None else documents <= MAX_DOCUMENTS


@dataclass
class Passages:
    """The embedded passages of a build: one row per passage and the document it is from."""

    vectors: NDArray[np.float32]
    owners: NDArray[np.int64]


def first_passages(documents: Sequence[Any], per_document: int = PASSAGES_PER_DOCUMENT
                   ) -> list[list[str]]:
    """Each document's first ``per_document`` passages (what :func:`body_vectors` embeds)."""
    from ..corpus.passages import passages

    return [passages(doc.text)[:per_document] for doc in documents]


def distinct_passages(per_doc: Sequence[Sequence[str]]) -> list[str]:
    """The passages to embed: each text once, in order of first appearance."""
    return list(dict.fromkeys(text for chunks in per_doc for text in chunks))


def body_vectors(documents: Sequence[Any], model_id: str, dim: int,
                 progress: Progress | None, per_document: int = PASSAGES_PER_DOCUMENT,
                 download: bool = False, per_doc: Sequence[Sequence[str]] | None = None,
                 ) -> tuple[NDArray[np.float32], NDArray[np.uint8], dict[str, int], Passages]:
    """One summary vector per document (zeros: no body), which documents have one, a
    summary of the work, and the passages embedded. ``download``: the user named the model;
    ``per_doc``: :func:`first_passages` of ``documents``, when the caller has them already."""
    from ..encode.cache import embed_missing
    from ..encode.embedding import model_sha256

    if per_doc is None:
        per_doc = first_passages(documents, per_document)
    distinct = distinct_passages(per_doc)
    fresh: dict[str, NDArray[np.float32]] = {}
    cached = 0
    if distinct:  # through the disk cache: a rebuild embeds only the passages that changed
        fresh, cached = embed_missing(distinct, model_id, model_sha256=model_sha256(model_id),
                                      dim=dim, progress=progress, cache=True, download=download)
    out = np.zeros((len(documents), dim), dtype=np.float32)
    rows: list[NDArray[np.float32]] = []
    owners: list[int] = []
    for i, chunks in enumerate(per_doc):
        if chunks:
            vectors = np.stack([fresh[text] for text in chunks])
            out[i] = vectors.mean(axis=0)
            rows.append(vectors)
            owners.extend([i] * len(chunks))
    present = (np.abs(out).sum(axis=1) > 0).astype(np.uint8)
    embedded = (np.concatenate(rows).astype(np.float32) if rows
                else np.zeros((0, dim), dtype=np.float32))
    summary = {"documents": int(present.sum()), "passages": len(distinct),
               "passages_cached": cached, "passages_per_document": per_document}
    return out, present, summary, Passages(embedded, np.asarray(owners, dtype=np.int64))
