"""Property-based fuzzing: whatever the bytes, readers and the hook stay well-behaved."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gov.cli.commands.hook import main as hook_main
from gov.core.corpus.markdown import ParseProblem, parse_markdown
from gov.core.corpus.reader import load_corpus
from gov.core.errors import CorpusError
from gov.core.jsonl import read_lines

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                         HealthCheck.function_scoped_fixture])


@FAST
@given(st.lists(st.binary(max_size=80).filter(lambda b: b"\n" not in b), max_size=20))
def test_jsonl_reader_yields_one_record_per_non_blank_line(lines: list[bytes]) -> None:
    stream = io.BytesIO(b"\n".join(lines) + b"\n")
    records = list(read_lines(stream))
    non_blank = [n for n, line in enumerate(lines, start=1) if line.rstrip(b"\r").strip()
                 and not (n == 1 and line.rstrip(b"\r").removeprefix(b"\xef\xbb\xbf").strip() == b"")]
    assert [r.number for r in records] == non_blank
    assert all(r.error is None or r.value is None for r in records)  # a value or an error


@FAST
@given(st.text(max_size=400))
def test_markdown_parser_never_raises_anything_unexpected(text: str) -> None:
    try:
        parsed = parse_markdown(text)
    except ParseProblem:
        return
    assert parsed.trigger is None or isinstance(parsed.trigger, str)


@FAST
@given(st.lists(st.one_of(st.binary(max_size=60), st.dictionaries(
    st.sampled_from(["name", "trigger", "body", "examples", "family", "depends_on", "x"]),
    st.one_of(st.none(), st.integers(), st.text(max_size=10), st.lists(st.text(max_size=5), max_size=3)),
    max_size=6).map(lambda d: json.dumps(d).encode())), max_size=6))
def test_jsonl_documents_load_or_fail_with_a_located_error(lines: list[bytes]) -> None:
    stream = io.BytesIO(b"\n".join(line.replace(b"\n", b" ") for line in lines) + b"\n")
    try:
        corpus = load_corpus(["-"], stdin=stream)
    except CorpusError as exc:
        assert "<stdin>:" in str(exc) or "duplicate" in str(exc)
        return
    assert all(doc.name and doc.trigger for doc in corpus.documents)


@pytest.fixture(scope="module")
def index(example_index: Path):  # type: ignore[no-untyped-def]
    from gov.core.routing.indexes import load_index

    return load_index(example_index)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=300))
def test_any_unicode_prompt_routes_or_abstains(index, prompt: str) -> None:  # type: ignore[no-untyped-def]
    result = index.route(prompt)
    assert len(result.routes) <= 2
    assert all(route.name in index.names for route in result.routes)


ARGS = st.lists(st.one_of(st.sampled_from(["codex", "claude-code", "-i", "--index", "--serve",
                                           "never", "auto", "--operating-point", "-x", "--", "="]),
                          st.text(max_size=12)), max_size=5)


@settings(max_examples=200, deadline=None)
@given(argv=ARGS, stdin=st.one_of(st.binary(max_size=300), st.dictionaries(
    st.sampled_from(["prompt", "cwd", "session_id", "hook_event_name"]),
    st.one_of(st.text(max_size=40), st.integers(), st.none()), max_size=4).map(
        lambda d: json.dumps(d).encode())))
def test_hook_exits_0_with_empty_or_one_valid_object(argv: list[str], stdin: bytes,
                                                     tmp_path_factory: pytest.TempPathFactory) -> None:
    if "--help" in argv or "-h" in argv:
        return
    out, err = io.BytesIO(), io.StringIO()
    argv = [*argv, "--serve", "never"] if "--serve" not in argv else argv
    assert hook_main(argv, stdin=io.BytesIO(stdin), stdout=out, stderr=err) == 0
    data = out.getvalue()
    if data:
        obj = json.loads(data)
        assert set(obj) == {"hookSpecificOutput"}
    assert err.getvalue().count("\n") <= 1
