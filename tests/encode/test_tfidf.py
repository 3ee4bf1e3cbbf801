"""The numpy-only TF-IDF scorer gives scikit-learn's scores exactly."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import TfidfVectorizer

from gov.core.encode.tfidf import LexicalScorer, fit, ngrams

WORDS = ["deploy", "rollback", "release", "the", "a", "secret", "rotate", "key", "api",
         "version", "on-call", "pager", "incident", "über", "naïve", "2024", "x", "of", "and",
         "production", "prod", "canary", "migration", "schema", "PII", "log", "données"]

sentence = st.lists(st.sampled_from(WORDS), min_size=0, max_size=14).map(" ".join)
noisy = st.one_of(sentence, st.text(max_size=60))


def reference(texts: list[str], prompt: str) -> np.ndarray:
    vectorizer = TfidfVectorizer(ngram_range=(1, 3), stop_words="english")
    matrix = vectorizer.fit_transform(texts)
    return (vectorizer.transform([prompt]) @ matrix.T).toarray()[0]


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(corpus=st.lists(sentence, min_size=1, max_size=8),
       prompts=st.lists(noisy, min_size=1, max_size=5))
def test_scores_match_scikit_learn(corpus: list[str], prompts: list[str]) -> None:
    scorer = LexicalScorer(fit(corpus))
    for prompt in prompts:
        try:
            expected = reference(corpus, prompt)
        except ValueError:  # scikit-learn refuses a vocabulary of stop words only
            assert not scorer.scores(prompt).any()
            continue
        np.testing.assert_allclose(scorer.scores(prompt), expected, atol=1e-12)


def test_ngrams_follow_scikit_learn_after_stop_word_removal() -> None:
    analyzer = TfidfVectorizer(ngram_range=(1, 3), stop_words="english").build_analyzer()
    text = "Roll back the release of the payments API in production"
    scorer = LexicalScorer(fit([text]))
    from gov.core.encode.tfidf import tokens

    assert ngrams(tokens(text, scorer.stop_words)) == analyzer(text)


def test_a_corpus_of_stop_words_scores_nothing() -> None:
    scorer = LexicalScorer(fit(["the and of", "a an the"]))
    assert scorer.scores("the release").tolist() == [0.0, 0.0]


def test_matched_terms_skip_stop_words() -> None:
    scorer = LexicalScorer(fit(["Deploying a service to production"]))
    assert scorer.matched_terms("please deploy the service to production now", "Deploying a service to production") == ["service", "production"]


STEMMED = ["deploys", "deployed", "deploying", "libraries", "library", "pinned", "pin",
           "versions", "version", "class", "classes", "tests", "testing", "the", "of", "über"]
stemmed_sentence = st.lists(st.sampled_from(STEMMED), min_size=0, max_size=14).map(" ".join)


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(corpus=st.lists(stemmed_sentence, min_size=1, max_size=8),
       prompts=st.lists(st.one_of(stemmed_sentence, st.text(max_size=60)), min_size=1,
                        max_size=5))
def test_stemmed_sublinear_scores_match_scikit_learn(corpus: list[str], prompts: list[str]) -> None:
    """Body words' model (single stemmed words, sublinear counts): the numpy scorer gives
    what scikit-learn gives with the same analyzer."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    from gov.core.encode.tfidf import stem, tokens

    words = frozenset(ENGLISH_STOP_WORDS)
    scorer = LexicalScorer(fit(corpus, ngram_range=(1, 1), sublinear=True, stem=True))
    vectorizer = TfidfVectorizer(analyzer=lambda t: [stem(w) for w in tokens(t, words)],
                                 sublinear_tf=True)
    try:
        matrix = vectorizer.fit_transform(corpus)
    except ValueError:  # nothing but stop words
        assert all(not scorer.scores(p).any() for p in prompts)
        return
    for prompt in prompts:
        expected = (vectorizer.transform([prompt]) @ matrix.T).toarray()[0]
        np.testing.assert_allclose(scorer.scores(prompt), expected, atol=1e-12)


def test_a_light_stem_meets_plurals_and_verb_endings() -> None:
    from gov.core.encode.tfidf import stem

    assert [stem(w) for w in ("libraries", "pinned", "versions", "running", "tests")] == [
        "library", "pin", "version", "run", "test"]
    # Words that only look inflected keep their ending.
    assert [stem(w) for w in ("class", "pass", "used", "bus")] == ["class", "pass", "used", "bus"]
    scorer = LexicalScorer(fit(["versions are pinned in applications", "an unrelated text"],
                               ngram_range=(1, 1), sublinear=True, stem=True))
    scores = scorer.scores("pin its version")
    assert scores[0] > 0.5 and scores[1] == 0.0
