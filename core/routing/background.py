"""The background gate: route only prompts that score above what nobody would route here.

A raw score threshold means different things on different corpora (trigger length,
vocabulary, corpus size, how alike the documents are), so one shipped threshold is quiet
on one corpus and noisy on another. Instead, when an index is built, gov routes a bank of
prompts no team document governs (``core/data/background_prompts.jsonl``) against the
corpus and keeps what they score; a prompt routes only when its best score clears the
bank's ``1 - alpha`` quantile ("scores above 95 % of prompts nobody would route here" means
the same on every corpus). The share ``alpha`` may grow with the corpus's size
(``background_alpha_growth``, 0 in the shipped default, where the orphan floor below does that
job): the bank's best score is a maximum over every document, so one share is stricter on a
large corpus, while a governed prompt's score is its own document's.
Measured at build, with no labels:

* **screening**: a bank prompt within cosine 0.65 of one of the corpus's own surfaces is
  governed by it ("tell me a joke" against a corpus with a joke intent), so it is dropped;
* **hubs**: each document's closeness to the bank (the mean of its 10 best bank scores);
  ``hub_weight`` of it is held against the document when deciding abstention, so a
  document close to everything stops winning prompts that belong to nobody;
* **example floor**: the corpus's own example lines, each scored with itself left out;
  their ``example_beta`` quantile is a second floor where prompts of the corpus score far
  above the bank (intent corpora with many examples);
* **orphan floor**: the same example lines each scored against the *other* documents only
  (its own left out): what a prompt of this corpus's domain scores against documents that do
  not govern it. Their ``orphan_quantile`` quantile is a third floor: on a large corpus whose
  documents share a vocabulary (service names, a product's words), a request about the domain
  that no document governs scores well above the generic bank;
* **the head**: a classifier over embeddings, each document's surfaces and body passages
  as its class and the bank as "none"; it ranks (``learned_weight``) and picks a second
  route, and never decides abstention (its "none" learns "looks like my bank").

How the constants were chosen, and what each did on eleven corpora held out in turn, is in
``docs/quality.md``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from ..index.bodies import Passages
    from ..index.build import BuiltIndex
    from ..scoring.scorer import Scorer
    from .point import OperatingPoint

SCREEN_COSINE = 0.65
HUB_K = 10
MIN_EXAMPLES = 5
MAX_EXAMPLES = 2000  # example lines scored for the floor (a fixed sample past this)
HEAD_PASSAGES = 8
# The head's rows × classes at most, as far as body passages go (surfaces and the bank are
# always in): its fit holds about six float32 arrays of that shape, so passages never take it
# past about 150 MB, and a cold build of 1,354 skills with bodies stays under 500 MB. A large
# corpus gives each document fewer passages (all eight up to about 700 one-surface
# documents, 1 each at 1,354, none from about 1,630); a corpus of a few hundred keeps all.
HEAD_CELLS = 6_000_000
# Past this many documents the head is not fitted: its fit grows with rows × classes (9 s of
# CPU at 1,354 skills, hundreds of gigabytes of probabilities at 100,000), and a route then
# ranks by the fused score alone (the confidence model reads the head's probability as 0).
HEAD_MAX_DOCUMENTS = 2000
BANK_BATCH = 64
# The bank's share grows with the corpus's size from this many documents to that many
# (``background_alpha_growth``): the written and intent corpora it was first chosen on hold
# 17 to 199 documents and keep the base share; real libraries hold 250 to 1,700.
ALPHA_BASE_DOCUMENTS = 200
ALPHA_MAX_DOCUMENTS = 2000
# The point's parameters the stored statistics depend on: another value needs a rebuild.
BUILD_PARAMS = ("lexical_weight", "semantic_weight", "semantic_pool", "body_surfaces",
                "hub_weight")


def bank_prompts() -> list[str]:
    """The background bank shipped with gov."""
    import orjson

    raw = (resources.files("gov.core") / "data" / "background_prompts.jsonl").read_bytes()
    return [orjson.loads(line)["prompt"] for line in raw.splitlines() if line.strip()]


@dataclass(frozen=True)
class Background:
    """What an index measured of its corpus against the bank, as the gate needs it."""

    hub: NDArray[np.float32]  # per document: mean of its HUB_K best scores over the bank
    bank_top: NDArray[np.float32]  # sorted: each screened bank prompt's best gate score
    example_top: NDArray[np.float32] | None  # sorted: each example line's, left out
    info: dict[str, Any]
    # sorted: each example line's best score over the other documents (None: an index built
    # before this floor existed, or too few example lines)
    orphan_top: NDArray[np.float32] | None = None
    # the remark probe (``remarks.py``): weights over a prompt's embedding, and its bias
    remark_weights: NDArray[np.float32] | None = None
    remark_bias: float = 0.0
    # thresholds already worked out, per (alpha, beta, q): a quantile per route is 0.4 ms
    _thresholds: dict[tuple[float, float, float], tuple[float, str]] = field(
        default_factory=dict, repr=False, compare=False)

    def arrays(self) -> dict[str, NDArray[np.float32]]:
        out = {"background_hub": self.hub, "background_bank_top": self.bank_top}
        if self.example_top is not None:
            out["background_example_top"] = self.example_top
        if self.orphan_top is not None:
            out["background_orphan_top"] = self.orphan_top
        if self.remark_weights is not None:
            out["remark_weights"] = self.remark_weights
            out["remark_bias"] = np.array([self.remark_bias], dtype=np.float32)
        return out

    def remarks(self, vectors: NDArray[Any] | None) -> NDArray[np.float64] | None:
        """Each prompt's remark probability (``None`` without a probe or vectors: an index
        built before the probe existed never vetoes)."""
        if self.remark_weights is None or vectors is None:
            return None
        from .remarks import probabilities

        return probabilities(vectors, self.remark_weights, self.remark_bias)

    def threshold(self, point: OperatingPoint) -> tuple[float, str]:
        """The score a prompt must reach, and which guard sets it ("bank", "examples" or
        "orphans")."""
        key = (self.alpha(point), point.example_beta, point.orphan_quantile)
        known = self._thresholds.get(key)
        if known is None:
            known = self._thresholds[key] = self._threshold(*key)
        return known

    def alpha(self, point: OperatingPoint) -> float:
        """The share of the bank the point lets through on this corpus: ``background_alpha``
        grown with the number of documents (a larger corpus's bank maximum is higher, while a
        governed prompt's score is its own document's)."""
        documents = min(max(self.hub.size, ALPHA_BASE_DOCUMENTS), ALPHA_MAX_DOCUMENTS)
        grown = (documents / ALPHA_BASE_DOCUMENTS) ** point.background_alpha_growth
        return float(min(1.0, point.background_alpha * grown))

    def _threshold(self, alpha: float, beta: float, orphan: float) -> tuple[float, str]:
        best = (float(np.quantile(self.bank_top, 1.0 - alpha)), "bank")
        if self.example_top is not None and self.example_top.size >= MIN_EXAMPLES:
            best = max(best, (float(np.quantile(self.example_top, beta)), "examples"))
        if (orphan > 0.0 and self.orphan_top is not None
                and self.orphan_top.size >= MIN_EXAMPLES):
            best = max(best, (float(np.quantile(self.orphan_top, orphan)), "orphans"))
        return best

    def rarities(self, tops: NDArray[Any]) -> NDArray[np.float64]:
        """How rare each of ``tops`` is among the bank's scores: -log10 of the share scoring
        at least as high (smoothed), 0 for a score the whole bank beats."""
        n = self.bank_top.size
        exceed = n - np.searchsorted(self.bank_top, tops, side="left")
        out: NDArray[np.float64] = -np.log10((1.0 + exceed) / (n + 1.0))
        return out

    def gate_scores(self, lexical: NDArray[Any], semantic: NDArray[Any],
                    point: OperatingPoint) -> NDArray[np.float64]:
        """Each document's score for the gate (1-d or 2-d): the weighted sum of its
        lexical and semantic scores, less its hub penalty."""
        return (point.lexical_weight * lexical + point.semantic_weight * semantic
                - point.hub_weight * self.hub)

    @classmethod
    def load(cls, stored: Any) -> Background | None:
        """The background statistics an index stores (``None`` when it has none), checked:
        a crafted NaN threshold would let every prompt through, silently."""
        info = stored.header.background
        if info is None or not stored.has_array("background_hub"):
            return None

        def read(name: str, size: int | None = None) -> NDArray[np.float32]:
            values = np.asarray(stored.array(name), dtype=np.float32)
            if values.ndim != 1 or values.size == 0 or (size is not None and values.size != size):
                raise stored.malformed(f"array {name!r} has shape {list(values.shape)}")
            if not bool(np.isfinite(values).all()):
                raise stored.malformed(f"array {name!r} holds a value that is not finite")
            return values

        def optional(name: str) -> NDArray[np.float32] | None:
            return read(name) if stored.has_array(name) else None

        remark = None
        bias = 0.0
        if stored.has_array("remark_weights"):
            remark = read("remark_weights")
            if (stored.has_array("embeddings")
                    and remark.size != stored.array("embeddings").shape[-1]):
                raise stored.malformed(f"array 'remark_weights' has shape {list(remark.shape)}")
            bias = float(read("remark_bias", 1)[0])
        return cls(read("background_hub", len(stored.names)), read("background_bank_top"),
                   optional("background_example_top"), info,
                   optional("background_orphan_top"), remark, bias)


def _document_scores(scorer: Scorer, texts: list[str], vectors: NDArray[np.float32],
                     point: OperatingPoint) -> NDArray[np.float64]:
    """The gate's raw score (before the hub penalty) of each text for each document."""
    semantic = scorer.semantic(vectors, pool=point.semantic_pool,
                               body_surfaces=point.body_surfaces, learned=False)
    return point.lexical_weight * scorer.lexical_many(texts) + point.semantic_weight * semantic


