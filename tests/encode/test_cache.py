"""The embedding cache: an interrupted build resumes, re-embedding only what is missing."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from gov.core.encode import cache as embed_cache
from gov.core.encode.cache import EmbeddingCache, embed_missing, model_folder, use_cache
from tests.fake_encoder import HashedWordsEncoder

DIM = 4


class FakeEncoder:
    """Deterministic vectors; raises KeyboardInterrupt on the call numbered ``stop_at``."""

    def __init__(self, stop_at: int | None = None) -> None:
        self.calls = 0
        self.embedded: list[str] = []
        self.stop_at = stop_at

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        if self.calls == self.stop_at:
            raise KeyboardInterrupt
        self.embedded.extend(texts)
        return np.array([[len(t), t.count("a"), 1.0, float(hash(t) % 7)] for t in texts],
                        dtype=np.float32)


@pytest.fixture
def cache_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GOV_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("GOV_EMBED_CACHE", "1")
    monkeypatch.setattr(embed_cache, "STEP_TEXTS", 8)
    monkeypatch.setattr(embed_cache, "SAVE_SECONDS", 0.0)  # save after every call
    return tmp_path


def use(monkeypatch: pytest.MonkeyPatch, encoder: FakeEncoder) -> None:
    import gov.core.encode.embedding as embedding

    monkeypatch.setattr(embedding, "get_encoder", lambda *_a, **_k: encoder)


def test_an_interrupted_build_resumes(cache_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [f"surface number {i} about a thing" for i in range(40)]
    first = FakeEncoder(stop_at=3)
    use(monkeypatch, first)
    with pytest.raises(KeyboardInterrupt):
        embed_missing(texts, "m", model_sha256="abc", dim=DIM)
    assert len(first.embedded) == 16  # two calls of 8 were saved before the interrupt
    second = FakeEncoder()
    use(monkeypatch, second)
    seen: list[tuple[int, int]] = []
    vectors, hits = embed_missing(texts, "m", model_sha256="abc", dim=DIM,
                                  progress=lambda done, total: seen.append((done, total)))
    assert hits == 16 and second.embedded == texts[16:]
    assert seen[0] == (16, 40) and seen[-1] == (40, 40)
    reference = FakeEncoder().embed(texts)
    np.testing.assert_array_equal(np.stack([vectors[t] for t in texts]), reference)
    third = FakeEncoder()
    use(monkeypatch, third)
    assert embed_missing(texts, "m", model_sha256="abc", dim=DIM)[1] == 40
    assert third.calls == 0
    assert embed_missing(texts[:3], "m", model_sha256="other", dim=DIM)[1] == 0  # new weights


def test_half_written_or_foreign_chunks_are_ignored(cache_env: Path) -> None:
    folder = model_folder("m", None)
    cache = EmbeddingCache(folder, DIM)
    cache.add(["kept"], np.ones((1, DIM), dtype=np.float32))
    np.save(folder / "lonely.vectors.npy", np.ones((1, DIM), dtype=np.float32))  # no keys file
    np.save(folder / "pickled.keys.npy", np.array([object()], dtype=object), allow_pickle=True)
    np.save(folder / "wrong.keys.npy", np.zeros((1, 16), dtype=np.uint8))
    np.save(folder / "wrong.vectors.npy", np.ones((2, DIM), dtype=np.float32))  # rows differ
    (folder / "junk.keys.npy").write_bytes(b"not a numpy file")
    assert set(cache.lookup(["kept", "lonely", "x"])) == {"kept"}
    assert not list(folder.glob("*.tmp"))


def test_small_builds_skip_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOV_EMBED_CACHE", raising=False)
    assert not use_cache(10) and use_cache(embed_cache.MIN_TEXTS)
    monkeypatch.setenv("GOV_EMBED_CACHE", "0")
    assert not use_cache(10**6)
    monkeypatch.setenv("GOV_EMBED_CACHE", "1")
    assert use_cache(1)


def test_the_setting_overrides_what_a_caller_asks_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """Body passages and the background bank ask for the cache; GOV_EMBED_CACHE=0 still
    means no cache at all, and =1 a cache even where a caller would skip it."""
    monkeypatch.delenv("GOV_EMBED_CACHE", raising=False)
    assert use_cache(1, True) and not use_cache(10**6, False)
    monkeypatch.setenv("GOV_EMBED_CACHE", "0")
    assert not use_cache(1, True)
    monkeypatch.setenv("GOV_EMBED_CACHE", "1")
    assert use_cache(1, False)


@pytest.mark.slow
def test_a_rebuild_takes_every_vector_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     fake_encoder: HashedWordsEncoder) -> None:
    from gov.core.corpus.reader import load_corpus
    from gov.core.routing.indexes import build_index
    from tests.conftest import POLICIES

    monkeypatch.setenv("GOV_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("GOV_EMBED_CACHE", "1")
    corpus = load_corpus([POLICIES], warn=lambda _m: None)
    first, second = build_index(corpus), build_index(corpus)
    surfaces = first.header.build["surfaces"]
    assert first.header.build["cached_vectors"] == 0
    assert second.header.build["cached_vectors"] == surfaces
    np.testing.assert_array_equal(first.arrays["embeddings"], second.arrays["embeddings"])
    assert len(fake_encoder.embedded) == len(set(fake_encoder.embedded))  # the second embedded nothing
