"""The hook's context paragraph stays within 1,024 bytes, whatever the answer."""

from __future__ import annotations

from gov.core.routing.answer import Route, RouteAnswer
from gov.core.serving.hook_context import MAX_BYTES, render


def test_worst_case_paragraph_stays_within_1024_bytes() -> None:
    long_name = "n" * 199  # with its digit, the longest name a document may have
    answer = {
        "routes": [
            {"name": long_name + "1", "score": 0.03, "why": "words: " + ", ".join(["ünïcödé"] * 60)},
            {"name": long_name + "2", "score": 0.02, "why": 'meaning: example "' + "€" * 300 + '"'},
        ],
        "sources": {long_name + "1": "/very/long/" + "p" * 400 + ".md",
                    long_name + "2": "/other/" + "q" * 400 + ".md"},
        "degraded": "lexical-only",
        "notices": ["corpus has 4000 documents; the operating point was measured on 22",
                    "documents are hard to tell apart (separability 0.10 < 0.15)",
                    "separability 0.10 is far from the calibration's 0.60"],
    }
    text = render(RouteAnswer.from_wire(answer), cwd="/")
    assert len(text.encode("utf-8")) <= MAX_BYTES
    assert long_name not in text  # over 64 characters: shown by its file's name
    assert "p" * 64 in text and "q" * 64 in text
    small = render(RouteAnswer([Route("deployment", 0.03, 0.3, None, "words: release")],
                               degraded="lexical-only", notices=["corpus has 99 documents"]))
    assert "words only" in small and "corpus has 99 documents" in small


def test_a_large_catalogue_lists_a_few_names_and_counts_the_rest() -> None:
    from gov.core.serving.hook_context import CATALOGUE_MAX_BYTES, CATALOGUE_NAMES, catalogue

    names = [f"skill-{i:03d}" for i in range(857)]
    text = catalogue(names)
    assert len(text.encode()) <= CATALOGUE_MAX_BYTES
    listed = [name for name in names if name in text]
    assert listed == names[:CATALOGUE_NAMES]
    rest = len(names) - CATALOGUE_NAMES
    assert f"skill-{CATALOGUE_NAMES - 1:03d} … and {rest} more; `gov list --names` lists them all. " in text
    assert "gov show NAME" in text  # how to ask survives the cap


def test_a_small_catalogue_lists_every_name_without_a_count() -> None:
    from gov.core.serving.hook_context import catalogue

    text = catalogue(["deployment", "on-call", "testing"])
    assert "deployment, on-call, testing. " in text and "more" not in text.split(". ")[0]
