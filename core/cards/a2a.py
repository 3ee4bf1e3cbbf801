"""A task card as an A2A artifact, and the cards inside any A2A JSON: gov's A2A extension.

Implements the Agent2Agent protocol 1.0 data model (checked against specification
release 1.0.1: ``specification/a2a.proto``, package ``lf.a2a.v1``, in ProtoJSON form with
camelCase names). One card travels as one ``Artifact``:

- ``extensions`` lists ``EXTENSION_URI``;
- its first part is a data part: ``{"data": <the card>, "mediaType": "application/json",
  "metadata": {EXTENSION_URI: {...}}}``, the card verbatim, so it round-trips without loss;
- its second part is a text part with the card type, task and outcome, so a client that
  ignores data parts still shows what happened;
- ``metadata[EXTENSION_URI]`` names the card schema and repeats the card's type and task.

Reading is lenient about where the card sits: any object with ``parts`` (an Artifact, a
Message, a Task's artifacts or history, a stream event, a JSON-RPC response) is searched,
and 0.3-style parts (``"kind": "data"``) are read too. Only the standard library and the
card schema's own names are used: the A2A SDK is not needed.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping
from typing import Any

import orjson

from .plain import SCHEMA_VERSION

PROTOCOL_VERSION = "1.0"
EXTENSION_URI = "urn:gov:a2a:task-card:v1"
CARD_SCHEMA = f"urn:gov:schema:task-card:{SCHEMA_VERSION}"
DATA_MEDIA_TYPE = "application/json"
TEXT_MEDIA_TYPE = "text/plain"
_ID_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, EXTENSION_URI)
_MAX_DEPTH = 64
# No A2A, JSON-RPC or card field name is near this long; a longer key would be copied into
# every path named below it (a 30 MB key forty levels deep cost 2 GB).
MAX_KEY_CHARS = 256


class KeyTooLong(ValueError):
    """A key in the input is over :data:`MAX_KEY_CHARS`; nothing in the record is read."""


def check_keys(value: Any, where: str = "$") -> None:
    """Raise :class:`KeyTooLong` when any object in ``value`` (to the walk's depth) has a key
    over :data:`MAX_KEY_CHARS` characters; checked before any path is built."""
    stack: list[tuple[Any, str, int]] = [(value, where, 0)]
    while stack:
        item, path, depth = stack.pop()
        if depth > _MAX_DEPTH:
            continue
        if isinstance(item, Mapping):
            for key, child in item.items():
                if len(key) > MAX_KEY_CHARS:
                    raise KeyTooLong(f"{path}: a key of {len(key):,} characters (the limit is "
                                     f"{MAX_KEY_CHARS:,}); nothing in this record is read")
                if isinstance(child, list | Mapping):
                    stack.append((child, f"{path}.{key}", depth + 1))
        elif isinstance(item, list):
            stack.extend((child, f"{path}[{index}]", depth + 1) for index, child in enumerate(item)
                         if isinstance(child, list | Mapping))


def extension_metadata(card: Mapping[str, Any]) -> dict[str, Any]:
    """What ``metadata[EXTENSION_URI]`` holds: the card schema, the card's type and task."""
    return {
        "cardSchema": CARD_SCHEMA,
        "schemaVersion": card.get("schema_version", SCHEMA_VERSION),
        "cardType": card.get("card_type"),
        "taskId": card.get("task_id"),
    }


def summary_text(card: Mapping[str, Any]) -> str:
    """The text part: ``RESULT t-1: <outcome>``, for clients that show text parts only."""
    return f"{card.get('card_type')} {card.get('task_id')}: {card.get('outcome')}"


def artifact_id(card: Mapping[str, Any]) -> str:
    """A stable id for the card's artifact: the same card always gets the same UUID."""
    return str(uuid.uuid5(_ID_NAMESPACE, orjson.dumps(card, option=orjson.OPT_SORT_KEYS).decode()))


def card_to_artifact(card: Mapping[str, Any]) -> dict[str, Any]:
    """One valid card as an A2A 1.0 ``Artifact`` carrying gov's card extension."""
    meta = extension_metadata(card)
    return {
        "artifactId": artifact_id(card),
        "name": f"Task card: {card.get('card_type')} {card.get('task_id')}",
        "description": str(card.get("objective", "")),
        "parts": [
            {"data": dict(card), "mediaType": DATA_MEDIA_TYPE, "metadata": {EXTENSION_URI: meta}},
            {"text": summary_text(card), "mediaType": TEXT_MEDIA_TYPE},
        ],
        "metadata": {EXTENSION_URI: meta},
        "extensions": [EXTENSION_URI],
    }


def _is_card_part(part: Mapping[str, Any], marked: bool) -> bool:
    """Whether a part carries a card: its metadata names the extension, or its container lists
    the extension and the part holds a card-shaped object."""
    if "data" not in part:
        return False
    metadata = part.get("metadata")
    if isinstance(metadata, Mapping) and EXTENSION_URI in metadata:
        return True
    data = part["data"]
    return marked and isinstance(data, Mapping) and "card_type" in data and "schema_version" in data


def cards_in(value: Any, where: str = "$") -> Iterator[tuple[str, Any]]:
    """Every card carried by gov's extension anywhere in ``value``, with its JSON path.

    ``value`` may be an Artifact, a Message, a Task, a ``SendMessageResponse``, a stream
    event, a JSON-RPC envelope, or a list of them; nothing else in it is read. A key over
    :data:`MAX_KEY_CHARS` anywhere raises :class:`KeyTooLong` before anything is yielded.
    """
    check_keys(value, where)
    yield from _walk(value, where, 0)


def _walk(value: Any, where: str, depth: int) -> Iterator[tuple[str, Any]]:
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, f"{where}[{index}]", depth + 1)
        return
    if not isinstance(value, Mapping):
        return
    parts = value.get("parts")
    if isinstance(parts, list):
        extensions = value.get("extensions")
        marked = isinstance(extensions, list) and EXTENSION_URI in extensions
        for index, part in enumerate(parts):
            if isinstance(part, Mapping) and _is_card_part(part, marked):
                yield f"{where}.parts[{index}]", part["data"]
    for key, item in value.items():
        if key in ("parts", "metadata") or not isinstance(item, list | Mapping):
            continue
        yield from _walk(item, f"{where}.{key}", depth + 1)
