"""The MCP stdio server: routing, whole documents and task cards as tools an agent can call.

Tools: ``route_policies`` (at most two names with score and evidence, never rule text),
``get_policy`` (a whole document, by a name the index holds), ``create_card``,
``validate_card`` and ``verify_card``. Every tool publishes an ``outputSchema``, answers
with ``structuredContent`` (and its JSON text), and is annotated read-only, idempotent and
closed-world; the documents are also resources, ``gov://documents/NAME``
(:mod:`gov.core.serving.mcp_resources`). The SDK serves every revision a client asks for:
2026-07-28 to a client that probes ``server/discover``, 2025-11-25 or 2025-06-18 to one
that sends ``initialize`` (``docs/mcp.md`` says which a client gets, and why).

No path a client sends ever reaches the file system: documents are looked up by exact
name in the index, and their text comes from the index file loaded at start-up; a card
contract is one of the built-in ones, named. The ``mcp`` SDK is imported only when a
server is built, so ``gov`` installs and runs without the ``gov[mcp]`` extra.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import os
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Annotated, Any

import orjson
from pydantic import BaseModel, Field, PlainValidator, WithJsonSchema

from .. import __version__, telemetry
from ..cards import tools as card_tools
from ..cards.contracts import builtin_contract
from ..cards.schema import Problem, card_schema
from ..cards.validate import check_card
from ..cards.verify import verify
from ..encode import bundle
from ..errors import GovError
from . import mcp_resources

if TYPE_CHECKING:
    from ..routing.router import Router

SERVER_NAME = "gov"
MAX_ROUTES = 2
WARM_UP_PROMPT = "roll back the release that is failing in production"
INSTRUCTIONS = (
    "Call route_policies with the user's prompt at the start of each turn. It names at most "
    "two policy documents that govern the turn, or none. Read each named document in full "
    "with get_policy and follow it. Report back with a task card: create_card builds one, "
    "validate_card and verify_card check one."
)


class PolicyNotFound(GovError):
    """A document name the index does not hold; the message lists the ones it does."""

    exit_code = 1
    failure_class = "input"


MAX_DOCUMENT_CHARS = 100_000  # about 25,000 tokens; real policies are a few thousand


def capped(text: str) -> str:
    """``text``, or its first :data:`MAX_DOCUMENT_CHARS` characters and a line saying so."""
    if len(text) <= MAX_DOCUMENT_CHARS:
        return text
    return (text[:MAX_DOCUMENT_CHARS] + f"\n\n[gov: this document is {len(text):,} characters; "
            f"only the first {MAX_DOCUMENT_CHARS:,} are served]\n")


def _card_json_schema() -> dict[str, Any]:
    # The card schema as a nested property: the root-only keywords do not belong there.
    return {k: v for k, v in card_schema().items() if k not in ("$schema", "$id")}


CardObject = Annotated[dict[str, Any], WithJsonSchema(_card_json_schema())]


class RouteOut(BaseModel):
    """One routed document: its name, the fused score that ordered it, the evidence."""

    name: str
    score: float
    why: str


class RoutePoliciesOut(BaseModel):
    routes: list[RouteOut] = Field(max_length=MAX_ROUTES)
    degraded: bool = Field(description="true when routing fell back to words alone")


class PolicyOut(BaseModel):
    name: str
    text: str = Field(description="the whole document, as indexed")


class ProblemOut(BaseModel):
    path: str
    rule: str
    message: str


class CreateCardOut(BaseModel):
    card: CardObject


class ValidateCardOut(BaseModel):
    valid: bool
    errors: list[ProblemOut]
    card: CardObject | None = Field(description="the card as parsed, when valid")


class VerificationOut(BaseModel):
    contract_id: str
    passed: bool
    hard_failures: list[str]
    soft_failures: list[str]
    checks_passed: list[str]
    adjusted_confidence: float
    confidence_delta: float
    summary: str


class VerifyCardOut(BaseModel):
    valid: bool = Field(description="false when the card is not a valid card; errors say why")
    errors: list[ProblemOut]
    verification: VerificationOut | None = Field(description="the verdict, for a valid card")


def _problems(problems: list[Problem]) -> list[ProblemOut]:
    return [ProblemOut(**problem.to_json()) for problem in problems]


def _checked(card: Any) -> tuple[Any, list[ProblemOut]]:
    """The parsed card (or None) and its problems; a card may come as JSON text, since some
    clients can only send strings."""
    value: Any = card
    if isinstance(card, str):
        try:
            value = orjson.loads(card)
        except orjson.JSONDecodeError as exc:
            return None, [ProblemOut(path="$", rule="json", message=f"not valid JSON: {exc}")]
    parsed, problems = check_card(value)
    return parsed, _problems(problems)


class PolicyTools:
    """What the tools do, without the protocol: one loaded, warmed index and the card library."""

    def __init__(self, index: Router, *, threads: int | None = 1, warm: bool = True) -> None:
        self.index = index
        self._names = frozenset(index.names)
        if threads and index.degraded is None and bundle.spec(index.model_id).runtime == "onnx":
            _pin_encoder(index, threads)
        if warm:
            # Load the model and touch every routing path, at a short and at the longest
            # input, so the first request pays for neither; and load the schema checker that
            # explains a rejected card, which would cost the first bad card a few hundred ms.
            index.route(WARM_UP_PROMPT, record=False)
            index.route(" ".join([WARM_UP_PROMPT] * 40), record=False)
            self.validate_card({"card": {}})

    def route_policies(self, prompt: str, received: float | None = None) -> RoutePoliciesOut:
        """Route one prompt; one telemetry event, timed from ``received``."""
        with telemetry.attempt("mcp", start=received) as attempt:
            answer = self.index.route(prompt, record=False)  # this event is the adapter's
            routes = answer.chosen[:MAX_ROUTES]
            answer.routes = routes
            attempt.answered(answer)
            return RoutePoliciesOut(
                routes=[RouteOut(name=r.name, score=round(r.score, 6), why=r.why) for r in routes],
                degraded=answer.degraded is not None,
            )

    @property
    def names(self) -> frozenset[str]:
        return self._names

    def text(self, name: str) -> str:
        """A document's whole text, from the index (only names it holds reach here), at most
        :data:`MAX_DOCUMENT_CHARS` of it: an index can come with a repository, and one huge
        document must not fill an agent's context."""
        return capped(self.index.text(name))

    def describe(self, name: str) -> str:
        """A resource's description: when the document applies (its trigger), in brief."""
        trigger = " ".join(str(self.index.document(name).trigger or "").split())
        return (trigger[:197] + "...") if len(trigger) > 200 else trigger

    def get_policy(self, name: str) -> PolicyOut:
        """The whole document named ``name``; only names in the index, matched exactly."""
        if name not in self._names:
            raise PolicyNotFound(self.index.stored.unknown(name))
        return PolicyOut(name=name, text=self.text(name))

    def create_card(self, arguments: Mapping[str, Any]) -> CreateCardOut:
        """A card from ``create_card``'s arguments (ovi-cards' names too)."""
        return CreateCardOut(card=card_tools.create_card(arguments))

    def validate_card(self, arguments: Mapping[str, Any]) -> ValidateCardOut:
        parsed, errors = _checked(card_tools.card_argument(arguments))
        return ValidateCardOut(valid=parsed is not None, errors=errors,
                               card=parsed.to_json() if parsed is not None else None)

    def verify_card(self, arguments: Mapping[str, Any]) -> VerifyCardOut:
        chosen = builtin_contract(card_tools.contract_argument(arguments))  # by name only
        strict = card_tools.strict_argument(arguments)
        parsed, errors = _checked(card_tools.card_argument(arguments))
        if parsed is None:
            return VerifyCardOut(valid=False, errors=errors, verification=None)
        verdict = verify(parsed, chosen, strict=strict)
        return VerifyCardOut(valid=True, errors=[],
                             verification=VerificationOut(**verdict.to_json()))


