"""Body evidence: passages, one summary vector per document from its first passages, counted
as more surfaces in the semantic score, on by default, cached on rebuild, and calibrated."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gov.core.calibration import grid as cal
from gov.core.calibration.labelled import Labelled
from gov.core.calibration.scores import Scores
from gov.core.corpus.passages import MAX_PASSAGES, passages
from gov.core.corpus.reader import load_corpus
from gov.core.errors import OperatingPointError
from gov.core.index.bodies import PASSAGES_PER_DOCUMENT
from gov.core.routing.indexes import build_index, load_index
from gov.core.routing.point import default_operating_point, from_json
from tests.conftest import EXAMPLES, POLICIES, run_gov

PROMPTS = [json.loads(line)["prompt"] for line in (EXAMPLES / "labelled.jsonl").read_text().splitlines()]


def test_passages_are_the_body_without_headings_gov_lines_code_or_front_matter() -> None:
    text = """---
description: a rule
---
# Title

**Agent-trigger:** deploying things
**Agent-example:** ship it

This first paragraph explains the purpose of the policy
and runs over two lines.

## Rules

1. Every deploy goes through the pipeline, no exceptions at all.
2. Rollbacks never need approval from anyone on the team.
- short
* A bullet that is long enough to count as a passage.

```sh
kubectl apply -f this-is-code-not-a-passage.yaml --namespace production
```
"""
    assert passages(text) == [
        "This first paragraph explains the purpose of the policy and runs over two lines.",
        "Every deploy goes through the pipeline, no exceptions at all.",
        "Rollbacks never need approval from anyone on the team.",
        "A bullet that is long enough to count as a passage.",
    ]
    many = "\n\n".join(f"Paragraph number {i} says something long enough." for i in range(200))
    assert len(passages(many)) == MAX_PASSAGES
    assert passages("**Agent-trigger:** only a trigger line here, nothing else") == []


@pytest.fixture(scope="module")
def bodies_index(tmp_path_factory: pytest.TempPathFactory, example_index: Path) -> Path:
    path = tmp_path_factory.mktemp("bodies") / "index"
    build_index(load_corpus([POLICIES], warn=lambda _m: None), previous=example_index,
                bodies=True).write(path)
    return path


def test_a_body_vector_is_the_mean_of_its_first_passages(bodies_index: Path) -> None:
    from gov.core.encode.embedding import get_encoder

    index = load_index(bodies_index)
    assert index.scorer.body_vectors is not None and index.header.bodies["documents"] == 22
    name = "deployment"
    position = list(index.names).index(name)
    chunks = passages(index.text(name))
    assert len(chunks) > PASSAGES_PER_DOCUMENT
    first = chunks[:PASSAGES_PER_DOCUMENT]
    expected = np.mean(get_encoder(index.model_id or "", purpose="build").embed(first), axis=0)
    np.testing.assert_allclose(index.scorer.body_vectors[position], expected, atol=1e-5)


def test_the_body_counts_as_more_surfaces_only_where_there_is_one(bodies_index: Path,
                                                                  tmp_path: Path) -> None:
    index = load_index(bodies_index)
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


def test_bodies_are_on_by_default_and_the_default_counts_each_as_a_surface(
        example_index: Path, tmp_path: Path) -> None:
    assert default_operating_point().body_surfaces == 1.0
    assert load_index(example_index).scorer.body_vectors is not None
    path = tmp_path / "plain"
    build_index(load_corpus([POLICIES], warn=lambda _m: None), previous=example_index,
                bodies=False).write(path)
    plain = load_index(path)
    assert plain.scorer.body_vectors is None and plain.header.bodies is None
    assert plain.route("roll back last night's release", record=False).names  # still routes


def test_a_rebuild_takes_unchanged_passages_from_the_cache(bodies_index: Path) -> None:
    again = build_index(load_corpus([POLICIES], warn=lambda _m: None), previous=bodies_index)
    assert again.header.bodies["passages_cached"] == again.header.bodies["passages"] > 0
    # the same vectors, up to the rounding of ONNX runs batched differently (1e-8)
    np.testing.assert_allclose(again.arrays["body_vectors"],
                               load_index(bodies_index).scorer.body_vectors, atol=1e-6)


def test_approximate_search_mixes_bodies_like_exact_search(bodies_index: Path, tmp_path: Path) -> None:
    import importlib.util

    # Not importorskip: usearch must be imported after onnxruntime (see core/index/ann.py).
    if importlib.util.find_spec("usearch") is None:
        pytest.skip("usearch is not installed")
    path = tmp_path / "ann"
    build_index(load_corpus([POLICIES], warn=lambda _m: None), previous=bodies_index,
                ann=True).write(path)
    near, exact = load_index(path), load_index(path, exact=True)
    assert [r.names for r in near.route_many(PROMPTS, record=False)] == [
        r.names for r in exact.route_many(PROMPTS, record=False)]


def test_calibration_weighs_the_body_when_it_separates() -> None:
    # Surfaces cannot tell alpha's prompts from beta's; the bodies can.
    names = ["alpha", "beta", "gamma"]
    expected = [["alpha"], ["beta"], ["alpha"], ["beta"], [], []] * 3
    semantic = np.array([[0.5, 0.5, 0.1], [0.5, 0.5, 0.1], [0.5, 0.49, 0.1], [0.49, 0.5, 0.1],
                         [0.3, 0.3, 0.1], [0.3, 0.3, 0.1]] * 3)
    body = np.array([[0.8, 0.1, 0.0], [0.1, 0.8, 0.0], [0.8, 0.1, 0.0], [0.1, 0.8, 0.0],
                     [0.1, 0.1, 0.0], [0.1, 0.1, 0.0]] * 3)
    data = Labelled([f"p{i}" for i in range(len(expected))], [frozenset(e) for e in expected],
                    [None] * len(expected))
    without = cal.calibrate(names, data, Scores(np.zeros_like(semantic), semantic), confidence=False)
    scores = Scores(np.zeros_like(semantic), semantic, None, {}, body,
                    np.array([True, True, False]), np.array([1, 1, 1]))
    assert scores.body_choices()[0] == 0.0 and len(scores.body_choices()) > 1
    result = cal.calibrate(names, data, scores, confidence=False)
    assert result.winner is not None and result.winner.point.body_surfaces > 0
    assert result.winner.metrics["f1"] == pytest.approx(1.0)
    assert without.winner is None or (without.winner.metrics["f1"] or 0) < 1.0
    assert {row.point.body_surfaces for row in result.rows} == set(scores.body_choices())


def test_body_surfaces_and_shares_are_checked() -> None:
    base = {"gov_operating_point": 1, "params": {"body_surfaces": -1}}
    with pytest.raises(OperatingPointError, match=r"params\.body_surfaces must not be negative"):
        from_json(base, "p.json")
    assert from_json({**base, "params": {"body_surfaces": 2}}, "p.json").body_surfaces == 2.0
    with pytest.raises(OperatingPointError, match=r"params\.background_alpha must be a number "
                                                  r"from 0 to 1"):
        from_json({**base, "params": {"background_alpha": 1.5}}, "p.json")


def test_cli_index_bodies(tmp_path: Path, example_index: Path) -> None:
    target = tmp_path / "idx"
    target.write_bytes(example_index.read_bytes())
    built = run_gov("index", str(POLICIES), "-o", str(target), "--format", "json")
    assert built.returncode == 0, built.stderr
    summary = json.loads(built.stdout)
    bodies = summary["bodies"]
    assert bodies["documents"] == 22 and 22 < bodies["passages"] <= 22 * PASSAGES_PER_DOCUMENT
    text = run_gov("index", str(POLICIES), "-o", str(target))
    assert (f"bodies: 22 documents with a body; {bodies['passages']} passages (at most 8 per "
            f"document), {bodies['passages']} from the embedding cache") in text.stdout.decode()
    plain = run_gov("index", str(POLICIES), "-o", str(tmp_path / "plain"), "--no-bodies",
                    "--format", "json")
    assert plain.returncode == 0 and json.loads(plain.stdout)["bodies"] is None
    words = run_gov("index", str(POLICIES), "-o", str(tmp_path / "lex"), "--lexical-only",
                    "--format", "json")
    assert words.returncode == 0 and json.loads(words.stdout)["bodies"] is None


def test_a_rebuild_for_a_changed_corpus_keeps_bodies(bodies_index: Path, tmp_path: Path) -> None:
    import shutil

    from gov.core.routing.indexes import ensure_index

    corpus = tmp_path / "policies"
    shutil.copytree(POLICIES, corpus)
    target = tmp_path / "idx"
    build_index(load_corpus([corpus], warn=lambda _m: None), previous=bodies_index).write(target)
    fresh, rebuilt = ensure_index([corpus], target, warn=lambda _m: None)
    assert not rebuilt and fresh.scorer.body_vectors is not None
    page = corpus / "deployment.md"
    page.write_text(page.read_text() + "\nEvery rollback is announced in the deploys channel.\n")
    again, rebuilt = ensure_index([corpus], target, warn=lambda _m: None)
    assert rebuilt and again.scorer.body_vectors is not None
    assert again.header.bodies["passages"] - again.header.bodies["passages_cached"] <= 1
