"""The hashed term table finds exactly the columns a dict would, collisions included."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gov.core.index import termhash
from gov.core.index.termhash import TermTable, build_arrays


def table(vocabulary: list[str]) -> TermTable:
    blob = np.frombuffer("\n".join(vocabulary).encode("utf-8"), dtype=np.uint8)
    return TermTable.from_arrays(build_arrays(vocabulary), blob)


@settings(max_examples=100, deadline=None)
@given(vocabulary=st.lists(st.text(alphabet=st.characters(blacklist_characters="\n",
                                                         blacklist_categories=("Cs",)),
                                   min_size=1, max_size=12), unique=True, max_size=40),
       probes=st.lists(st.text(max_size=12), max_size=10))
def test_find_agrees_with_a_dict(vocabulary: list[str], probes: list[str]) -> None:
    lookup = {term: column for column, term in enumerate(vocabulary)}
    terms = table(vocabulary)
    asked = vocabulary + probes
    assert terms.find(asked) == [lookup.get(term) for term in asked]
    assert all(terms.term(c) == term for term, c in lookup.items())


def test_colliding_hashes_are_told_apart_by_their_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(termhash, "term_hash", lambda term: len(term))  # every length collides
    vocabulary = ["ab", "cd", "über", "xyz", "ef"]
    terms = table(vocabulary)
    assert terms.find(["ef", "cd", "ab", "gh", "über", "xyz", ""]) == [4, 1, 0, None, 2, 3, None]


def test_an_empty_vocabulary_finds_nothing() -> None:
    assert table([]).find(["a", "b"]) == [None, None]


WORDS = ["deploy", "rollback", "release", "the", "a", "secret", "rotate", "key", "über", "of"]
sentence = st.lists(st.sampled_from(WORDS), min_size=1, max_size=10).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(corpus=st.lists(sentence, min_size=1, max_size=6), prompt=sentence)
def test_the_scorer_with_the_table_scores_like_the_dict(corpus: list[str], prompt: str) -> None:
    from gov.core.encode.tfidf import LexicalScorer, fit

    arrays = fit(corpus)
    blob = np.frombuffer("\n".join(arrays.vocabulary).encode("utf-8"), dtype=np.uint8)
    terms = TermTable.from_arrays(build_arrays(arrays.vocabulary), blob)
    np.testing.assert_array_equal(LexicalScorer(arrays, terms).scores(prompt),
                                  LexicalScorer(arrays).scores(prompt))
