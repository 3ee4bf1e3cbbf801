"""Body evidence at build time (gov index --bodies): one mean vector per document, reuse on
rebuild, and approximate search over it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gov.core.corpus.passages import passages
from gov.core.corpus.reader import load_corpus
from gov.core.index.bodies import PASSAGES_PER_DOCUMENT
from gov.core.routing.indexes import build_index, load_index
from tests.conftest import EXAMPLES, POLICIES

PROMPTS = [json.loads(line)["prompt"] for line in (EXAMPLES / "labelled.jsonl").read_text().splitlines()]


def test_a_body_vector_is_the_mean_of_its_first_passages(fake_bodies_index: Path) -> None:
    from gov.core.encode.embedding import get_encoder

    index = load_index(fake_bodies_index)
    assert index.scorer.body_vectors is not None and index.header.bodies["documents"] == 22
    name = "deployment"
    position = list(index.names).index(name)
    chunks = passages(index.text(name))
    assert len(chunks) > PASSAGES_PER_DOCUMENT
    first = chunks[:PASSAGES_PER_DOCUMENT]
    expected = np.mean(get_encoder(index.model_id or "", purpose="build").embed(first), axis=0)
    np.testing.assert_allclose(index.scorer.body_vectors[position], expected, atol=1e-5)


def test_a_rebuild_takes_unchanged_passages_from_the_cache(bodies_index: Path) -> None:
    again = build_index(load_corpus([POLICIES], warn=lambda _m: None), previous=bodies_index)
    assert again.header.bodies["passages_cached"] == again.header.bodies["passages"] > 0
    # the same vectors, up to the rounding of ONNX runs batched differently (1e-8)
    np.testing.assert_allclose(again.arrays["body_vectors"],
                               load_index(bodies_index).scorer.body_vectors, atol=1e-6)


@pytest.mark.slow
def test_approximate_search_mixes_bodies_like_exact_search(fake_bodies_index: Path, tmp_path: Path) -> None:
    import importlib.util

    # Not importorskip: usearch must be imported after onnxruntime (see core/index/ann.py).
    if importlib.util.find_spec("usearch") is None:
        pytest.skip("usearch is not installed")
    path = tmp_path / "ann"
    build_index(load_corpus([POLICIES], warn=lambda _m: None), previous=fake_bodies_index,
                ann=True).write(path)
    near, exact = load_index(path), load_index(path, exact=True)
    routed = [r.names for r in near.route_many(PROMPTS, record=False)]
    assert routed == [r.names for r in exact.route_many(PROMPTS, record=False)]
    assert any(routed)  # something routed, so the comparison means something


@pytest.mark.slow  # builds an index (fitting the background gate): seconds
def test_bodies_are_left_out_past_the_size_limit_unless_asked_for(
        fake_encoder: object, monkeypatch: pytest.MonkeyPatch) -> None:
    from gov.core.index import bodies

    assert bodies.wanted(None, bodies.MAX_DOCUMENTS)
    assert not bodies.wanted(None, bodies.MAX_DOCUMENTS + 1)
    assert bodies.wanted(True, 10 * bodies.MAX_DOCUMENTS) and not bodies.wanted(False, 1)
    monkeypatch.setattr(bodies, "MAX_DOCUMENTS", 21)  # the examples corpus has 22
    corpus = load_corpus([POLICIES], warn=lambda _m: None)
    assert build_index(corpus).header.bodies is None
    asked = build_index(corpus, bodies=True).header.bodies
    assert asked is not None and asked["documents"] == 22


@pytest.mark.slow  # builds an index (fitting the background gate): seconds
def test_a_build_reports_progress_on_one_scale_over_surfaces_and_passages(
        fake_encoder: object) -> None:
    from gov.core.index.bodies import distinct_passages, first_passages
    from gov.core.index.surfaces import surfaces_of

    corpus = load_corpus([POLICIES], warn=lambda _m: None)
    calls: list[tuple[int, int]] = []
    built = build_index(corpus, progress=lambda done, total: calls.append((done, total)))
    surfaces = len(set(surfaces_of(corpus.documents).texts))
    passages_ = len(distinct_passages(first_passages(corpus.documents)))
    assert built.header.bodies is not None and passages_ == built.header.bodies["passages"]
    # One total from the first report to the last (a bar's time left spans the whole
    # embedding), counts that only grow, and the last report is the whole.
    assert {total for _done, total in calls} == {surfaces + passages_}
    assert [done for done, _total in calls] == sorted(done for done, _total in calls)
    assert calls[-1] == (surfaces + passages_, surfaces + passages_)
    assert any(done == surfaces for done, _total in calls)  # the surfaces' stage ends there
