"""The evidence behind a route: the words that matched and the surface nearest in meaning.

gov names documents and evidence, never rule text: the words shown are the prompt's own,
and the surface quoted is a trigger (named, not quoted) or an example prompt, cleaned of
control and invisible characters and capped (:func:`gov.core.sanitize.clean`). Words are
shown only when they discriminate (held by few of the corpus's surfaces): "use, file"
matched everywhere says nothing, and a reader should be able to dismiss a bad route at a
glance. The meaning evidence says which surface came nearest, and how near.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from gov.core.index.surfaces import LEARNED, TRIGGER
from gov.core.sanitize import clean
from gov.core.scoring.scorer import Scorer

MAX_QUOTE = 80
# A word discriminates when at most this share of the corpus's surfaces hold it (and at
# most this many, for small corpora).
COMMON_SHARE = 0.05
COMMON_FLOOR = 3


def discriminating(scorer: Scorer, words: list[str]) -> list[str]:
    """The words few surfaces hold, rarest first."""
    limit = max(COMMON_FLOOR, COMMON_SHARE * scorer.lexical.arrays.n_rows)
    counted = [(df, word) for word in words
               if (df := scorer.lexical.document_frequency(word)) is not None and df <= limit]
    return [word for _, word in sorted(counted, key=lambda item: item[0])]


def why(scorer: Scorer, prompt: str, doc: int, *, lexical: bool, semantic: bool,
        vector: NDArray[np.float32] | None,
        surface_lexical: NDArray[np.float64] | None = None) -> str:
    """The evidence for routing ``prompt`` to document ``doc``, from the signals that counted."""
    parts = []
    segment = scorer.segment(doc)
    if lexical:
        if surface_lexical is None:
            surface_lexical = scorer.lexical_surfaces(prompt)
        best = segment.start + int(np.argmax(surface_lexical[segment]))
        words = scorer.lexical.matched_terms(prompt, scorer.surface_texts[best], limit=12)
        if not words:
            words = scorer.lexical.matched_terms(
                prompt, " ".join(scorer.surface_texts[segment]), limit=12)
        rare = discriminating(scorer, words)
        if rare:
            parts.append("words: " + ", ".join(rare[:5]))
        elif words:
            parts.append("common words only: " + ", ".join(words[:3]))
    if semantic and vector is not None and scorer.embeddings is not None:
        nearest = scorer.nearest_surface(doc, vector)
        if nearest.kind == TRIGGER:
            parts.append(f"meaning: trigger {nearest.score:.2f}")
        else:
            label = "learned example" if nearest.kind == LEARNED else "example"
            parts.append(f'meaning: {label} {nearest.score:.2f} "{clean(nearest.text, MAX_QUOTE)}"')
    return "; ".join(parts)
