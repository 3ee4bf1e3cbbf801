"""The orphan floor: the corpus's example lines scored against the documents that do not
govern them give a third floor (``orphan_quantile``; 0 turns it off, the shipped default
sets it)."""

from __future__ import annotations

import numpy as np
import pytest

from gov.core.corpus.reader import load_corpus
from gov.core.errors import OperatingPointError
from gov.core.index.surfaces import EXAMPLE
from gov.core.routing.background import MIN_EXAMPLES, Background
from gov.core.routing.indexes import build_index
from gov.core.routing.point import OperatingPoint, default_operating_point, from_json
from tests.conftest import POLICIES
from tests.fake_encoder import HashedWordsEncoder

BANK = np.linspace(0.0, 0.5, 401, dtype=np.float32)
EXAMPLES = np.linspace(0.2, 0.3, 50, dtype=np.float32)
ORPHANS = np.linspace(0.4, 0.9, 50, dtype=np.float32)


def gate(orphans: np.ndarray | None) -> Background:
    return Background(np.zeros(10, dtype=np.float32), BANK, EXAMPLES, {}, orphans)


def test_at_zero_the_orphans_set_nothing() -> None:
    assert OperatingPoint().orphan_quantile == 0.0
    assert 0.0 < default_operating_point().orphan_quantile < 1.0
    point = OperatingPoint(gate="background", background_alpha=0.05)
    assert gate(ORPHANS).threshold(point) == gate(None).threshold(point)
    assert gate(ORPHANS).threshold(point)[1] == "bank"


def test_a_quantile_of_the_orphans_raises_the_threshold_and_says_so() -> None:
    point = OperatingPoint(gate="background", background_alpha=0.05, orphan_quantile=0.5)
    threshold, guard = gate(ORPHANS).threshold(point)
    assert guard == "orphans"
    assert threshold == pytest.approx(float(np.quantile(ORPHANS, 0.5)))
    # A floor below the bank's threshold changes nothing: the strictest guard wins.
    low = OperatingPoint(gate="background", background_alpha=0.05, orphan_quantile=0.01)
    assert gate(ORPHANS).threshold(low) == gate(None).threshold(low)


def test_too_few_orphans_or_an_index_without_them_is_the_bank_alone() -> None:
    point = OperatingPoint(gate="background", background_alpha=0.05, orphan_quantile=0.9)
    few = ORPHANS[:MIN_EXAMPLES - 1]
    assert gate(few).threshold(point) == gate(None).threshold(point)


@pytest.mark.parametrize("value", [-0.1, 1.5, "half"])
def test_a_point_file_with_a_bad_orphan_quantile_is_refused(value: object) -> None:
    data = default_operating_point().to_json()
    data["params"]["orphan_quantile"] = value
    with pytest.raises(OperatingPointError, match=r"p\.json: params\.orphan_quantile"):
        from_json(data, "p.json")


@pytest.mark.slow
def test_the_build_scores_each_example_line_against_the_other_documents(
        fake_encoder: HashedWordsEncoder) -> None:
    built = build_index(load_corpus([POLICIES], warn=lambda _m: None))
    examples = int((np.asarray(built.arrays["surface_kind"]) == EXAMPLE).sum())
    orphans = built.arrays["background_orphan_top"]
    tops = built.arrays["background_example_top"]
    assert orphans.shape == tops.shape == (examples,)
    assert built.header.background is not None
    assert built.header.background["orphans_scored"] == examples
    assert np.all(np.diff(orphans) >= 0) and np.isfinite(orphans).all()
    # The best over the other documents never beats the best over all of them.
    assert orphans.max() <= tops.max() + 1e-6 and orphans.mean() < tops.mean()


def test_silence_set_by_the_orphan_floor_says_so() -> None:
    from gov.core.routing.select import select

    lexical = np.zeros(10)
    semantic = np.linspace(0.0, 0.6, 10)  # best 0.6: over the bank's 0.475, under 0.65
    on = OperatingPoint(gate="background", background_alpha=0.05, lexical_weight=0.0,
                        hub_weight=0.0, orphan_quantile=0.5)
    quiet = select(lexical, semantic, on, background=gate(ORPHANS))
    assert quiet.chosen == [] and quiet.gate is not None and quiet.gate.guard == "orphans"
    assert quiet.reason.endswith("set by the corpus's example lines scored against other "
                                 "documents")
    routed = select(lexical, semantic, on.with_params(orphan_quantile=0.0),
                    background=gate(ORPHANS))
    assert routed.chosen and routed.chosen[0].doc == 9
