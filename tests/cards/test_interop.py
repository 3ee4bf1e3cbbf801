"""Cards travel over A2A and MCP: export, import, the wire format, and every example card."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from gov.core.cards import a2a, mcp_result
from gov.core.cards.interop import InteropError, export_cards, import_cards
from gov.core.cards.sources import read_cards
from gov.core.cards.validate import check_card
from tests.conftest import run_gov

from .conftest import EXAMPLES, base_card, jsonl

FIXTURES = Path(__file__).parent / "fixtures" / "a2a"
RESPONSE = FIXTURES / "send-message-response.json"
EXAMPLE_CARDS = [r.value for r in read_cards([str(EXAMPLES)]) if r.error is None and check_card(r.value)[0]]

# The A2A 1.0 objects a card artifact touches, from specification/a2a.proto (release 1.0.1) in
# ProtoJSON form: camelCase names, no field beyond the proto's, REQUIRED fields present.
_PART = {
    "type": "object",
    "additionalProperties": False,
    "properties": {"text": {"type": "string"}, "raw": {"type": "string"}, "url": {"type": "string"},
                   "data": {}, "metadata": {"type": "object"}, "filename": {"type": "string"},
                   "mediaType": {"type": "string"}},
    "oneOf": [{"required": ["text"]}, {"required": ["raw"]}, {"required": ["url"]}, {"required": ["data"]}],
}  # fmt: skip
_ARTIFACT = {
    "type": "object",
    "additionalProperties": False,
    "required": ["artifactId", "parts"],
    "properties": {"artifactId": {"type": "string", "minLength": 1}, "name": {"type": "string"},
                   "description": {"type": "string"}, "parts": {"type": "array", "minItems": 1, "items": _PART},
                   "metadata": {"type": "object"}, "extensions": {"type": "array", "items": {"type": "string"}}},
}  # fmt: skip
_MESSAGE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["messageId", "role", "parts"],
    "properties": {"messageId": {"type": "string"}, "contextId": {"type": "string"}, "taskId": {"type": "string"},
                   "role": {"enum": ["ROLE_USER", "ROLE_AGENT"]}, "parts": {"type": "array", "minItems": 1, "items": _PART},
                   "metadata": {"type": "object"}, "extensions": {"type": "array", "items": {"type": "string"}},
                   "referenceTaskIds": {"type": "array", "items": {"type": "string"}}},
}  # fmt: skip
_TASK = {
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "status"],
    "properties": {
        "id": {"type": "string"}, "contextId": {"type": "string"},
        "status": {"type": "object", "additionalProperties": False, "required": ["state"],
                   "properties": {"state": {"type": "string", "pattern": "^TASK_STATE_"}, "message": _MESSAGE,
                                  "timestamp": {"type": "string", "pattern": "Z$"}}},
        "artifacts": {"type": "array", "items": _ARTIFACT}, "history": {"type": "array", "items": _MESSAGE},
        "metadata": {"type": "object"},
    },
}  # fmt: skip
JSONRPC_SEND_MESSAGE_RESPONSE = {
    "type": "object",
    "required": ["jsonrpc", "id", "result"],
    "properties": {"jsonrpc": {"const": "2.0"},
                   "result": {"type": "object", "additionalProperties": False,
                              "properties": {"task": _TASK, "message": _MESSAGE}, "minProperties": 1, "maxProperties": 1}},
}  # fmt: skip


def ids(cards: list[dict[str, Any]]) -> list[str]:
    return [f"{c['card_type']}-{c['task_id']}" for c in cards]


def test_there_are_example_cards_to_carry() -> None:
    assert len(EXAMPLE_CARDS) >= 8
    assert {c["card_type"] for c in EXAMPLE_CARDS} == {"RESULT", "ERROR", "PLAN", "PATCH", "NOTE"}


@pytest.mark.parametrize("card", EXAMPLE_CARDS, ids=ids(EXAMPLE_CARDS))
def test_every_example_card_round_trips_through_a2a_without_loss(card: dict[str, Any]) -> None:
    artifact = a2a.card_to_artifact(card)
    assert list(Draft202012Validator(_ARTIFACT).iter_errors(artifact)) == []
    wire = json.loads(json.dumps(artifact))  # as it travels
    [(path, back)] = list(a2a.cards_in(wire))
    assert path == "$.parts[0]"
    assert back == card and list(back) == list(card)
    assert json.dumps(back) == json.dumps(card)
    [data, text] = artifact["parts"]
    assert data["mediaType"] == "application/json" and data["metadata"][a2a.EXTENSION_URI]["cardType"] == card["card_type"]
    assert text == {"text": f"{card['card_type']} {card['task_id']}: {card['outcome']}", "mediaType": "text/plain"}
    assert artifact["extensions"] == [a2a.EXTENSION_URI]
    assert artifact["metadata"][a2a.EXTENSION_URI]["cardSchema"] == "urn:gov:schema:task-card:0.1.0"


@pytest.mark.parametrize("card", EXAMPLE_CARDS, ids=ids(EXAMPLE_CARDS))
def test_every_example_card_round_trips_through_an_mcp_result(card: dict[str, Any]) -> None:
    result = json.loads(json.dumps(mcp_result.card_to_result(card)))
    assert list(Draft202012Validator(mcp_result.output_schema()).iter_errors(result["structuredContent"])) == []
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
    assert [card_back for _, card_back in mcp_result.cards_in(result)] == [card]
    text_only = {"content": result["content"]}  # a client that dropped structuredContent
    assert [c for _, c in mcp_result.cards_in(text_only)] == [card]


def test_the_sample_a2a_response_is_a_valid_1_0_message_and_carries_the_example_card() -> None:
    response = json.loads(RESPONSE.read_text())
    assert list(Draft202012Validator(JSONRPC_SEND_MESSAGE_RESPONSE).iter_errors(response)) == []
    card = json.loads((EXAMPLES / "good" / "result.json").read_text())
    assert list(a2a.cards_in(response)) == [("$.result.task.artifacts[0].parts[0]", card)]
    # The wire format is pinned: exporting the card gives the fixture's artifact, byte for byte.
    assert response["result"]["task"]["artifacts"] == [a2a.card_to_artifact(card)]


def test_import_reads_0_3_parts_lists_and_stream_events() -> None:
    card = base_card()
    old = {"kind": "task", "artifacts": [{"artifactId": "x", "extensions": [a2a.EXTENSION_URI],
                                           "parts": [{"kind": "text", "text": "hi"},
                                                     {"kind": "data", "data": card}]}]}  # fmt: skip
    assert [c for _, c in a2a.cards_in(old)] == [card]
    event = {"artifactUpdate": {"taskId": "t", "contextId": "c", "artifact": a2a.card_to_artifact(card)}}
    assert [c for _, c in a2a.cards_in([event, event])] == [card, card]
    unmarked = {"parts": [{"data": card}]}  # no extension named anywhere: not gov's card
    assert list(a2a.cards_in(unmarked)) == []


@pytest.mark.slow
def test_the_cli_round_trips_every_example_card(tmp_path: Path) -> None:
    source = tmp_path / "cards.jsonl"
    source.write_text("".join(json.dumps(c, separators=(",", ":"), ensure_ascii=False) + "\n"
                              for c in EXAMPLE_CARDS), encoding="utf-8")
    for protocol in ("a2a", "mcp"):
        exported = run_gov("card", "export", "--to", protocol, str(source))
        assert exported.returncode == 0, exported.stderr
        assert len(jsonl(exported.stdout)) == len(EXAMPLE_CARDS)
        back = run_gov("card", "import", "--from", protocol, "-", input=exported.stdout)
        assert back.returncode == 0, back.stderr
        assert back.stdout == source.read_bytes()  # the very bytes that went in
    fixture = run_gov("card", "import", "--from", "a2a", str(RESPONSE))
    assert jsonl(fixture.stdout) == [json.loads((EXAMPLES / "good" / "result.json").read_text())]


@pytest.mark.slow
def test_export_refuses_invalid_cards_and_import_names_them(tmp_path: Path) -> None:
    source = tmp_path / "mixed.jsonl"
    bad = base_card(confidence=3)
    source.write_text(json.dumps(base_card()) + "\n" + json.dumps(bad) + "\n{oops\n")
    out = run_gov("card", "export", "--to", "a2a", str(source))
    assert out.returncode == 1
    assert len(jsonl(out.stdout)) == 1
    err = out.stderr.decode().splitlines()
    assert f"{source}:2: not a valid card: confidence: must be between 0 and 1 (maximum); not exported" in err[0]
    assert f"{source}:3: not a valid card: $: invalid JSON" in err[1]
    forged = a2a.card_to_artifact(base_card())
    forged["parts"][0]["data"] = bad
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged))
    got = run_gov("card", "import", "--from", "a2a", str(path))
    assert got.returncode == 1 and jsonl(got.stdout) == [bad]
    assert f"{path}:1 $.parts[0]: not a valid card: confidence" in got.stderr.decode()
    nothing = tmp_path / "nothing.json"
    nothing.write_text(json.dumps({"parts": [{"text": "hello"}]}))
    none = run_gov("card", "import", "--from", "a2a", str(nothing))
    # A file with no card in the form asked for is an input error (docs/harnesses.md: exit 2).
    assert none.returncode == 2 and "no task cards found" in none.stderr.decode()


def test_library_names_the_protocol_parameter() -> None:
    with pytest.raises(InteropError, match="protocol: 'sse' is not one of a2a, mcp"):
        export_cards(["-"], protocol="sse")
    with pytest.raises(InteropError, match="protocol"):
        import_cards(["-"], protocol="grpc")


@pytest.mark.slow
def test_export_writes_a_file_atomically(tmp_path: Path) -> None:
    target = tmp_path / "artifacts.json"
    out = run_gov("card", "export", str(EXAMPLES / "good"), "-o", str(target), "-f", "json")
    assert out.returncode == 0 and out.stdout == b""
    assert [len(a["parts"]) for a in json.loads(target.read_text())] == [2] * 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["artifacts.json"]
