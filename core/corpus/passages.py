"""A document's body as passages, for the optional body evidence (``gov index --bodies``).

Trigger lines and examples are a few sentences; a policy's meaning is mostly in its body.
An index built with bodies embeds each passage (paragraph or list item) and keeps one vector
per document: the mean of its passages' vectors, whose dot product with a prompt is the
prompt's mean similarity to the passages. Routing mixes that into the semantic score with
the operating point's ``body_weight``. The passages themselves are never shown: gov names
documents and matched evidence, never rule text.
"""

from __future__ import annotations

import re

from .markdown import FENCE_RE, ParseProblem, is_header_line, split_front_matter

MIN_PASSAGE_CHARS = 30
MAX_PASSAGES = 64
# A blank line, or a line that starts a list item, starts a passage.
_BREAK = re.compile(r"\n[ \t]*\n|\n(?=[ \t]*(?:\d+[.)]|[-*+])[ \t])")
_BULLET = re.compile(r"^[ \t]*(?:\d+[.)]|[-*+])[ \t]+")


def _prose(body: str) -> str:
    """The body without code fences (each leaves a break), headings or gov's header lines."""
    lines: list[str] = []
    in_fence = False
    for line in body.replace("\r\n", "\n").split("\n"):
        if FENCE_RE.match(line):
            in_fence = not in_fence
            lines.append("")
        elif not in_fence and not line.lstrip().startswith("#") and not is_header_line(line):
            lines.append(line)
    return "\n".join(lines)


def passages(text: str) -> list[str]:
    """The body's passages in order: no front matter, headings, gov lines or code fences;
    at least ``MIN_PASSAGE_CHARS`` characters each, at most ``MAX_PASSAGES`` of them."""
    try:
        _, body, _ = split_front_matter(text)
    except ParseProblem:
        body = text
    out: list[str] = []
    for block in _BREAK.split(_prose(body)):
        passage = _BULLET.sub("", " ".join(line.strip() for line in block.strip().split("\n")
                                          if line.strip())).strip()
        if len(passage) >= MIN_PASSAGE_CHARS:
            out.append(passage)
        if len(out) >= MAX_PASSAGES:
            break
    return out
