"""The evidence behind a route: the words that matched and the surface nearest in meaning.

gov names documents and evidence, never rule text: the words shown are the prompt's own,
and the surface quoted is a trigger (named, not quoted) or an example prompt, cleaned of
control and invisible characters and capped (:func:`gov.core.sanitize.clean`). Words are
shown only when they discriminate (held by few of the corpus's surfaces): "use, file"
matched everywhere says nothing, and a reader should be able to dismiss a bad route at a
glance. The meaning evidence says which surface came nearest, and how near.

For an abstention, :func:`next_steps` says what to change: an example line for the nearest
document when it came close to the bar, the overlap when the first two are near-ties or one
family (``gov lint`` finds those), or that nothing came near.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..index.surfaces import LEARNED, TRIGGER
from ..sanitize import clean
from ..scoring.scorer import Scorer

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


# What an abstention's explanation suggests. The bar is what the deciding rule compared: the
# background gate's threshold (against each document's gate score), or the floors.
# A nearest document within this share of the bar's size (and at least CLOSE_FLOOR) is close:
# an example line like the prompt would most likely carry it over.
CLOSE_SHARE = 0.25
CLOSE_FLOOR = 0.02
# The first two nearest documents are near-ties when their scores differ by at most this
# much (absolute) or this share of the first's: the router cannot tell them apart.
TIE_ABSOLUTE = 0.01
TIE_SHARE = 0.05


def near_tie(first: float, second: float, *, loose: bool = False) -> bool:
    """Whether two scores are too close for the router to tell their documents apart
    (``loose``: within four times the margin, close enough for one family's documents)."""
    scale = 4.0 if loose else 1.0
    gap = abs(first - second)
    return gap <= scale * TIE_ABSOLUTE or gap <= scale * TIE_SHARE * abs(first)


def next_steps(nearest: list[dict[str, Any]], *, decided: str, bar: float | None,
               same_family: bool = False) -> list[str]:
    """What to change so a prompt like this one routes, for an abstention.

    ``nearest`` is the explanation's nearest documents, first first, each with ``name``,
    ``source`` (its file, or None), ``fused``, ``gate`` (None without a background gate)
    and ``under`` (how far under the bar, None when it cleared or there is no bar).
    ``decided`` is the rule that abstained: ``"gate"`` (the best gate score under the
    threshold), ``"remark"`` (the prompt reads as a remark), ``"confidence"`` (cleared, but
    the confidence under its floor) or ``"floors"``. ``same_family`` says the first two share
    a routing family.
    """
    if decided == "remark":
        return ["it reads as a remark (thanks, a status, an aside), and a remark routes "
                "nothing; a request that says what to do routes"]
    if not nearest or decided not in ("gate", "confidence", "floors"):
        return []
    first = nearest[0]
    where = first.get("source") or first["name"]
    under = first.get("under")
    close = (under is not None and bar is not None
             and under <= max(CLOSE_SHARE * abs(bar), CLOSE_FLOOR))
    if decided != "confidence" and under is not None and not close:
        return [f"nothing came near: the nearest, {first['name']}, was {under:.3f} under the "
                "bar. If a document should govern prompts like this, add an example line like "
                f"it to that document ({where}) or write one; otherwise staying silent is right"]
    steps = []
    if len(nearest) > 1:
        second = nearest[1]
        key = ("gate" if decided == "gate" and first.get("gate") is not None
               and second.get("gate") is not None else "fused")
        a, b = float(first[key]), float(second[key])
        if near_tie(a, b):
            kin = " of one family (only one may route)" if same_family else ""
            steps.append(f"two documents overlap: {first['name']} and {second['name']} are "
                         f"near-ties{kin} ({key} {a:.3f} and {b:.3f}); tell them apart with "
                         "example lines, or merge them — see gov lint")
        elif same_family and near_tie(a, b, loose=True):
            steps.append(f"two documents overlap: {first['name']} and {second['name']} are one "
                         f"family and close ({key} {a:.3f} and {b:.3f}); only one may route "
                         "— see gov lint")
    if decided == "confidence":
        if not steps:
            steps.append(f"add an example line like this prompt to {where}: it cleared the "
                         "bar, but the router was not sure it is the right document")
    else:
        gap = f" (it was {under:.3f} under)" if under is not None else ""
        steps.append(f"add an example line like this prompt to {where}{gap}")
    return steps
