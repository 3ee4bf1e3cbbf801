"""A few labels refit the index's head: the refit moves a labelled prompt's paraphrase, is
left out when the held-out folds lose by it, is saved beside the point and read back by a
route exactly as calibration scored it (mechanics on the stand-in encoder; what it does
on the real model is benchmarks/few_labels.py)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from gov.core.calibration import few, head
from gov.core.calibration.calibrate import calibrate_index
from gov.core.calibration.crossfit import fold_of
from gov.core.calibration.labelled import read_labelled_jsonl
from gov.core.routing.fusion import fuse
from gov.core.routing.indexes import load_index
from gov.core.routing.point import load_operating_point, save_operating_point
from gov.core.scoring.learned import load_learned, save_learned
from tests.conftest import EXAMPLES, invoke_gov

# Every test here fits the head at least once (seconds each on the stand-in encoder).
pytestmark = pytest.mark.slow

ROWS = [json.loads(line) for line in (EXAMPLES / "labelled.jsonl").read_text().splitlines()]
GOVERNED = [r for r in ROWS if r["expected"]]


def _labelled(rows: list[dict[str, object]]) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in rows)


def _rank(probabilities: np.ndarray, doc: int) -> int:
    return int((probabilities > probabilities[doc]).sum())


def test_a_refitted_head_moves_a_labelled_prompts_paraphrase_to_its_document(
        fake_index: Path) -> None:
    router = load_index(fake_index)
    names = router.names
    rows = head.head_rows(router)
    assert rows is not None
    stored = router.scorer.classifier
    assert stored is not None
    # The refit with no labels is the index's own head (one body passage per document).
    weights, _ = head.refit(rows, np.zeros((0, rows.surfaces.shape[1]), np.float32),
                               np.zeros(0, np.int64), np.zeros((0, rows.surfaces.shape[1]),
                                                               np.float32))
    assert weights.shape == stored[0].shape
    # A prompt the head ranks its document low for, labelled, and a paraphrase of it.
    prompts = [r["prompt"] for r in GOVERNED]
    vectors = router.scorer.embed(prompts)
    assert vectors is not None
    before = router.scorer.learned_probabilities(vectors)
    assert before is not None
    truths = [names.index(r["expected"][0]) for r in GOVERNED]
    worst = max(range(len(prompts)), key=lambda i: _rank(before[i], truths[i]))
    doc = truths[worst]
    assert _rank(before[worst], doc) >= 2
    paraphrase = f"could you help me with this: {prompts[worst]} thanks"
    near = router.scorer.embed([paraphrase])
    assert near is not None
    was = router.scorer.learned_probabilities(near)
    assert was is not None and _rank(was[0], doc) >= 1
    refitted = head.refit(rows, vectors[[worst]], np.array([doc]),
                          np.zeros((0, vectors.shape[1]), np.float32))
    now = head.probabilities(refitted, near, len(names))
    assert now[0, doc] > was[0, doc]
    assert _rank(now[0], doc) < _rank(was[0], doc)
    # The ranking a route gives (words, meaning and head fused) moves with it.
    lexical, _ = router.score_many([paraphrase])
    point = router.operating_point
    plain = few.example_scores(router, point, lexical, near, few.Examples.none(near.shape[1]))
    moved = few.example_scores(router, point, lexical, near, few.Examples.none(near.shape[1]),
                               head=now)
    fused_before = fuse(plain.lexical, plain.semantic, point, plain.learned).fused[0]
    fused_after = fuse(moved.lexical, moved.semantic, point, moved.learned).fused[0]
    assert _rank(fused_after, doc) < _rank(fused_before, doc)


def test_the_refit_is_left_out_when_the_held_out_folds_lose_by_it(fake_index: Path) -> None:
    router = load_index(fake_index)
    names = router.names
    # Prompts the default routes right, each with a near-copy in another fold labelled with
    # another document: what one fold teaches, the other fold's truth contradicts.
    answers = router.route_many([r["prompt"] for r in GOVERNED], record=False)
    right = [r for r, a in zip(GOVERNED, answers, strict=True)
             if a.routes and a.routes[0].name in r["expected"]]
    rows: list[dict[str, object]] = []
    for row in right[:20]:
        prompt = str(row["prompt"])
        for tail in ("", " now", " today", " please", " asap"):
            copy = f"{prompt}{tail} again"
            if fold_of(copy) != fold_of(prompt):
                break
        wrong = next(n for n in names if n not in row["expected"])
        rows += [row, {"prompt": copy, "expected": [wrong]}]
    labelled = read_labelled_jsonl(_labelled(rows).splitlines(keepends=True))
    lexical, vectors = router.score_many(labelled.prompts)
    assert vectors is not None
    decided = few.calibrate_few(router, labelled, max_fa=0.1, lexical=lexical, vectors=vectors)
    assert decided.head is None
    note = next(n for n in decided.notes if n.startswith("the head refitted"))
    changed = float(note.split("top-1 by ")[1].split()[0])
    assert changed < 0.0  # lost, not merely tied
    assert "refitted the head" not in decided.summary


def test_a_kept_refit_is_saved_beside_the_point_and_routed_as_it_was_scored(
        fake_index: Path, tmp_path: Path) -> None:
    router = load_index(fake_index)
    # Each labelled prompt with a near-copy in another fold under the same label: what one
    # fold teaches, the other's truth confirms.
    rows: list[dict[str, object]] = []
    for row in GOVERNED[:30]:
        prompt = str(row["prompt"])
        for tail in ("", " now", " today", " please", " asap"):
            copy = f"{prompt}{tail} again"
            if fold_of(copy) != fold_of(prompt):
                break
        rows += [row, {"prompt": copy, "expected": row["expected"]}]
    labelled = read_labelled_jsonl(_labelled(rows).splitlines(keepends=True))
    out = tmp_path / "point.json"
    run = calibrate_index(router, labelled, out=out, max_fa=0.1)
    assert run.summary is not None and "refitted the head" in run.summary, run.result.notes
    assert tmp_path / "point.learned.npz" in run.written
    point = load_operating_point(out)
    assert point.learned is not None and point.learned["abstain_class"] is True
    saved = load_learned(tmp_path / "point.learned.npz", point.learned, 384)
    assert saved.classifier_names == list(router.names)
    assert saved.classifier_weights.shape == (len(router.names) + 1, 384)
    # The router reads the refit, not the index's head, and scores as calibration did.
    calibrated = load_index(fake_index, operating_point=point)
    classifier = calibrated.scorer.classifier
    assert classifier is not None
    assert np.array_equal(classifier[0], saved.classifier_weights)
    assert not np.array_equal(classifier[0], router.scorer.classifier[0])  # type: ignore[index]
    unseen = [r["prompt"] for r in GOVERNED[30:40]]
    vectors = calibrated.scorer.embed(unseen)
    assert vectors is not None
    routed = calibrated.scorer.learned_probabilities(vectors)
    scored = head.probabilities((saved.classifier_weights, saved.classifier_bias), vectors,
                                len(router.names))
    assert routed is not None
    np.testing.assert_allclose(routed, scored, atol=1e-5)


def test_a_saved_head_that_does_not_match_its_names_is_a_one_line_error(
        fake_index: Path, tmp_path: Path) -> None:
    router = load_index(fake_index)
    labelled = read_labelled_jsonl(_labelled(GOVERNED[:6]).splitlines(keepends=True))
    _, vectors = router.score_many(labelled.prompts)
    assert vectors is not None
    rows = head.head_rows(router)
    assert rows is not None
    examples = few.examples_of(router.names, labelled, vectors)
    refitted = head.refit(rows, examples.vectors, examples.docs,
                          np.zeros((0, vectors.shape[1]), np.float32))
    saved = few.learned_arrays(router, examples, refitted)
    # The "none" row dropped: the arrays no longer match the names the point gives them.
    saved.classifier_weights = saved.classifier_weights[:-1]
    saved.classifier_bias = saved.classifier_bias[:-1]
    point = replace(router.operating_point.with_params(learned_surfaces="p.learned.npz"),
                    learned=saved.info(save_learned(saved, tmp_path / "p.learned.npz")))

    save_operating_point(point, tmp_path / "p.json")
    result = invoke_gov("route", "rotate the keys", "-i", str(fake_index),
                        "--operating-point", str(tmp_path / "p.json"))
    assert result.returncode == 2
    error = result.stderr.decode().strip()
    assert len(error.splitlines()) == 1, error
    assert "p.learned.npz" in error and "classifier" in error
    assert "Traceback" not in error
