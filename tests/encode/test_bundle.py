"""The bundled model: its files are present and pinned."""

from __future__ import annotations

from gov.core.encode import bundle as model_bundle


def test_bundle_files_are_present_and_pinned() -> None:
    checks = model_bundle.check_bundle(verify_hash=True)
    assert [c.role for c in checks] == ["model", "tokenizer"]
    assert all(c.ok for c in checks), [c.problem for c in checks]
