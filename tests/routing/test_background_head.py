"""The background head is fitted only while a corpus is small enough for it to be cheap;
past that, the index routes without it."""

from __future__ import annotations

from pathlib import Path

import pytest

from gov.core.corpus.reader import load_corpus
from gov.core.routing import background
from gov.core.routing.indexes import build_index, load_index
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
    router = load_index(tmp_path / "index")
    assert router.scorer.classifier is None and router.background is not None
    answer = router.route("roll back last night's deploy of checkout, it broke payments",
                          record=False)
    assert answer.reason  # routed or not, it says which rule decided
    assert answer.names[:1] == ["deployment"], answer.reason  # ranked by the fused score alone
