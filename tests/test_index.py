"""Building, loading and routing with the real model: the library API end to end."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from gov.core.corpus.reader import load_corpus
from gov.core.routing.indexes import build_index, ensure_index, load_index
from tests.conftest import POLICIES


@pytest.fixture(scope="module")
def index(example_index: Path):  # type: ignore[no-untyped-def]
    return load_index(example_index)


def test_routes_a_paraphrase_to_its_document(index) -> None:  # type: ignore[no-untyped-def]
    result = index.route("roll back the payments release from last night, it's throwing errors")
    assert result.degraded is None
    assert result.names[0] == "deployment"
    assert len(result.routes) <= 2
    top = result.routes[0]
    assert top.semantic is not None and top.score > 0
    assert top.why  # evidence, never rule text
    assert index.text("deployment") not in top.why


def test_route_many_equals_route(index) -> None:  # type: ignore[no-untyped-def]
    prompts = ["rotate the stripe api key", "fix the CSS alignment on the login button",
               "pager went off for checkout-api at 3am"]
    batch = index.route_many(prompts)
    single = [index.route(p) for p in prompts]
    assert [r.names for r in batch] == [r.names for r in single]


def test_whole_document_is_served(index) -> None:  # type: ignore[no-untyped-def]
    text = index.text("deployment")
    assert text == (POLICIES / "deployment.md").read_text(encoding="utf-8")
    assert index.document("deployment").source.endswith("deployment.md")


def test_lexical_only_is_flagged_never_silent(example_index: Path) -> None:
    lexical = load_index(example_index, lexical_only=True)
    result = lexical.route("rotate the stripe secret key that leaked in the logs")
    assert result.degraded == "lexical-only"
    assert all(route.semantic is None for route in result.routes)


def test_model_failure_degrades_to_lexical(example_index: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gov.core.encode import embedding
    from gov.core.errors import ModelError

    def broken(*_a: object, **_k: object) -> None:
        raise ModelError("model file missing")

    monkeypatch.setattr(embedding, "get_encoder", broken)
    degraded = load_index(example_index)
    result = degraded.route("rotate the stripe secret key")
    assert result.degraded == "lexical-only"
    assert degraded.degraded_reason == "model file missing"


def test_rebuild_reembeds_only_changed_documents(tmp_path: Path) -> None:
    corpus_dir = tmp_path / "policies"
    shutil.copytree(POLICIES, corpus_dir)
    target = tmp_path / "index"
    first = build_index(load_corpus([corpus_dir]))
    first.write(target)
    assert first.header.build["reused_vectors"] == 0
    doc = corpus_dir / "testing.md"
    doc.write_text(doc.read_text().replace("**Agent-trigger:** ", "**Agent-trigger:** Flaky CI, "))
    second = build_index(load_corpus([corpus_dir]), previous=target)
    surfaces = second.header.build["surfaces"]
    assert second.header.build["reused_vectors"] == surfaces - 1


def test_stale_index_is_detected_and_refreshed(tmp_path: Path) -> None:
    corpus_dir = tmp_path / "policies"
    shutil.copytree(POLICIES, corpus_dir)
    target = tmp_path / "index"
    loaded, rebuilt = ensure_index([corpus_dir], target)
    assert rebuilt and not loaded.is_stale()
    again, rebuilt_again = ensure_index([corpus_dir], target)
    assert not rebuilt_again
    new = corpus_dir / "pairing.md"
    new.write_text("# Pairing\n\n**Agent-trigger:** Pair programming sessions and mob reviews.\n")
    assert again.is_stale()
    refreshed, rebuilt_third = ensure_index([corpus_dir], target)
    assert rebuilt_third and "pairing" in refreshed.names
    old = time.time() - 100
    os.utime(new, (old, old))  # a new file time, the same content: a checkout, not an edit
    assert not load_index(target).is_stale()
    new.write_text(new.read_text().replace("mob reviews", "mob programming"))
    assert load_index(target).is_stale()


def test_dependency_expansion_is_opt_in(example_index: Path) -> None:
    plain = load_index(example_index)
    expanded = load_index(example_index, operating_point=plain.operating_point.with_params(
        expand_dependencies=True))
    prompt = "pager went off for checkout-api at 3am, what do I do first?"
    base = plain.route(prompt)
    more = expanded.route(prompt)
    deps = [r for r in more.routes if r.dependency_of]
    assert all(r.dependency_of in base.names for r in deps)
    assert more.names[: len(base.names)] == base.names
    assert all(r.dependency_of is None for r in base.routes)


def test_empty_corpus_cannot_be_indexed(tmp_path: Path) -> None:
    from gov.core.errors import IndexBuildError

    (tmp_path / "a.md").write_text("# no trigger\n")
    with pytest.raises(IndexBuildError, match="no routable documents"):
        build_index(load_corpus([tmp_path], warn=lambda _m: None))