def _hub(scorer: Scorer, texts: list[str], vectors: NDArray[np.float32],
         point: OperatingPoint) -> NDArray[np.float64]:
    """Per document, the mean of its HUB_K best scores over the bank; the bank is scored
    in batches, keeping only each document's best HUB_K, so memory stays flat at 10^5
    documents."""
    best = np.full((0, scorer.documents), -np.inf)
    for first in range(0, len(texts), BANK_BATCH):
        rows = _document_scores(scorer, texts[first: first + BANK_BATCH],
                                vectors[first: first + BANK_BATCH], point)
        best = np.concatenate([best, rows])
        if best.shape[0] > HUB_K:
            best = -np.partition(-best, HUB_K - 1, axis=0)[:HUB_K]
    return best.mean(axis=0) if best.shape[0] else np.zeros(scorer.documents)


def fit_background(built: BuiltIndex, point: OperatingPoint) -> None:
    """Measure the corpus of ``built`` against the bank and fit the head, storing both in
    it (arrays and a header field); needs the index's embeddings."""
    from dataclasses import replace

    from ..encode.cache import embed_missing
    from ..encode.embedding import model_sha256, release
    from ..index.stored import StoredIndex
    from ..scoring.scorer import Scorer

    stored = StoredIndex(built)
    scorer = Scorer(stored)
    assert scorer.embeddings is not None and stored.model_id is not None
    model_id = stored.model_id
    prompts = bank_prompts()
    found, _ = embed_missing(list(dict.fromkeys(prompts)), model_id,
                             model_sha256=model_sha256(model_id),
                             dim=int(scorer.embeddings.shape[1]), cache=True)
    bank = np.stack([found[text] for text in prompts]).astype(np.float32)
    remark_weights, remark_bias = _remark_probe(scorer, model_id)
    release("build")  # the build's last embedding: free the encoder before the head's fit
    near = np.zeros(len(prompts))
    for first in range(0, len(prompts), BANK_BATCH):
        near[first: first + BANK_BATCH] = scorer.surface_similarities(
            bank[first: first + BANK_BATCH]).max(axis=1)
    keep = np.flatnonzero(near < SCREEN_COSINE)
    kept_texts = [prompts[i] for i in keep]
    kept = bank[keep]
    hub_raw = _hub(scorer, kept_texts, kept, point)
    hub = hub_raw.astype(np.float32)
    top = np.empty(len(kept_texts), dtype=np.float64)
    for first in range(0, len(kept_texts), BANK_BATCH):
        rows = _document_scores(scorer, kept_texts[first: first + BANK_BATCH],
                                kept[first: first + BANK_BATCH], point)
        top[first: first + BANK_BATCH] = (rows - point.hub_weight * hub_raw).max(axis=1)
    example_top, orphan_top, estimate = _example_floor(scorer, stored, hub_raw, point)
    background = Background(hub, np.sort(top).astype(np.float32), example_top, {}, orphan_top,
                            remark_weights, remark_bias)
    head = scorer.documents <= HEAD_MAX_DOCUMENTS
    if head:
        built.arrays["head_weights"], built.arrays["head_bias"] = _fit_head(
            scorer, built.passages, kept)
    info = {
        "bank_sha256": hashlib.sha256("\n".join(prompts).encode("utf-8")).hexdigest(),
        "bank_size": len(prompts),
        "bank_kept": int(keep.size),
        "examples_scored": 0 if example_top is None else int(example_top.size),
        "orphans_scored": 0 if orphan_top is None else int(orphan_top.size),
        "estimated_nearest_top1": estimate,
        "threshold": round(background.threshold(point)[0], 6),
        "params": {name: getattr(point, name) for name in BUILD_PARAMS},
        "head": head,
    }
    built.arrays.update(background.arrays())
    built.header = replace(built.header, background=info)


