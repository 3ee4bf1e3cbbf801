"""Dependency expansion: opt-in, after the chosen routes, never repeating a routed document."""

from __future__ import annotations

from pathlib import Path

from gov.core.routing.indexes import load_index
from gov.core.routing.router import Router


def expanding(router: Router) -> Router:
    assert router.path is not None
    return load_index(router.path, operating_point=router.operating_point.with_params(
        expand_dependencies=True))


def test_dependency_expansion_is_opt_in(example_index: Path) -> None:
    plain = load_index(example_index)
    expanded = expanding(plain)
    prompt = "pager went off for checkout-api at 3am, what do I do first?"
    base = plain.route(prompt)
    more = expanded.route(prompt)
    deps = [r for r in more.routes if r.dependency_of]
    assert all(r.dependency_of in base.names for r in deps)
    assert more.names[: len(base.names)] == base.names
    assert all(r.dependency_of is None for r in base.routes)
    # on-call depends on incident-response, which this prompt does not route to: added, after it.
    assert base.names == ["on-call"]
    assert [(r.name, r.dependency_of) for r in deps] == [("incident-response", "on-call")]
    # A prompt that routes to incident-response already does not get it again.
    both = "handing over the on-call pager mid-incident"
    assert plain.route(both).names == ["on-call", "incident-response"]
    assert [(r.name, r.dependency_of) for r in expanded.route(both).routes] == [
        ("on-call", None), ("incident-response", None)]
    # A migration depends on deployment, which it does not route to: added, after it.
    prompt = "write a migration that adds a non-null column to the orders table"
    assert plain.route(prompt).names == ["database-migrations"]
    assert [(r.name, r.dependency_of) for r in expanded.route(prompt).routes] == [
        ("database-migrations", None), ("deployment", "database-migrations")]


def test_dependencies_follow_the_routes_they_belong_to(fake_index: Path) -> None:
    plain = load_index(fake_index)
    expanded = expanding(plain)
    for name in ("database-migrations", "feature-flags", "customer-data-access"):
        document = plain.document(name)
        prompt = document.trigger
        base = plain.route(prompt, record=False)
        more = expanded.route(prompt, record=False)
        assert base.names[0] == name and all(r.dependency_of is None for r in base.routes)
        assert more.names[: len(base.names)] == base.names
        added = [(r.name, r.dependency_of) for r in more.routes[len(base.routes):]]
        wanted = [(dep, chosen) for chosen in base.names
                  for dep in plain.document(chosen).depends_on
                  if dep in plain.names and dep not in base.names]
        assert added and sorted(added) == sorted(set(wanted))
