"""Operating point files: round trips, every malformed field named, model checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gov.core.encode import bundle as model_bundle
from gov.core.errors import OperatingPointError
from gov.core.routing.indexes import load_index
from gov.core.routing.point import (
    OperatingPoint,
    check_model,
    default_operating_point,
    from_json,
    load_operating_point,
    save_operating_point,
)
from tests.conftest import invoke_gov

MODEL = model_bundle.default_id()


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data))
    return path


def minimal(**params: object) -> dict[str, object]:
    return {"gov_operating_point": 1, "model_id": MODEL, "params": params, "provenance": {}}


def test_round_trip_keeps_parameters_and_provenance(tmp_path: Path) -> None:
    point = OperatingPoint(lexical_floor=0.2, semantic_floor=0.3, top_k=1, fusion="weighted",
                           lexical_weight=0.3, semantic_weight=0.7, min_confidence=0.6,
                           confidence_weights=(-1.0, 2.0, 3.0), second_ratio=0.5,
                           model_id=MODEL, provenance={"corpus_id": "x", "corpus_size": 3})
    path = tmp_path / "point.json"
    save_operating_point(point, path)
    loaded = load_operating_point(path)
    assert loaded.params() == point.params()
    assert loaded.provenance == point.provenance
    assert loaded.id == point.id
    assert loaded.source == str(path)
    assert not list(tmp_path.glob(".*.tmp"))  # written atomically: no temp file left


def test_old_files_with_only_the_first_parameters_still_load(tmp_path: Path) -> None:
    path = write(tmp_path / "old.json", minimal(lexical_floor=0.1, semantic_floor=0.25,
                                                 rrf_k=60.0, top_k=2))
    point = load_operating_point(path)
    assert point.fusion == "rrf" and point.learned_weight == 0.0
    assert point.confidence_weights is None


@pytest.mark.parametrize(("params", "message"), [
    ({"lexical_floor": "high"}, "params.lexical_floor must be a number"),
    ({"semantic_floor": -1}, "params.semantic_floor must not be negative"),
    ({"top_k": 0}, "params.top_k must be an integer from 1 to 10"),
    ({"min_confidence": 2}, "params.min_confidence must be null or a number from 0 to 1"),
    ({"confidence_weights": ["a"]}, "params.confidence_weights must be null or a list"),
    ({"fusion": "max"}, "params.fusion must be one of rrf, weighted"),
    ({"floor": 0.1}, "params.floor is not a known parameter"),
    ({"learned_surfaces": "../x.npz"}, "params.learned_surfaces must be null or a file name"),
])
def test_malformed_fields_are_errors_naming_file_and_field(tmp_path: Path, params: dict[str, object],
                                                           message: str) -> None:
    path = write(tmp_path / "bad.json", minimal(**params))
    with pytest.raises(OperatingPointError, match=message) as caught:
        load_operating_point(path)
    assert str(path) in str(caught.value)


def test_missing_and_invalid_files_are_errors_never_fallbacks(tmp_path: Path) -> None:
    with pytest.raises(OperatingPointError, match="not found"):
        load_operating_point(tmp_path / "absent.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{nope")
    with pytest.raises(OperatingPointError, match="not valid JSON"):
        load_operating_point(broken)
    with pytest.raises(OperatingPointError, match="field 'gov_operating_point'"):
        load_operating_point(write(tmp_path / "other.json", {"params": {}}))
    with pytest.raises(OperatingPointError, match="field 'params' must be an object"):
        load_operating_point(write(tmp_path / "p.json", {"gov_operating_point": 1}))
    learned = minimal(learned_surfaces="x.npz")
    with pytest.raises(OperatingPointError, match="field 'learned' is missing"):
        load_operating_point(write(tmp_path / "l.json", learned))


def test_a_point_from_another_model_is_refused(fake_index: Path, tmp_path: Path) -> None:
    point = OperatingPoint(model_id="someone/other-model")
    with pytest.raises(OperatingPointError, match="measured with model 'someone/other-model'"):
        check_model(point, MODEL, "p.json")
    path = write(tmp_path / "other.json", {**minimal(), "model_id": "someone/other-model"})
    with pytest.raises(OperatingPointError, match="recalibrate"):
        load_index(fake_index, operating_point=load_operating_point(path))
    result = invoke_gov("route", "x", "-i", str(fake_index), "--operating-point", str(path))
    assert result.returncode == 2 and b"someone/other-model" in result.stderr


def test_the_shipped_default_says_where_it_was_measured() -> None:
    point = default_operating_point()
    assert point.source == "default"
    assert point.model_id == MODEL
    provenance = point.provenance
    for key in ("chosen", "rule", "figures"):
        assert key in provenance, key
    # Chosen to transfer: no labels of the corpus it routes, measured per corpus held out.
    assert provenance["label_free"] is True and "leave-one-corpus-out" in provenance["chosen"]
    assert point.gate == "background" and point.body_surfaces > 0


def test_body_surfaces_and_shares_are_checked() -> None:
    base = {"gov_operating_point": 1, "params": {"body_surfaces": -1}}
    with pytest.raises(OperatingPointError, match=r"params\.body_surfaces must not be negative"):
        from_json(base, "p.json")
    assert from_json({**base, "params": {"body_surfaces": 2}}, "p.json").body_surfaces == 2.0
    with pytest.raises(OperatingPointError, match=r"params\.background_alpha must be a number "
                                                  r"from 0 to 1"):
        from_json({**base, "params": {"background_alpha": 1.5}}, "p.json")
