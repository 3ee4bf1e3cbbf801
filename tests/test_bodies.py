"""Body evidence (gov index --bodies): passages, one mean vector per document, the mix into
the semantic score, reuse on rebuild, its own default point, and calibration of its weight."""

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


def test_a_body_vector_is_the_mean_of_its_passages(bodies_index: Path) -> None:
    from gov.core.encode.embedding import get_encoder

    index = load_index(bodies_index)
    assert index.scorer.body_vectors is not None and index.header.bodies["documents"] == 22
    name = "deployment"
    position = list(index.names).index(name)
    chunks = passages(index.text(name))
    assert len(chunks) > 5
    expected = np.mean(get_encoder(index.model_id or "", purpose="build").embed(chunks), axis=0)
    np.testing.assert_allclose(index.scorer.body_vectors[position], expected, atol=1e-5)


def test_the_mix_moves_only_documents_with_a_body(bodies_index: Path, tmp_path: Path) -> None:
    index = load_index(bodies_index)
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


def test_an_index_with_bodies_routes_with_the_default_measured_with_bodies(bodies_index: Path,
                                                                          example_index: Path) -> None:
    shipped = default_operating_point(bodies=True)
    assert shipped.body_weight > 0 and shipped.provenance["corpus_id"] == "examples/policies"
    with_bodies = load_index(bodies_index)
    assert with_bodies.operating_point.id == shipped.id
    assert load_index(example_index).operating_point.body_weight == 0.0
    routed = with_bodies.route("rotate the stripe key that leaked", record=False)
    assert routed.names == ["secrets-management"]


def test_a_rebuild_reuses_unchanged_body_vectors(bodies_index: Path, tmp_path: Path) -> None:
    again = build_index(load_corpus([POLICIES], warn=lambda _m: None), previous=bodies_index,
                        bodies=True)
    assert again.header.bodies["passages_embedded"] == 0
    assert again.header.bodies["reused"] == 22
    np.testing.assert_array_equal(again.arrays["body_vectors"],
                                  load_index(bodies_index).scorer.body_vectors)


def test_approximate_search_mixes_bodies_like_exact_search(bodies_index: Path, tmp_path: Path) -> None:
    import importlib.util

    # Not importorskip: usearch must be imported after onnxruntime (see core/index/ann.py).
    if importlib.util.find_spec("usearch") is None:
        pytest.skip("usearch is not installed")
    path = tmp_path / "ann"
    build_index(load_corpus([POLICIES], warn=lambda _m: None), previous=bodies_index,
                bodies=True, ann=True).write(path)
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
                        np.array([True, True, False]))
    assert scores.body_weights()[0] == 0.0 and len(scores.body_weights()) > 1
    result = cal.calibrate(names, data, scores, confidence=False)
    assert result.winner is not None and result.winner.point.body_weight > 0
    assert result.winner.metrics["f1"] == pytest.approx(1.0)
    assert without.winner is None or (without.winner.metrics["f1"] or 0) < 1.0
    assert {row.point.body_weight for row in result.rows} == set(scores.body_weights())


def test_body_weight_must_be_between_0_and_1() -> None:
    base = {"gov_operating_point": 1, "params": {"body_weight": 1.5}}
    with pytest.raises(OperatingPointError, match=r"params\.body_weight must be a number from 0 to 1"):
        from_json(base, "p.json")
    assert from_json({**base, "params": {"body_weight": 0.5}}, "p.json").body_weight == 0.5


def test_cli_index_bodies(tmp_path: Path, example_index: Path) -> None:
    target = tmp_path / "idx"
    target.write_bytes(example_index.read_bytes())
    built = run_gov("index", str(POLICIES), "-o", str(target), "--bodies", "--format", "json")
    assert built.returncode == 0, built.stderr
    summary = json.loads(built.stdout)
    assert summary["bodies"]["documents"] == 22 and summary["bodies"]["passages_embedded"] > 200
    text = run_gov("index", str(POLICIES), "-o", str(target), "--bodies")
    assert "bodies: 22 documents with a body; 0 passages embedded, 22" in text.stdout.decode()
    words = run_gov("index", str(POLICIES), "-o", str(tmp_path / "lex"), "--bodies", "--lexical-only")
    assert words.returncode != 0 and b"--bodies needs embeddings" in words.stderr


def test_a_rebuild_for_a_changed_corpus_keeps_bodies(bodies_index: Path, tmp_path: Path) -> None:
    import shutil

    from gov.core.routing.indexes import ensure_index

    corpus = tmp_path / "policies"
    shutil.copytree(POLICIES, corpus)
    target = tmp_path / "idx"
    build_index(load_corpus([corpus], warn=lambda _m: None), previous=bodies_index,
                bodies=True).write(target)
    fresh, rebuilt = ensure_index([corpus], target, warn=lambda _m: None)
    assert not rebuilt and fresh.scorer.body_vectors is not None
    page = corpus / "deployment.md"
    page.write_text(page.read_text() + "\nEvery rollback is announced in the deploys channel.\n")
    again, rebuilt = ensure_index([corpus], target, warn=lambda _m: None)
    assert rebuilt and again.scorer.body_vectors is not None
    assert again.header.bodies["reused"] == 21  # only the edited document is re-embedded
    assert again.operating_point.body_weight > 0  # and it keeps the default measured with bodies
