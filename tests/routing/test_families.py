"""Routing families: at most one route per family (its best document). The single-prompt
path (rank, select) and the vectorised one (rank_many) agree, and an index stores the
families it was built with."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gov.core.routing.point import OperatingPoint
from gov.core.routing.select import rank, rank_many, select
from tests.conftest import POLICIES
from tests.lint.conftest import PLANTED

EXAMPLES = POLICIES


@pytest.mark.parametrize("fusion", ["rrf", "weighted"])
def test_vectorised_ranking_passes_over_a_family_as_one_prompt_does(fusion: str) -> None:
    rng = np.random.default_rng(11)
    prompts, documents = 300, 14
    lexical = np.where(rng.random((prompts, documents)) < 0.4,
                       rng.random((prompts, documents)) * 0.6, 0.0)
    semantic = rng.random((prompts, documents)) * 0.8
    semantic[:30] = np.round(semantic[:30], 1)  # ties break the same way
    families = np.array([0, 0, 0, 3, 4, 4, 6, 7, 7, 7, 7, 11, 12, 12], dtype=np.int32)
    point = OperatingPoint(fusion=fusion, lexical_floor=0.1, semantic_floor=0.3,
                           lexical_weight=0.4, semantic_weight=0.6)
    many = rank_many(lexical, semantic, point, families=families)
    for row in range(prompts):
        order = rank(lexical[row], semantic[row], point, families=families).order
        assert many.top1[row] == (order[0] if order.size else -1)
        assert many.top2[row] == (order[1] if order.size > 1 else -1)
        if order.size > 1:
            assert families[order[0]] != families[order[1]]
        # Families only ever remove candidates: the best document is the same.
        plain = rank(lexical[row], semantic[row], point).order
        assert (order[:1] == plain[:1]).all()


def test_limited_ranking_still_finds_a_second_family() -> None:
    """The route path ranks only the best few of thousands of candidates; when they are all
    one family it looks further rather than route one document."""
    documents = 400
    semantic = np.linspace(0.9, 0.5, documents)
    families = np.zeros(documents, dtype=np.int32)
    families[-1] = 1  # the only other family is the last candidate
    point = OperatingPoint(semantic_floor=0.3, second_ratio=0.0)
    chosen = select(np.zeros(documents), semantic, point, families=families).chosen
    assert [c.doc for c in chosen] == [0, documents - 1]


def test_select_spends_one_route_per_family() -> None:
    lexical = np.zeros(4)
    semantic = np.array([0.9, 0.88, 0.5, 0.3])
    point = OperatingPoint(semantic_floor=0.25, second_ratio=0.0)
    both = select(lexical, semantic, point).chosen
    assert [c.doc for c in both] == [0, 1]
    one_family = select(lexical, semantic, point, families=np.array([0, 0, 2, 3])).chosen
    assert [c.doc for c in one_family] == [0, 2]


@pytest.mark.model
def test_near_duplicate_families_keep_both_from_taking_both_routes(tmp_path: Path) -> None:
    from gov.core.corpus.reader import load_corpus
    from gov.core.routing.indexes import build_index, load_index

    planted_corpus = load_corpus([PLANTED], warn=lambda _m: None)
    prompts = ["how many vacation days do I have left this year",
               "approve the leave request from someone on my team for Friday"]
    duplicates = {"time-off", "leave-requests"}
    routes = {}
    for mode in ("none", "duplicates", "auto"):
        path = tmp_path / mode
        build_index(planted_corpus, families=mode).write(path)
        router = load_index(path)
        routes[mode] = [{r.name for r in router.route(p, record=False).routes} for p in prompts]
    # Without families both near-duplicates take the two routes; with them (the default,
    # and auto), one does.
    assert all(names == duplicates for names in routes["none"])
    assert all(len(names & duplicates) == 1 for names in routes["duplicates"])
    assert all(len(names & duplicates) == 1 for names in routes["auto"])
    stored = load_index(tmp_path / "duplicates").stored
    assert stored.header.families is not None and stored.header.families["clusters"] == 1
    ids = stored.families()
    assert ids is not None
    positions = stored.positions
    assert ids[positions["time-off"]] == ids[positions["leave-requests"]]
    assert len(set(ids.tolist())) == len(stored.names) - 1
    assert load_index(tmp_path / "none").families is None


@pytest.mark.model
def test_the_default_keeps_related_documents_of_one_family_line_apart(tmp_path: Path) -> None:
    """A Family line names related documents (on-call and incident-response), which may both
    route under the default; --families declared makes them one routing family."""
    from gov.core.corpus.reader import load_corpus
    from gov.core.routing.indexes import build_index, load_index

    corpus = load_corpus([EXAMPLES], warn=lambda _m: None)
    build_index(corpus).write(tmp_path / "default")
    build_index(corpus, families="declared").write(tmp_path / "declared")
    default, declared = load_index(tmp_path / "default"), load_index(tmp_path / "declared")
    assert default.stored.header.families is not None
    assert default.stored.header.families["mode"] == "duplicates"
    prompt = "handing over the on-call pager mid-incident"
    assert default.route(prompt, record=False).names == ["on-call", "incident-response"]
    assert declared.route(prompt, record=False).names == ["on-call"]


@pytest.mark.model
def test_declared_families_are_stored_and_a_refresh_keeps_the_mode(tmp_path: Path) -> None:
    import shutil

    from gov.core.corpus.reader import load_corpus
    from gov.core.routing.indexes import build_index, build_options, ensure_index, load_index

    corpus = load_corpus([POLICIES], warn=lambda _m: None)
    # Near-duplicates are families by default; a Family line alone is not.
    default = build_index(corpus)
    assert default.header.families is not None
    assert default.header.families["mode"] == "duplicates"
    built = build_index(corpus, families="declared")
    assert built.header.families is not None and built.header.families["mode"] == "declared"
    ids = built.arrays["doc_family"]
    by_family: dict[str, set[int]] = {}
    for position, doc in enumerate(corpus.documents):
        if doc.family:
            by_family.setdefault(doc.family, set()).add(int(ids[position]))
    assert all(len(found) == 1 for found in by_family.values())
    assert len({next(iter(v)) for v in by_family.values()}) == len(by_family)

    copy = tmp_path / "policies"
    shutil.copytree(PLANTED, copy)
    index = tmp_path / "index"
    build_index(load_corpus([copy], warn=lambda _m: None), families="auto").write(index)
    assert build_options(load_index(index).header)["families"] == "auto"
    (copy / "payroll.md").write_text((copy / "payroll.md").read_text() + "\nOne more line.\n")
    router, rebuilt = ensure_index([copy], index)
    assert rebuilt and router.stored.header.families is not None
    assert router.stored.header.families["mode"] == "auto"
