"""Lint configuration as data: gov's defaults, a corpus's gov-lint.json over them, and a
clear one-line error (file, line, field) for a config that breaks the schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from gov.core.lint.config import (
    FILE_NAME,
    LintConfigError,
    _schema,
    default_config,
    find_config,
    load_config,
)
from gov.core.lint.rules import RULES


def test_the_default_config_names_every_rule_and_passes_its_own_schema() -> None:
    data = json.loads((Path(__file__).resolve().parents[2] / "core" / "lint" /
                       "default.lint.json").read_text())
    jsonschema.Draft202012Validator.check_schema(_schema())
    jsonschema.validate(data, _schema())
    assert set(data["rules"]) == {rule.id for rule in RULES}
    config = default_config()
    assert config.severity("depends-dangling") == "error"
    assert config.duplicates().overlap_meaning == data["thresholds"]["overlap_meaning"]


def test_a_corpus_config_overrides_only_what_it_names(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    path.write_text(json.dumps({"rules": {"hub": "off", "overlap": "error"},
                                "thresholds": {"overlap_meaning": 0.9}, "max_tokens": 3000}))
    config = load_config(path)
    assert not config.enabled("hub")
    assert config.severity("overlap") == "error"
    assert config.severity("shadowed") == default_config().severity("shadowed")
    assert config.duplicates().overlap_meaning == 0.9
    assert config.threshold("hub_share") == default_config().threshold("hub_share")
    assert config.max_tokens == 3000
    assert config.with_options(max_tokens=10).max_tokens == 10
    assert not config.with_options(disabled=["budget"]).enabled("budget")


@pytest.mark.parametrize("content,where,words", [
    ('{\n  "rules": {\n    "hubs": "off"\n  }\n}\n', ":3:", "rules.hubs: unknown rule"),
    ('{\n  "rules": {"hub": "loud"}\n}\n', ":2:", "rules.hub"),
    ('{\n  "thresholds": {\n    "overlap_meaning": 1.5\n  }\n}\n', ":3:",
     "thresholds.overlap_meaning"),
    ('{\n  "ruels": {}\n}\n', ":2:", "ruels: unknown field"),
    ('{"rules": ', "", "not valid JSON"),
])
def test_a_bad_config_is_one_error_naming_file_line_and_field(tmp_path: Path, content: str,
                                                              where: str, words: str) -> None:
    path = tmp_path / FILE_NAME
    path.write_text(content)
    with pytest.raises(LintConfigError) as caught:
        load_config(path)
    message = caught.value.message
    assert message.startswith(str(path) + where)
    assert words in message
    assert caught.value.exit_code == 2


def test_unknown_rules_to_disable_are_refused() -> None:
    with pytest.raises(LintConfigError, match="--disable: unknown rule 'hubs'"):
        default_config().with_options(disabled=["hubs"])


def test_the_config_is_found_beside_the_corpus(tmp_path: Path) -> None:
    corpus = tmp_path / "policies"
    corpus.mkdir()
    (corpus / "a.md").write_text("# A\n\n**Agent-trigger:** Something specific enough.\n")
    assert find_config([corpus]) is None
    (corpus / FILE_NAME).write_text("{}")
    assert find_config([corpus]) == corpus / FILE_NAME
    assert find_config([corpus / "a.md"]) == corpus / FILE_NAME
    assert find_config(["-", corpus]) == corpus / FILE_NAME
