"""Per-document evidence for prompts against one stored index: words, meaning, learned.

Scoring is the slow part of a route and does not depend on the operating point, except
for how a document's surface similarities are pooled and how much body evidence counts,
which are passed in. The router asks for scores and decides; calibration asks for the
same scores once and decides many times.

When the embedding model cannot load or fails mid-route, scoring degrades to words alone
and says so (``degraded``): never silently, and never as an abstention.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..encode.tfidf import LexicalScorer
from ..errors import IndexLoadError, ModelError
from ..index import body_words
from ..index.stored import StoredIndex
from ..index.surfaces import LEARNED
from .learned import LearnedArrays, softmax_rows
from .pooling import SurfaceGroups, mix_bodies

DEGRADED_LEXICAL = "lexical-only"


@dataclass(frozen=True)
class NearestSurface:
    """The surface of a document that a prompt came closest to: its kind, cosine and text."""

    kind: int
    score: float
    text: str


class Scorer:
    """Scores prompts against a stored index; holds the query encoder and learned signals."""

    def __init__(self, stored: StoredIndex, *, lexical_only: bool = False,
                 exact: bool = False) -> None:
        self.stored = stored
        arrays, terms = stored.lexical_arrays()
        self.lexical = LexicalScorer(arrays, terms)
        # Each document's whole text as words (gov.core.index.body_words), and its weight.
        self.body_words = body_words.scorer(stored, arrays.stop_words)
        self.documents = len(stored.names)
        self.groups = SurfaceGroups.of_owners(stored.surface_doc, self.documents)
        self.surface_texts: Sequence[str] = stored.surface_texts(self.groups.starts)
        self.embeddings: NDArray[np.float32] | None = None
        self.degraded: str | None = None
        self.degraded_reason: str | None = None
        if stored.header.model is not None and not lexical_only:
            self.embeddings = stored.array("embeddings")
        else:
            self.degraded = DEGRADED_LEXICAL
            self.degraded_reason = ("the index was built without embeddings"
                                    if stored.header.model is None
                                    else "lexical-only routing was requested")
        self._encoder: Any = None
        # Body vectors (gov index --bodies): one per document, zeros where it has no body.
        self.body_vectors: NDArray[np.float32] | None = None
        self.body_present: NDArray[np.bool_] | None = None
        if self.embeddings is not None and stored.header.bodies is not None:
            self.body_vectors = stored.array("body_vectors")
            self.body_present = np.asarray(stored.array("body_present"), dtype=bool)
        # The approximate-search graph, when the index has one and exact search is not asked.
        self.nearest: Any = None
        if self.embeddings is not None and stored.header.ann is not None and not exact:
            from ..index.ann import ARRAY, NearestSurfaces

            self.nearest = NearestSurfaces(
                stored.array(ARRAY), stored.header.ann, stored.where,
                (int(self.embeddings.shape[0]), int(self.embeddings.shape[1])),
                hint=stored.malformed("").hint)
        # What calibration learned: labelled prompts as further surfaces, and a classifier.
        self.learned_vectors: NDArray[np.float32] | None = None
        self.learned_doc: NDArray[np.int64] | None = None
        self.learned_texts: list[str] = []
        self._surface_vectors = self.embeddings
        self._surface_groups = self.groups
        self.classifier: tuple[NDArray[np.float32], NDArray[np.float32],
                               NDArray[np.int64]] | None = None
        # The index's own head (fitted at build on its documents against the background
        # bank) is the classifier until calibration learns one from labels.
        if self.embeddings is not None and stored.has_array("head_weights"):
            self.classifier = (stored.array("head_weights"), stored.array("head_bias"),
                               np.arange(self.documents, dtype=np.int64))

    # -- the query encoder ----------------------------------------------------------------
    def encoder(self) -> Any:
        """The query encoder, loaded on first use; on failure scoring degrades to words."""
        if self._encoder is None and self.degraded is None:
            from ..encode.embedding import get_encoder

            try:
                self._encoder = get_encoder(self.stored.model_id)
            except ModelError as exc:
                self.degrade(exc.message)
        return self._encoder

    def use_encoder(self, encoder: Any) -> None:
        """Embed with this encoder instead of the shared one (the MCP server and Ray actors
        give theirs a thread count of their own)."""
        if self.degraded is None:
            self._encoder = encoder

    def degrade(self, reason: str) -> None:
        self.degraded = DEGRADED_LEXICAL
        self.degraded_reason = reason
        self._encoder = None

    def embed(self, prompts: Sequence[str]) -> NDArray[np.float32] | None:
        """The prompts' vectors, or ``None`` when routing is (or becomes) words only."""
        vectors, failure = self.try_embed(prompts)
        if failure is not None:
            self.degrade(failure)
        return vectors

    def try_embed(self, prompts: Sequence[str]
                  ) -> tuple[NDArray[np.float32] | None, str | None]:
        """The prompts' vectors (``None``: words only), and why embedding failed for these
        prompts, if it did: a failure of one call (a prompt the tokenizer refuses, say)
        degrades that call, not every later route of a long-lived server."""
        encoder = self.encoder()
        if encoder is None:
            return None, None
        try:
            return encoder.embed(prompts), None
        except Exception as exc:  # a runtime failure mid-route degrades, never aborts
            return None, f"embedding failed: {exc}"

    # -- words ----------------------------------------------------------------------------
    def lexical_surfaces(self, prompt: str) -> NDArray[np.float64]:
        """TF-IDF cosine between the prompt and each surface."""
        return self.lexical.scores(prompt)

    def lexical_documents(self, surface_scores: NDArray[np.float64],
                          prompt: str) -> NDArray[np.float64]:
        """Each document's best surface score (of ``prompt``'s) plus its body words' weighted
        cosine."""
        best: NDArray[np.float64] = self.groups.best(surface_scores)
        return best + self.body_word_scores(prompt)

    def body_word_scores(self, text: str) -> NDArray[np.float64]:
        """The weighted cosine of ``text`` to each document's whole text (zeros: the index
        has no body words)."""
        if self.body_words is None:
            return np.zeros(self.documents, dtype=np.float64)
        words, weight = self.body_words
        out: NDArray[np.float64] = weight * words.scores(text)
        return out

    def lexical_many(self, prompts: Sequence[str]) -> NDArray[np.float64]:
        """Per-document lexical scores of many prompts: shape (prompts, documents)."""
        out = np.zeros((len(prompts), self.documents), dtype=np.float64)
        for row, prompt in enumerate(prompts):
            out[row] = self.lexical_documents(self.lexical_surfaces(prompt), prompt)
        return out

    # -- meaning --------------------------------------------------------------------------
    def surface_similarities(self, vectors: NDArray[np.float32]) -> NDArray[np.float32]:
        """Cosine of each prompt with each stored surface (learned ones excluded)."""
        assert self.embeddings is not None
        return vectors @ self.embeddings.T

    def semantic(self, vectors: NDArray[np.float32], *, pool: str, body_surfaces: float = 0.0,
                 learned: bool = True) -> NDArray[np.float32]:
        """Per-document meaning score for each prompt vector: shape (prompts, documents).

        ``pool`` turns a document's surface similarities into one score (their best, their
        mean, or the two averaged); learned surfaces count unless ``learned`` is false;
        ``body_surfaces`` is how many surfaces a document's body summary counts as, where
        the index has one.
        """
        assert self.embeddings is not None
        if self.nearest is not None:
            scores = self._semantic_nearest(vectors, learned, pool)
            groups = self._surface_groups if learned else self.groups
        else:
            if learned and self._surface_vectors is not None:
                matrix, groups = self._surface_vectors, self._surface_groups
            else:
                matrix, groups = self.embeddings, self.groups
            scores = groups.pool(vectors @ matrix.T, pool)
        if body_surfaces > 0.0 and self.body_vectors is not None:
            scores = self.mix_bodies(scores, vectors, body_surfaces, groups.counts)
        return scores

    def body_similarities(self, vectors: NDArray[np.float32]) -> NDArray[np.float32] | None:
        """Each prompt's similarity to each document's body summary (``None``: no bodies)."""
        if self.body_vectors is None:
            return None
        return vectors @ np.asarray(self.body_vectors).T

    def mix_bodies(self, scores: NDArray[np.floating[Any]], vectors: NDArray[np.float32],
                   body_surfaces: float, counts: NDArray[np.int64]) -> NDArray[np.float32]:
        """Count each document's body summary as ``body_surfaces`` more surfaces: a document
        of n surfaces scores (n * pooled + b * body) / (n + b). Documents without a body keep
        their score; under approximate search, so do the unreached ones at 0."""
        body = self.body_similarities(vectors)
        assert body is not None and self.body_present is not None
        present = self.body_present[None, :]
        if self.nearest is not None:
            present = present & (scores != 0.0)
        weight = body_surfaces / (counts.astype(np.float64) + body_surfaces)
        return np.asarray(mix_bodies(scores, body, present, weight[None, :]), dtype=np.float32)

    def _semantic_nearest(self, vectors: NDArray[np.float32], learned: bool,
                          pool: str) -> NDArray[np.float32]:
        """``semantic`` through the approximate-search graph: the documents of the nearest
        surfaces (the graph's, and the nearest learned ones, which are few and searched
        exactly) are scored exactly over all their surfaces; the rest score 0."""
        assert self.embeddings is not None and self.nearest is not None
        out = np.zeros((vectors.shape[0], self.documents), dtype=np.float32)
        learned_doc = self.learned_doc if learned else None
        learned_sims = (vectors @ self.learned_vectors.T
                        if learned_doc is not None and self.learned_vectors is not None else None)
        surface_doc = self.stored.surface_doc
        for row, hits in enumerate(self.nearest.search(vectors)):
            docs = surface_doc[hits].astype(np.int64)
            if learned_sims is not None and learned_doc is not None and learned_sims.shape[1]:
                take = min(self.nearest.candidates, learned_sims.shape[1])
                nearest_learned = np.argpartition(-learned_sims[row], take - 1)[:take]
                docs = np.concatenate([docs, learned_doc[nearest_learned]])
            docs = np.unique(docs)
            surfaces = np.concatenate([np.arange(segment.start, segment.stop)
                                       for segment in map(self.segment, docs.tolist())])
            sims = self.embeddings[surfaces] @ vectors[row]
            owner = np.searchsorted(docs, surface_doc[surfaces])
            if learned_sims is not None and learned_doc is not None:
                mine = np.flatnonzero(np.isin(learned_doc, docs))
                sims = np.concatenate([sims, learned_sims[row, mine]])
                owner = np.concatenate([owner, np.searchsorted(docs, learned_doc[mine])])
            order = np.argsort(owner, kind="stable")
            groups = SurfaceGroups.of_owners(owner[order], docs.size)
            out[row, docs] = groups.pool(sims[order], pool)
        return out

    def segment(self, doc: int) -> slice:
        """Document ``doc``'s surfaces, as a slice of the stored surfaces."""
        start = int(self.groups.starts[doc])
        return slice(start, start + int(self.groups.counts[doc]))

    def nearest_surface(self, doc: int, vector: NDArray[np.float32]) -> NearestSurface:
        """The surface of ``doc`` nearest ``vector``; a learned example wins when it is nearer
        than every stored surface."""
        assert self.embeddings is not None
        segment = self.segment(doc)
        sims = self.embeddings[segment] @ vector
        best = segment.start + int(np.argmax(sims))
        nearest = NearestSurface(int(self.stored.surface_kind[best]), float(sims.max()),
                                 self.surface_texts[best])
        if self.learned_vectors is not None and self.learned_doc is not None:
            mine = np.flatnonzero(self.learned_doc == doc)
            if mine.size:
                learned = self.learned_vectors[mine] @ vector
                if float(learned.max()) > nearest.score:
                    nearest = NearestSurface(LEARNED, float(learned.max()),
                                             self.learned_texts[int(mine[np.argmax(learned)])])
        return nearest

    # -- learned signals ------------------------------------------------------------------
    def apply_learned(self, learned: LearnedArrays) -> None:
        """Add what calibration learned: example surfaces and the classifier."""
        self.set_learned(learned.vectors, learned.names, learned.texts)
        self.set_classifier(learned.classifier_weights, learned.classifier_bias,
                            learned.classifier_names)

    def _positions(self, names: Sequence[str], what: str) -> NDArray[np.int64]:
        positions = self.stored.positions
        unknown = [name for name in names if name not in positions]
        if unknown:
            raise IndexLoadError(f"{what} name documents not in the index: {unknown[:3]}")
        return np.array([positions[n] for n in names], dtype=np.int64)

    def set_learned(self, vectors: NDArray[np.float32], names: Sequence[str],
                    texts: Sequence[str]) -> None:
        """Add learned example surfaces (from calibration) for the semantic scorer."""
        self.learned_doc = self._positions(names, "learned surfaces")
        self.learned_vectors = np.asarray(vectors, dtype=np.float32)
        self.learned_texts = list(texts)
        if self.embeddings is None:
            return
        # One matrix of every surface grouped by document: one product and one pooling.
        owners = np.concatenate([self.stored.surface_doc.astype(np.int64), self.learned_doc])
        order = np.argsort(owners, kind="stable")
        self._surface_vectors = np.ascontiguousarray(
            np.vstack([self.embeddings, self.learned_vectors])[order])
        self._surface_groups = SurfaceGroups.of_owners(owners, self.documents)

    def set_classifier(self, weights: NDArray[np.float32], bias: NDArray[np.float32],
                       names: Sequence[str]) -> None:
        """Add the learned classifier; documents it does not know get probability 0."""
        columns = self._positions(names, "the learned classifier's classes")
        if not len(names):
            self.classifier = None
            return
        self.classifier = (np.asarray(weights, dtype=np.float32),
                           np.asarray(bias, dtype=np.float32), columns)

    def learned_probabilities(self, vectors: NDArray[np.float32]) -> NDArray[np.float64] | None:
        """The learned classifier's probability per document: shape (prompts, documents)."""
        if self.classifier is None:
            return None
        weights, bias, columns = self.classifier
        probabilities = softmax_rows(vectors @ weights.T + bias)
        out = np.zeros((vectors.shape[0], self.documents), dtype=np.float64)
        # Rows past the named documents (the "no document" class) only take probability away.
        out[:, columns] = probabilities[:, : columns.size]
        return out
