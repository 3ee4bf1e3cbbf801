"""The default checks reproduce ovi-cards 0.1.0, quirks included; extended fixes them."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gov.core.cards.checks import significant_words
from gov.core.cards.contracts import builtin_contract
from gov.core.cards.validate import parse_card
from gov.core.cards.verify import verify

from .conftest import base_card

NOW = datetime(2025, 6, 1, 12, tzinfo=UTC)


def failures(contract: str = "default", **changes: object) -> list[str]:
    result = verify(parse_card(base_card(**changes)), builtin_contract(contract), now=NOW)
    return result.hard_failures + result.soft_failures


def error_card(outcome: str) -> dict[str, object]:
    return {
        "card_type": "ERROR",
        "objective": "Deploy release 2.1 to staging",
        "outcome": outcome,
        "next_actions": ["Retry the staging deploy"],
        "memory_suggestion": {"store": True, "target": "SOP", "tags": []},
    }


@pytest.mark.parametrize(
    ("outcome", "describes"),
    [
        ("Staging deploy: migration error", True),
        ("Staging deploy did fail", True),
        ("Staging deploy failed", False),  # 'fail' matches, 'failed' does not
        ("Staging deploy errored out", False),
        ("Staging deploy couldn't finish", True),
        ("Staging deploy couldn’t finish", False),  # typographic apostrophe
        ("Staging deploy couldnot finish", True),  # \s* allows no space
        ("Staging deploy hit a TIMEOUT", True),
        ("Staging deploy timed out", False),
    ],
)
def test_failure_words_are_ovis(outcome: str, describes: bool) -> None:
    got = "error_outcome_describes_failure" not in failures(**error_card(outcome))
    assert got is describes


def test_extended_contract_understands_inflections() -> None:
    for outcome in ("Staging deploy failed", "Staging deploy errored out",
                    "Staging deploy couldn’t finish", "Staging deploy timed out"):  # fmt: skip
        assert "error_outcome_names_failure" not in failures("extended", **error_card(outcome))
    assert failures("extended", **error_card("Staging deploy paused")) == ["error_outcome_names_failure"]


@pytest.mark.parametrize(
    "outcome",
    ["Done", "done.", "  Completed successfully. ", "complete successfully", "TASK COMPLETED",
     "taskcomplete", "no issue found", "Everything look good.", "ok", "OK.",
     "o\u212a",  # KELVIN SIGN folds to 'k' under Python's case-insensitive matching
     "\u017fuccess"],  # LATIN SMALL LETTER LONG S folds to 's'
)  # fmt: skip
def test_generic_outcomes(outcome: str) -> None:
    result = verify(parse_card(base_card(outcome=outcome)), now=NOW)
    assert "outcome_not_generic" in result.soft_failures


@pytest.mark.parametrize("outcome", ["Done..", "done!", "Done with the index", "Finished it"])
def test_not_generic(outcome: str) -> None:
    result = verify(parse_card(base_card(outcome=outcome)), now=NOW)
    assert "outcome_not_generic" in result.checks_passed


def test_outcome_length_counts_stripped_characters() -> None:
    assert "outcome_not_empty" in failures(outcome="   0123456789   ")
    assert "outcome_not_empty" not in failures(outcome="   0123456789a   ")


def test_alignment_abstains_below_two_significant_words() -> None:
    # 'that' and 'with' are stop words, 'fix' is too short: one significant word only.
    assert "objective_outcome_alignment" not in failures(
        objective="Fix that index with me", outcome="Unrelated text here", key_facts=[]
    )
    assert "objective_outcome_alignment" in failures(
        objective="Rebuild search index", outcome="Unrelated text here", key_facts=[]
    )


def test_alignment_uses_ascii_letter_runs_only() -> None:
    # 'naïve' splits into 'na' and 've'; 'reindex2024' still yields 'reindex'.
    assert significant_words("naïve reindex2024 SEARCH-index") == {"reindex", "search", "index"}


REFERENCE_STOP = frozenset((
    "that", "this", "with", "from", "have", "been", "were", "they", "them", "what", "when",
    "where", "which", "will", "would", "could", "should", "about", "into", "more", "some",
    "than", "then", "also", "just", "very", "each", "make", "made", "like", "over", "such",
    "only", "your", "most", "does",
))  # fmt: skip


@given(st.text(alphabet=st.sampled_from("abcdeXYZ İKſ -_'1é\n"), max_size=40))
def test_significant_words_matches_a_plain_reading_of_the_rule(text: str) -> None:
    expected = {run.lower() for run in re.findall(r"[a-zA-Z]+", text) if len(run) >= 4} - REFERENCE_STOP
    assert significant_words(text) == expected


def test_confidence_default_is_exactly_one_half() -> None:
    assert "confidence_not_default" in failures(confidence=0.5)
    assert "confidence_not_default" not in failures(confidence=0.5000001)


@pytest.mark.parametrize(
    ("stamp", "recent"),
    [
        ("2025-06-01T09:00:00Z", True),
        ("2025-05-31T12:00:01Z", True),
        ("2025-05-31T12:00:00Z", False),  # exactly 24 h old
        ("2025-05-20T12:00:00+02:00", False),
        ("2030-01-01T00:00:00Z", True),  # the future passes
        ("2020-01-01T00:00:00z", True),  # lowercase z: unreadable to ovi, so it passes
        ("2020-06-30T23:59:60Z", True),  # leap second: unreadable, so it passes
    ],
)
def test_timestamp_recent_as_ovi(stamp: str, recent: bool) -> None:
    assert ("timestamp_recent" not in failures(timestamp=stamp)) is recent


@pytest.mark.parametrize(
    ("stamp", "current"),
    [
        ("2025-06-01T12:04:00Z", True),
        ("2025-06-01T12:06:00Z", False),
        ("2030-01-01T00:00:00Z", False),
        ("2020-01-01T00:00:00z", False),
        ("2025-06-01T11:59:60Z", True),
    ],
)
def test_timestamp_current_in_extended(stamp: str, current: bool) -> None:
    assert ("timestamp_current" not in failures("extended", timestamp=stamp)) is current


# --- the fast forms of two rules say exactly what the plain forms say ---------------------

_FAILURE_TEXT = st.text(alphabet=st.sampled_from(list("abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ'’\t-_.KſıİéŁ1")), max_size=40)
_FAILURE_PIECES = st.sampled_from(["error", "fail", "crash", "exception", "timeout", "refused", "denied",
                                   "broken", "unable", "cannot", "could not", "couldnt", "couldn't", "did  not",
                                   "didnt", "didn't", "missing", "invalid", "corrupt", "unreachable", "rejected",
                                   "failed", "errors", "COULDN'T", "unreach", "re", "un", "c", "d"])  # fmt: skip


@given(st.lists(st.one_of(_FAILURE_TEXT, _FAILURE_PIECES), max_size=6).map(" ".join))
def test_grouped_failure_words_match_the_plain_list(text: str) -> None:
    from gov.core.cards import checks

    plain_failure = re.compile(r"\b(?:" + "|".join(checks._FAILURE_WORDS) + r")\b", re.IGNORECASE)
    plain_proposal = re.compile(r"\b(?:" + "|".join(checks._PROPOSAL_WORDS) + r")\b", re.IGNORECASE)
    assert (checks._FAILURE.search(text) is None) == (plain_failure.search(text) is None)
    assert (checks._PROPOSAL.search(text) is None) == (plain_proposal.search(text) is None)


@given(st.builds(
    "{:04d}-{:02d}-{:02d}{}{:02d}:{:02d}:{:02d}{}{}".format,
    st.integers(0, 9999), st.integers(0, 13), st.integers(0, 32), st.sampled_from(["T", "t", " "]),
    st.integers(0, 25), st.integers(0, 61), st.integers(0, 61), st.sampled_from(["", ".5", ".123456789"]),
    st.sampled_from(["Z", "z", "+00:00", "-23:59", "+24:00", "+05:60", ""]),
))  # fmt: skip
def test_the_fast_timestamp_rule_matches_the_calendar(text: str) -> None:
    from gov.core.cards.timestamps import _on_the_calendar, is_rfc3339

    assert is_rfc3339(text) == _on_the_calendar(text)


_ALIGN_TEXT = st.text(alphabet=st.sampled_from([*"abcdeilmnorstuvwxyz ABCDEIKLMNOS.,-'\n1é", "İ", "K", "ß", "ſ"]),
                      min_size=0, max_size=30)  # fmt: skip
_ALIGN_WORDS = st.sampled_from(["index", "rebuild", "search", "docs", "that", "with", "site", "INDEX", "Rebuilt",
                                "naïve", "search-index", "docs.site", "İndex"])  # fmt: skip
_ALIGN_LINE = st.lists(st.one_of(_ALIGN_TEXT, _ALIGN_WORDS), min_size=1, max_size=5).map(" ".join)


@given(_ALIGN_LINE, _ALIGN_LINE, st.lists(_ALIGN_LINE, max_size=3))
def test_the_fast_alignment_check_matches_its_plain_definition(objective: str, outcome: str, facts: list[str]) -> None:
    from gov.core.cards import checks

    wanted = checks.significant_words(objective)
    plain = len(wanted) < 2 or bool(wanted & checks.significant_words(outcome)) or any(
        wanted & checks.significant_words(fact) for fact in facts
    )
    card = {"objective": objective, "outcome": outcome, "key_facts": facts}
    assert checks._objective_outcome_alignment(card, NOW) == plain
