"""Coverage-guided fuzz targets (atheris): the hook's stdin, the card validator, and the
hook over crafted indexes (``index``: any bytes as a mutation of a good index).

Run one for a while, starting from the seed inputs (libFuzzer writes what it finds into
the first folder given, so give it a scratch copy)::

    cp -r tests/fuzz/seeds/hook /tmp/hook-corpus
    python -m tests.fuzz.targets hook -max_total_time=600 /tmp/hook-corpus

A crash prints the input that caused it; add it to ``tests/fuzz/crashes/`` and a test.
"""

from __future__ import annotations

import io
import os
import sys
from typing import Any


def hook_target(data: bytes) -> None:
    """Any stdin and argv: the hook returns 0, prints nothing or one object its harness reads."""
    from gov.cli.commands.hook import main

    # Mostly a payload for a well-formed command line; a leading 0x01 byte fuzzes argv too.
    split = data.find(b"\x00") if data[:1] == b"\x01" else -1
    argv_bytes, stdin = (data[1:split], data[split + 1 :]) if split >= 0 else (b"codex", data)
    argv = [*argv_bytes.decode("utf-8", "replace").split()[:6], "--serve", "never", "-i", "/nonexistent/index"]
    out, err = io.BytesIO(), io.StringIO()
    if any(arg in ("-h", "--help") for arg in argv):
        return
    if main(argv, stdin=io.BytesIO(stdin), stdout=out, stderr=err) != 0:
        raise AssertionError("hook exited non-zero")
    if out.getvalue():
        from gov.core.serving.harness import HARNESSES
        from tests.serving.hook_contracts import valid_output

        harness = next(arg for arg in argv if arg in HARNESSES)
        valid_output(harness, out.getvalue())  # what that harness accepts, or AssertionError
    if err.getvalue().count("\n") > 1:
        raise AssertionError("hook printed more than one line on stderr")


def cards_target(data: bytes) -> None:
    """Any bytes as a card file: records parse, validate and verify without crashing."""
    from gov.core.cards.sources import CardSourceError, parse_document
    from gov.core.cards.validate import check_card
    from gov.core.cards.verify import verify

    try:
        records = list(parse_document(data, "fuzz.json"))
    except CardSourceError:
        return
    for record in records:
        value: Any = getattr(record, "value", None)
        card, problems = check_card(value)
        if card is None:
            if not problems:
                raise AssertionError("an invalid card without a reason")
            continue
        result = verify(card)
        if not 0.0 <= result.adjusted_confidence <= 1.0:
            raise AssertionError("confidence out of range")


_INDEX: dict[str, Any] = {}


def index_target(data: bytes) -> None:
    """Any bytes as a mutation of a good index (checksums recomputed): one hook turn over it
    exits 0, prints nothing or one hook object, and at most one line on stderr. The index is
    built once, with an approximate-search graph when usearch is installed."""
    import tempfile
    from pathlib import Path

    from gov.core.index.fileformat import write_index_file
    from tests.fuzz.index_mutations import hook_turn, load, mutate, well_behaved

    if not _INDEX:
        import importlib.util

        from gov.core.corpus.reader import load_corpus
        from gov.core.routing.indexes import build_index

        folder = Path(tempfile.mkdtemp(prefix="gov-fuzz-index-"))
        source = folder / "index"
        build_index(load_corpus([Path(__file__).resolve().parents[2] / "examples" / "policies"],
                                warn=lambda _m: None),
                    ann=importlib.util.find_spec("usearch") is not None, ann_candidates=8
                    ).write(source)
        _INDEX.update(original=load(source), target=folder / "mutated")
    write_index_file(_INDEX["target"], *mutate(*_INDEX["original"], data))
    problem = well_behaved(*hook_turn(_INDEX["target"]))
    if problem:
        raise AssertionError(problem)


TARGETS = {"hook": hook_target, "cards": cards_target, "index": index_target}


def instrument(scope: str) -> None:
    """Instrument every loaded function (``all``, the long runs' default), or only gov's own
    code and the parsers it hands input to, ``json`` (the hook's payload) and pydantic (the
    cards) (``gov``, what the suite's short runs ask for: instrumenting numpy and the rest of
    the standard library took most of a short run's minute, before the first input)."""
    import atheris

    if scope == "all":
        atheris.instrument_all()
        return
    import gc
    import json
    import types

    import gov.cli
    import gov.core

    packages = [gov.core, gov.cli, json, sys.modules[__name__]]
    packages += [sys.modules[name] for name in ("pydantic", "pydantic_core") if name in sys.modules]
    folders = tuple(os.path.dirname(os.path.abspath(module.__file__ or "")) + os.sep
                    for module in packages)
    for obj in gc.get_objects():
        if isinstance(obj, types.FunctionType) and obj.__module__ in sys.modules and (
                os.path.abspath(obj.__code__.co_filename).startswith(folders)):
            try:
                atheris.instrument_func(obj)
            except Exception as exc:  # as instrument_all does: say so and go on
                sys.stderr.write(f"ERROR: Failed to instrument function {obj}: {exc}\n")


def main() -> None:
    import atheris

    name = sys.argv[1]
    target = TARGETS[name]
    # Import first, then instrument every loaded function: an editable install's import
    # finder bypasses atheris's import hook, so instrument_imports() would miss gov.
    import gov.cli.commands.hook
    import gov.core.cards.sources
    import gov.core.cards.validate
    import gov.core.cards.verify
    import gov.core.jsonl
    import gov.core.serving.hook_context
    import gov.core.telemetry.events
    if name == "index":  # the index's readers, loaded now so that they are instrumented
        import gov.core.index.ann_check
        import gov.core.index.validate
        import gov.core.routing.indexes  # noqa: F401
        import tests.fuzz.index_mutations  # noqa: F401

    instrument(os.environ.get("GOV_FUZZ_INSTRUMENT", "all"))
    atheris.Setup([sys.argv[0], *sys.argv[2:]], target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
