"""A few labels: the false-alarm bound, the never-worse rule and the one-line summary
(mechanics on the stand-in encoder; the curve on the real model is benchmarks/few_labels.py)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from gov.core.calibration import fa_bound, few, held_out
from gov.core.calibration.calibrate import calibrate_index
from gov.core.calibration.labelled import read_labelled_jsonl
from gov.core.routing.indexes import load_index
from gov.core.routing.point import load_operating_point
from tests.conftest import EXAMPLES

LABELLED = (EXAMPLES / "labelled.jsonl").read_bytes().splitlines(keepends=True)


def binomial_cdf(k: int, n: int, p: float) -> float:
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k + 1))


@pytest.mark.parametrize(("k", "n"), [(0, 8), (0, 45), (1, 20), (3, 50), (10, 100)])
def test_the_bound_is_the_clopper_pearson_upper_limit(k: int, n: int) -> None:
    bound = fa_bound.fa_upper(k, n)
    # At the bound, seeing k or fewer false alarms has probability 1 - the level.
    assert binomial_cdf(k, n, bound) == pytest.approx(1 - fa_bound.CONFIDENCE, abs=1e-6)
    assert k / n < bound < 1.0
    assert fa_bound.fa_upper(k, n + 10) < bound  # more negatives, the same alarms: tighter


def test_no_negatives_bound_nothing() -> None:
    assert fa_bound.fa_upper(0, 0) == 1.0
    assert fa_bound.fa_upper(5, 5) == 1.0


def test_too_few_negatives_cannot_keep_the_promise_and_say_how_many_more() -> None:
    # 0 of 8 routed: the 90% bound is 0.25, far over 0.05.
    assert fa_bound.allowed_false_alarms(8, 0.05) is None
    needed = fa_bound.negatives_needed(8, 0, 0.05)
    assert needed == 37  # 45 in all: 1 - 0.1 ** (1 / 45) = 0.0499
    assert fa_bound.fa_upper(0, 8 + needed) <= 0.05 < fa_bound.fa_upper(0, 8 + needed - 1)
    # At a rate already over the promise, no number of labels keeps it.
    assert fa_bound.negatives_needed(17, 1, 0.05) is None
    # Enough negatives allow a few alarms, and no more than the bound keeps.
    allowed = fa_bound.allowed_false_alarms(200, 0.05)
    assert allowed is not None and allowed >= 4
    assert fa_bound.fa_upper(allowed, 200) <= 0.05 < fa_bound.fa_upper(allowed + 1, 200)
    assert fa_bound.negatives_needed(200, allowed, 0.05) == 0


def test_a_step_is_judged_by_paired_held_out_gains() -> None:
    positive = np.array([True, True, True, True, False, False])
    before = held_out.Routed(np.array([True, True, False, False, False, False]),
                        np.array([True, False, False, False, False, False]))
    after = held_out.Routed(np.array([True, True, True, False, True, False]),
                       np.array([True, True, True, False, False, False]))
    step = held_out.gain(after, before, positive)
    assert step.top1 == pytest.approx(0.5)  # two more of four governed prompts right
    assert step.false_alarms == pytest.approx(0.5)  # one more of two ungoverned routed
    assert step.utility == pytest.approx(0.5 - held_out.FA_WEIGHT * 0.5)
    assert step.error > 0


@pytest.mark.slow  # the head is refitted once per fold
def test_few_labels_are_never_worse_than_none_on_prompts_they_did_not_see(
        fake_index: Path, tmp_path: Path) -> None:
    router = load_index(fake_index)
    rows = [json.loads(line) for line in LABELLED]
    # Half the prompts label, the other half judge (the split by position is fixed).
    train = b"".join(json.dumps(r).encode() + b"\n" for r in rows[0::2][:25])
    labelled = read_labelled_jsonl(train.splitlines(keepends=True))
    out = tmp_path / "point.json"
    run = calibrate_index(router, labelled, out=out, max_fa=0.1)
    assert run.summary is not None and run.point is not None
    test = rows[1::2]
    expected = [frozenset(r["expected"]) for r in test]

    def figures(point_router: object) -> tuple[float, float]:
        answers = point_router.route_many([r["prompt"] for r in test], record=False)  # type: ignore[attr-defined]
        hits = sum(1 for a, e in zip(answers, expected, strict=True)
                   if e and a.routes and a.routes[0].name in e)
        alarms = sum(1 for a, e in zip(answers, expected, strict=True) if not e and a.routes)
        governed = sum(1 for e in expected if e)
        return hits / governed, alarms / (len(expected) - governed)

    top1_default, fa_default = figures(router)
    top1_few, fa_few = figures(load_index(fake_index, operating_point=load_operating_point(out)))
    # The rule keeps the default gate at 25 labels (too few ungoverned to move it); example
    # lines may pull one more of the 15 unseen negatives over it, no more, and top-1 holds.
    assert "kept the default gate" in run.summary
    negatives = sum(1 for e in expected if not e)
    assert fa_few <= fa_default + 1 / negatives + 1e-9
    assert top1_few >= top1_default - 0.01


@pytest.mark.slow  # the head is refitted once per fold
def test_the_summary_says_what_was_kept_added_expected_and_promised(fake_index: Path,
                                                                    tmp_path: Path) -> None:
    router = load_index(fake_index)
    governed = [line for line in LABELLED if json.loads(line)["expected"]]
    ungoverned = [line for line in LABELLED if not json.loads(line)["expected"]]
    labelled = read_labelled_jsonl(governed[:17] + ungoverned[:8])
    run = calibrate_index(router, labelled, out=tmp_path / "p.json", max_fa=0.05)
    negatives = labelled.negatives
    assert negatives == 8
    summary = run.summary
    assert summary is not None
    assert summary.startswith(f"25 labels, {negatives} ungoverned: kept the default gate; ")
    assert "example line" in summary and "expected top-1 " in summary and " ± " in summary
    assert summary.endswith(f"label about {fa_bound.negatives_needed(negatives, 0, 0.05)} more "
                            "ungoverned prompts") or "over --max-fa" in summary
    # The summary leads the notes and the point's provenance.
    assert run.result.notes[0] == summary
    assert load_operating_point(tmp_path / "p.json").provenance["few_labels"] == summary


def test_example_lines_are_saved_beside_the_point_with_the_index_head(fake_index: Path,
                                                                      tmp_path: Path) -> None:
    router = load_index(fake_index)
    labelled = read_labelled_jsonl(LABELLED[:40])
    examples = few.examples_of(router.names, labelled,
                               router.score_many(labelled.prompts)[1])  # type: ignore[arg-type]
    saved = few.learned_arrays(router, examples)
    assert len(saved.names) == sum(len(e) for e in labelled.expected)
    assert router.scorer.classifier is not None
    assert np.array_equal(saved.classifier_weights, router.scorer.classifier[0])
    assert saved.abstain_class  # the head's "none" row is kept
