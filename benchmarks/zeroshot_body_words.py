#!/usr/bin/env python3
"""Words of the bodies as evidence: measured with each corpus held out, not shipped.

gov's words evidence is TF-IDF over the routing surfaces (trigger and example lines); the
bodies count only by meaning (one summary vector). Here each document's body passages get
a TF-IDF of their own, and a prompt's cosine to a document's body, times ``w``, is added to
its lexical score for that document, everywhere the lexical score is used: the gate, the
bank, the example-line and orphan floors (all measured again, as ``fit_background`` would),
the ranking and so the confidence features. ``--ranking-only`` adds it to the ranking alone
and keeps the shipped gate. ``--features KIND`` keeps gate and ranking as shipped (w 0) and
gives the confidence model more features instead: ``scores``, the first document's body-word
score and whether the best body is the first document's; ``rarity``, how rare that score is
among the bank's best body-word scores (as the bank rarity reads the gate score);
``rarity-agree``, both of the last.

For each corpus X the confidence model is fitted on the other corpora's routes at each
``w``, and ``w`` (``WEIGHTS``, 0 = the shipped default), the floor and, with ``--joint``, the
bank share and orphan quantile are chosen on the other corpora by ``zeroshot.objective``
among the choices under which ``examples/``' golden file passes (not required in the fold
holding it out); X is measured at that choice::

    nice -n 10 python benchmarks/zeroshot_body_words.py --eval-dir ../shared/eval [--joint]
        [--ranking-only | --features scores|rarity|rarity-agree]

It prints only (``docs/quality.md``, "Tried").
"""

from __future__ import annotations

import copy
import itertools
from typing import Any

import numpy as np
from numpy.typing import NDArray
from zeroshot import (
    build,
    corpora,
    corpus_options,
    label,
    met,
    objective,
    oiax_top1,
    work_folder,
)
from zeroshot_confidence import fit
from zeroshot_confidence_floor import (
    FLOORS,
    Rows,
    Shares,
    golden_passes,
    rows,
    share_grid,
)
from zeroshot_loco import Measured, golden_prompts

WEIGHTS = [0.0, 0.5, 1.0, 2.0]


class BodyWords:
    """TF-IDF over each document's body passages, scoring any text against every body."""

    def __init__(self, measured: Measured) -> None:
        from gov.core.corpus.passages import passages
        from gov.core.corpus.reader import load_corpus
        from gov.core.encode.tfidf import LexicalScorer
        from gov.core.encode.tfidf import fit as fit_tfidf

        read = load_corpus([str(measured.corpus.documents)], warn=lambda _: None).documents
        texts = {doc.name: " ".join(passages(doc.text)) for doc in read}
        self.scorer = LexicalScorer(fit_tfidf([texts[n] for n in measured.stored.names]))
        self.known: dict[str, NDArray[np.float64]] = {}

    def scores(self, text: str) -> NDArray[np.float64]:
        if text not in self.known:
            self.known[text] = self.scorer.scores(text)
        return self.known[text]

    def many(self, texts: list[str]) -> NDArray[np.float64]:
        return np.stack([self.scores(t) for t in texts])


class WithBodies:
    """A scorer whose lexical scores carry ``weight`` x the body-word score: per document
    (``lexical_many``), and per surface as its document's (``lexical_surfaces``, so a
    document's best surface carries it too)."""

    def __init__(self, scorer: Any, body: BodyWords, weight: float, owners: NDArray[Any]):
        self._scorer, self._body, self._weight, self._owners = scorer, body, weight, owners

    def __getattr__(self, name: str) -> Any:
        return getattr(self._scorer, name)

    def lexical_many(self, texts: list[str]) -> NDArray[np.float64]:
        return np.asarray(self._scorer.lexical_many(texts) + self._weight * self._body.many(texts))

    def lexical_surfaces(self, text: str) -> NDArray[np.float64]:
        return np.asarray(self._scorer.lexical_surfaces(text)
                          + self._weight * self._body.scores(text)[self._owners])


def with_bodies(measured: Measured, body: BodyWords, weight: float) -> Measured:
    """``measured`` with body words in every lexical score."""
    out = copy.copy(measured)
    owners = np.asarray(measured.stored.surface_doc, dtype=np.int64)
    out.scorer = WithBodies(measured.scorer, body, weight, owners)  # type: ignore[assignment]
    out.lexical = measured.lexical + weight * body.many(measured.corpus.prompts)
    return out


def ranking_only(measured: Measured, body: BodyWords, weight: float, point: Any,
                 shares: list[Shares]) -> dict[Shares, Rows]:
    """The shipped gate, with the ranking (and so the confidence features) on body words."""
    return rows(measured, point, shares,
                lexical=measured.lexical + weight * body.many(measured.corpus.prompts))


