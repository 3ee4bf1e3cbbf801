"""Output formats are one registry (``cli/reporters.py``): every ``--format`` a command offers,
the lean paths' included, names a registered writer, and a command cannot declare one
that is not."""

from __future__ import annotations

import io
from typing import Any

import orjson
import pytest
import typer

from gov.cli import options, reporters
from gov.cli.commands import card_lean, route_lean
from gov.cli.main import app
from gov.core.cards import report as card_report
from tests.conftest import EXAMPLES


def _commands(command: Any, path: str = "gov") -> list[tuple[str, Any]]:
    found = [(path, command)]
    for name, sub in (getattr(command, "commands", None) or {}).items():
        found += _commands(sub, f"{path} {name}")
    return found


def _format_values(command: Any) -> list[str] | None:
    for param in command.params:
        if "--format" in getattr(param, "opts", ()):
            choices = getattr(getattr(param, "type", None), "choices", None)
            if choices:
                return [str(choice) for choice in choices]
            assert param.metavar, f"--format without its values: {param}"
            return str(param.metavar).split("|")
    return None


def test_every_commands_format_values_come_from_the_registry() -> None:
    offered = {path: values for path, command in _commands(typer.main.get_command(app))
               if (values := _format_values(command)) is not None}
    assert len(offered) >= 15  # route, index, lint, card verify, ... all seen
    assert {path: [v for v in values if v not in reporters.FORMATS]
            for path, values in offered.items()
            if set(values) - set(reporters.FORMATS)} == {}
    assert set(offered["gov lint"]) >= {"text", "json", "github", "sarif"}


def test_the_lean_paths_offer_registered_formats_only() -> None:
    assert set(card_lean.FORMATS) <= set(reporters.FORMATS)
    assert card_lean.FORMATS == card_report.FORMATS  # the card writers' own list
    assert route_lean.parse(["hello", "--format", "yaml"]) is None  # falls back to typer
    for name in ("json", "jsonl"):
        parsed = route_lean.parse(["hello", "--format", name])
        assert parsed is not None and parsed["format"] in reporters.FORMATS


def test_a_command_cannot_offer_an_unregistered_format() -> None:
    def body(*, view: options.Output) -> int:
        return 0

    with pytest.raises(ValueError, match="yaml"):
        options.shared(formats=("text", "yaml"))(body)
    with pytest.raises(ValueError, match="sarif"):
        reporters.write_card_results([], "sarif", verifying=False, stream=io.BytesIO())


@pytest.mark.parametrize("indent", [False, True])
def test_write_json_is_the_json_reporters_writer(indent: bool) -> None:
    value: Any = {"name": "é", "n": [1, 2.5, None], "nested": {"a": True}}
    direct = io.BytesIO()
    reporters.write_json(value, indent=indent, stream=direct)
    option = orjson.OPT_APPEND_NEWLINE | (orjson.OPT_INDENT_2 if indent else 0)
    assert direct.getvalue() == orjson.dumps(value, option=option)

    class One:
        def json(self) -> Any:
            return value

        def text(self, console: Any) -> None:
            raise AssertionError("not drawn")

    through = io.BytesIO()
    reporters.reporter("json" if indent else "jsonl", through).close(One())
    assert through.getvalue() == direct.getvalue()


def test_card_results_through_the_registry_match_the_card_writer() -> None:
    from gov.core.cards.workflows import validate_cards

    folders = [str(EXAMPLES / "cards" / "good"), str(EXAMPLES / "cards" / "bad")]
    results = list(validate_cards(folders).results)
    assert any(r["valid"] for r in results) and any(not r["valid"] for r in results)
    for fmt in card_report.FORMATS:
        ours, theirs = io.BytesIO(), io.BytesIO()
        tally = reporters.write_card_results(iter(results), fmt, verifying=False, stream=ours)
        card_report.write_results(iter(results), theirs, fmt, verifying=False)
        assert ours.getvalue() == theirs.getvalue() and ours.getvalue()
        assert tally.cards == len(results)