def _remark_probe(scorer: Scorer, model_id: str) -> tuple[NDArray[np.float32], float]:
    """The remark probe, fitted on the shipped remarks and requests (embedded once per model:
    the embedding cache keeps them) and the corpus's own lines."""
    from ..encode.cache import embed_missing
    from ..encode.embedding import model_sha256
    from .remarks import fit_probe, training_texts

    assert scorer.embeddings is not None
    remarks, requests = training_texts()
    found, _ = embed_missing(list(dict.fromkeys(remarks + requests)), model_id,
                             model_sha256=model_sha256(model_id),
                             dim=int(scorer.embeddings.shape[1]), cache=True)

    def stack(texts: tuple[str, ...]) -> NDArray[np.float32]:
        return np.stack([found[text] for text in texts]).astype(np.float32)

    return fit_probe(stack(remarks), stack(requests),
                     np.asarray(scorer.embeddings, dtype=np.float32))


def _example_floor(scorer: Scorer, stored: Any, hub: NDArray[np.float64],
                   point: OperatingPoint
                   ) -> tuple[NDArray[np.float32] | None, NDArray[np.float32] | None,
                              float | None]:
    """Each example line scored as a prompt with itself left out of its document: their
    sorted best gate scores; their sorted best gate scores over the other documents only
    (the orphan floor's); and how often the best document was the line's own (a label-free
    estimate of nearest-document top-1)."""
    from ..index.surfaces import EXAMPLE

    assert scorer.embeddings is not None
    examples = np.flatnonzero(np.asarray(stored.surface_kind) == EXAMPLE)
    if examples.size < MIN_EXAMPLES:
        return None, None, None
    if examples.size > MAX_EXAMPLES:
        examples = np.sort(np.random.default_rng(0).choice(examples, MAX_EXAMPLES,
                                                           replace=False))
    owners = np.asarray(stored.surface_doc, dtype=np.int64)[examples]
    groups = scorer.groups
    counts = groups.counts.astype(np.float64)
    tops = np.empty(examples.size)
    others = np.full(examples.size, -np.inf)
    own_best = np.zeros(examples.size, dtype=bool)
    for first in range(0, examples.size, BANK_BATCH):
        rows = examples[first: first + BANK_BATCH]
        mine = owners[first: first + BANK_BATCH]
        r = np.arange(rows.size)
        sims = scorer.embeddings[rows] @ scorer.embeddings.T
        lexical = np.stack([scorer.lexical_surfaces(scorer.surface_texts[int(i)]) for i in rows])
        lexical[r, rows] = 0.0
        minus = np.zeros((rows.size, scorer.documents))
        minus[r, mine] = 1.0
        semantic = _left_out(groups, sims, rows, mine, counts, minus, point.semantic_pool)
        if point.body_surfaces > 0.0 and scorer.body_vectors is not None:
            assert scorer.body_present is not None
            body = scorer.embeddings[rows] @ np.asarray(scorer.body_vectors).T
            n = counts[None, :] - minus
            weight = point.body_surfaces / (n + point.body_surfaces)
            semantic = np.where(scorer.body_present[None, :],
                                (1 - weight) * semantic + weight * body, semantic)
        words = np.stack([scorer.body_word_scores(scorer.surface_texts[int(i)]) for i in rows])
        score = (point.lexical_weight * (groups.best(lexical) + words)
                 + point.semantic_weight * semantic)
        own_best[first: first + rows.size] = score.argmax(axis=1) == mine
        gate = score - point.hub_weight * hub
        tops[first: first + rows.size] = gate.max(axis=1)
        if scorer.documents > 1:
            gate[r, mine] = -np.inf
            others[first: first + rows.size] = gate.max(axis=1)
    orphans = np.sort(others).astype(np.float32) if scorer.documents > 1 else None
    return np.sort(tops).astype(np.float32), orphans, round(float(own_best.mean()), 4)


