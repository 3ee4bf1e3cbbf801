"""Routing metrics: every metric on hand-counted rows, and the edge cases."""

from __future__ import annotations

import pytest

from gov.core.calibration.metrics import Row, evaluate, parse_row
from gov.core.errors import InputError


def routed(expected: list[str], routes: list[str], **extra: object) -> dict[str, object]:
    return {"prompt": "p", "expected": expected,
            "routes": [{"name": name, "score": 1.0} for name in routes], **extra}


def rows(*records: dict[str, object]) -> list[Row]:
    out = []
    for number, record in enumerate(records, start=1):
        row = parse_row(record, f"line {number}")
        assert row is not None
        out.append(row)
    return out


def test_metrics_on_hand_counted_rows() -> None:
    report = evaluate(rows(
        routed(["a"], ["a", "b"], kind="single"),        # top-1 right, one wrong extra route
        routed(["a", "b"], ["b"], kind="pair"),          # top-1 right, half the labels
        routed(["c"], ["d"], kind="single"),             # wrong
        routed(["c"], [], kind="single"),                # silent
        routed([], ["a"], kind="none"),                  # false alarm
        routed([], [], kind="none"),                     # correct abstention
    ))
    m = report.overall.metrics()
    assert m["positives"] == 4 and m["negatives"] == 2
    assert m["top1"] == pytest.approx(2 / 4)
    # labels: a | a,b | c | c = 5 labels; found a, b = 2
    assert m["recall"] == pytest.approx(2 / 5)
    assert m["recall_at_1"] == pytest.approx(2 / 5)
    # routes: 2 + 1 + 1 + 0 + 1 + 0 = 5, correct 2
    assert m["precision"] == pytest.approx(2 / 5)
    assert m["f1"] == pytest.approx(2 / 5)
    assert m["false_alarm_rate"] == pytest.approx(1 / 2)
    assert m["silent_rate"] == pytest.approx(1 / 4)
    kinds = report.to_json()["kinds"]
    assert kinds["none"]["false_alarm_rate"] == pytest.approx(0.5)
    assert kinds["none"]["top1"] is None  # no positives: unmeasured, not zero
    assert kinds["pair"]["recall_at_2"] == pytest.approx(0.5)
    assert kinds["single"]["top1"] == pytest.approx(1 / 3)


def test_recall_at_k_counts_only_the_first_k_routes() -> None:
    report = evaluate(rows(routed(["c"], ["a", "b", "c"])))
    m = report.overall.metrics()
    assert m["recall_at_1"] == 0.0
    assert m["recall_at_2"] == 0.0
    assert m["recall"] == 1.0


def test_no_negatives_leaves_false_alarms_unmeasured() -> None:
    m = evaluate(rows(routed(["a"], ["a"]))).overall.metrics()
    assert m["false_alarm_rate"] is None
    assert m["top1"] == 1.0 and m["f1"] == 1.0


def test_no_positives_leaves_recall_and_f1_unmeasured() -> None:
    m = evaluate(rows(routed([], []), routed([], ["x"]))).overall.metrics()
    assert m["recall"] is None and m["f1"] is None and m["top1"] is None
    assert m["false_alarm_rate"] == 0.5
    assert m["precision"] == 0.0


def test_all_routes_empty() -> None:
    m = evaluate(rows(routed(["a"], []), routed([], []))).overall.metrics()
    assert m["precision"] is None  # nothing routed: no precision to speak of
    assert m["f1"] == 0.0
    assert m["silent_rate"] == 1.0
    assert m["false_alarm_rate"] == 0.0


def test_harmful_siblings_and_family_confusion() -> None:
    report = evaluate(rows(
        routed(["deploy"], ["deploy", "flags"], sibling=["flags"], family="delivery"),
        routed(["deploy"], ["deploy"], sibling=["flags"], family="delivery"),
        routed(["deploy"], ["ci"], family="delivery"),
        routed(["keys"], ["keys"], family="security"),
    ))
    m = report.overall.metrics()
    assert m["harmful_sibling_rate"] == pytest.approx(1 / 2)
    families = report.to_json()["families"]
    assert families["delivery"]["wrong_routes"] == {"flags": 1, "ci": 1}
    assert families["delivery"]["top1"] == pytest.approx(2 / 3)
    assert families["security"]["wrong_routes"] == {}


def test_dependencies_do_not_count_as_choices() -> None:
    record = routed(["a"], ["b"])
    record["routes"].append({"name": "a", "dependency_of": "b"})  # type: ignore[attr-defined]
    report = evaluate(rows(record))
    m = report.overall.metrics()
    assert m["top1"] == 0.0 and m["precision"] == 0.0
    assert m["recall_with_dependencies"] == 1.0


def test_unknown_names_are_listed_against_the_index() -> None:
    report = evaluate(rows(routed(["a", "ghost"], ["a"])), known_names=["a", "b"])
    assert report.unknown_names == ["ghost"]


def test_bad_rows_name_the_line_and_field() -> None:
    with pytest.raises(InputError, match="line 3: field 'expected' is missing"):
        parse_row({"prompt": "p", "routes": []}, "line 3")
    with pytest.raises(InputError, match="field 'routes' is missing"):
        parse_row({"prompt": "p", "expected": []}, "line 1")
    with pytest.raises(InputError, match="'expected' must be a list"):
        parse_row({"prompt": "p", "expected": "a", "routes": []}, "line 1")
    assert parse_row({"error": {"line": 4, "message": "bad"}}, "line 4") is None
