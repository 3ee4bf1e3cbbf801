"""The evidence behind a route: the words that matched and the surface nearest in meaning.

gov names documents and evidence, never rule text: the words shown are the prompt's own,
and the surface quoted is a trigger (named, not quoted) or an example prompt, cleaned of
control and invisible characters and capped (:func:`gov.core.sanitize.clean`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from gov.core.index.surfaces import LEARNED, TRIGGER
from gov.core.sanitize import clean
from gov.core.scoring.scorer import Scorer

MAX_QUOTE = 80


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
        words = scorer.lexical.matched_terms(prompt, scorer.surface_texts[best])
        if not words:
            words = scorer.lexical.matched_terms(prompt, " ".join(scorer.surface_texts[segment]))
        if words:
            parts.append("words: " + ", ".join(words))
    if semantic and vector is not None and scorer.embeddings is not None:
        nearest = scorer.nearest_surface(doc, vector)
        if nearest.kind == TRIGGER:
            parts.append("meaning: trigger")
        else:
            label = "learned example" if nearest.kind == LEARNED else "example"
            parts.append(f'meaning: {label} "{clean(nearest.text, MAX_QUOTE)}"')
    return "; ".join(parts)
