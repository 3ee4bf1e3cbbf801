"""Body evidence at build time (``gov index --bodies``): one mean passage vector per document.

A document's body is split into passages (:mod:`gov.core.corpus.passages`); each is
embedded once and the document keeps their mean, whose dot product with a prompt is the
prompt's mean similarity to the passages. Which documents have a body is its own small
array, so a load never reads the vectors. Unchanged documents reuse the previous index's.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from gov.core.errors import GovError

Progress = Callable[[int, int], None]


def reuse_bodies(previous: str | os.PathLike[str] | None, model_id: str
                 ) -> dict[str, NDArray[np.float32]]:
    """Document content hash -> body vector from an earlier index built with bodies."""
    from gov.core.index.build import previous_index

    old = previous_index(previous, model_id)
    if old is None or old.header.bodies is None:
        return {}
    try:
        vectors = np.array(old.array("body_vectors"))
        hashes = [doc.content_hash for doc in old.documents]
    except (GovError, KeyError, TypeError, ValueError):
        return {}
    if vectors.shape[0] != len(hashes):
        return {}
    return dict(zip(hashes, vectors, strict=True))


def body_vectors(documents: Sequence[Any], model_id: str, dim: int,
                 previous: str | os.PathLike[str] | None, progress: Progress | None,
                 download: bool = False
                 ) -> tuple[NDArray[np.float32], NDArray[np.uint8], dict[str, int]]:
    """One vector per document (zeros: no body); which documents have a body; a summary."""
    from gov.core.corpus.passages import passages
    from gov.core.encode.cache import embed_missing
    from gov.core.encode.embedding import model_sha256

    reused = reuse_bodies(previous, model_id)
    per_doc = {i: passages(doc.text) for i, doc in enumerate(documents)
               if doc.content_hash not in reused}
    missing = list(dict.fromkeys(text for chunks in per_doc.values() for text in chunks))
    fresh: dict[str, NDArray[np.float32]] = {}
    if missing:
        fresh, _ = embed_missing(missing, model_id, model_sha256=model_sha256(model_id),
                                 dim=dim, progress=progress, download=download)
    out = np.zeros((len(documents), dim), dtype=np.float32)
    for i, doc in enumerate(documents):
        if doc.content_hash in reused:
            out[i] = reused[doc.content_hash]
        elif per_doc[i]:
            out[i] = np.mean([fresh[text] for text in per_doc[i]], axis=0)
    present = (np.abs(out).sum(axis=1) > 0).astype(np.uint8)
    return out, present, {"documents": int(present.sum()), "passages_embedded": len(missing),
                          "reused": len(documents) - len(per_doc)}
