"""Why a corpus may not behave like the one an operating point was measured on.

A point carries its provenance (corpus size, separability, model); the index records its
own. The reasons are computed from both when a router opens an index, so they describe
the point actually in force.
"""

from __future__ import annotations

from gov.core.index.header import IndexHeader
from gov.core.routing.point import OperatingPoint


def reasons(point: OperatingPoint, header: IndexHeader) -> list[str]:
    """Each reason the point's figures may not hold for this index, as one sentence."""
    out = []
    size = header.corpus.size
    separation = header.separability
    model_id = header.model_id
    measured = point.provenance
    base_size = measured.get("corpus_size")
    if isinstance(base_size, int) and base_size > 0 and size > 0 and (
        size >= 4 * base_size or size * 4 <= base_size
    ):
        out.append(f"corpus has {size} documents; the operating point was measured on {base_size}")
    if separation is not None:
        if separation < 0.15:
            out.append(f"documents are hard to tell apart (separability {separation:.2f} < 0.15)")
        base_sep = measured.get("separability")
        if isinstance(base_sep, int | float) and abs(separation - base_sep) > 0.25:
            out.append(f"separability {separation:.2f} is far from the calibration's {base_sep:.2f}")
    if point.model_id and model_id and point.model_id != model_id:
        out.append(f"operating point was measured with {point.model_id}, index uses {model_id}")
    return out
