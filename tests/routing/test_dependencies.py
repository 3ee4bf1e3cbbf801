"""Dependency expansion: opt-in, after the chosen routes."""

from __future__ import annotations

from pathlib import Path

from gov.core.routing.indexes import load_index


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
