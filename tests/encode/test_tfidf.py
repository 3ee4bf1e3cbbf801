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
