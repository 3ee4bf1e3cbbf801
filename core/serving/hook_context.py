"""The paragraph a harness hook adds to the agent's context: names, evidence, how to read.

It never carries rule text — only names, the evidence that matched, how to read the
whole document, and the degraded and divergence notices — and it stays within
:data:`MAX_BYTES` however long the names, evidence and notices are.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gov.core.routing.answer import RouteAnswer

MAX_BYTES = 1024
MIN_PROMPT_CHARS = 12


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)].rstrip() + "…"


def _shown_path(path: str, cwd: str | None) -> str:
    if cwd:
        try:
            relative = os.path.relpath(path, cwd)
        except ValueError:
            return path
        if not relative.startswith(".."):
            return relative
    return path


def render(answer: RouteAnswer, cwd: str | None = None, index: str | None = None) -> str:
    """The context paragraph for a routed answer, at most MAX_BYTES of UTF-8; ``index``
    names the index for ``gov show`` when it is not the one gov finds by default."""
    show = f"gov show NAME -i {index}" if index else "gov show NAME"
    routes = answer.routes
    sources = answer.sources
    notices: list[str] = []
    if answer.degraded:
        notices.append("Routing used words only (the embedding model was unavailable), so "
                       "these matches are weaker than usual.")
    for reason in answer.notices:
        notices.append(f"Routing may be off for this corpus: {reason}.")
    for evidence_limit, path_limit, notice_limit in ((160, 160, 240), (90, 100, 160),
                                                     (50, 60, 100), (0, 0, 60), (0, 0, 0)):
        items = []
        for route in routes:
            item = route.name
            if evidence_limit and route.why:
                item += f" (matched {_clip(route.why, evidence_limit)})"
            items.append(item)
        how = []
        for route in routes:
            path = sources.get(route.name)
            if path and path_limit:
                how.append(f"{route.name}: {_clip(_shown_path(path, cwd), path_limit)}")
        text = (
            "gov: these team documents govern this request: " + "; ".join(items) + ". "
            f"Read each one in full before acting: run `{show}`"
            + (" or open " + ", ".join(how) if how else "")
            + ". Follow them where they apply; ignore a match that is plainly unrelated."
        )
        if notice_limit:
            text += "".join(" " + _clip(notice, notice_limit) for notice in notices)
        elif notices and evidence_limit == 0 and path_limit == 0:
            text += " Notices apply; see `gov route --format text`."
        if len(text.encode("utf-8")) <= MAX_BYTES:
            return text
    encoded = text.encode("utf-8")[: MAX_BYTES - 3]
    return encoded.decode("utf-8", errors="ignore") + "…"


def hook_output(context: str) -> dict[str, Any]:
    """The UserPromptSubmit output object both Claude Code and Codex accept."""
    return {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": context}}
