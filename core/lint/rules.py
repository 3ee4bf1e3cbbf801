"""The lint rules: each one's id, default severity and what it means, in one table.

Severities and thresholds are data (``default.lint.json``, overridden by a corpus's
``gov-lint.json``); the descriptions here are what ``--format sarif`` publishes as the
tool's rules and what ``gov lint --help`` lists.
"""

from __future__ import annotations

from dataclasses import dataclass

SEVERITIES = ("error", "warning", "note")
RANK = {"error": 3, "warning": 2, "note": 1}


@dataclass(frozen=True)
class Rule:
    """One rule: its id, a one-line summary, and what it checks and why."""

    id: str
    summary: str
    description: str


RULES: tuple[Rule, ...] = (
    Rule("overlap", "Near-duplicate documents",
         "Two documents whose routing surfaces say the same thing, by meaning or by words, "
         "or whose triggers alone do (in any word order) while their example lines do not "
         "tell them apart, split every prompt between them. Merge them, sharpen one trigger, "
         "or give them one **Family:** so the router spends one route on the pair."),
    Rule("shadowed", "A surface another document wins",
         "A trigger or example line, routed against the corpus with that line left out, goes "
         "first to another document: the document does not win its own surfaces. Sharpen "
         "the line, or move it to the document that takes it."),
    Rule("subsumed", "A trigger that is a narrower copy of another",
         "The trigger's words are (nearly) all in another document's longer trigger and the "
         "two are close in meaning, so any prompt it governs fits the other document as "
         "well. Say what only this document governs, or fold it into the other."),
    Rule("family", "A family of near-duplicate documents",
         "Documents joined by near-duplicate pairs (the overlap rule's detector, the one "
         "routing uses for families): routing counts them as one candidate. Listed so the "
         "families are seen; merge them or sharpen their triggers if they should not be one."),
    Rule("hub", "A document that ranks first for generic prompts",
         "The document ranks first for many prompts of gov's bank of generic prompts "
         "(greetings, everyday questions, general programming) that no policy governs: its "
         "surfaces are too broad, and it will take prompts that are not its own."),
    Rule("trigger-missing", "A file with no trigger",
         "The file has no **Agent-trigger:** line (or front matter 'description'), so it is "
         "never indexed and never routed."),
    Rule("unreadable", "A file gov cannot read",
         "The file was skipped: it is not UTF-8, too large, or its front matter is malformed."),
    Rule("trigger-short", "A trigger too short to discriminate",
         "A trigger of a few words matches too little to rank, or too much to mean anything."),
    Rule("trigger-long", "A trigger too long to discriminate",
         "A very long trigger averages many topics into one vector: it matches everything a "
         "little and nothing well."),
    Rule("trigger-stopwords", "A trigger made mostly of stop words or boilerplate",
         "Most of the trigger's words are stop words or words most triggers of the corpus "
         "share (a template), so little of it tells documents apart."),
    Rule("trigger-is-title", "A trigger that repeats the title",
         "The trigger says no more than the document's title or name: say when it applies."),
    Rule("example-repeats-trigger", "An example that repeats the trigger",
         "An example line that is the trigger again adds no evidence: write a prompt a user "
         "would type."),
    Rule("depends-dangling", "A dependency on a missing document",
         "**Depends-on:** names a document that is not in the corpus (or is retired), so it "
         "is never delivered with this one."),
    Rule("family-single", "A family of one",
         "No other document has this **Family:**; a family of one groups nothing, and is "
         "often a misspelt family name."),
    Rule("budget", "A document too large to deliver whole",
         "gov delivers whole documents: this one is larger than the context budget "
         "(--max-tokens)."),
    Rule("lint-ignore-unknown", "Lint-ignore names an unknown rule",
         "**Lint-ignore:** names a rule gov lint does not have, so it switches nothing off."),
)
BY_ID = {rule.id: rule for rule in RULES}
