"""Hubs: documents that rank first for prompts unrelated to them.

gov ships a bank of about 550 generic prompts (greetings, everyday questions, general
programming questions, the asides of a coding session;
``core/data/background_prompts.jsonl``) that no team policy would govern. Each is scored
against the corpus as a route scores it (words and meaning, the
operating point's pooling, the index's head and families) and selected by the router's
kernel, its gate included; a document the router would deliver for many of them has
surfaces broad enough to take prompts that are not its own. (Ranking first alone is no
finding: a gate routes the best of weak candidates nowhere.) Under the background gate,
whose threshold this same bank sets, at most its share of the bank (``background_alpha``; fewer
where a floor of the corpus's own is higher) gets through by construction, with the prompts
screened as governed by a document's own lines; a document that takes a large part of them
(``hub_through_share``, and never less than twice a document's fair share, 2/n, which is
more on a corpus of two to four documents; a document alone is never a hub, as whatever
gets through is its own) is a hub. The bank's vectors are kept in the embedding cache, so
only the first lint on a machine pays for embedding them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources

import numpy as np
import orjson
from numpy.typing import NDArray

from ..encode import bundle
from ..routing.router import Router
from ..routing.select import rank_many, select

BANK = "background_prompts.jsonl"
BATCH = 64


@dataclass
class HubCount:
    """How often one document ranks first for the bank's prompts, and how often the router
    would deliver it for one (its confidence gate and second route included), and which."""

    first: int = 0
    routed: int = 0
    prompts: list[int] = field(default_factory=list)


def bank_prompts() -> list[str]:
    """The shipped bank of generic prompts."""
    source = resources.files("gov.core") / "data" / BANK
    return [orjson.loads(line)["prompt"] for line in source.read_bytes().splitlines()
            if line.strip()]


def bank_vectors(router: Router, prompts: Sequence[str]) -> NDArray[np.float32] | None:
    """The prompts' vectors: from the embedding cache, else embedded and cached (``None``
    when routing is by words alone)."""
    from ..encode.cache import EmbeddingCache, model_folder
    model_id = router.model_id
    if model_id is None or router.degraded is not None:
        return None
    encoder = bundle.spec(model_id)
    cache = EmbeddingCache(model_folder(model_id, encoder.weights_sha256), encoder.dim)
    try:
        found = cache.lookup(prompts)
    except OSError:
        found = {}
    missing = [prompt for prompt in prompts if prompt not in found]
    if missing:
        fresh = router.scorer.embed(missing)
        if fresh is None:
            return None
        found.update(zip(missing, np.asarray(fresh, dtype=np.float32), strict=True))
        # A read-only cache folder costs the next lint a second, nothing more.
        with contextlib.suppress(OSError):
            cache.add(missing, np.asarray(fresh, dtype=np.float32))
    return np.stack([found[prompt] for prompt in prompts]).astype(np.float32)


def hub_counts(router: Router, prompts: Sequence[str]) -> dict[int, HubCount]:
    """Per document (position): how often it ranks first, and how often it is routed."""
    vectors = bank_vectors(router, prompts)
    point = router.operating_point
    scorer = router.scorer
    families = router.families
    counts: dict[int, HubCount] = {}
    for first in range(0, len(prompts), BATCH):
        batch = list(prompts[first : first + BATCH])
        lexical = scorer.lexical_many(batch)
        semantic = learned = None
        if vectors is not None:
            rows = vectors[first : first + len(batch)]
            semantic = np.asarray(scorer.semantic(
                rows, pool=point.semantic_pool, body_surfaces=point.body_surfaces,
                learned=False), dtype=np.float64)
            learned = scorer.learned_probabilities(rows)
        ranked = rank_many(lexical, semantic, point, learned, families=families)
        for row, top in enumerate(ranked.top1.tolist()):
            if top >= 0:
                counts.setdefault(top, HubCount()).first += 1
            chosen = select(lexical[row], None if semantic is None else semantic[row], point,
                            None if learned is None else learned[row], router.background,
                            families=families).chosen
            for candidate in chosen:
                count = counts.setdefault(candidate.doc, HubCount())
                count.routed += 1
                count.prompts.append(first + row)
    return counts
