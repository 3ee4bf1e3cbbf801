"""The divergence signal: reasons only when a corpus really differs from the calibration's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gov.core.encode import bundle as model_bundle
from gov.core.index.header import CorpusInfo, IndexHeader, ModelInfo
from gov.core.routing.divergence import reasons
from gov.core.routing.indexes import load_index
from gov.core.routing.point import OperatingPoint
from tests.conftest import POLICIES, invoke_gov

MODEL = model_bundle.default_id()


def measured(size: int, separation: float | None, model: str | None = MODEL) -> OperatingPoint:
    return OperatingPoint(model_id=model,
                          provenance={"corpus_size": size, "separability": separation})


def divergence_reasons(point: OperatingPoint, size: int, separation: float | None,
                       model: str | None) -> list[str]:
    """The reasons for an index of ``size`` documents, ``separation`` and ``model``."""
    header = IndexHeader(created="", gov_version="",
                         model=ModelInfo(model, 384, None) if model else None,
                         corpus=CorpusInfo("0" * 64, size), roots=(), lexical_rows=0,
                         ngram_range=(1, 3), separability=separation)
    return reasons(point, header)


def test_quiet_when_the_corpus_resembles_the_calibration() -> None:
    assert divergence_reasons(measured(22, 0.60), 22, 0.55, MODEL) == []
    # Up to (not including) four times larger or smaller is still alike.
    assert divergence_reasons(measured(20, 0.60), 79, 0.60, MODEL) == []
    assert divergence_reasons(measured(20, 0.60), 6, 0.60, MODEL) == []
    # A point without provenance cannot diverge on size or separability.
    assert divergence_reasons(OperatingPoint(), 500, 0.5, MODEL) == []


@pytest.mark.parametrize(("size", "expected"), [(80, "corpus has 80 documents"),
                                                (5, "corpus has 5 documents")])
def test_four_times_larger_or_smaller(size: int, expected: str) -> None:
    reasons = divergence_reasons(measured(20, 0.60), size, 0.60, MODEL)
    assert len(reasons) == 1 and expected in reasons[0] and "measured on 20" in reasons[0]


def test_low_or_far_separability() -> None:
    low = divergence_reasons(measured(20, 0.20), 20, 0.10, MODEL)
    assert low == ["documents are hard to tell apart (separability 0.10 < 0.15); gov lint names "
                   "the near-duplicates"]
    far = divergence_reasons(measured(20, 0.60), 20, 0.30, MODEL)
    assert far == ["separability 0.30 is far from the calibration's 0.60"]
    assert divergence_reasons(measured(20, 0.60), 20, 0.36, MODEL) == []


def test_another_model() -> None:
    reasons = divergence_reasons(measured(20, 0.6, model="other/model"), 20, 0.6, MODEL)
    assert reasons == [f"operating point was measured with other/model, index uses {MODEL}"]


@pytest.fixture(scope="module")
def diverging(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """An index of the examples built under a point measured on a corpus of 200 documents."""
    folder = tmp_path_factory.mktemp("divergence")
    point = folder / "point.json"
    point.write_text(json.dumps({
        "gov_operating_point": 1, "model_id": MODEL,
        "params": {"lexical_floor": 0.1, "semantic_floor": 0.25},
        "provenance": {"corpus_size": 200, "separability": 0.6},
    }))
    index = folder / "index"
    built = invoke_gov("index", str(POLICIES), "-o", str(index), "--operating-point", str(point))
    assert built.returncode == 0, built.stderr
    return index, built.stdout.decode()


@pytest.mark.model
def test_reasons_are_shown_at_build_and_route(diverging: tuple[Path, str]) -> None:
    index, index_output = diverging
    assert "divergence: corpus has 22 documents; the operating point was measured on 200" in (
        index_output)
    loaded = load_index(index)
    assert loaded.notices == ["corpus has 22 documents; the operating point was measured on 200"]
    routed = invoke_gov("route", "roll back the release", "-i", str(index), "--format", "text")
    assert routed.returncode == 0, routed.stderr
    assert b"routing may be off for this corpus: corpus has 22 documents" in routed.stderr
    assert b"corpus has 22" not in routed.stdout  # notices are not the answer
    result = load_index(index).route("roll back the release")
    assert result.notices == loaded.notices


def test_quiet_for_the_examples_under_the_shipped_default(example_index: Path) -> None:
    loaded = load_index(example_index)
    assert loaded.notices == []
    routed = invoke_gov("route", "roll back the release", "-i", str(example_index), "--format",
                        "text")
    assert b"divergence" not in routed.stdout


@pytest.mark.parametrize(("source", "command"), [
    ("default", "rebuild it with gov index"),
    ("point.json", "rebuild it with gov index --operating-point")])
def test_background_measured_for_other_weights_names_the_rebuild(source: str,
                                                                 command: str) -> None:
    """An index built before an upgrade changed the default's weights needs a plain rebuild;
    one built for another point file, a rebuild with that point."""
    from dataclasses import replace

    header = IndexHeader(created="", gov_version="", model=ModelInfo(MODEL, 384, None),
                         corpus=CorpusInfo("0" * 64, 22), roots=(), lexical_rows=0,
                         ngram_range=(1, 3), separability=None,
                         background={"params": {"lexical_weight": 0.5}})
    point = replace(OperatingPoint(gate="background", model_id=MODEL, lexical_weight=0.25),
                    source=source)
    (reason,) = [r for r in reasons(point, header) if "other weights" in r]
    assert reason.endswith(command)
    assert not [r for r in reasons(replace(point, lexical_weight=0.5), header)
                if "other weights" in r]


@pytest.mark.parametrize(("background", "quantile", "noticed"), [
    ({"examples_scored": 30}, 0.6, True),  # built before the orphan floor existed
    ({"examples_scored": 30, "orphans_scored": 30}, 0.6, False),
    ({"examples_scored": 0}, 0.6, False),  # no example lines: no floor to miss
    ({"examples_scored": 30}, 0.0, False),  # the point does not use it
])
def test_an_index_without_the_orphan_floor_names_the_rebuild(
        background: dict[str, int], quantile: float, noticed: bool) -> None:
    header = IndexHeader(created="", gov_version="", model=ModelInfo(MODEL, 384, None),
                         corpus=CorpusInfo("0" * 64, 22), roots=(), lexical_rows=0,
                         ngram_range=(1, 3), separability=None,
                         background={"params": {"lexical_weight": 0.25}, **background})
    point = OperatingPoint(gate="background", model_id=MODEL, lexical_weight=0.25,
                           orphan_quantile=quantile)
    found = [r for r in reasons(point, header) if "older gov, without the floor" in r]
    assert found == (["the index was built by an older gov, without the floor its example lines "
                      "set against other documents; rebuild it with gov index"] if noticed else [])
