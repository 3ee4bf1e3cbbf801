"""The paragraph a harness hook adds to the agent's context: names, evidence, how to read.

It never carries rule text — only names, the evidence that matched, how to read the
whole document, and the degraded and divergence notices — and it stays within
:data:`MAX_BYTES` however long the names, evidence and notices are. Everything in it
that came from a file passes :func:`gov.core.sanitize.clean` (no control or invisible
characters, capped), and it names a file only when the router vouched for it
(:mod:`gov.core.routing.sources`); otherwise it says how to read the document from the
index: ``gov show NAME -i INDEX``.
"""

from __future__ import annotations

import os
import shlex
from typing import TYPE_CHECKING, Any

from gov.core.sanitize import MAX_NAME_LENGTH, clean

if TYPE_CHECKING:
    from gov.core.routing.answer import RouteAnswer

MAX_BYTES = 1024
MIN_PROMPT_CHARS = 12
MAX_NAME = MAX_NAME_LENGTH  # a longer name is no document's (the reader's rule)


def _clip(text: str, limit: int) -> str:
    return clean(text, limit)


def _shown_path(path: str, cwd: str | None) -> str:
    if cwd:
        try:
            relative = os.path.relpath(path, cwd)
        except ValueError:
            return path
        if not relative.startswith(".."):
            return relative
    return path


def _safe_path(path: str, cwd: str | None) -> str | None:
    """``path`` as shown (relative to ``cwd`` when inside it), or ``None`` when it holds a
    character that cleaning would change (pointing at a different file is worse than none)."""
    shown = _shown_path(path, cwd)
    return shown if clean(shown) == shown else None


def render(answer: RouteAnswer, cwd: str | None = None, index: str | None = None) -> str:
    """The context paragraph for a routed answer, at most MAX_BYTES of UTF-8; ``index``
    (the index routed with) goes into the ``gov show`` command it suggests."""
    routes = answer.routes
    sources = answer.sources
    shown_index = _safe_path(index, cwd) if index else None
    show = "gov show NAME" + (f" -i {shlex.quote(shown_index)}" if shown_index else "")
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
            item = clean(route.name, MAX_NAME)
            if evidence_limit and route.why:
                item += f" (matched {_clip(route.why, evidence_limit)})"
            items.append(item)
        how = []
        for route in routes:
            path = sources.get(route.name)
            shown = _safe_path(path, cwd) if path else None
            if shown and path_limit and len(shown) <= path_limit:
                how.append(f"{clean(route.name, MAX_NAME)}: {shown}")
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