def _pin_encoder(index: Router, threads: int) -> None:
    """Give ``index`` a query encoder with ``threads`` intra-op threads.

    One prompt per call is too little work to split: on two busy cores, measured call by
    call against onnxruntime's pool, one thread used less CPU per embedding (7.6 vs 8.8 ms)
    and its fastest call was faster (5.9 vs 6.6 ms), leaving a core to the agent's builds.
    """
    from ..encode.embedding import OnnxEncoder
    from ..errors import ModelError

    with contextlib.suppress(ModelError):  # the index's own loader reports it on first use
        index.use_encoder(OnnxEncoder(threads=threads))


def available() -> bool:
    """Whether the ``mcp`` SDK can be imported (the ``gov[mcp]`` extra)."""
    try:
        importlib.import_module("mcp")
    except ImportError:
        return False
    return True


def _sdk() -> tuple[Any, type[Exception]]:
    """The server class and its tool-error type: ``MCPServer`` in SDK 2, ``FastMCP`` in 1."""
    try:
        server = importlib.import_module("mcp.server.mcpserver")
        errors = importlib.import_module("mcp.server.mcpserver.exceptions")
        return server.MCPServer, errors.ToolError
    except ImportError:
        server = importlib.import_module("mcp.server.fastmcp")
        errors = importlib.import_module("mcp.server.fastmcp.exceptions")
        return server.FastMCP, errors.ToolError