def _left_out(groups: Any, sims: NDArray[Any], rows: NDArray[np.int64],
              mine: NDArray[np.int64], counts: NDArray[np.float64], minus: NDArray[np.float64],
              pool: str) -> NDArray[np.float64]:
    """Pooled similarities with each row's own surface left out of its document."""
    r = np.arange(rows.size)
    if pool in ("mean", "max_mean"):
        total = sims.astype(np.float64).copy()
        total[r, rows] = 0.0
        mean = groups.total(total) / (counts[None, :] - minus)
        if pool == "mean":
            return np.asarray(mean)
    masked = sims.astype(np.float64).copy()
    masked[r, rows] = -np.inf
    best = np.asarray(groups.best(masked))
    return best if pool == "max" else (best + mean) / 2


def _fit_head(scorer: Scorer, passages: Passages | None, bank: NDArray[np.float32]
              ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """The head: documents (their surfaces and first passages) against the bank ("none")."""
    from ..scoring.learned import fit_classifier

    assert scorer.embeddings is not None
    documents = scorer.documents
    rows = [np.asarray(scorer.embeddings, dtype=np.float32)]
    owners = [np.asarray(scorer.stored.surface_doc, dtype=np.int64)]
    if passages is not None and passages.owners.size:
        fixed = scorer.embeddings.shape[0] + bank.shape[0]
        each = min(HEAD_PASSAGES, max(0, (HEAD_CELLS // (documents + 1) - fixed) // documents))
        rank = _rank_within(passages.owners)
        take = rank < each
        rows.append(passages.vectors[take])
        owners.append(passages.owners[take])
    rows.append(bank)
    owners.append(np.full(bank.shape[0], documents, dtype=np.int64))
    return fit_classifier(np.vstack(rows), np.concatenate(owners), documents + 1)


def _rank_within(owners: NDArray[np.int64]) -> NDArray[np.int64]:
    """Each row's position among the rows of its owner (owners in runs)."""
    starts = np.concatenate(([0], np.flatnonzero(np.diff(owners)) + 1))
    first = np.repeat(starts, np.diff(np.append(starts, owners.size)))
    return np.asarray(np.arange(owners.size) - first, dtype=np.int64)
