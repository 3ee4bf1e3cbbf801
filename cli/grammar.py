"""The argument grammar both front doors read: option names, choices and defaults.

The lean paths (:mod:`.commands.route_lean`, :mod:`.commands.card_lean`) parse their
simple forms by hand so they never import typer; the typer commands
(:mod:`.commands.route`, :mod:`.commands.card_verify`, :mod:`.options`,
:mod:`.conventions`) declare the same options from these names. ``gov hook``'s argv is
parsed by the warm server, in the library, so its grammar (options, choices, defaults,
help) is :mod:`gov.core.serving.hook_grammar`'s, and the two options it shares with the
other commands are taken from there. Imports nothing else: it is on every hot path. Index
discovery is :func:`gov.core.index.locate.find_index` for both doors;
tests/cli/test_front_doors.py runs each lean path beside its typer twin.
"""

from __future__ import annotations

# Options (long name first, then the short one); the two the hook shares are the hook's
from gov.core.serving.hook_grammar import INDEX as INDEX
from gov.core.serving.hook_grammar import OPERATING_POINT as OPERATING_POINT

FORMAT = ("--format", "-f")
EXIT_STATUS = ("--exit-status", "-e")
LEXICAL_ONLY = ("--lexical-only",)
QUIET = ("--quiet", "-q")
COLOR = ("--color",)
CONTRACT = ("--contract", "-c")
NOW = ("--now",)
STRICT = ("--strict",)
REPO = ("--repo",)
BASE = ("--base",)

# Choices and defaults
COLORS = ("auto", "always", "never")  # conventions.Color's values
ROUTE_FORMATS = ("text", "json", "jsonl")
ROUTE_TTY, ROUTE_PIPE = "text", "jsonl"
ROUTE_LEAN_FORMATS = ("json", "jsonl")  # text is for people and goes through rich
CARD_RESULT_FORMATS = ("text", "json", "jsonl", "github")
CARD_TTY, CARD_PIPE = "text", "jsonl"
CONTRACT_DEFAULT = "default"


def table(**dests: tuple[str, ...]) -> dict[str, str]:
    """``{"-i": "index", "--index": "index", …}`` from ``index=INDEX, …``: each option name to
    the key a lean parser stores its value under."""
    return {name: dest for dest, names in dests.items() for name in names}
