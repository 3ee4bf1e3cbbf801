"""The learned arrays beside an operating point: checked against the point and the index."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gov.core.encode import bundle as model_bundle
from gov.core.errors import IndexLoadError, OperatingPointError
from gov.core.routing.indexes import load_index
from gov.core.routing.point import (
    load_operating_point,
)
from gov.core.scoring.learned import LearnedArrays, save_learned

MODEL = model_bundle.default_id()


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data))
    return path


def minimal(**params: object) -> dict[str, object]:
    return {"gov_operating_point": 1, "model_id": MODEL, "params": params, "provenance": {}}


def learned_for(tmp_path: Path, names: list[str], dim: int = 384) -> tuple[Path, dict[str, object]]:
    rng = np.random.default_rng(1)
    vectors = rng.normal(size=(len(names), dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    arrays = LearnedArrays(vectors, names, [f"text {i}" for i in range(len(names))],
                           np.zeros((0, dim), np.float32), np.zeros(0, np.float32), [])
    path = tmp_path / "p.learned.npz"
    info = arrays.info(save_learned(arrays, path))
    return path, info


def test_learned_arrays_are_checked_against_the_point(fake_index: Path, tmp_path: Path) -> None:
    path, info = learned_for(tmp_path, ["deployment", "testing"])
    point_path = write(tmp_path / "p.json", {**minimal(learned_surfaces=path.name),
                                             "learned": info})
    loaded = load_index(fake_index, operating_point=load_operating_point(point_path))
    assert loaded.scorer.learned_vectors is not None and loaded.scorer.learned_vectors.shape[0] == 2
    assert loaded.scorer.learned_texts == ["text 0", "text 1"]
    # The file is read without pickle and must be the one the point names.
    path.write_bytes(path.read_bytes() + b"x")
    with pytest.raises(OperatingPointError, match="sha256 differs"):
        load_index(fake_index, operating_point=load_operating_point(point_path))
    path.unlink()
    with pytest.raises(OperatingPointError, match="learned array file not found"):
        load_index(fake_index, operating_point=load_operating_point(point_path))


def test_learned_surfaces_naming_unknown_documents_fail(fake_index: Path,
                                                        tmp_path: Path) -> None:
    path, info = learned_for(tmp_path, ["no-such-document"])
    point_path = write(tmp_path / "p.json", {**minimal(learned_surfaces=path.name),
                                             "learned": info})
    with pytest.raises(IndexLoadError, match="no-such-document"):
        load_index(fake_index, operating_point=load_operating_point(point_path))


def test_learned_arrays_of_the_wrong_dimension_fail(fake_index: Path, tmp_path: Path) -> None:
    path, info = learned_for(tmp_path, ["deployment"], dim=8)
    point_path = write(tmp_path / "p.json", {**minimal(learned_surfaces=path.name),
                                             "learned": info})
    with pytest.raises(OperatingPointError, match="dimension 8"):
        load_index(fake_index, operating_point=load_operating_point(point_path))
