"""The overlap rule: near-duplicate documents, in pairs and clusters, with the surfaces
that collide.

The pairs come from :mod:`gov.core.index.neighbours` (one blocked product of the surfaces
with themselves, or the approximate-search graph on a large index). Each document of a
pair gets one finding, at the line of its surface that collides most, naming the other
documents most alike first; a cluster of three or more is named whole. Documents that
already share a ``**Family:**`` are left out: the router spends one route on a family.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from gov.core.index.neighbours import Layout, Pair
from gov.core.lint.documents import LintDocument
from gov.core.lint.findings import Finding

RowsOf = Callable[[int, int], NDArray[np.float32]]


def collision(layout: Layout, rows_of: RowsOf, a: int, b: int) -> tuple[int, int, float]:
    """The surfaces of ``a`` and ``b`` most alike under ``rows_of``: (row, row, cosine)."""
    start, count = int(layout.starts[a]), int(layout.counts[a])
    other, others = int(layout.starts[b]), int(layout.counts[b])
    sims = np.asarray(rows_of(start, start + count))[:, other:other + others]
    i, j = np.unravel_index(int(np.argmax(sims)), sims.shape)
    return start + int(i), other + int(j), float(sims[i, j])


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
        fa, fb = documents[pair.a].family, documents[pair.b].family
        if fa is not None and fa == fb:
            continue
        partners.setdefault(pair.a, []).append((pair, pair.b))
        partners.setdefault(pair.b, []).append((pair, pair.a))
    for doc, found in sorted(partners.items()):
        found.sort(key=lambda item: -item[0].similarity)
        pair, other = found[0]
        signal = max(pair.scores, key=lambda name: pair.scores[name])
        rows_of = rows.get(signal)
        mine_row = theirs_row = None
        cosine = pair.similarity
        if rows_of is not None:
            mine_row, theirs_row, cosine = collision(layout, rows_of, doc, other)
        how = ", ".join(f"{cover:.2f} by {name}" for name, cover in sorted(pair.scores.items()))
        names = [documents[o].name for _, o in found]
        message = f"near-duplicate of {names[0]!r} ({how})"
        if mine_row is not None and theirs_row is not None:
            where = documents[other].file or documents[other].name
            at = f"{where}:{lines[theirs_row]}" if lines[theirs_row] else where
            message += (f": {_quote(texts[mine_row])} ~ {_quote(texts[theirs_row])} ({at}, "
                        f"{cosine:.2f})")
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
