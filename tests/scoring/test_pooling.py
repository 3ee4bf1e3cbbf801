"""Per-document pooling equals the plain reduceat definition, whatever the grouping; an index
pools as its operating point says."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gov.core.routing.point import OperatingPoint
from gov.core.scoring.pooling import MAX_GATHERS, SurfaceGroups


@settings(max_examples=200, deadline=None)
@given(counts=st.lists(st.integers(1, MAX_GATHERS + 8), min_size=1, max_size=40),
       rows=st.integers(1, 4), seed=st.integers(0, 2**32 - 1))
def test_pooling_equals_reduceat(counts: list[int], rows: int, seed: int) -> None:
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
    total = int(sum(counts))
    scores = np.random.default_rng(seed).uniform(-1, 1, (rows, total)).astype(np.float32)
    groups = SurfaceGroups(starts, total)
    assert groups.gather == (max(counts) <= MAX_GATHERS)
    best = np.maximum.reduceat(scores, starts, axis=1)
    mean = np.add.reduceat(scores.astype(np.float64), starts, axis=1) / np.array(counts)
    np.testing.assert_array_equal(groups.best(scores), best)
    np.testing.assert_array_equal(groups.best(scores[0]), best[0])
    np.testing.assert_allclose(groups.mean(scores), mean, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(groups.mean(scores[0]), mean[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(groups.pool(scores, "max_mean"), (best + mean) / 2, rtol=1e-6, atol=1e-6)
    before = scores.copy()
    groups.pool(scores, "max")
    np.testing.assert_array_equal(scores, before)  # the input is never written


def test_semantic_pooling_of_surface_similarities(fake_index: Path) -> None:
    from gov.core.routing.indexes import load_index
    from gov.core.scoring.pooling import SurfaceGroups

    sims = np.array([[0.9, 0.1, 0.2, 0.4]], dtype=np.float32)
    groups = SurfaceGroups(np.array([0, 2], dtype=np.int64), 4)  # doc 0: columns 0-1, doc 1: 2-3
    assert groups.pool(sims, "max") == pytest.approx(np.array([[0.9, 0.4]]))
    assert groups.pool(sims, "mean") == pytest.approx(np.array([[0.5, 0.3]]))
    assert groups.pool(sims, "max_mean") == pytest.approx(np.array([[0.7, 0.35]]))
    # The index pools as its operating point says.
    mean_index = load_index(fake_index, operating_point=OperatingPoint(
        semantic_pool="mean", model_id=load_index(fake_index).model_id))
    vectors = mean_index.scorer.embed(["roll back the release"])
    assert vectors is not None
    pooled = mean_index.scorer.semantic(vectors, pool=mean_index.operating_point.semantic_pool)
    best = mean_index.scorer.semantic(vectors, pool="max")
    assert (pooled <= best + 1e-6).all() and (pooled < best - 1e-3).any()