DESCRIPTIONS = {
    "route_policies": (
        "Name the policy documents (at most two) that govern this prompt, or none. Returns "
        "names, scores and the matching evidence, never rule text: read a named document "
        "with get_policy."
    ),
    "get_policy": (
        "The whole text of one policy document, by the name route_policies gave. Only "
        "names in the index are served; any other name is an error listing the valid ones."
    ),
    "create_card": (
        "Build a task card from its fields, filling in schema version, timestamp, confidence "
        "and memory suggestion by card type. A field that breaks a rule is an error naming it. "
        "ovi-cards' store_memory, memory_target and memory_tags work too."
    ),
    "validate_card": (
        "Check that a task card (card, or ovi-cards' card_json) is valid against the card "
        "schema. Returns valid and, when it is not, every problem with its field path and the "
        "rule it breaks."
    ),
    "verify_card": (
        "Validate a task card (card, or ovi-cards' card_json), then run a verification "
        "contract's checks on it: whether it passed, which checks failed, and its confidence "
        "adjusted by the failures."
    ),
}


def _as_given(value: Any) -> Any:
    return value  # the card tools check their own arguments, to answer in one line


def _parameter(argument: card_tools.Argument) -> inspect.Parameter:
    """A tool parameter the SDK passes through unchecked, advertised with its JSON Schema.

    A text argument is declared ``str`` so the SDK never parses text that looks like JSON
    (an objective of "null", say) into something else; the rest take any JSON value.
    """
    text = argument.schema.get("type") == "string"
    annotation = Annotated[  # type: ignore[valid-type]
        str if text else Any,
        PlainValidator(_as_given),
        WithJsonSchema(dict(argument.schema)),
        Field(description=argument.description),
    ]
    return inspect.Parameter(argument.name, inspect.Parameter.KEYWORD_ONLY, default=None,
                             annotation=annotation)


def _card_tool(name: str, run: Callable[[dict[str, Any]], BaseModel], output: type[BaseModel],
               fix: Callable[[GovError], Exception]) -> Callable[..., Awaitable[BaseModel]]:
    """A tool function for ``name`` whose parameters are ``card_tools.ARGUMENTS[name]``."""

    async def tool(**arguments: Any) -> BaseModel:
        try:
            return run(arguments)
        except GovError as exc:
            raise fix(exc) from None

    tool.__name__ = name
    tool.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [_parameter(argument) for argument in card_tools.ARGUMENTS[name]], return_annotation=output)
    return tool


