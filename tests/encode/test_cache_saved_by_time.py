"""The embedding cache is saved every few seconds of embedding work, not every N texts: a
build interrupted after half a minute leaves all but the last few seconds to resume (it
used to save every 2,048 texts, and a 1,354-document build stopped at 35 s kept nothing)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from gov.core.encode import cache as embed_cache
from gov.core.encode.cache import embed_missing


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    def time_ns(self) -> int:
        return int(self.now * 1e9)


class SlowEncoder:
    """Each call takes ``seconds`` on the fake clock; the call numbered ``stop_at`` is
    interrupted (Ctrl-C)."""

    def __init__(self, clock: Clock, seconds: float, stop_at: int | None = None) -> None:
        self.clock, self.seconds, self.stop_at, self.calls = clock, seconds, stop_at, 0
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.clock.now += self.seconds
        if self.calls == self.stop_at:
            raise KeyboardInterrupt
        self.embedded.extend(texts)
        return np.array([[len(t), 1.0, 0.0, 2.0] for t in texts], dtype=np.float32)


def test_the_cache_is_saved_every_few_seconds_of_work(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import gov.core.encode.embedding as embedding

    assert embed_cache.SAVE_SECONDS <= 5.0
    monkeypatch.setenv("GOV_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("GOV_EMBED_CACHE", "1")
    monkeypatch.setattr(embed_cache, "STEP_TEXTS", 10)
    clock = Clock()
    monkeypatch.setattr(embed_cache, "time", clock)
    texts = [f"surface {i} of a long build" for i in range(400)]
    # 2 s per call of 10 texts: saved after calls 3, 6, 9, ... (every 5 s of work or more);
    # interrupted in call 11 at 22 s: the 90 texts of calls 1-9 are on disk.
    first = SlowEncoder(clock, 2.0, stop_at=11)
    monkeypatch.setattr(embedding, "get_encoder", lambda *_a, **_k: first)
    with pytest.raises(KeyboardInterrupt):
        embed_missing(texts, "m", model_sha256="abc", dim=4)
    assert len(first.embedded) == 100
    second = SlowEncoder(clock, 2.0)
    monkeypatch.setattr(embedding, "get_encoder", lambda *_a, **_k: second)
    _vectors, hits = embed_missing(texts, "m", model_sha256="abc", dim=4)
    assert hits == 90 and second.embedded == texts[90:]
    # fast calls are batched into one save per few seconds, not one file per call
    chunks = list((tmp_path).rglob("*.keys.npy"))
    assert 3 <= len(chunks) < 400 // 10
