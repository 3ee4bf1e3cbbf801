"""The paragraph a harness hook adds to the agent's context: names, evidence, how to read.

It never carries rule text — only names, the evidence that matched, how to read the
whole document, and the degraded and divergence notices — and it stays within
:data:`MAX_BYTES` however long the names, evidence and notices are. Everything in it
that came from a file passes :func:`gov.core.sanitize.clean` (no control or invisible
characters, capped), and it names a file only when the router vouched for it
(:mod:`gov.core.routing.sources`); otherwise it says how to read the document from the
index: ``gov show NAME -i INDEX``. Within a session, a document already pasted is named
again in a few bytes ("still applies: NAME"). Where a harness cannot add context per
prompt, :func:`catalogue` is what it gets at session start: the corpus's document names
and how to ask gov, within :data:`CATALOGUE_MAX_BYTES`.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import TYPE_CHECKING, Any

from ..sanitize import MAX_NAME_LENGTH, capped, clean

if TYPE_CHECKING:
    from ..routing.answer import RouteAnswer

MAX_BYTES = 1024
CATALOGUE_MAX_BYTES = 2048
# At most this many names in a session-start catalogue; the rest are counted, with the
# command that lists them all (a long list is noise an agent skims past).
CATALOGUE_NAMES = 40
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


def _within(text: str, limit: int) -> str:
    if len(text.encode("utf-8")) <= limit:
        return text
    return text.encode("utf-8")[: limit - 3].decode("utf-8", errors="ignore") + "…"


def still_applies(names: list[str]) -> str:
    """The few bytes that name documents already in the agent's context this session."""
    return _within("gov: still applies: " + ", ".join(clean(name, MAX_NAME) for name in names)
                   + ".", MAX_BYTES)


_PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_./-]{0,63}")
MAX_PLAIN_NAME = 64


def plain(name: str) -> bool:
    """Whether ``name`` is a plain identifier: letters, digits and ``-_./``, at most 64."""
    return _PLAIN_NAME.fullmatch(name) is not None


def shown_name(name: str, source: str | None) -> str:
    """The name the agent reads: the document's own when plain; else one derived from its
    file's name (its folder's, for a ``SKILL.md``); else ``unnamed-document``. A name that
    is prose ("SYSTEM NOTICE - ignore ...") never reaches the agent as text to obey."""
    if plain(name):
        return name
    if source:
        stem, _ = os.path.splitext(os.path.basename(source))
        if stem.upper() in ("SKILL", "README", "INDEX", "AGENTS"):
            stem = os.path.basename(os.path.dirname(source))
        derived = re.sub(r"[^A-Za-z0-9_.-]+", "-", stem).strip("-.")[:MAX_PLAIN_NAME]
        if derived and plain(derived):
            return derived
    return "unnamed-document"


def _safe_path(path: str, cwd: str | None) -> str | None:
    """``path`` as shown (relative to ``cwd`` when inside it), or ``None`` when it holds a
    character that cleaning would change (pointing at a different file is worse than none)."""
    shown = _shown_path(path, cwd)
    return shown if clean(shown) == shown else None


def render(answer: RouteAnswer, cwd: str | None = None, kept: frozenset[str] = frozenset(),
           index: str | None = None, notices: bool = True) -> str:
    """The context paragraph for a routed answer, at most MAX_BYTES of UTF-8.

    Routes named in ``kept`` were pasted in full earlier in the session: they are only
    named ("still applies"), and when every route is kept that is the whole paragraph.
    ``index`` (the index routed with, when it is not the one gov finds by default) goes
    into the ``gov show`` command it suggests. ``notices``: whether to say the corpus's
    divergence notices (a session hears them once).
    """
    sources = answer.sources
    routes = [route for route in answer.routes if route.name not in kept]
    repeated = [shown_name(route.name, sources.get(route.name)) for route in answer.routes
                if route.name in kept]
    if not routes:
        return still_applies(repeated)
    tail = (" Still applies: " + ", ".join(clean(name, MAX_NAME) for name in repeated)
            + ".") if repeated else ""
    shown_index = _safe_path(index, cwd) if index else None
    show = "gov show NAME" + (f" -i {shlex.quote(shown_index)}" if shown_index else "")
    said: list[str] = []
    if answer.degraded:
        said.append("Routing used words only (the embedding model was unavailable), so "
                    "these matches are weaker than usual.")
    for reason in answer.notices if notices else ():
        said.append(f"Routing may be off for this corpus: {reason}.")
    for evidence_limit, path_limit, notice_limit in ((160, 160, 240), (90, 100, 160),
                                                     (50, 60, 100), (0, 0, 60), (0, 0, 0)):
        items = []
        for route in routes:
            item = clean(shown_name(route.name, sources.get(route.name)), MAX_NAME)
            if evidence_limit and route.why:
                item += f" (matched {_clip(route.why, evidence_limit)})"
            items.append(item)
        how = []
        for route in routes:
            path = sources.get(route.name)
            shown = _safe_path(path, cwd) if path else None
            if shown and path_limit and len(shown) <= path_limit:
                how.append(f"{clean(shown_name(route.name, path), MAX_NAME)}: {shown}")
        text = (
            "gov: these team documents govern this request: " + "; ".join(items) + ". "
            f"Read each one in full before acting: run `{show}`"
            + (" or open " + ", ".join(how) if how else "")
            + ". Follow them where they apply; ignore a match that is plainly unrelated."
            + tail
        )
        if notice_limit:
            text += "".join(" " + _clip(notice, notice_limit) for notice in said)
        elif said and evidence_limit == 0 and path_limit == 0:
            text += " Notices apply; see `gov route --format text`."
        if len(text.encode("utf-8")) <= MAX_BYTES:
            return text
    return _within(text, MAX_BYTES)


def catalogue(names: list[str]) -> str:
    """Session-start context for a harness that cannot add context per prompt: the corpus's
    document names and how to ask gov, at most CATALOGUE_MAX_BYTES of UTF-8."""
    head = "gov: this project's team documents (policies and skills): "
    ask = ("This harness cannot hand gov each prompt, so before acting on a request one of "
           "them may govern, read it in full: run `gov show NAME`, or `gov route \"PROMPT\"` "
           "to be told which govern it (the gov MCP server offers the same as route_policies "
           "and get_policy). Follow them where they apply.")
    shown: list[str] = []
    everything = "`gov list --names` lists them all"
    budget = CATALOGUE_MAX_BYTES - len((head + ask + everything).encode("utf-8")) - 40
    # Prose as a name is not listed at all (without its file there is no name to derive,
    # and many would all read "unnamed-document").
    listable = [name for name in names if plain(name)]
    for name in listable[:CATALOGUE_NAMES]:
        cost = len(name.encode("utf-8")) + 2
        if cost > budget:
            break
        shown.append(name)
        budget -= cost
    listed = capped(listable, len(shown), everything)
    return _within(head + listed + ". " + ask, CATALOGUE_MAX_BYTES)


def hook_output(context: str) -> dict[str, Any]:
    """The UserPromptSubmit output object both Claude Code and Codex accept."""
    return {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": context}}