def _advertise_required(server: Any, name: str) -> None:
    """Mark the card tool's required arguments in its input schema.

    Every parameter is optional to the SDK, so a missing one reaches the tool and gets the
    same one-line answer as a wrong one; the schema still tells clients what to send.
    """
    required = [a.name for a in card_tools.ARGUMENTS[name] if a.required]
    with contextlib.suppress(AttributeError, KeyError, TypeError):
        schema = server._tool_manager.get_tool(name).parameters
        for argument in required:
            schema["properties"][argument].pop("default", None)
        if required:
            schema["required"] = required


def build_server(tools: PolicyTools) -> Any:
    """An MCP server with the five tools; errors a client can fix come back as tool errors."""
    server_class, tool_error = _sdk()
    # WARNING: the SDK would otherwise log every request at INFO on stderr.
    options: dict[str, Any] = {"instructions": INSTRUCTIONS, "log_level": "WARNING"}
    try:
        server = server_class(SERVER_NAME, version=__version__, **options)
    except TypeError:
        server = server_class(SERVER_NAME, **options)
    lowlevel = getattr(server, "_mcp_server", None)  # SDK 1 drops the version: name it there
    if lowlevel is not None:
        lowlevel.version = __version__

    def fix(exc: GovError) -> Exception:
        return tool_error(str(exc))

    async def route_policies(prompt: str) -> RoutePoliciesOut:
        received = time.perf_counter()
        return tools.route_policies(prompt, received)

    async def get_policy(name: str) -> PolicyOut:
        try:
            return tools.get_policy(name)
        except GovError as exc:
            raise fix(exc) from None

    create_card = _card_tool("create_card", tools.create_card, CreateCardOut, fix)
    validate_card = _card_tool("validate_card", tools.validate_card, ValidateCardOut, fix)
    verify_card = _card_tool("verify_card", tools.verify_card, VerifyCardOut, fix)

    for tool in (route_policies, get_policy, create_card, validate_card, verify_card):
        server.add_tool(tool, description=DESCRIPTIONS[tool.__name__],
                        annotations=mcp_resources.tool_annotations(tool.__name__))
    mcp_resources.add_documents(server, sorted(tools.names), tools.text, tools.describe)
    for name in card_tools.ARGUMENTS:
        _advertise_required(server, name)
    _serve_no_prompts(server)
    return server


UNSERVED = ("prompts/list", "prompts/get", "resources/subscribe", "resources/unsubscribe")


def _serve_no_prompts(server: Any) -> None:
    """Drop the SDK's empty prompt handlers (and any subscription ones): a capability is
    advertised when its method is served, and gov serves no prompts and no subscriptions,
    so a client asking gets "method not found" instead of an empty promise."""
    low = getattr(server, "_lowlevel_server", None) or getattr(server, "_mcp_server", None)
    handlers = getattr(low, "_request_handlers", None)
    if handlers is None:
        handlers = getattr(low, "request_handlers", None)
    if not isinstance(handlers, dict):
        return
    sdk1 = {"ListPromptsRequest", "GetPromptRequest", "SubscribeRequest", "UnsubscribeRequest"}
    for key in list(handlers):
        if key in UNSERVED or getattr(key, "__name__", None) in sdk1:
            del handlers[key]


def serve(index: Router, *, threads: int | None = 1) -> None:
    """Warm ``index``, then answer MCP requests on stdin/stdout until the client hangs up."""
    import anyio

    server = build_server(PolicyTools(index, threads=threads))
    saved = sys.stdout
    # SDK 1 closes the stdout it wraps when the client hangs up; lend it a duplicate so the
    # process's own stdout is still open for a clean exit. No real stdout: serve on this one.
    with contextlib.suppress(AttributeError, OSError, ValueError):
        sys.stdout = open(os.dup(saved.fileno()), "w", encoding="utf-8")  # noqa: SIM115
    try:
        anyio.run(server.run_stdio_async)
    finally:
        lent, sys.stdout = sys.stdout, saved
        if lent is not saved:
            with contextlib.suppress(OSError, ValueError):
                lent.close()
