"""The lean ONNX route path embeds exactly as fastembed does, offline."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from gov.core.encode import bundle as model_bundle
from gov.core.encode.embedding import FastembedEncoder, OnnxEncoder

TEXTS = [
    "roll back last night's release",
    "Rotate the database password before Friday",
    "ok",
    "Ünïcödé prompts, emoji 🚀 and punctuation!!!",
    "word " * 400,  # longer than the model's 256-token window
]


@pytest.mark.model
def test_onnx_path_matches_fastembed() -> None:
    lean = OnnxEncoder().embed(TEXTS)
    reference = FastembedEncoder().embed(TEXTS)
    assert lean.shape == reference.shape == (len(TEXTS), model_bundle.spec().dim)
    assert lean.dtype == np.float32
    cosines = (lean * reference).sum(axis=1) / (
        np.linalg.norm(lean, axis=1) * np.linalg.norm(reference, axis=1))
    assert cosines.min() >= 0.9999
    np.testing.assert_allclose(np.linalg.norm(lean, axis=1), 1.0, atol=1e-5)


@pytest.mark.model
def test_batches_do_not_change_vectors() -> None:
    encoder = OnnxEncoder()
    many = [f"prompt number {i} about deployments" for i in range(40)]
    together = encoder.embed(many)
    alone = np.stack([encoder.embed([text])[0] for text in many[:3]])
    np.testing.assert_allclose(together[:3], alone, atol=1e-5)


def test_length_groups_keep_each_run_under_the_token_budget() -> None:
    """Runs are sized by tokens, not texts: the encoder's memory follows rows × width."""
    from gov.core.encode import embedding

    lengths = sorted([8] * 300 + [40] * 100 + [130] * 50 + [256] * 7)
    sizes = embedding._length_groups(lengths, model_bundle.spec().batch_size)
    assert sum(sizes) == len(lengths)
    start = 0
    for size in sizes:
        width = lengths[start + size - 1]  # ascending: the widest is the last
        assert size <= model_bundle.spec().batch_size
        assert size == 1 or size * width <= embedding._RUN_TOKENS, (size, width)
        start += size


def test_release_drops_one_purposes_encoders(monkeypatch: pytest.MonkeyPatch) -> None:
    """A build frees its encoder before the head's fit (the next build makes a new one);
    the route encoder a warm server holds stays."""
    from gov.core.encode import embedding

    model = model_bundle.default_id()
    build, route, other = object(), object(), object()
    cached = {(model, "build", False): build, (model, "route", False): route,
              ("some/model", "build", True): other}
    monkeypatch.setattr(embedding, "_ENCODERS", dict(cached))
    embedding.release("build")
    remaining = dict(embedding._ENCODERS)
    assert remaining == {(model, "route", False): route}



@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc, trims glibc's heap")
def test_release_hands_freed_heap_back_to_the_system() -> None:
    """What a released session freed leaves the build's resident memory, instead of
    staying in the allocator's free lists under the head's fit."""
    from gov.core.encode import embedding

    def resident_mb() -> int:
        status = Path("/proc/self/status").read_text()
        return int(next(line.split()[1] for line in status.splitlines()
                        if line.startswith("VmRSS"))) // 1024

    chunks = [np.ones(1000) for _ in range(20_000)]  # 160 MB in small heap blocks
    # The last block stays: it sits on top of the others (a fresh small block could fill an
    # older hole instead), so freeing the rest cannot simply shrink the heap from its top.
    pinned = chunks.pop()
    del chunks
    before = resident_mb()
    assert before > 150
    embedding.release("build")
    assert before - resident_mb() > 100
    assert pinned.sum() == 1000
