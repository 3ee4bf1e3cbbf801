"""The scorer: body evidence mixed into the semantic score."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from gov.core.corpus.reader import load_corpus
from gov.core.routing.indexes import build_index, load_index
from tests.conftest import EXAMPLES

PROMPTS = [json.loads(line)["prompt"] for line in (EXAMPLES / "labelled.jsonl").read_text().splitlines()]


def test_the_mix_moves_only_documents_with_a_body(fake_bodies_index: Path, tmp_path: Path) -> None:
    index = load_index(fake_bodies_index)
    vectors = index.scorer.embed(PROMPTS[:8])
    assert vectors is not None and index.scorer.body_vectors is not None
    plain = index.scorer.semantic(vectors, pool="max", body_weight=0.0)
    mixed = index.scorer.semantic(vectors, pool="max", body_weight=0.4)
    body = vectors @ np.asarray(index.scorer.body_vectors).T
    np.testing.assert_allclose(mixed, 0.6 * plain + 0.4 * body, atol=1e-5)
    # A JSONL document without a body keeps its surface score.
    source = tmp_path / "docs.jsonl"
    source.write_text(json.dumps({"name": "bare", "trigger": "deploying a service to production"}) + "\n"
                      + json.dumps({"name": "full", "trigger": "rotating a leaked credential",
                                    "body": "Revoke the key first, then rotate it everywhere it is used."}) + "\n")
    path = tmp_path / "idx"
    build_index(load_corpus([source]), bodies=True).write(path)
    small = load_index(path)
    assert small.header.bodies["documents"] == 1
    vec = small.scorer.embed(["ship the release to prod"])
    assert vec is not None
    np.testing.assert_allclose(small.scorer.semantic(vec, pool="max", body_weight=0.9)[0, 0],
                               small.scorer.semantic(vec, pool="max", body_weight=0.0)[0, 0], atol=1e-6)
