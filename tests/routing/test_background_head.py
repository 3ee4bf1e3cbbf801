"""The background head is fitted only while a corpus is small enough for it to be cheap;
past that, the index routes without it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gov.core.corpus.reader import load_corpus
from gov.core.routing import background
from gov.core.routing.indexes import build_index, load_index
from gov.core.routing.point import default_operating_point
from tests.conftest import POLICIES
from tests.fake_encoder import HashedWordsEncoder


@pytest.mark.slow
def test_past_the_limit_the_index_has_no_head_and_still_routes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_encoder: HashedWordsEncoder) -> None:
    corpus = load_corpus([POLICIES], warn=lambda _m: None)
    with_head = build_index(corpus)
    assert with_head.header.background is not None and with_head.header.background["head"] is True
    assert "head_weights" in with_head.arrays

    monkeypatch.setattr(background, "HEAD_MAX_DOCUMENTS", len(corpus.documents) - 1)
    built = build_index(corpus)
    assert built.header.background is not None and built.header.background["head"] is False
    assert "head_weights" not in built.arrays and "background_bank_top" in built.arrays
    built.write(tmp_path / "index")
    # A share of the bank that lets this stand-in encoder's scores through: what is tested is
    # the ranking without a head, not where the real model's threshold falls.
    router = load_index(tmp_path / "index", operating_point=default_operating_point().with_params(
        background_alpha=0.3, background_alpha_growth=0.0))
    assert router.scorer.classifier is None and router.background is not None
    answer = router.route("roll back last night's deploy of checkout, it broke payments",
                          record=False)
    assert answer.reason  # routed or not, it says which rule decided
    assert answer.names[:1] == ["deployment"], answer.reason  # ranked by the fused score alone


@pytest.mark.slow
def test_a_large_corpus_gives_the_head_fewer_passages_per_document(
        monkeypatch: pytest.MonkeyPatch, fake_encoder: HashedWordsEncoder) -> None:
    """The head's rows × classes is bounded (its memory): past HEAD_CELLS each document
    brings fewer body passages, down to none; surfaces and the bank are always in."""
    from gov.core.scoring import learned

    corpus = load_corpus([POLICIES], warn=lambda _m: None)
    fitted: list[tuple[int, int]] = []
    real_fit = learned.fit_classifier

    def counting(vectors, owners, classes):  # type: ignore[no-untyped-def]
        fitted.append((int(vectors.shape[0]), classes))
        return real_fit(vectors, owners, classes)

    monkeypatch.setattr(learned, "fit_classifier", counting)
    built = build_index(corpus)
    passages = built.passages
    assert passages is not None and passages.owners.size
    surfaces = built.arrays["embeddings"].shape[0]
    kept = built.header.background["bank_kept"] if built.header.background else 0
    per_document = np.bincount(passages.owners)
    full = int(np.minimum(per_document, background.HEAD_PASSAGES).sum())
    assert fitted[-1][0] == surfaces + kept + full  # a small corpus: every passage up to 8

    classes = fitted[-1][1]
    monkeypatch.setattr(background, "HEAD_CELLS", (surfaces + kept + len(per_document)) * classes)
    build_index(corpus)
    one_each = int(np.minimum(per_document, 1).sum())
    assert fitted[-1][0] == surfaces + kept + one_each
    assert fitted[-1][0] * classes <= background.HEAD_CELLS

    monkeypatch.setattr(background, "HEAD_CELLS", 1)
    build_index(corpus)
    assert fitted[-1][0] == surfaces + kept  # no room: surfaces and bank only
