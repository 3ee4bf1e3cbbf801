"""``gov mcp`` at each MCP revision it serves, through the SDK's real client and on the raw wire.

2026-07-28 is what the SDK's default client reaches (it probes ``server/discover``);
2025-11-25 is what any client using the ``initialize`` handshake gets from the SDK (its
handshake offer); 2025-06-18 is what an older client asks for, here by sending its own
``initialize``. At each: the documents are listed and read as ``gov://documents/NAME``
resources, every tool carries its annotations, and the raw replies validate against that
revision's published schema (``tests/data/mcp/``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.conftest import POLICIES, REPO

REVISIONS = ["2026-07-28", "2025-11-25", "2025-06-18"]
TOOLS = {"route_policies", "get_policy", "create_card", "validate_card", "verify_card"}
NAMES = sorted(p.stem for p in POLICIES.glob("*.md") if "**Status:** retired" not in p.read_text())
ROUTED = "roll back last night's release, checkout is throwing 500s"
HINTS = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True,
         "openWorldHint": False}


def params(index: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "gov.cli.entry", "mcp", "-i", str(index), "--quiet"])


@asynccontextmanager
async def connect(index: Path, revision: str) -> AsyncIterator[Any]:
    """A client session at ``revision``, the way a client of that revision connects."""
    if revision == "2026-07-28":
        async with Client(params(index)) as client:  # the default: probe server/discover
            yield client
        return
    if revision == "2025-11-25":
        async with Client(params(index), mode="legacy") as client:  # the initialize handshake
            yield client
        return
    import mcp_types as types

    async with AsyncExitStack() as stack:  # an older client: its own initialize offer
        read, write = await stack.enter_async_context(stdio_client(params(index)))
        session = await stack.enter_async_context(ClientSession(read, write))
        result = await session.send_request(types.InitializeRequest(
            params=types.InitializeRequestParams(
                protocol_version=revision, capabilities=types.ClientCapabilities(),
                client_info=types.Implementation(name="gov-tests", version="0"))),
            types.InitializeResult)
        session.adopt(result)
        await session.send_notification(types.InitializedNotification())
        yield session


def dumped(model: Any) -> Any:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


@pytest.mark.parametrize("revision", REVISIONS)
def test_each_revision_lists_and_reads_documents_and_sees_the_annotations(
        revision: str, example_index: Path) -> None:
    from gov.core.routing.indexes import load_index

    index = load_index(example_index)

    async def scenario() -> None:
        async with connect(example_index, revision) as client:
            assert client.protocol_version == revision
            listed = await client.list_resources()
            uris = {resource.uri: resource for resource in listed.resources}
            assert set(uris) == {f"gov://documents/{name}" for name in NAMES}
            deployment = uris["gov://documents/deployment"]
            assert deployment.name == "deployment" and deployment.mime_type == "text/markdown"
            read = await client.read_resource("gov://documents/deployment")
            assert [content.text for content in read.contents] == [index.text("deployment")]
            templates = await client.list_resource_templates()
            assert [t.uri_template for t in templates.resource_templates] == ["gov://documents/{name}"]
            through_template = await client.read_resource("gov://documents/testing")
            assert through_template.contents[0].text == index.text("testing")
            for missing in ("gov://documents/nope", "gov://documents/..%2F..%2Fetc%2Fpasswd",
                            "file:///etc/passwd"):
                with pytest.raises(Exception) as caught:
                    await client.read_resource(missing)
                assert "root:" not in str(caught.value)
            tools = (await client.list_tools()).tools
            assert {tool.name for tool in tools} == TOOLS
            for tool in tools:
                hints = dumped(tool.annotations)
                assert {k: hints[k] for k in HINTS} == HINTS and hints["title"], tool.name
                assert tool.output_schema["type"] == "object"
            result = await client.call_tool("route_policies", {"prompt": ROUTED})
            assert not result.is_error
            assert [r["name"] for r in result.structured_content["routes"]] == ["deployment"]
            assert json.loads(result.content[0].text) == result.structured_content  # text copy

    anyio.run(scenario)


# --- the raw wire, against each revision's schema ---------------------------------------

SCHEMAS = {revision: json.loads((REPO / "tests" / "data" / "mcp" / revision / "schema.json").read_text())
           for revision in REVISIONS}


def check(revision: str, definition: str, result: dict[str, Any]) -> None:
    schema = SCHEMAS[revision]
    defs = "definitions" if "definitions" in schema else "$defs"
    wrapper = {**{k: v for k, v in schema.items() if k not in ("$ref", "anyOf", "oneOf")},
               "$ref": f"#/{defs}/{definition}"}
    validator = jsonschema.validators.validator_for(schema)(wrapper)
    errors = sorted(validator.iter_errors(result), key=lambda e: list(e.path))
    assert not errors, f"{revision} {definition}: {errors[0].message} at {list(errors[0].path)}"


def exchange(index: Path, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One fresh ``gov mcp``; send each message as a line and read the answer to each request."""
    proc = subprocess.Popen([sys.executable, "-m", "gov.cli.entry", "mcp", "-i", str(index), "--quiet"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    answers = []
    try:
        for message in messages:
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            if "id" in message:
                answers.append(json.loads(proc.stdout.readline()))
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    return answers


REQUESTS = [("tools/list", {}, "ListToolsResult"),
            ("resources/list", {}, "ListResourcesResult"),
            ("resources/templates/list", {}, "ListResourceTemplatesResult"),
            ("resources/read", {"uri": "gov://documents/deployment"}, "ReadResourceResult"),
            ("tools/call", {"name": "route_policies", "arguments": {"prompt": ROUTED}}, "CallToolResult"),
            ("tools/call", {"name": "get_policy", "arguments": {"name": "testing"}}, "CallToolResult")]


@pytest.mark.parametrize("revision", REVISIONS)
def test_raw_replies_validate_against_the_revision_schema(revision: str, example_index: Path) -> None:
    if revision == "2026-07-28":
        envelope = {"io.modelcontextprotocol/protocolVersion": revision,
                    "io.modelcontextprotocol/clientInfo": {"name": "gov-tests", "version": "0"},
                    "io.modelcontextprotocol/clientCapabilities": {}}
        opening = [{"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {"_meta": envelope}}]
    else:
        envelope = None
        opening = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
                    "params": {"protocolVersion": revision, "capabilities": {},
                               "clientInfo": {"name": "gov-tests", "version": "0"}}},
                   {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    requests = [{"jsonrpc": "2.0", "id": n, "method": method,
                 "params": {**body, **({"_meta": envelope} if envelope else {})}}
                for n, (method, body, _) in enumerate(REQUESTS, start=1)]
    first, *answers = exchange(example_index, [*opening, *requests])
    if revision == "2026-07-28":
        assert revision in first["result"]["supportedVersions"]
        check(revision, "DiscoverResult", first["result"])
    else:
        assert first["result"]["protocolVersion"] == revision
        check(revision, "InitializeResult", first["result"])
        assert "resources" in first["result"]["capabilities"]
    for answer, (method, _, definition) in zip(answers, REQUESTS, strict=True):
        assert "result" in answer, (method, answer)
        check(revision, definition, answer["result"])
    tools = answers[0]["result"]["tools"]
    assert all(tool["annotations"]["readOnlyHint"] is True for tool in tools)
    names = [resource["name"] for resource in answers[1]["result"]["resources"]]
    assert names == NAMES
