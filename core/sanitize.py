"""The one sanitiser for text that leaves gov: names, evidence, notices, terminal output.

Document names, example prompts and header fields come from files gov did not write (a
cloned repository, a skill pack, a shipped index). What gov hands on — the hook's
paragraph in an agent's context, a line on a terminal — must not carry control
sequences, invisible direction overrides or unbounded length. Three rules, one place:

* :func:`name_problem`: the rule a document name must pass, at build and when an index
  is loaded (a crafted index cannot carry a name the corpus reader would refuse);
* :func:`clean`: one line of shown text: controls and invisible characters removed,
  whitespace collapsed, capped with an ellipsis;
* :func:`escape_terminal`: text for a terminal: every control or invisible character
  (newlines and tabs kept) shown as a visible ``\\x1b``-style escape, never obeyed.

And one rule for a list of names that may run to hundreds: :func:`capped` shows the first
few and counts the rest ("… and 765 more; --all lists them"), the same in every report.

Standard library only: the hook imports it on every turn that routes.
"""

from __future__ import annotations

import re

MAX_NAME_LENGTH = 200
# C0 and C1 controls and DEL; the invisible formatting characters that reorder or hide
# text (bidi embeddings, overrides and isolates, marks, zero-width characters, line and
# paragraph separators, the byte-order mark).
_INVISIBLE = ("\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff"
              "\ufff9-\ufffb")
_CONTROL = "\x00-\x1f\x7f-\x9f"
_UNSAFE = re.compile(f"[{_CONTROL}{_INVISIBLE}]|[\ud800-\udfff]")
_BAD_IN_NAMES = re.compile(f"[\x00-\x09\x0b-\x1f\x7f-\x9f{_INVISIBLE}]|[\ud800-\udfff]")
_TERMINAL = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_INVISIBLE}]|[\ud800-\udfff]")
_SPACES = re.compile(r"\s+")


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a document name (``None``: it can): 1-200 characters on one
    line, no control, invisible or direction-changing characters."""
    if not name or len(name) > MAX_NAME_LENGTH:
        return f"must be 1-{MAX_NAME_LENGTH} characters"
    bad = _UNSAFE.search(name)
    if bad is not None:
        return (f"holds the control or invisible character U+{ord(bad.group()):04X}; "
                "names are plain text on one line")
    return None


def bad_name_in(text: str) -> int | None:
    """The position of the first character no name may hold in ``text`` (names joined by
    newlines: the newlines themselves are allowed), or ``None``. One regex pass."""
    found = _BAD_IN_NAMES.search(text)
    return None if found is None else found.start()


def clean(text: str, limit: int | None = None) -> str:
    """One line of text fit to show: controls and invisible characters removed, runs of
    whitespace made one space, at most ``limit`` characters (ending in "…" when cut)."""
    text = _SPACES.sub(" ", _UNSAFE.sub(lambda m: " " if m.group() in "\t\n\r" else "",
                                        text)).strip()
    if limit is not None and len(text) > limit:
        return text[: max(0, limit - 1)].rstrip() + "…"
    return text


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_terminal(text: str) -> str:
    """``text`` safe to print on a terminal: newlines and tabs kept, every other control or
    invisible character shown as an escape (``\\x1b``, ``\\u202e``), never obeyed."""
    return _TERMINAL.sub(_visible, text)


def capped(names: list[str], limit: int, everything: str) -> str:
    """``names`` joined by commas, at most ``limit`` of them; the rest counted, with how to
    see them all (``everything``, e.g. "--all lists them")."""
    if len(names) <= limit:
        return ", ".join(names)
    return f"{', '.join(names[:limit])} … and {len(names) - limit} more; {everything}"
