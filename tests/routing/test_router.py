"""Loading and routing with the real model: the library API end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from gov.core.routing.indexes import load_index
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
