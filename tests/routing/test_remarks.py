"""Remarks: a prompt that reads as a remark about a topic ("thanks, the deploy works now")
routes nothing, however near a document it scores; a corpus whose own lines are remarks (a
"thank you" intent) keeps routing them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gov.core.errors import OperatingPointError
from gov.core.index.stored import open_stored
from gov.core.routing.background import Background
from gov.core.routing.indexes import load_index
from gov.core.routing.point import OperatingPoint, default_operating_point, from_json
from gov.core.routing.remarks import (
    LEAD_INS,
    REMARKS,
    REQUESTS,
    fit_probe,
    probabilities,
    training_texts,
    vetoes,
)
from gov.core.routing.select import deciding_rule, route_many, select


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def clusters(rng: np.random.Generator, centre: np.ndarray, n: int) -> np.ndarray:
    return unit(centre[None, :] + 0.1 * rng.standard_normal((n, centre.size)))


def test_the_training_texts_are_the_same_every_time_and_fully_expanded() -> None:
    remarks, requests = training_texts()
    assert len(remarks) == REMARKS and len(requests) == REQUESTS + LEAD_INS
    assert not any("{" in t or "}" in t for t in remarks + requests)
    assert len(set(remarks) & set(requests)) == 0
    training_texts.cache_clear()
    assert training_texts() == (remarks, requests)


def test_the_probe_tells_remarks_from_requests_and_leaves_out_remarks_a_corpus_governs() -> None:
    rng = np.random.default_rng(3)
    remark_centre, request_centre, thanks = (unit(rng.standard_normal((3, 16))))
    remarks = np.vstack([clusters(rng, remark_centre, 80), clusters(rng, thanks, 40)])
    requests = clusters(rng, request_centre, 120)
    lines = clusters(rng, request_centre, 10)
    weights, bias = fit_probe(remarks, requests, lines)
    probe = probabilities(np.vstack([remark_centre, request_centre, thanks]), weights, bias)
    assert probe[0] > 0.9 and probe[1] < 0.1 and probe[2] > 0.9
    # A corpus whose own lines are thanks: those remarks are left out, and its lines count
    # as requests, so thanks no longer read as a remark there.
    governed = fit_probe(remarks, requests, np.vstack([lines, clusters(rng, thanks, 10)]))
    assert probabilities(thanks[None, :], *governed)[0] < 0.5
    assert probabilities(remark_centre[None, :], *governed)[0] > 0.9


def test_the_veto_is_off_at_zero_and_holds_at_or_over_its_value() -> None:
    assert not vetoes(0.99, 0.0)
    assert vetoes(0.8, 0.8) and not vetoes(0.79, 0.8)
    assert vetoes(np.array([0.1, 0.85]), 0.8).tolist() == [False, True]


def test_a_remark_abstains_with_its_reason_in_one_prompt_and_in_many() -> None:
    point = OperatingPoint(lexical_floor=0.0, remark_veto=0.8)
    lexical = np.array([[0.9, 0.1], [0.9, 0.1]])
    semantic = np.array([[0.8, 0.2], [0.8, 0.2]])
    routed = select(lexical[0], semantic[0], point, remark=0.3)
    assert [c.doc for c in routed.chosen][:1] == [0]
    vetoed = select(lexical[0], semantic[0], point, remark=0.93)
    assert vetoed.chosen == []
    assert vetoed.reason.startswith("abstained: the prompt reads as a remark")
    assert "0.930" in vetoed.reason
    assert select(lexical[0], semantic[0], point.with_params(remark_veto=0.0),
                  remark=0.99).chosen != []
    many = route_many(lexical, semantic, point, remarks=np.array([0.3, 0.93]))
    assert many.routed.tolist() == [True, False]
    assert deciding_rule(False, None, None, None, remark=True) == "remark"


@pytest.mark.parametrize("value", [-0.1, 1.5, "high", None])
def test_a_point_file_with_a_bad_remark_veto_is_refused(value: object) -> None:
    data = default_operating_point().to_json()
    data["params"]["remark_veto"] = value
    with pytest.raises(OperatingPointError, match=r"p\.json: params\.remark_veto"):
        from_json(data, "p.json")


def test_the_shipped_point_vetoes_remarks() -> None:
    assert 0.5 <= default_operating_point().remark_veto < 1.0


@pytest.mark.slow
@pytest.mark.model
def test_the_real_model_probe_silences_remarks_on_the_examples(example_index: Path) -> None:
    stored = open_stored(example_index)
    background = Background.load(stored)
    assert background is not None and background.remark_weights is not None
    assert background.remark_weights.shape == (stored.array("embeddings").shape[1],)
    router = load_index(example_index)
    for remark in ("thanks, the deploy to production went fine",
                   "ok the database migration is merged, closing the ticket"):
        answer = router.route(remark, record=False, explain=True)
        assert answer.names == [], answer.explain
        assert answer.explain is not None and answer.explain["remark"] is not None
        assert answer.explain["remark"]["probability"] >= answer.explain["remark"]["veto"]
    # A request on the same topic is not read as a remark.
    answer = router.route("roll back the production deploy, checkout is down",
                          record=False, explain=True)
    assert answer.explain is not None
    assert answer.explain["remark"]["probability"] < answer.explain["remark"]["veto"]
