"""``calibrate_index``, the library half of ``gov calibrate``: score once, search the grid, finish
and save the point (and what it learned). Mechanics on the stand-in encoder; which point the
real model earns is ``tests/cli/test_calibrate.py``'s business."""

from __future__ import annotations

from pathlib import Path

import pytest

from gov.core.calibration.calibrate import FEW_LABELS, calibrate_index
from gov.core.calibration.labelled import read_labelled_jsonl
from gov.core.errors import UsageError
from gov.core.routing.indexes import load_index
from gov.core.routing.point import load_operating_point
from tests.conftest import EXAMPLES

LABELLED = (EXAMPLES / "labelled.jsonl").read_bytes().splitlines(keepends=True)


def test_the_grid_is_searched_and_the_winner_saved_with_its_provenance(fake_index: Path,
                                                                        tmp_path: Path) -> None:
    router = load_index(fake_index)
    labelled = read_labelled_jsonl(LABELLED)
    out = tmp_path / "point.json"
    run = calibrate_index(router, labelled, out=out, corpus_id="examples", max_fa=1.0)
    # Fewer than FEW_LABELS prompts: the label-free point is moved (one row), not refitted.
    assert len(labelled.prompts) < FEW_LABELS
    assert len(run.result.rows) == 1 and run.result.winner is not None
    assert run.summary is not None and run.result.notes[0] == run.summary
    assert run.summary.startswith("134 labels, 30 ungoverned: ")
    # The point, and the example lines beside it when the held-out folds kept them.
    assert run.written[0] == out and run.unknown_names == []
    assert run.written[1:] in ([], [tmp_path / "point.learned.npz"])
    point = load_operating_point(out)
    assert run.point is not None and point.params() == run.point.params()
    provenance = point.provenance
    assert provenance["corpus_id"] == "examples" and provenance["corpus_size"] == 22
    assert provenance["labelled"] == {"prompts": 134, "negatives": 30}
    assert provenance["model_id"] == point.model_id == router.model_id
    assert provenance["max_fa"] == 1.0 and provenance["learned"] is (len(run.written) == 2)
    assert provenance["metrics"]["false_alarm_rate"] <= 1.0
    # The saved point is one the index routes with.
    assert load_index(fake_index, operating_point=point).operating_point.id == point.id


@pytest.mark.slow
def test_enough_labels_search_the_whole_grid(fake_index: Path) -> None:
    router = load_index(fake_index)
    labelled = read_labelled_jsonl(LABELLED * 2)
    assert len(labelled.prompts) >= FEW_LABELS
    run = calibrate_index(router, labelled, max_fa=1.0)
    # The label-free point moved (one row), then three poolings x four body weights x two
    # fusions x 6 x 6 floors, every row shown, one winner.
    assert len(run.result.rows) == 1 + 864 and run.result.winner is not None
    assert {row.point.semantic_pool for row in run.result.rows} == {"max", "mean", "max_mean"}
    assert sum(1 for row in run.result.rows if row is run.result.winner) == 1
    assert run.written == []


@pytest.mark.slow
def test_learning_saves_its_arrays_beside_the_point(fake_index: Path, tmp_path: Path) -> None:
    router = load_index(fake_index)
    labelled = read_labelled_jsonl(LABELLED)
    with pytest.raises(UsageError, match="needs out"):
        calibrate_index(router, labelled, learn=True)
    out = tmp_path / "learned.json"
    run = calibrate_index(router, labelled, out=out, max_fa=1.0, learn=True)
    assert run.written == [out, tmp_path / "learned.learned.npz"]
    point = load_operating_point(out)
    assert point.learned_surfaces == "learned.learned.npz" and point.provenance["learned"] is True
    assert point.learned is not None and len(point.learned["names"]) >= 92
    learned = load_index(fake_index, operating_point=point)
    assert learned.scorer.learned_vectors is not None


@pytest.mark.slow
def test_no_survivor_writes_nothing(fake_index: Path, tmp_path: Path) -> None:
    # Every positive also appears as a negative: any route is a false alarm.
    positives = [line for line in LABELLED if b'"expected": []' not in line][:20]
    contradicting = positives + [line.replace(line[line.index(b'"expected"'):], b'"expected": []}\n')
                                 for line in positives]
    out = tmp_path / "point.json"
    run = calibrate_index(load_index(fake_index), read_labelled_jsonl(contradicting), out=out,
                          refit=True)  # the full grid: under 200 labels the default is kept
    assert run.result.winner is None and run.point is None and run.written == []
    assert not out.exists()
