"""Shared helpers for the task-card tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).parent / "golden"
EXAMPLES = REPO / "examples" / "cards"


def base_card(**changes: Any) -> dict[str, Any]:
    """A valid RESULT card that passes every default check at 2025-06-01T12:00:00Z."""
    card: dict[str, Any] = {
        "schema_version": "0.1.0",
        "card_type": "RESULT",
        "task_id": "t-1",
        "source_agent": "coder:model",
        "timestamp": "2025-06-01T09:00:00Z",
        "objective": "Rebuild the search index for the docs site",
        "outcome": "Search index rebuilt for the docs site in 40 s",
        "key_facts": ["120k documents indexed"],
        "actions_taken": ["Ran the index build"],
        "next_actions": [],
        "artifacts": [],
        "confidence": 0.8,
        "memory_suggestion": {"store": False, "tags": []},
    }
    card.update(changes)
    return card


NOW = "2025-06-01T12:00:00Z"


def jsonl(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.splitlines() if line.strip()]


@pytest.fixture
def write_json(tmp_path: Path):  # type: ignore[no-untyped-def]
    def write(name: str, value: Any, *, lines: bool = False) -> Path:
        path = tmp_path / name
        if lines:
            path.write_text("".join(json.dumps(v) + "\n" for v in value))
        else:
            path.write_text(json.dumps(value, indent=2))
        return path

    return write
