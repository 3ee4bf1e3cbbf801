"""The rules that read one document at a time: vague or malformed surfaces, dangling
dependencies, families of one, and the context budget.

A trigger is the one line every route reads, so it gets the most checks: too short, too
long, mostly stop words or the corpus's boilerplate (a template every trigger shares), or
no more than the title. At most one of those is reported per trigger (the most specific).
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence

from .config import LintConfig
from .documents import LintDocument
from .findings import Finding
from .rules import BY_ID

WORD_RE = re.compile(r"(?u)\b\w\w+\b")
BYTES_PER_TOKEN = 4

Emit = Callable[..., Finding | None]


def words(text: str) -> list[str]:
    return WORD_RE.findall(text.lower())


def normalised(text: str) -> str:
    return " ".join(words(text.replace("_", " ")))


def boilerplate(documents: Sequence[LintDocument], config: LintConfig) -> set[str]:
    """Words found in at least ``boilerplate_share`` of the triggers (a template), in a
    corpus large enough to tell a template from a theme."""
    if len(documents) < config.whole("boilerplate_min_documents"):
        return set()
    counts = Counter(word for doc in documents for word in set(words(doc.trigger)))
    least = config.threshold("boilerplate_share") * len(documents)
    return {word for word, count in counts.items() if count >= least}


def trigger_findings(doc: LintDocument, emit: Emit, config: LintConfig,
                     stop_words: frozenset[str], shared: set[str]) -> Iterator[Finding | None]:
    """The one vagueness finding of a trigger, if it has one."""
    line = doc.trigger_line
    said = words(doc.trigger)
    title = normalised(doc.title or "")
    name = normalised(doc.name)
    if normalised(doc.trigger) in {title, name} - {""}:
        what = "title" if normalised(doc.trigger) == title else "name"
        yield emit("trigger-is-title", doc, line,
                   f"the trigger only repeats the document's {what} ({doc.trigger!r})",
                   "say when it applies: the situations and requests it governs")
        return
    if len(said) < config.whole("trigger_min_words"):
        yield emit("trigger-short", doc, line,
                   f"the trigger has {len(said)} word{'s' if len(said) != 1 else ''} "
                   f"({doc.trigger!r}), too few to tell prompts apart",
                   "describe the situations it governs in one sentence of 8-40 words")
        return
    empty = [word for word in said if word in stop_words or word in shared]
    if said and len(empty) / len(said) >= config.threshold("stopword_share"):
        common = sorted({word for word in empty if word in shared})
        detail = (f"; shared with most triggers: {', '.join(common[:5])}" if common else "")
        yield emit("trigger-stopwords", doc, line,
                   f"{len(empty)} of the trigger's {len(said)} words are stop words or "
                   f"boilerplate{detail}",
                   "drop the template words and name what is specific to this document")
        return
    if len(said) > config.whole("trigger_max_words"):
        yield emit("trigger-long", doc, line,
                   f"the trigger has {len(said)} words, more than "
                   f"{config.whole('trigger_max_words')}: it matches everything a little",
                   "keep the trigger to the situations it governs; move the detail to the body")


def example_findings(doc: LintDocument, emit: Emit, config: LintConfig,
                     cosines: Sequence[float] | None) -> Iterator[Finding | None]:
    """Examples that repeat the trigger: the same words, or (by the embedding) the same
    meaning."""
    trigger = normalised(doc.trigger)
    for number, example in enumerate(doc.examples):
        cosine = cosines[number] if cosines is not None else None
        same = normalised(example) == trigger
        if same or (cosine is not None and cosine >= config.threshold("example_repeat")):
            how = "is the trigger again" if same else f"says what the trigger says ({cosine:.2f})"
            yield emit("example-repeats-trigger", doc, doc.example_lines[number],
                       f"the example {example!r} {how}",
                       "replace it with a prompt a user would type for this document",
                       data={"cosine": None if cosine is None else round(float(cosine), 3)})


def relation_findings(doc: LintDocument, emit: Emit, routable: set[str], retired: set[str],
                      family_sizes: Counter[str]) -> Iterator[Finding | None]:
    """Dangling dependencies, a family of one, and Lint-ignore lines naming no rule."""
    for name in doc.depends_on:
        if name in routable or name == doc.name:
            continue
        why = "is retired" if name in retired else "is not in the corpus"
        yield emit("depends-dangling", doc, doc.depends_line or doc.trigger_line,
                   f"Depends-on names {name!r}, which {why}: it is never delivered",
                   "fix the name or remove it from the Depends-on line", data={"missing": name})
    if doc.family and family_sizes[doc.family] == 1:
        others = [family for family, size in family_sizes.items() if size > 1]
        close = difflib.get_close_matches(doc.family, others, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        yield emit("family-single", doc, doc.family_line or doc.trigger_line,
                   f"no other document has Family {doc.family!r}{hint}",
                   "use the family name its siblings use, or remove the Family line",
                   data={"family": doc.family})
    for rule in sorted(doc.ignore - set(BY_ID)):
        yield emit("lint-ignore-unknown", doc, doc.ignore_line or doc.trigger_line,
                   f"Lint-ignore names {rule!r}, which is not a lint rule",
                   f"use one of: {', '.join(BY_ID)}")


def token_counter() -> tuple[str, Callable[[str], int]] | None:
    """tiktoken's cl100k_base counter, when installed and its encoding at hand."""
    try:
        import tiktoken

        encoding = tiktoken.get_encoding("cl100k_base")
    except Exception:  # not installed, or the encoding cannot be fetched offline
        return None
    return "cl100k_base", lambda text: len(encoding.encode(text, disallowed_special=()))


def budget_finding(doc: LintDocument, emit: Emit, max_tokens: int,
                   counter: tuple[str, Callable[[str], int]] | None) -> Finding | None:
    """A document too large to deliver whole within ``max_tokens``: counted in tokens with
    a tokenizer, else in bytes against ``max_tokens`` x 4 bytes."""
    size = len(doc.text.encode("utf-8"))
    if counter is not None:
        tokens = counter[1](doc.text)
        if tokens <= max_tokens:
            return None
        measure = f"{tokens:,} tokens ({counter[0]})"
        data = {"tokens": tokens, "bytes": size}
    else:
        if size <= max_tokens * BYTES_PER_TOKEN:
            return None
        measure = (f"{size:,} bytes (about {size // BYTES_PER_TOKEN:,} tokens at "
                   f"{BYTES_PER_TOKEN} bytes each; no tokenizer installed)")
        data = {"bytes": size}
    return emit("budget", doc, doc.trigger_line or 1,
                f"the document is {measure}, over the budget of {max_tokens:,} tokens",
                "split it into documents that each govern one thing, or raise --max-tokens",
                data=data)