def feature_maker(measured: Measured, body: BodyWords, kind: str) -> Any:
    """``rows``' ``extra``: the body-word confidence features of ``kind`` for the scored
    prompts of ``measured``."""
    scores = body.many(measured.corpus.prompts)
    bank = np.sort(body.many(measured.bank_texts).max(axis=1))

    def extra(s: Any) -> NDArray[np.float64]:
        first = np.maximum(s.ranked.top1, 0)
        own = scores[np.arange(first.size), first]
        agree = ((scores.argmax(axis=1) == first) & (scores.max(axis=1) > 0)).astype(float)
        exceed = bank.size - np.searchsorted(bank, own, side="left")
        rarity = -np.log10((1.0 + exceed) / (bank.size + 1.0))
        columns = {"scores": [own, agree], "rarity": [rarity],
                   "rarity-agree": [rarity, agree]}[kind]
        return np.column_stack(columns)

    return extra


Table = dict[float, dict[Shares, Rows]]


def choose(tables: dict[str, Table], train: list[str], fits: dict[float, list[float]],
           golden: Table | None) -> tuple[float, Shares, float]:
    """The weight, shares and floor with the best mean objective over ``train`` (ties: the
    lower weight, the first shares, the lower floor) among those that keep the golden file."""
    best: tuple[float, Shares, float] = (0.0, next(iter(tables[train[0]][0.0])), 0.0)
    score = -np.inf
    for weight, shares in itertools.product(fits, tables[train[0]][0.0]):
        for floor in FLOORS:
            if golden is not None and not golden_passes(golden[weight][shares], fits[weight],
                                                        floor):
                continue
            mean = float(np.mean([objective(tables[n][weight][shares].at(fits[weight], floor), n)
                                  for n in train]))
            if mean > score + 1e-12:
                best, score = (weight, shares, floor), mean
    return best


def main() -> int:
    from gov.core.routing.point import default_operating_point

    parser = corpus_options(__doc__)
    parser.add_argument("--joint", action="store_true",
                        help="choose the bank share and orphan quantile too")
    parser.add_argument("--ranking-only", action="store_true",
                        help="body words in the ranking only, the shipped gate")
    parser.add_argument("--features", choices=["scores", "rarity", "rarity-agree"],
                        help="body words as confidence features only (w 0)")
    options = parser.parse_args()
    weights = [0.0] if options.features else WEIGHTS
    point = default_operating_point()
    shipped, shares = share_grid(point, options.joint)
    work = work_folder(options.work, "gov-body-words-")

    def table(measured: Measured) -> Table:
        body = BodyWords(measured)
        if options.features:
            return {0.0: rows(measured, point, shares,
                              extra=feature_maker(measured, body, options.features))}
        if options.ranking_only:
            return {w: ranking_only(measured, body, w, point, shares) for w in WEIGHTS}
        return {w: rows(with_bodies(measured, body, w), point, shares) for w in WEIGHTS}

    tables: dict[str, Table] = {}
    oiax: dict[str, float] = {}
    golden = None
    for corpus in corpora(options.eval_dir, options.extra_corpus):
        index = work / f"{corpus.name}.index"
        if not index.is_file():
            build(corpus, work)
        tables[corpus.name] = table(Measured(corpus, index))
        oiax[corpus.name] = oiax_top1(index, corpus)
        if corpus.name == "examples":
            golden = table(Measured(golden_prompts(), index))
    print("| held out | w, shares, floor chosen on the others | top-1 / FA | target |\n"
          "|---|---|---|---|")
    held_out, targets = [], 0
    for held in tables:
        train = [n for n in tables if n != held]
        fits = {w: fit([tables[n][w][shipped].part() for n in train]) for w in weights}
        weight, chosen, floor = choose(tables, train, fits,
                                       None if held == "examples" else golden)
        figures = tables[held][weight][chosen].at(fits[weight], floor)
        held_out.append(objective(figures, held))
        targets += met(held, figures, oiax[held])
        print(f"| {label(held)} | w {weight:g}, α {chosen[0]:g}, q {chosen[1]:g}, floor {floor:g} "
              f"| {figures['top1']:.3f} / {figures['fa']:.3f} | "
              f"{'met' if met(held, figures, oiax[held]) else 'missed'} |")
    print(f"\nheld out: mean objective {np.mean(held_out):.3f}, targets met {targets}")
    fits = {w: fit([t[w][shipped].part() for t in tables.values()]) for w in weights}
    weight, chosen, floor = choose(tables, list(tables), fits, golden)
    figures = {n: t[weight][chosen].at(fits[weight], floor) for n, t in tables.items()}
    print(f"chosen on every corpus: w {weight:g}, α {chosen[0]:g}, q {chosen[1]:g}, floor "
          f"{floor:g}: mean objective {np.mean([objective(f, n) for n, f in figures.items()]):.3f}"
          f", targets met {sum(met(n, f, oiax[n]) for n, f in figures.items())}")
    for name, f in figures.items():
        print(f"- {label(name)}: {f['top1']:.3f} / {f['fa']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
