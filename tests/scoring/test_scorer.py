"""The scorer: body evidence mixed into the semantic score."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from gov.core.corpus.reader import load_corpus
from gov.core.routing.indexes import build_index, load_index
from tests.conftest import EXAMPLES

PROMPTS = [json.loads(line)["prompt"] for line in (EXAMPLES / "labelled.jsonl").read_text().splitlines()]


def test_the_body_counts_as_more_surfaces_only_where_there_is_one(fake_bodies_index: Path,
                                                                  tmp_path: Path) -> None:
    index = load_index(fake_bodies_index)
    vectors = index.scorer.embed(PROMPTS[:8])
    assert vectors is not None and index.scorer.body_vectors is not None
    counts = index.scorer.groups.counts.astype(np.float64)
    plain = index.scorer.semantic(vectors, pool="mean", body_surfaces=0.0)
    for surfaces in (1.0, 2.5):
        mixed = index.scorer.semantic(vectors, pool="mean", body_surfaces=surfaces)
        body = vectors @ np.asarray(index.scorer.body_vectors).T
        # A document of n surfaces: (n * mean + b * body) / (n + b), one more surface at b = 1.
        np.testing.assert_allclose(mixed, (counts * plain + surfaces * body) / (counts + surfaces),
                                   atol=1e-5)
    # A JSONL document without a body keeps its surface score.
    source = tmp_path / "docs.jsonl"
    source.write_text(json.dumps({"name": "bare", "trigger": "deploying a service to production"}) + "\n"
                      + json.dumps({"name": "full", "trigger": "rotating a leaked credential",
                                    "body": "Revoke the key first, then rotate it everywhere it is used."}) + "\n")
    path = tmp_path / "idx"
    build_index(load_corpus([source])).write(path)
    small = load_index(path)
    assert small.header.bodies["documents"] == 1
    vec = small.scorer.embed(["ship the release to prod"])
    assert vec is not None
    np.testing.assert_allclose(small.scorer.semantic(vec, pool="max", body_surfaces=3.0)[0, 0],
                               small.scorer.semantic(vec, pool="max", body_surfaces=0.0)[0, 0], atol=1e-6)
