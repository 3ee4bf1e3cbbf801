"""Why routing may be off for this corpus, as notices that say what to do.

A point carries its provenance (corpus size, separability, model); the index records its
own, and what it measured against the background bank. The reasons are computed from both
when a router opens an index, so they describe the point actually in force. They should be
rare: the shipped default is chosen to transfer, so only a real mismatch speaks.
"""

from __future__ import annotations

from ..index.header import IndexHeader
from .point import OperatingPoint


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
            out.append(f"documents are hard to tell apart (separability {separation:.2f} < 0.15); "
                       "gov lint names the near-duplicates")
        base_sep = measured.get("separability")
        if isinstance(base_sep, int | float) and abs(separation - base_sep) > 0.25:
            out.append(f"separability {separation:.2f} is far from the calibration's {base_sep:.2f}")
    if point.model_id and model_id and point.model_id != model_id:
        out.append(f"operating point was measured with {point.model_id}, index uses {model_id}")
    if point.gate == "background" and model_id:
        measured_with = (header.background or {}).get("params")
        if header.background is None:
            out.append("the index has no background measurements (built without them or by an "
                       "older gov), so only the floors decide; rebuild it with gov index")
        elif isinstance(measured_with, dict) and any(
                measured_with.get(name) != getattr(point, name) for name in measured_with):
            how = ("gov index" if point.source == "default"  # an upgrade changed the default
                   else "gov index --operating-point")
            out.append("the index's background measurements were made for other weights than "
                       f"the operating point's; rebuild it with {how}")
        elif (point.orphan_quantile > 0 and "orphans_scored" not in header.background
              and header.background.get("examples_scored")):
            out.append("the index was built by an older gov, without the floor its example "
                       "lines set against other documents; rebuild it with gov index")
    return out
