"""The router: a stored index, its scorer and an operating point, answering prompts.

Loading and identity live in :mod:`gov.core.index.stored`, scoring in
:mod:`gov.core.scoring.scorer`, fusion and selection in :mod:`gov.core.routing.select`;
the router puts them together and answers with a
:class:`~gov.core.routing.answer.RouteAnswer`; :func:`gov.core.routing.indexes.load_index`
opens one.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import OperatingPointError
from ..index.header import IndexHeader
from ..index.stored import IndexedDocument, StoredIndex
from ..scoring.learned import from_arrays
from ..scoring.scorer import DEGRADED_LEXICAL, Scorer
from . import dependencies, divergence
from .answer import Route, RouteAnswer
from .background import Background
from .explain import next_steps, why
from .point import (
    OperatingPoint,
    check_model,
    point_learned,
    stored_or_default,
)
from .remarks import vetoes
from .select import Gate, deciding_rule, nearest_documents, rank, select
from .sources import SourceFiles

# Documents an explanation lists, nearest first.
EXPLAIN_NEAREST = 3
EMPTY = "abstained: the prompt is empty"


class Router:
    """Route prompts against one index, and serve its whole documents."""

    def __init__(self, stored: StoredIndex, *, operating_point: OperatingPoint | None = None,
                 lexical_only: bool = False, exact: bool = False) -> None:
        self.stored = stored
        self.scorer = Scorer(stored, lexical_only=lexical_only, exact=exact)
        self.operating_point = self._resolve_point(operating_point)
        self._apply_learned(explicit=operating_point is not None)
        self.background = Background.load(stored) if self.scorer.embeddings is not None else None
        self.notices = divergence.reasons(self.operating_point, stored.header)
        # Routing families: at most one route each (None: every document is its own).
        self.families = stored.families()
        self.route_ms: float | None = None
        self._source_files = SourceFiles(stored)

    # -- identity and documents (the stored index's) ------------------------------------------
    @property
    def path(self) -> str | None:
        return self.stored.path

    @property
    def header(self) -> IndexHeader:
        return self.stored.header

    @property
    def names(self) -> Sequence[str]:
        return self.stored.names

    @property
    def documents(self) -> Sequence[IndexedDocument]:
        return self.stored.documents

    @property
    def fingerprint(self) -> str:
        return self.stored.fingerprint

    @property
    def model_id(self) -> str | None:
        return self.stored.model_id

    def is_stale(self) -> bool:
        return self.stored.is_stale()

    def document(self, name: str) -> IndexedDocument:
        return self.stored.document(name)

    def text(self, name: str) -> str:
        return self.stored.text(name)

    # -- the scorer's state -----------------------------------------------------------------
    @property
    def degraded(self) -> str | None:
        return self.scorer.degraded

    @property
    def degraded_reason(self) -> str | None:
        return self.scorer.degraded_reason

    def use_encoder(self, encoder: Any) -> None:
        self.scorer.use_encoder(encoder)

    def warm(self) -> None:
        """Load the query encoder now, so the first route does not pay for it."""
        self.scorer.encoder()

    # -- the operating point ------------------------------------------------------------------
    def _resolve_point(self, explicit: OperatingPoint | None) -> OperatingPoint:
        """``--operating-point`` > the point stored in the index > the shipped default."""
        model_id = self.stored.model_id
        if explicit is not None:
            if model_id:
                check_model(explicit, model_id, explicit.source or "operating point")
            return explicit
        try:
            return stored_or_default(self.stored.header.operating_point, self.stored.where)
        except OperatingPointError as exc:  # the index's own point: rebuilding fixes it
            raise self.stored.malformed(exc.message) from None

    def _apply_learned(self, explicit: bool) -> None:
        """What the point learned: from the file beside an explicit point, else the index."""
        point = self.operating_point
        embeddings = self.scorer.embeddings
        if point.learned_surfaces is None or point.learned is None or embeddings is None:
            return
        dim = int(embeddings.shape[1])
        if explicit:
            learned = point_learned(point, dim)
        else:
            stored = {name: self.stored.array(f"learned_{name}") for name in
                      ("vectors", "classifier_weights", "classifier_bias")
                      if self.stored.has_array(f"learned_{name}")}
            if not stored:
                return
            try:
                learned = from_arrays(stored, point.learned, f"{self.stored.where} (stored "
                                      "learned arrays)", dim)
            except OperatingPointError as exc:
                raise self.stored.malformed(exc.message) from None
        if learned is not None:
            self.scorer.apply_learned(learned)

    # -- routing ------------------------------------------------------------------------------
    def route(self, prompt: str, *, record: bool = True, explain: bool = False) -> RouteAnswer:
        return self.route_many([prompt], record=record, explain=explain)[0]

    def route_many(self, prompts: Sequence[str], *, record: bool = True,
                   explain: bool = False) -> list[RouteAnswer]:
        """Route a batch of prompts (one embedding call for the whole batch).

        With telemetry on, each prompt records a ``library`` event unless ``record`` is
        False (the CLI, hook and MCP adapters record their own events instead). With
        ``explain``, each answer also says what it was nearest and what was in force. Damage
        in the index that shows only now (a score that is not a number, a record that does
        not decode) is an :class:`~gov.core.errors.IndexLoadError`, never a wrong answer.
        """
        started = time.perf_counter()
        blank = [not prompt.strip() for prompt in prompts]
        if any(blank):
            # Nothing to govern: an empty prompt abstains, saying so, and costs no embedding.
            said = iter(self.route_many([p for p, b in zip(prompts, blank, strict=True) if not b],
                                        record=False, explain=explain) if not all(blank) else [])
            answers = [self._empty(explain) if b else next(said) for b in blank]
            return self._finish(answers, started, record)
        scorer = self.scorer
        vectors, failure = scorer.try_embed(prompts) if scorer.degraded is None else (None, None)
        if failure is not None and len(prompts) > 1:
            # One prompt the encoder refuses must not cost the others their meaning.
            return [answer for prompt in prompts
                    for answer in self.route_many([prompt], record=record, explain=explain)]
        try:
            with np.errstate(all="ignore"):  # a damaged array is reported once, below, not warned
                answers = self._answers(prompts, vectors, DEGRADED_LEXICAL if failure else None,
                                        explain)
        except (IndexError, KeyError, TypeError, ValueError, OverflowError) as exc:
            raise self.stored.malformed(f"{type(exc).__name__}: {exc}") from None
        return self._finish(answers, started, record)

    def _finish(self, answers: list[RouteAnswer], started: float,
                record: bool) -> list[RouteAnswer]:
        """Time the batch (shared out per answer) and record its events."""
        self.route_ms = (time.perf_counter() - started) * 1000.0
        share = self.route_ms / max(len(answers), 1)
        for answer in answers:
            answer.route_ms = share
        if record:
            self._record_library(answers, started)
        return answers

    def _empty(self, explain: bool) -> RouteAnswer:
        """The answer to a prompt that is empty or only white space."""
        point = self.operating_point
        return RouteAnswer(
            [], notices=list(self.notices), corpus_size=len(self.stored.names),
            fingerprint=self.stored.fingerprint, operating_point_id=point.id, reason=EMPTY,
            explain={"reason": EMPTY, "decided": "empty", "gate": None, "confidence": None,
                     "nearest": [], "next": [],
                     "floors": {"lexical": point.lexical_floor, "semantic": point.semantic_floor},
                     "operating_point": point.source or "given"} if explain else None)

    def _answers(self, prompts: Sequence[str], vectors: NDArray[np.float32] | None,
                 failed: str | None, explain: bool) -> list[RouteAnswer]:
        point = self.operating_point
        scorer = self.scorer
        semantic = (scorer.semantic(vectors, pool=point.semantic_pool,
                                    body_surfaces=point.body_surfaces)
                    if vectors is not None else None)
        learned = scorer.learned_probabilities(vectors) if vectors is not None else None
        remarks = (self.background.remarks(vectors) if self.background is not None
                   and point.remark_veto > 0.0 else None)
        self._finite(semantic, "semantic scores")
        self._finite(learned, "learned probabilities")
        answers = []
        for row, prompt in enumerate(prompts):
            surfaces = scorer.lexical_surfaces(prompt)  # once per prompt: why() reuses it
            lexical = scorer.lexical_documents(surfaces, prompt)
            self._finite(lexical, "lexical scores")
            answer = self._answer(
                prompt, lexical, semantic[row] if semantic is not None else None,
                vectors[row] if vectors is not None else None,
                learned[row] if learned is not None else None, surfaces, explain,
                None if remarks is None else float(remarks[row]))
            if failed and answer.degraded is None:
                answer.degraded = failed
            answers.append(answer)
        return answers

    def _answer(self, prompt: str, lexical: NDArray[np.float64],
                semantic: NDArray[np.float32] | None, vector: NDArray[np.float32] | None,
                learned: NDArray[np.float64] | None,
                surface_lexical: NDArray[np.float64], explain: bool = False,
                remark: float | None = None) -> RouteAnswer:
        point = self.operating_point
        chosen, confidence, reason, gate = select(lexical, semantic, point, learned,
                                                  self.background, self.families, remark)
        routes = [
            Route(self.stored.names[c.doc], c.fused, c.lexical, c.semantic,
                  why(self.scorer, prompt, c.doc, lexical=c.lexical is not None,
                      semantic=c.semantic is not None, vector=vector,
                      surface_lexical=surface_lexical))
            for c in chosen
        ]
        if self.operating_point.expand_dependencies:
            routes.extend(dependencies.expand(self.stored, routes))
        return RouteAnswer(
            routes, degraded=self.scorer.degraded if semantic is None else None,
            confidence=confidence, notices=list(self.notices), sources=self._sources(routes),
            corpus_size=len(self.stored.names), fingerprint=self.stored.fingerprint,
            operating_point_id=self.operating_point.id, reason=reason,
            explain=self._explain(reason, gate, lexical, semantic, learned,
                                 confidence, bool(routes), remark) if explain else None)

    def _explain(self, reason: str, gate: Gate | None, lexical: NDArray[np.float64],
                 semantic: NDArray[np.float32] | None, learned: NDArray[np.float64] | None,
                 confidence: float | None = None, routed: bool = True,
                 remark: float | None = None) -> dict[str, Any]:
        """The nearest documents with each signal's score (``fused`` ranks routes, ``gate``
        is what the background gate compared) and how far each was under the bar, the floors,
        threshold and confidence floor in force, the rule that decided, and for an
        abstention the next steps that would make a prompt like this one route."""
        point = self.operating_point
        order, fusion, _ = rank(lexical, semantic, point, learned, limit=EXPLAIN_NEAREST)
        gate_scores = (self.background.gate_scores(lexical, semantic, point)
                       if self.background is not None and semantic is not None else None)
        order = nearest_documents(lexical, semantic, order, gate_scores, EXPLAIN_NEAREST)

        def score(values: NDArray[Any] | None, doc: int) -> float | None:
            return None if values is None else round(float(values[doc]), 4)

        def under(doc: int) -> float | None:
            """How far under the bar the document was (None: it cleared, or no bar)."""
            if gate is not None and gate_scores is not None:
                gap = gate.threshold - float(gate_scores[doc])
            else:
                gaps = [point.lexical_floor - float(lexical[doc])]
                if semantic is not None and point.semantic_floor > 0.0:
                    gaps.append(point.semantic_floor - float(semantic[doc]))
                gap = min(gaps)
            return round(gap, 4) if gap > 0.0 else None

        nearest = [{"name": self.stored.names[int(doc)],
                    "source": self._source_files.path(self.stored.names[int(doc)]),
                    "fused": round(float(fusion.fused[int(doc)]), 4),
                    "gate": score(gate_scores, int(doc)), "under": under(int(doc)),
                    "lexical": score(lexical, int(doc)), "semantic": score(semantic, int(doc)),
                    "classifier": score(learned, int(doc))}
                   for doc in order[:EXPLAIN_NEAREST]]
        floor = point.min_confidence
        decided = deciding_rule(routed, gate, confidence, floor,
                                remark is not None and bool(vetoes(remark, point.remark_veto)))
        same_family = (len(order) > 1 and self.families is not None
                       and int(self.families[int(order[0])]) == int(self.families[int(order[1])]))
        bar = (gate.threshold if gate is not None
               else None if decided != "floors" else point.lexical_floor)
        return {
            "reason": reason,
            "decided": decided,
            "gate": None if gate is None else {
                "best": round(gate.top, 4), "threshold": round(gate.threshold, 4),
                "set_by": gate.guard, "background_alpha": round(self.background.alpha(point), 4)
                if self.background is not None else point.background_alpha,
                "orphan_quantile": point.orphan_quantile,
                "min_confidence": point.min_confidence},
            "confidence": None if confidence is None else {
                "value": round(confidence, 4), "floor": floor},
            "remark": None if remark is None else {
                "probability": round(remark, 4), "veto": point.remark_veto},
            "floors": {"lexical": point.lexical_floor, "semantic": point.semantic_floor},
            "nearest": nearest,
            "next": next_steps(nearest, decided=decided, bar=bar, same_family=same_family),
            "operating_point": point.source or "given",
        }

    def _finite(self, scores: NDArray[Any] | None, what: str) -> None:
        """Scores of a sound index are numbers; NaN or infinity means a damaged array (the
        row a route computes is checked, not the whole matrix at every load)."""
        if scores is not None and not bool(np.isfinite(scores).all()):
            raise self.stored.malformed(f"{what} are not finite numbers: the stored vectors "
                                        "or weights are damaged")

    def _sources(self, routes: list[Route]) -> dict[str, str]:
        """Each routed document's file, for a harness to open, when it is safe to name
        (:mod:`gov.core.routing.sources`: inside the corpus, holding what was indexed)."""
        out = {}
        for route in routes:
            path = self._source_files.path(route.name)
            if path is not None:
                out[route.name] = path
        return out

    def _record_library(self, answers: list[RouteAnswer], started: float) -> None:
        from .. import telemetry

        if not telemetry.enabled():
            return
        share = telemetry.delivered_ms(started) / max(len(answers), 1)  # per prompt
        for answer in answers:
            with telemetry.attempt("library", start=started) as attempt:
                attempt.answered(answer)
                attempt.stop(share)

    # -- scoring for calibration ------------------------------------------------------------
    def score_many(self, prompts: Sequence[str]
                   ) -> tuple[NDArray[np.float64], NDArray[np.float32] | None]:
        """Per-document lexical scores and the prompt vectors (``None``: words only), for
        calibration, which derives every semantic pooling from the vectors itself."""
        vectors = self.scorer.embed(prompts) if self.scorer.degraded is None else None
        return self.scorer.lexical_many(prompts), vectors


