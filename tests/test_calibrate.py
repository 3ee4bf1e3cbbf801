"""gov calibrate: the rule, the grid's speed and exactness, learning, and the CLI loop."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from gov.core.calibration import grid as cal
from gov.core.calibration.labelled import Labelled
from gov.core.calibration.scores import Scores
from gov.core.routing.confidence import features as confidence_features
from gov.core.routing.point import OperatingPoint, load_operating_point
from gov.core.routing.select import rank, rank_many, select
from tests.conftest import EXAMPLES, run_gov

NAMES = ["alpha", "beta", "gamma"]


def labelled(expected: list[list[str]]) -> Labelled:
    return Labelled([f"prompt {i}" for i in range(len(expected))],
                        [frozenset(e) for e in expected], [None] * len(expected))


def separable() -> tuple[Labelled, Scores]:
    """Positives score 0.6 on their document; negatives at most 0.3 anywhere."""
    expected = [["alpha"], ["beta"], ["gamma"], ["alpha"], [], []]
    semantic = np.array([[0.6, 0.2, 0.1], [0.2, 0.6, 0.1], [0.1, 0.2, 0.6], [0.6, 0.1, 0.3],
                         [0.3, 0.28, 0.1], [0.1, 0.3, 0.29]])
    return labelled(expected), Scores(np.zeros_like(semantic), semantic)


def test_zero_false_alarms_is_a_hard_gate_then_f1() -> None:
    data, scores = separable()
    result = cal.calibrate(NAMES, data, scores, confidence=False)
    assert result.winner is not None
    m = result.winner.metrics
    assert m["false_alarm_rate"] == 0.0
    assert m["f1"] == pytest.approx(1.0)
    assert result.winner.point.semantic_floor > 0.3
    # Loose floors route the negatives: those rows fail the gate and are still printed.
    loose = [row for row in result.rows if row.point.semantic_floor <= 0.25]
    assert loose and not any(row.passes_gate for row in loose)
    assert "hard gate" in result.rule and "F1" in result.rule and "quieter" in result.rule


def test_ties_go_to_the_quieter_point() -> None:
    quiet = cal.Outcome(OperatingPoint(top_k=1), {"f1": 0.8, "false_alarm_rate": 0.0}, 10, True)
    loud = cal.Outcome(OperatingPoint(top_k=2), {"f1": 0.8, "false_alarm_rate": 0.0}, 14, True)
    better = cal.Outcome(OperatingPoint(), {"f1": 0.81, "false_alarm_rate": 0.0}, 30, True)
    gated = cal.Outcome(OperatingPoint(), {"f1": 0.99, "false_alarm_rate": 0.2}, 5, False)
    assert cal.better(quiet, loud) and not cal.better(loud, quiet)
    assert cal.better(better, quiet)
    assert cal.better(quiet, gated) and not cal.better(gated, quiet)


def test_max_fa_relaxes_the_gate_and_no_survivor_is_reported() -> None:
    # The negative scores like a positive: no floor separates them.
    expected = [["alpha"], ["beta"], []]
    semantic = np.array([[0.6, 0.1, 0.1], [0.1, 0.6, 0.1], [0.6, 0.1, 0.1]])
    data, scores = labelled(expected), Scores(np.zeros_like(semantic), semantic)
    strict = cal.calibrate(NAMES, data, scores, confidence=False)
    assert strict.winner is None
    assert all(not row.passes_gate for row in strict.rows)
    relaxed = cal.calibrate(NAMES, data, scores, confidence=False, max_fa=1.0)
    assert relaxed.winner is not None and relaxed.winner.metrics["false_alarm_rate"] == 1.0
    assert "relaxed by --max-fa to 1" in relaxed.rule


def test_no_negatives_is_noted() -> None:
    data = labelled([["alpha"], ["beta"]])
    semantic = np.array([[0.6, 0.1, 0.1], [0.1, 0.6, 0.1]])
    result = cal.calibrate(NAMES, data, Scores(np.zeros_like(semantic), semantic))
    assert result.winner is not None
    assert result.winner.metrics["false_alarm_rate"] is None
    assert any("unmeasured" in note for note in result.notes)


def test_confidence_threshold_abstains_where_floors_cannot() -> None:
    # Negatives have a high top score but no margin; positives a clear margin.
    expected = [["alpha"], ["beta"], ["gamma"], [], []] * 4
    rows = [[0.7, 0.3, 0.2], [0.3, 0.7, 0.2], [0.2, 0.3, 0.7], [0.7, 0.69, 0.2],
            [0.2, 0.69, 0.7]] * 4
    semantic = np.array(rows) + np.random.default_rng(0).normal(0, 0.005, (20, 3))
    data, scores = labelled(expected), Scores(np.zeros_like(semantic), semantic)
    assert cal.calibrate(NAMES, data, scores, confidence=False).winner is None
    result = cal.calibrate(NAMES, data, scores)
    assert result.winner is not None
    point = result.winner.point
    assert point.confidence_weights is not None and point.min_confidence is not None
    assert result.winner.metrics["false_alarm_rate"] == 0.0
    assert result.winner.metrics["top1"] == 1.0
    # The selection the route path runs agrees with the grid's figures.
    for row in range(len(expected)):
        chosen, _, *_ = select(scores.lexical[row], semantic[row], point)
        assert bool(chosen) == bool(expected[row])


@pytest.mark.parametrize("fusion", ["rrf", "weighted"])
def test_vectorised_ranking_matches_the_route_path(fusion: str) -> None:
    rng = np.random.default_rng(7)
    lexical = np.where(rng.random((300, 12)) < 0.4, rng.random((300, 12)) * 0.6, 0.0)
    semantic = rng.random((300, 12)) * 0.8
    semantic[:20] = np.round(semantic[:20], 1)  # ties must break the same way
    learned = rng.dirichlet(np.ones(12), size=300)
    point = OperatingPoint(fusion=fusion, lexical_floor=0.1, semantic_floor=0.3,
                           lexical_weight=0.3, semantic_weight=0.5, learned_weight=0.2)
    many = rank_many(lexical, semantic, point, learned)
    for row in range(300):
        order, fusion, _ = rank(lexical[row], semantic[row], point, learned[row])
        fused = fusion.fused
        assert many.top1[row] == (order[0] if order.size else -1)
        assert many.top2[row] == (order[1] if order.size > 1 else -1)
        if order.size:
            assert many.fused1[row] == pytest.approx(fused[order[0]])
            features = confidence_features(lexical[row][None, :], semantic[row][None, :],
                                           learned[row][None, :], fused[None, :], order[:1])
            assert many.features[row] == pytest.approx(features[0])


def test_a_six_by_six_grid_over_a_thousand_prompts_takes_seconds() -> None:
    rng = np.random.default_rng(3)
    documents = 20
    truth = rng.integers(0, documents, 1000)
    semantic = rng.random((1000, documents)) * 0.5
    semantic[np.arange(1000), truth] += 0.3
    lexical = np.where(rng.random((1000, documents)) < 0.2, rng.random((1000, documents)), 0.0)
    expected = [[f"d{t}"] if i % 5 else [] for i, t in enumerate(truth)]
    data = labelled(expected)
    started = time.perf_counter()
    result = cal.calibrate([f"d{i}" for i in range(documents)], data,
                           Scores(lexical, semantic), max_fa=0.2)
    elapsed = time.perf_counter() - started
    assert len(result.rows) == 2 * 36
    assert result.evaluated > 2 * 36 * 5
    assert elapsed < 20.0, elapsed


# -- the CLI against the example corpus --------------------------------------------------


@pytest.fixture(scope="module")
def calibrated(example_index: Path, tmp_path_factory: pytest.TempPathFactory
               ) -> tuple[Path, dict[str, object]]:
    folder = tmp_path_factory.mktemp("calibrated")
    point = folder / "point.json"
    result = run_gov("calibrate", "-i", str(example_index), "--out", str(point), "--corpus-id",
                     "examples", "--format", "json",
                     input=(EXAMPLES / "labelled.jsonl").read_bytes())
    assert result.returncode == 0, result.stderr
    return point, json.loads(result.stdout)


def test_calibrate_writes_a_point_with_provenance(calibrated: tuple[Path, dict[str, object]]
                                                  ) -> None:
    path, output = calibrated
    point = load_operating_point(path)
    provenance = point.provenance
    assert provenance["corpus_id"] == "examples"
    assert provenance["corpus_size"] == 22
    assert isinstance(provenance["separability"], float)
    assert provenance["model_id"] == point.model_id
    assert provenance["labelled"] == {"prompts": 134, "negatives": 30}
    assert provenance["metrics"]["false_alarm_rate"] == 0.0
    rows = output["rows"]
    # The label-free point moved (one row), then three poolings x four body weights x two
    # fusions x 6 x 6 floors.
    assert isinstance(rows, list) and len(rows) == 1 + 864
    assert {row["semantic_pool"] for row in rows} == {"max", "mean", "max_mean"}
    assert sum(1 for row in rows if row["winner"]) == 1


def test_the_reported_figures_are_what_route_and_eval_measure(
        example_index: Path, calibrated: tuple[Path, dict[str, object]]) -> None:
    path, _ = calibrated
    point = load_operating_point(path)
    routed = run_gov("route", "-i", str(example_index), "--operating-point", str(path),
                     "--format", "jsonl", input=(EXAMPLES / "labelled.jsonl").read_bytes())
    assert routed.returncode == 0, routed.stderr
    report = json.loads(run_gov("eval", "--format", "json", input=routed.stdout).stdout)
    for key in ("false_alarm_rate", "top1", "recall", "precision", "f1"):
        assert report["overall"][key] == pytest.approx(point.provenance["metrics"][key],
                                                       abs=1e-3), key


def test_calibrate_prints_every_row_and_the_rule(example_index: Path) -> None:
    result = run_gov("calibrate", "-i", str(example_index),
                     input=(EXAMPLES / "labelled.jsonl").read_bytes())
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode()
    assert "rule: (1) zero false alarms on the negatives is a hard gate" in out
    assert out.count("★") >= 1
    assert out.count("rrf k=60") == 432 and out.count("weighted") >= 432
    assert b"pass --out FILE" in result.stderr


def test_no_survivor_exits_1_with_the_finding(example_index: Path) -> None:
    rows = [json.loads(line) for line in (EXAMPLES / "labelled.jsonl").read_text().splitlines()]
    positives = [row for row in rows if row["expected"]][:20]
    # Every positive also appears as a negative: any route is a false alarm.
    data = "".join(json.dumps({"prompt": r["prompt"], "expected": e}) + "\n"
                   for r in positives for e in (r["expected"], []))
    result = run_gov("calibrate", "-i", str(example_index), input=data)
    assert result.returncode == 1
    assert b"no operating point survives the gate" in result.stderr


def test_no_negatives_warns(example_index: Path) -> None:
    rows = [json.loads(line) for line in (EXAMPLES / "labelled.jsonl").read_text().splitlines()]
    data = "".join(json.dumps(r) + "\n" for r in rows if r["expected"])
    result = run_gov("calibrate", "-i", str(example_index), "--format", "json", input=data)
    assert result.returncode == 0, result.stderr
    assert b"false-alarm rate is unmeasured" in result.stderr


def test_bad_labelled_rows_are_errors(example_index: Path) -> None:
    result = run_gov("calibrate", "-i", str(example_index), input='{"prompt": "x"}\n')
    assert result.returncode == 1
    assert b"stdin line 1: field 'expected' must be a list" in result.stderr


def test_learn_keeps_positives_and_a_classifier_that_route_applies(
        example_index: Path, tmp_path: Path) -> None:
    point_path = tmp_path / "learned.json"
    labelled_rows = (EXAMPLES / "labelled.jsonl").read_bytes()
    result = run_gov("calibrate", "-i", str(example_index), "--learn", "--max-fa", "0.1",
                     "--out", str(point_path), input=labelled_rows)
    assert result.returncode == 0, result.stderr
    point = load_operating_point(point_path)
    assert point.learned_surfaces == "learned.learned.npz"
    assert (tmp_path / "learned.learned.npz").is_file()
    assert point.learned is not None and len(point.learned["names"]) >= 92
    assert point.provenance["learned"] is True
    # A learned prompt finds its own document again through its learned surface.
    first = json.loads(labelled_rows.splitlines()[0])
    routed = run_gov("route", first["prompt"], "-i", str(example_index), "--operating-point",
                     str(point_path), "--format", "json")
    assert routed.returncode == 0, routed.stderr
    route = json.loads(routed.stdout)[0]["routes"]
    assert route and route[0]["name"] == first["expected"][0]
    assert "learned example" in route[0]["why"]
    # Stored in an index by gov index --operating-point, the learned arrays travel with it.
    index = tmp_path / "index"
    built = run_gov("index", str(EXAMPLES / "policies"), "-o", str(index), "--operating-point",
                    str(point_path))
    assert built.returncode == 0, built.stderr
    (tmp_path / "learned.learned.npz").unlink()
    again = run_gov("route", first["prompt"], "-i", str(index), "--format", "json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)[0]["routes"] == route


def test_learn_needs_somewhere_to_keep_what_it_learns(example_index: Path) -> None:
    result = run_gov("calibrate", "-i", str(example_index), "--learn",
                     input=(EXAMPLES / "labelled.jsonl").read_bytes())
    assert result.returncode == 2
    assert b"--learn needs --out FILE" in result.stderr


def test_semantic_pooling_of_surface_similarities(example_index: Path) -> None:
    from gov.core.routing.indexes import load_index
    from gov.core.scoring.pooling import SurfaceGroups

    sims = np.array([[0.9, 0.1, 0.2, 0.4]], dtype=np.float32)
    groups = SurfaceGroups(np.array([0, 2], dtype=np.int64), 4)  # doc 0: columns 0-1, doc 1: 2-3
    assert groups.pool(sims, "max") == pytest.approx(np.array([[0.9, 0.4]]))
    assert groups.pool(sims, "mean") == pytest.approx(np.array([[0.5, 0.3]]))
    assert groups.pool(sims, "max_mean") == pytest.approx(np.array([[0.7, 0.35]]))
    # The index pools as its operating point says.
    mean_index = load_index(example_index, operating_point=OperatingPoint(
        semantic_pool="mean", model_id=load_index(example_index).model_id))
    vectors = mean_index.scorer.embed(["roll back the release"])
    assert vectors is not None
    pooled = mean_index.scorer.semantic(vectors, pool=mean_index.operating_point.semantic_pool)
    best = mean_index.scorer.semantic(vectors, pool="max")
    assert (pooled <= best + 1e-6).all() and (pooled < best - 1e-3).any()


def test_a_classifier_floor_on_the_second_route_finds_two_document_prompts() -> None:
    # Under RRF the runner-up always scores about as high as the first (ranks 1 and 2 on
    # both signals), so no score ratio tells a two-document prompt from a one-document one;
    # the classifier's probability of the runner-up does.
    expected = [["alpha"], ["beta"], ["alpha", "beta"], ["gamma"], ["beta", "gamma"]] * 3
    semantic = np.array([[0.6, 0.55, 0.1], [0.55, 0.6, 0.1], [0.6, 0.55, 0.1],
                         [0.1, 0.55, 0.6], [0.1, 0.6, 0.55]] * 3)
    learned = np.array([[0.9, 0.05, 0.05], [0.05, 0.9, 0.05], [0.5, 0.4, 0.1],
                        [0.05, 0.05, 0.9], [0.1, 0.45, 0.45]] * 3)
    data = labelled(expected)
    scores = Scores(np.zeros_like(semantic), semantic, learned)
    base = OperatingPoint(fusion="rrf", learned_weight=1.0)
    best, _ = cal.evaluate_row(base, scores, cal.expected_matrix(NAMES, data), 0.0, False)
    point = best.point
    assert point.top_k == 2 and point.second_learned_floor > 0.0
    assert best.metrics["f1"] == pytest.approx(1.0)
    for row, names in enumerate(expected):
        chosen, _, *_ = select(scores.lexical[row], semantic[row], point, learned[row])
        assert sorted(NAMES[c.doc] for c in chosen) == sorted(names)
    shown = [outcome.row() for outcome in cal.calibrate(NAMES, data, scores, confidence=False).rows]
    assert all("second_learned_floor" in row for row in shown)
