"""The stand-in encoder the fast tests route with: deterministic, normalised, word-sensitive,
and installed for the build and route paths alike."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gov.core.encode import bundle
from tests.fake_encoder import HashedWordsEncoder


def test_same_text_same_unit_vector_and_shared_words_are_near() -> None:
    encoder = HashedWordsEncoder()
    texts = ["roll back the release", "Roll back the release!", "rotate the leaked key", "", "ok"]
    vectors = encoder.embed(texts)
    assert vectors.shape == (5, bundle.spec().dim) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    np.testing.assert_array_equal(vectors[0], vectors[1])  # case and punctuation do not count
    np.testing.assert_array_equal(vectors, HashedWordsEncoder().embed(texts))  # any instance
    near = float(vectors[0] @ encoder.embed(["roll back the release from last night"])[0])
    far = float(vectors[0] @ vectors[2])
    assert near > 0.6 and abs(far) < near
    assert encoder.embed([]).shape == (0, bundle.spec().dim)
    assert encoder.embedded == [*texts, "roll back the release from last night"]


def test_installed_for_building_and_routing(fake_index: Path, fake_encoder: HashedWordsEncoder) -> None:
    from gov.core.encode.embedding import get_encoder
    from gov.core.routing.indexes import load_index

    assert get_encoder(bundle.default_id(), purpose="build") is fake_encoder
    router = load_index(fake_index)
    answer = router.route("rotate the stripe key that leaked", record=False)
    assert answer.degraded is None and fake_encoder.embedded == ["rotate the stripe key that leaked"]
    # Surfaces and prompts embed alike: a document's own trigger finds it by meaning first.
    trigger = router.document("deployment").trigger
    vectors = router.scorer.embed([trigger])
    assert vectors is not None
    semantic = router.scorer.semantic(vectors, pool="max")[0]
    assert router.names[int(np.argmax(semantic))] == "deployment"
    assert semantic.max() > 0.999


@pytest.mark.slow  # builds an index (fitting the background gate): seconds
def test_its_vectors_never_reach_the_suites_cache(fake_encoder: HashedWordsEncoder, tmp_path: Path,
                                                  _private_folders: dict[str, str]) -> None:
    """The stand-in's vectors carry the bundled model's id: in the suite's cache folder they
    would be read back by the real model's builds (body passages and the background bank
    ask for the cache)."""
    from gov.core.corpus.reader import load_corpus
    from gov.core.routing.indexes import build_index
    from tests.conftest import POLICIES

    suite_cache = Path(_private_folders["GOV_CACHE_DIR"])
    before = sorted(suite_cache.rglob("*"))
    build_index(load_corpus([POLICIES], warn=lambda _m: None)).write(tmp_path / "index")
    assert fake_encoder.embedded  # the build did embed, with the stand-in
    assert sorted(suite_cache.rglob("*")) == before
