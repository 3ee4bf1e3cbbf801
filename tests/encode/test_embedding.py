"""The lean ONNX route path embeds exactly as fastembed does, offline."""

from __future__ import annotations

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
    assert lean.shape == reference.shape == (len(TEXTS), model_bundle.DIMENSION)
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
