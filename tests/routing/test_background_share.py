"""The background gate's share of the bank can grow with the corpus's size
(``background_alpha_growth``): the bank's best score is a maximum over every document, so one
share is stricter on a large corpus. The shipped default grows it past 200 documents (real
libraries), where a governed prompt's score is its own document's and the bank's is the best of
thousands."""

from __future__ import annotations

import numpy as np
import pytest

from gov.core.errors import OperatingPointError
from gov.core.routing.background import ALPHA_BASE_DOCUMENTS, ALPHA_MAX_DOCUMENTS, Background
from gov.core.routing.point import OperatingPoint, default_operating_point, from_json


def background(documents: int) -> Background:
    bank = np.linspace(0.0, 1.0, 401, dtype=np.float32)  # sorted best scores of the bank
    return Background(np.zeros(documents, dtype=np.float32), bank, None, {})


@pytest.mark.parametrize(("documents", "factor"), [
    (5, 1.0), (ALPHA_BASE_DOCUMENTS, 1.0), (4 * ALPHA_BASE_DOCUMENTS, 2.0),
    (ALPHA_MAX_DOCUMENTS, 10 ** 0.5),
    (100_000, 10 ** 0.5)])
def test_the_share_grows_with_the_square_root_of_size_between_the_measured_sizes(
        documents: int, factor: float) -> None:
    point = OperatingPoint(gate="background", background_alpha=0.03, background_alpha_growth=0.5)
    gate = background(documents)
    assert gate.alpha(point) == pytest.approx(0.03 * factor)
    threshold, guard = gate.threshold(point)
    assert guard == "bank"
    assert threshold == pytest.approx(float(np.quantile(gate.bank_top, 1 - 0.03 * factor)))


def test_without_growth_the_share_is_the_same_at_every_size_and_never_passes_one() -> None:
    flat = OperatingPoint(gate="background", background_alpha=0.05)
    assert {background(n).alpha(flat) for n in (3, 50, 5000)} == {0.05}
    steep = OperatingPoint(gate="background", background_alpha=0.9, background_alpha_growth=2.0)
    assert background(1000).alpha(steep) == 1.0
    # A larger corpus lets more of the bank through: a lower threshold.
    grown = OperatingPoint(gate="background", background_alpha=0.03, background_alpha_growth=0.5)
    assert background(1500).threshold(grown)[0] < background(150).threshold(grown)[0]
    # Under the base size, every corpus keeps the base share.
    assert background(150).alpha(grown) == background(20).alpha(grown) == 0.03


@pytest.mark.parametrize("value", [-0.5, 2.5, "fast", True])
def test_a_point_file_with_a_bad_growth_is_refused(value: object) -> None:
    data = default_operating_point().to_json()
    data["params"]["background_alpha_growth"] = value
    with pytest.raises(OperatingPointError, match=r"p\.json: params\.background_alpha_growth"):
        from_json(data, "p.json")


def test_the_shipped_share_grows_only_past_the_base_size() -> None:
    point = default_operating_point()
    assert point.background_alpha_growth > 0
    assert background(ALPHA_BASE_DOCUMENTS).alpha(point) == point.background_alpha
    assert background(1684).alpha(point) > 3 * point.background_alpha
