"""Lint a corpus or an index: every rule, one pass each, findings in reading order.

:func:`lint_paths` is what ``gov lint PATHS`` runs: it reads the corpus (keeping why any
file was skipped), uses the index when it is fresh for the corpus (else builds one in
memory, reusing the index's vectors for unchanged surfaces), and lints. :func:`lint_index`
lints an index file alone: it stores each document's whole text, so every line number
is found again.

The pairwise rules (overlap, subsumed, family, shadowed) share one blocked product of the
surfaces with themselves. Past ``exact_surface_limit`` surfaces that product is minutes of
work: the overlap rule then uses the index's approximate-search graph when it has one, and
the report says which rules (or parts of rules) were skipped and why.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..corpus.document import Corpus, Skip
from ..errors import GovError
from ..index import neighbours
from ..index.listing import skipped_files
from ..index.stored import StoredIndex, open_stored
from ..routing.router import Router
from . import surface_rules
from .config import LintConfig, find_config, load_config
from .documents import LintDocument, lint_document
from .findings import Finding, LintReport, Skipped, ordered
from .hubs import bank_prompts, hub_counts
from .overlap import (
    family_findings,
    family_summaries,
    overlap_findings,
    subsumed_findings,
)
from .shadowed import ShadowFinder

if TYPE_CHECKING:
    from ..corpus.names import OnDuplicate

Problems = Sequence[Skip]


def _shown(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


def _documents(stored: StoredIndex, corpus: Corpus | None) -> list[LintDocument]:
    """Each indexed document with its lines, its file shown from the current folder (as the
    corpus was read, when it was: an index fresh for a copied corpus names the originals)."""
    read = {doc.name: doc for doc in corpus.documents} if corpus else {}
    base = stored.base
    out = []
    for record in stored.documents:
        fresh = read.get(record.name)
        source = fresh.source if fresh is not None else record.source
        if fresh is None and source and not source.startswith("<stdin>"):
            path, _, number = source.rpartition(":") if record.kind == "jsonl" else (source, "", "")
            shown = path if os.path.isabs(path) else _shown(base / path)
            source = f"{shown}:{number}" if number else shown
        out.append(lint_document(record.name, source, record.kind, record.trigger,
                                 record.examples, record.family, record.depends_on,
                                 fresh.text if fresh is not None else stored.text(record.name),
                                 fresh.lint_ignore if fresh is not None and record.kind == "jsonl"
                                 else None))
    return out


def problem_findings(problems: Problems, config: LintConfig) -> list[Finding]:
    """Files the reader skipped: no description (trigger-missing), or unreadable (not UTF-8,
    binary, too large, malformed front matter). Files that are not documents (a README, a
    LICENSE, a skill's supporting files) never reach here: the reader does not read them."""
    out = []
    for skip in problems:
        missing = skip.reason == "no description"
        rule = "trigger-missing" if missing else "unreadable"
        if skip.reason == "duplicate name" or not config.enabled(rule):
            continue
        fix = ("add an **Agent-trigger:** line (or a front matter 'description') saying when it "
               "applies" if missing else "fix the file so gov can read it")
        out.append(Finding(rule, config.severity(rule), None, skip.file, skip.line or 1,
                           f"skipped, never routed: {skip.problem}", fix))
    return out


class _Run:
    """One lint run: the index, its documents, the config, and the findings so far."""

    def __init__(self, stored: StoredIndex, documents: list[LintDocument], config: LintConfig,
                 exact: bool) -> None:
        self.stored = stored
        self.documents = documents
        self.config = config
        self.exact = exact
        self.router = Router(stored)
        self.findings: list[Finding] = []
        self.skipped: list[Skipped] = []
        self.families: dict[str, int] = {}
        self.layout = neighbours.Layout.of(np.asarray(stored.surface_doc),
                                           np.asarray(stored.surface_kind), len(documents))
        self.texts = [text for doc in documents for text in (doc.trigger, *doc.examples)]
        self.lines = [line for doc in documents for line in doc.surface_lines()]
        if len(self.texts) != self.layout.surfaces:
            raise GovError(f"{stored.where}: the index's surfaces do not match its documents; "
                           "rebuild it")
        self.vectors = self.router.scorer.embeddings

    def emit(self, rule: str, doc: LintDocument | None, line: int | None, message: str,
             fix: str, data: dict[str, Any] | None = None, file: str | None = None
             ) -> Finding | None:
        if not self.config.enabled(rule) or (doc is not None and rule in doc.ignore):
            return None
        return Finding(rule, self.config.severity(rule), doc.name if doc else None,
                       doc.file if doc else file, line, message, fix, data or {})

    def add(self, findings: Iterable[Finding | None]) -> None:
        """Keep the findings the rules made (``None``: a rule switched off)."""
        self.findings.extend(finding for finding in findings if finding is not None)

    def skip(self, rule: str, reason: str) -> None:
        if self.config.enabled(rule):
            self.skipped.append(Skipped(rule, reason))

    # -- the rules ------------------------------------------------------------------------
    def problems(self, problems: Problems) -> None:
        self.findings.extend(problem_findings(problems, self.config))

    def per_document(self, retired: set[str]) -> None:
        config = self.config
        arrays, _ = self.stored.lexical_arrays()
        stop_words = frozenset(arrays.stop_words)
        shared = surface_rules.boilerplate(self.documents, config)
        routable = {doc.name for doc in self.documents}
        sizes = Counter(doc.family for doc in self.documents if doc.family)
        counter = surface_rules.token_counter() if config.max_tokens else None
        for position, doc in enumerate(self.documents):
            self.add(surface_rules.trigger_findings(doc, self.emit, config, stop_words, shared))
            cosines = None
            if self.vectors is not None and doc.examples:
                start = int(self.layout.starts[position])
                block = np.asarray(self.vectors[start:start + 1 + len(doc.examples)])
                cosines = (block[1:] @ block[0]).tolist()
            self.add(surface_rules.example_findings(doc, self.emit, config, cosines))
            self.add(surface_rules.relation_findings(doc, self.emit, routable, retired, sizes))
            if config.max_tokens:
                self.add([surface_rules.budget_finding(doc, self.emit, config.max_tokens,
                                                       counter)])

    def pairwise(self) -> list[list[int]]:
        """Overlap, subsumed, family and shadowed; returns the clusters of near-duplicates."""
        config = self.config
        want_overlap, want_shadow = config.enabled("overlap"), config.enabled("shadowed")
        want_subsumed, want_family = config.enabled("subsumed"), config.enabled("family")
        if not (want_overlap or want_shadow or want_subsumed or want_family):
            return []
        layout, vectors = self.layout, self.vectors
        arrays, _ = self.stored.lexical_arrays()
        lexical = (arrays.col_ptr, arrays.col_rows, arrays.col_data) if arrays.n_rows else None
        thresholds = config.duplicates()
        triggers = [doc.trigger for doc in self.documents]
        limit = config.whole("exact_surface_limit")
        scorer = self.router.scorer
        shadow = None
        if self.exact or layout.surfaces <= limit:
            if want_shadow:
                texts = self.texts
                shadow = ShadowFinder(
                    layout, self.router.operating_point, scorer.body_vectors,
                    scorer.body_present, vectors, self.router.families,
                    config.whole("trigger_check_min_examples"), self.router.background,
                    lambda start, stop: np.stack([scorer.body_word_scores(texts[row])
                                                  for row in range(start, stop)]))
            found = neighbours.detect(layout, vectors, lexical, thresholds, texts=triggers,
                                      visit=shadow.visit if shadow else None)
        else:
            size = f"{layout.surfaces:,} surfaces, over exact_surface_limit ({limit:,})"
            self.skip("shadowed", f"{size}: routing every surface is not done at this size "
                      "(gov lint --exact does it)")
            found = neighbours.Found([])
            if vectors is not None and scorer.nearest is not None:
                found = neighbours.graph_detect(layout, vectors, scorer.nearest, thresholds,
                                                texts=triggers)
                self.skip("overlap", f"{size}: pairs by meaning come from the approximate-"
                          "search graph; pairs by words only where triggers are identical")
            else:
                for rule in ("overlap", "subsumed"):
                    self.skip(rule, f"{size} and no approximate-search graph: only identical "
                              "triggers are compared (gov index --ann, or gov lint --exact)")
            signals: dict[str, dict[tuple[int, int], float]] = {"words": self._identical()}
            for pair in found.pairs:
                for name, value in pair.scores.items():
                    signals.setdefault(name, {})[(pair.a, pair.b)] = value
            found = neighbours.Found(neighbours.merge(signals), found.narrower)
        pairs = found.pairs
        groups = neighbours.clusters(pairs, layout.documents)
        if want_overlap:
            rows: dict[str, Callable[..., Any]] = {}
            if vectors is not None:
                rows["meaning"] = neighbours.dense_rows(vectors)
            if lexical is not None:
                rows["words"] = neighbours.sparse_rows(*lexical, layout.surfaces)
            self.add(overlap_findings(pairs, groups, self.documents, layout, rows, self.texts,
                                      self.lines, self.emit))
        if want_subsumed:
            self.add(subsumed_findings(found.narrower, pairs, self.documents, self.emit))
        families = family_summaries(pairs, groups, self.documents)
        listed = min(len(families), config.whole("families_listed")) if want_family else 0
        self.families = {"families": len(families),
                         "documents": sum(len(family.members) for family in families),
                         "listed": listed}
        if want_family:
            self.add(family_findings(families, self.documents, self.emit, listed))
        if shadow is not None:
            self.shadowed(shadow, groups)
        return groups

    def _identical(self) -> dict[tuple[int, int], float]:
        """Documents whose surfaces are the same words (the check that needs no product)."""
        seen: dict[tuple[str, ...], int] = {}
        found = {}
        for position, doc in enumerate(self.documents):
            key = tuple(sorted(surface_rules.normalised(text)
                               for text in (doc.trigger, *doc.examples)))
            if key in seen:
                found[(seen[key], position)] = 1.0
            else:
                seen[key] = position
        return found

    def shadowed(self, shadow: ShadowFinder, groups: list[list[int]]) -> None:
        cluster = {member: number for number, group in enumerate(groups) for member in group}
        for item in shadow.shadows:
            mine, theirs = self.documents[item.owner], self.documents[item.taker]
            if (mine.family is not None and mine.family == theirs.family) or (
                    item.owner in cluster and cluster.get(item.taker) == cluster[item.owner]):
                continue
            what = "the trigger" if item.surface == int(self.layout.starts[item.owner]) \
                else "the example"
            place = (f"this document ranks {item.own_rank}" if item.own_rank
                     else "this document is not a candidate")
            self.add([self.emit(
                "shadowed", mine, self.lines[item.surface],
                f"{what} {self.texts[item.surface]!r}, routed as a prompt, goes to "
                f"{theirs.name!r} (score {item.taker_score:.3f}); {place} without this line",
                f"make the line specific to this document, or move it to {theirs.name!r}",
                data={"taker": theirs.name, "taker_score": round(item.taker_score, 4),
                      "own_score": round(item.own_score, 4), "own_rank": item.own_rank})])

    def hubs(self) -> None:
        if not self.config.enabled("hub"):
            return
        # The background gate's threshold is set by this same bank: it lets through its own
        # small share of it (3 % at 20 documents, more on a larger corpus), so a share of the
        # bank means nothing there; a document that takes hub_through_share of what gets
        # through is (tests/lint's planted hub takes 14 of the 29 that get through).
        gated = (self.router.operating_point.gate == "background"
                 and self.router.background is not None)
        documents = len(self.documents)
        if gated and documents < 2:
            self.skip("hub", "one document: every prompt that clears the background gate is "
                      "its own, so there is no share to compare")
            return
        prompts = bank_prompts()
        counts = hub_counts(self.router, prompts)
        least = self.config.whole("hub_min_prompts")
        through = len({i for count in counts.values() for i in count.prompts})
        share, of = ("hub_through_share", through) if gated else ("hub_share", len(prompts))
        fraction = self.config.threshold(share)
        if gated:  # and at least twice a document's fair share (two documents: all of it)
            fraction = max(fraction, 2.0 / documents)
        least = max(least, int(np.ceil(fraction * of)))
        for position, count in sorted(counts.items()):
            if count.routed < least:
                continue
            doc = self.documents[position]
            shown = ", ".join(repr(prompts[i]) for i in count.prompts[:3])
            routed = (f"routed for {count.routed} of the {through} generic prompts that clear "
                      f"the background gate (of {len(prompts)} that no document governs; "
                      if gated else f"routed for {count.routed} of {len(prompts)} generic "
                      "prompts that no document governs (")
            self.add([self.emit(
                "hub", doc, doc.trigger_line,
                f"{routed}e.g. {shown}); ranks first for {count.first}",
                "narrow the trigger and examples to the situations this document governs",
                data={"first": count.first, "routed": count.routed, "prompts": len(prompts),
                      "through": through})])


def lint_index(index: StoredIndex | str | os.PathLike[str], *,
               config: LintConfig | None = None, exact: bool = False,
               corpus: Corpus | None = None) -> LintReport:
    """Lint an index (or the corpus it was built from, ``corpus``, read just now)."""
    started = time.perf_counter()
    stored = index if isinstance(index, StoredIndex) else open_stored(index)
    if config is None:
        roots = [str(stored.base / root) for root in stored.header.roots if root != "-"]
        config = load_config(find_config(roots))
    documents = _documents(stored, corpus)
    run = _Run(stored, documents, config, exact)
    if corpus is not None:
        run.problems(corpus.problems)
        retired = {doc.name for doc in corpus.retired}
    else:
        run.problems([skip._replace(file=_shown(stored.base / skip.file))
                      for skip in skipped_files(stored)])
        retired = set(stored.header.corpus.retired)
    phases = {"documents": time.perf_counter() - started}
    for name, phase in (("rules", lambda: run.per_document(retired)),
                        ("pairwise", run.pairwise), ("hubs", run.hubs)):
        begun = time.perf_counter()
        phase()
        phases[name] = time.perf_counter() - begun
    source = str(stored.path) if stored.path else ", ".join(stored.header.roots)
    return LintReport(ordered(run.findings), run.skipped, len(documents),
                      time.perf_counter() - started, source, phases, run.families)


def lint_corpus(corpus: Corpus, *, config: LintConfig | None = None,
                index: str | os.PathLike[str] | None = None, exact: bool = False) -> LintReport:
    """Lint a corpus read with :func:`gov.core.corpus.reader.load_corpus`: with the index at
    ``index`` when it is fresh for it, else an index built in memory (reusing ``index``'s
    vectors for unchanged surfaces)."""
    from ..routing.indexes import build_index

    started = time.perf_counter()
    if config is None:
        config = load_config(find_config(corpus.roots))
    if not corpus.documents:  # nothing routable: what was skipped is all there is to say
        return LintReport(ordered(problem_findings(corpus.problems, config)), [], 0,
                          time.perf_counter() - started, ", ".join(corpus.roots))
    stored = None
    if index is not None and Path(index).is_file():
        try:
            opened = open_stored(index)
            if opened.fingerprint == corpus.fingerprint:
                stored = opened
        except GovError:
            stored = None
    if stored is None:
        built = build_index(corpus, previous=index if index is not None and Path(index).is_file()
                            else None)
        stored = StoredIndex(built)
    index_seconds = time.perf_counter() - started
    report = lint_index(stored, config=config, exact=exact, corpus=corpus)
    report.phases = {"index": index_seconds, **report.phases}
    report.seconds = time.perf_counter() - started
    report.source = ", ".join(corpus.roots)
    return report


def lint_paths(paths: Sequence[str | os.PathLike[str]], *, config: LintConfig | None = None,
               index: str | os.PathLike[str] | None = None, exact: bool = False,
               warn: Callable[[str], None] | None = None,
               on_duplicate: OnDuplicate = "qualify") -> LintReport:
    """Read the corpus under ``paths`` and lint it (``gov lint PATHS``); a skipped file is
    a finding, not a warning."""
    from ..corpus.reader import load_corpus

    corpus = load_corpus(paths, warn=warn or (lambda _message: None), on_duplicate=on_duplicate)
    if config is None:
        config = load_config(find_config(paths))
    return lint_corpus(corpus, config=config, index=index, exact=exact)
