"""The overlap, subsumed and family rules: near-duplicate documents in pairs, narrower
copies of a trigger, and the families (clusters) the pairs make.

The pairs come from :mod:`gov.core.index.neighbours` (one blocked product of the surfaces
with themselves, or the approximate-search graph on a large index), the one detector
routing's families come from too. Each document of a pair gets one finding, at the line of
its surface that collides most (its trigger, when only the triggers alone say the same
thing), naming the other documents most alike first; a cluster of three or more is named
whole. A document whose trigger is a narrower copy of another's gets one subsumed finding.
Each family is one note at its first document, the largest families first, at most
``families_listed`` of them. Documents that already share a ``**Family:**`` are left out:
the router spends one route on a family.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..index.neighbours import Layout, Narrower, Pair
from .documents import LintDocument
from .findings import Finding

RowsOf = Callable[[int, int], NDArray[np.float32]]


def collision(layout: Layout, rows_of: RowsOf, a: int, b: int) -> tuple[int, int, float]:
    """The surfaces of ``a`` and ``b`` most alike under ``rows_of``: (row, row, cosine)."""
    start, count = int(layout.starts[a]), int(layout.counts[a])
    other, others = int(layout.starts[b]), int(layout.counts[b])
    sims = np.asarray(rows_of(start, start + count))[:, other:other + others]
    i, j = np.unravel_index(int(np.argmax(sims)), sims.shape)
    return start + int(i), other + int(j), float(sims[i, j])


# Signals that compare every surface; the trigger signals compare the triggers alone.
COVERAGE = ("meaning", "words")


def signal_of(pair: Pair) -> str:
    """The signal a finding shows: coverage of every surface when it holds, else the
    triggers alone; the strongest of those."""
    shown = [name for name in pair.scores if name in COVERAGE] or list(pair.scores)
    return max(shown, key=lambda name: pair.scores[name])


def _same_family(documents: Sequence[LintDocument], a: int, b: int) -> bool:
    family = documents[a].family
    return family is not None and family == documents[b].family


def _quote(text: str, limit: int = 70) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def overlap_findings(pairs: Sequence[Pair], groups: Sequence[Sequence[int]],
                     documents: Sequence[LintDocument], layout: Layout,
                     rows: dict[str, RowsOf], texts: Sequence[str],
                     lines: Sequence[int | None], emit: Callable[..., Finding | None],
                     ) -> Iterator[Finding | None]:
    """One finding per document in a near-duplicate pair (documents of one family aside)."""
    cluster_of = {member: group for group in groups for member in group}
    partners: dict[int, list[tuple[Pair, int]]] = {}
    for pair in pairs:
        if _same_family(documents, pair.a, pair.b):
            continue
        partners.setdefault(pair.a, []).append((pair, pair.b))
        partners.setdefault(pair.b, []).append((pair, pair.a))
    for doc, found in sorted(partners.items()):
        found.sort(key=lambda item: -item[0].similarity)
        pair, other = found[0]
        signal = signal_of(pair)
        rows_of = rows.get(signal)
        mine_row = theirs_row = None
        cosine = pair.scores[signal]
        if signal not in COVERAGE:  # the triggers alone
            mine_row, theirs_row = int(layout.starts[doc]), int(layout.starts[other])
        elif rows_of is not None:
            mine_row, theirs_row, cosine = collision(layout, rows_of, doc, other)
        how = ", ".join(f"{cover:.2f} by {name}" for name, cover in sorted(pair.scores.items()))
        names = [documents[o].name for _, o in found]
        message = f"near-duplicate of {names[0]!r} ({how})"
        if mine_row is not None and theirs_row is not None:
            where = documents[other].file or documents[other].name
            at = f"{where}:{lines[theirs_row]}" if lines[theirs_row] else where
            said = f", {cosine:.2f}" if signal in COVERAGE else ""
            what = "" if signal in COVERAGE else "the triggers "
            message += (f": {what}{_quote(texts[mine_row])} ~ {_quote(texts[theirs_row])} "
                        f"({at}{said})")
        if len(names) > 1:
            message += f"; also near {', '.join(repr(n) for n in names[1:4])}"
        group = cluster_of.get(doc, [])
        if len(group) > 2:
            message += (f"; one cluster of {len(group)}: "
                        f"{', '.join(documents[m].name for m in group[:6])}"
                        + (", …" if len(group) > 6 else ""))
        line = lines[mine_row] if mine_row is not None else documents[doc].trigger_line
        data: dict[str, Any] = {
            "others": [{"document": documents[o].name,
                        "coverage": {k: round(v, 3) for k, v in p.scores.items()}}
                       for p, o in found],
            "cluster": [documents[m].name for m in group]}
        yield emit("overlap", documents[doc], line, message,
                   f"merge it with {names[0]!r}, sharpen one trigger, or give both one "
                   "Family line", data=data)


def subsumed_findings(narrower: Sequence[Narrower], pairs: Sequence[Pair],
                      documents: Sequence[LintDocument], emit: Callable[..., Finding | None],
                      ) -> Iterator[Finding | None]:
    """One finding per document whose trigger is a narrower copy of another's (not for a
    pair that is a near-duplicate already, nor within one family)."""
    paired = {(pair.a, pair.b) for pair in pairs}
    broader: dict[int, list[Narrower]] = {}
    for item in narrower:
        key = (min(item.narrow, item.broad), max(item.narrow, item.broad))
        if key in paired or _same_family(documents, item.narrow, item.broad):
            continue
        broader.setdefault(item.narrow, []).append(item)
    for doc, found in sorted(broader.items()):
        found.sort(key=lambda item: (-item.meaning, item.broad))
        first = found[0]
        mine, theirs = documents[doc], documents[first.broad]
        where = theirs.file or theirs.name
        at = f"{where}:{theirs.trigger_line}" if theirs.trigger_line else where
        message = (f"the trigger is a narrower copy of the trigger of {theirs.name!r} "
                   f"({first.words:.0%} of its words are in it, {first.meaning:.2f} by "
                   f"meaning), so a prompt it governs fits {theirs.name!r} as well: "
                   f"{_quote(mine.trigger)} within {_quote(theirs.trigger)} ({at})")
        if len(found) > 1:
            message += ("; also within "
                        + ", ".join(repr(documents[item.broad].name) for item in found[1:4])
                        + (", …" if len(found) > 4 else ""))
        yield emit("subsumed", mine, mine.trigger_line, message,
                   f"say what only this document governs, or fold it into {theirs.name!r}",
                   data={"broader": [{"document": documents[item.broad].name,
                                      "words": round(item.words, 3),
                                      "meaning": round(item.meaning, 3)} for item in found]})


@dataclass
class Family:
    """A family of near-duplicates: its documents (positions), the pairs that join them and
    the strongest score of each signal among those pairs."""

    members: list[int]
    pairs: list[Pair]
    signals: dict[str, float] = field(default_factory=dict)


def family_summaries(pairs: Sequence[Pair], groups: Sequence[Sequence[int]],
                     documents: Sequence[LintDocument]) -> list[Family]:
    """Each family of near-duplicates (a cluster that is not one declared family already),
    the largest families first."""
    cluster_of = {member: number for number, group in enumerate(groups) for member in group}
    within: dict[int, list[Pair]] = {}
    for pair in pairs:
        within.setdefault(cluster_of[pair.a], []).append(pair)
    out = []
    for number, group in enumerate(groups):
        declared = {documents[member].family for member in group}
        if len(declared) == 1 and None not in declared:
            continue
        family = Family(list(group), within.get(number, []))
        for pair in family.pairs:
            for name, value in pair.scores.items():
                family.signals[name] = max(family.signals.get(name, 0.0), value)
        out.append(family)
    out.sort(key=lambda family: (-len(family.members), -max(family.signals.values(),
                                                             default=0.0), family.members[0]))
    return out


def family_findings(families: Sequence[Family], documents: Sequence[LintDocument],
                    emit: Callable[..., Finding | None], listed: int
                    ) -> Iterator[Finding | None]:
    """The first ``listed`` families, one note each at the first document's trigger."""
    for family in families[:listed]:
        members = family.members
        first = documents[members[0]]
        names = [documents[m].name for m in members]
        by = ", ".join(f"{name} {value:.2f}" for name, value in
                       sorted(family.signals.items(), key=lambda item: -item[1]))
        message = (f"a family of {len(members)} near-duplicates: "
                   f"{', '.join(repr(n) for n in names[:8])}" + (", …" if len(names) > 8 else "")
                   + f" (by {by}); routing counts them as one candidate")
        yield emit("family", first, first.trigger_line, message,
                   "merge them, or sharpen their triggers if they should route apart",
                   data={"members": names, "signals": {k: round(v, 3) for k, v in
                                                       family.signals.items()},
                         "pairs": [{"documents": [documents[p.a].name, documents[p.b].name],
                                    "scores": {k: round(v, 3) for k, v in p.scores.items()}}
                                   for p in family.pairs[:20]]})
