"""Check the hand-written benchmark corpora: documents, labels, kinds and duplicates.

Run from anywhere with ``python benchmarks/corpora/check.py`` (standard library only).
Every folder next to this file that holds ``documents/`` and ``labelled.jsonl`` is a corpus.
For each corpus it checks that

- every document parses the way gov reads it: a markdown policy has one ``**Agent-trigger:**``
  line (outside code fences); a ``SKILL.md`` or ``.mdc`` file has YAML front matter with a
  ``description``; a skill's ``name`` matches its folder; no two documents share a name;
- every name in ``expected`` is a routable document of that corpus (a document whose status is
  retired, draft, superseded, deprecated or withdrawn is left out of routing by gov, so it
  must not be expected, and it need not be);
- every routable document is expected by at least one prompt;
- ``kind`` agrees with ``expected``: ``positive`` 1 name, ``two_docs`` 2 distinct names,
  ``near_miss`` and ``general`` none;
- no prompt appears twice, within a corpus or across corpora (compared case-folded, with
  whitespace collapsed and trailing punctuation ignored);

and prints the counts per corpus and kind. Exit status 1 when anything is wrong.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
KINDS = {"positive": (1, 1), "two_docs": (2, 2), "near_miss": (0, 0), "general": (0, 0)}
KIND_ORDER = ["positive", "two_docs", "near_miss", "general"]
RETIRED = {"retired", "draft", "superseded", "deprecated", "withdrawn"}
HEADER_RE = re.compile(r"^\*\*(?P<key>[A-Za-z][A-Za-z -]*?):\*\*[ \t]*(?P<value>.*?)\s*$")
FENCE_RE = re.compile(r"^\s*(```|~~~)")
TOP_KEY_RE = re.compile(r"^(?P<key>[A-Za-z_][\w-]*):(?:\s+(?P<value>.*))?$")
MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdc")


def split_front_matter(text: str) -> tuple[str | None, str]:
    """Return (front matter source, body); front matter is None when the file has none."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return None, text
    for number in range(1, len(lines)):
        if lines[number].rstrip() in ("---", "..."):
            return "\n".join(lines[1:number]), "\n".join(lines[number + 1 :])
    raise ValueError("front matter opened with '---' is never closed")


def scalar(raw: str) -> str:
    """The value of a one-line YAML scalar: plain, single- or double-quoted."""
    raw = raw.strip()
    if raw.startswith('"'):
        if not raw.endswith('"') or len(raw) < 2:
            raise ValueError(f"unterminated double-quoted value: {raw[:40]}")
        return json.loads(raw)  # YAML double-quoted escapes used here are a subset of JSON's
    if raw.startswith("'"):
        if not raw.endswith("'") or len(raw) < 2:
            raise ValueError(f"unterminated single-quoted value: {raw[:40]}")
        return raw[1:-1].replace("''", "'")
    if raw.startswith(("*", "&", "!", "%", "@", "`")):
        raise ValueError(f"a plain value cannot start with {raw[0]!r}: {raw[:40]}")
    if ": " in raw or " #" in raw:
        raise ValueError(f"plain value contains ': ' or ' #', quote it: {raw[:40]}")
    return raw


def front_matter_keys(source: str) -> dict[str, str | None]:
    """Top-level keys of simple front matter: one-line scalars and folded/literal blocks."""
    keys: dict[str, str | None] = {}
    lines = source.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line.strip() or line.lstrip().startswith("#") or line.startswith((" ", "\t", "-")):
            continue
        match = TOP_KEY_RE.match(line)
        if match is None:
            raise ValueError(f"cannot read front matter line: {line[:60]}")
        key, raw = match["key"], (match["value"] or "").strip()
        if raw[:1] in (">", "|"):
            block = []
            while index < len(lines) and (lines[index].startswith((" ", "\t")) or not lines[index].strip()):
                block.append(lines[index].strip())
                index += 1
            keys[key] = " ".join(part for part in block if part)
        elif raw == "":
            keys[key] = None
        else:
            keys[key] = scalar(raw)
    return keys


def read_document(path: Path) -> tuple[str, bool]:
    """Return (name, routable) for one document file; raise ValueError on a problem."""
    text = path.read_text(encoding="utf-8")
    front_source, body = split_front_matter(text)
    front = front_matter_keys(front_source) if front_source is not None else {}
    trigger = None
    status = None
    in_fence = False
    for line in body.split("\n"):
        if FENCE_RE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        match = HEADER_RE.match(line)
        if match is None:
            continue
        key = match["key"].strip().lower()
        if key == "agent-trigger":
            if trigger is not None:
                raise ValueError("a second **Agent-trigger:** line")
            trigger = match["value"]
        elif key == "status":
            status = match["value"]
    if path.name == "SKILL.md":
        default_name = path.parent.name
        if front_source is None:
            raise ValueError("SKILL.md without YAML front matter")
        if front.get("name") and front["name"] != default_name:
            raise ValueError(f"skill name {front['name']!r} differs from its folder {default_name!r}")
    else:
        default_name = path.stem
    name = front.get("name") or default_name
    if trigger is None:
        trigger = front.get("description")
    if not trigger or not trigger.strip():
        raise ValueError("no trigger: neither an **Agent-trigger:** line nor a front-matter description")
    status = (status or front.get("status") or "").strip().lower()
    return name, status not in RETIRED


def document_files(documents: Path) -> list[Path]:
    found = []
    for path in sorted(documents.rglob("*")):
        if not path.is_file() or not path.name.lower().endswith(MARKDOWN_SUFFIXES):
            continue
        skill_root = next(
            (p for p in path.parents if (p / "SKILL.md").is_file() and documents in p.parents), None
        )
        if skill_root is not None and path != skill_root / "SKILL.md":
            continue  # a skill's other files are its resources, not documents
        found.append(path)
    return found


def normalise(prompt: str) -> str:
    return re.sub(r"\s+", " ", prompt.casefold()).strip().rstrip(".?!").strip()


def main() -> int:
    errors: list[str] = []
    seen_prompts: dict[str, str] = {}
    table = []
    corpora = sorted(
        p for p in HERE.iterdir() if (p / "documents").is_dir() and (p / "labelled.jsonl").is_file()
    )
    if not corpora:
        print(f"no corpora found under {HERE}")
        return 1
    for corpus in corpora:
        label = corpus.name
        documents: dict[str, bool] = {}
        sources: dict[str, Path] = {}
        for path in document_files(corpus / "documents"):
            shown = path.relative_to(HERE)
            try:
                name, routable = read_document(path)
            except (ValueError, UnicodeDecodeError) as exc:
                errors.append(f"{shown}: {exc}")
                continue
            if name in documents:
                errors.append(
                    f"{shown}: duplicate document name {name!r} (also {sources[name].relative_to(HERE)})"
                )
                continue
            documents[name] = routable
            sources[name] = path
        kinds: Counter[str] = Counter()
        expected_count: Counter[str] = Counter()
        with open(corpus / "labelled.jsonl", encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                where = f"{label}/labelled.jsonl:{number}"
                if not line.strip():
                    errors.append(f"{where}: empty line")
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    errors.append(f"{where}: not JSON: {exc}")
                    continue
                prompt, expected, kind = row.get("prompt"), row.get("expected"), row.get("kind")
                if not isinstance(prompt, str) or not prompt.strip():
                    errors.append(f"{where}: 'prompt' must be a non-empty string")
                    continue
                if not isinstance(expected, list) or not all(isinstance(n, str) for n in expected):
                    errors.append(f"{where}: 'expected' must be a list of names")
                    continue
                if kind not in KINDS:
                    errors.append(f"{where}: unknown kind {kind!r} (one of {', '.join(KIND_ORDER)})")
                    continue
                kinds[kind] += 1
                low, high = KINDS[kind]
                if not low <= len(expected) <= high:
                    errors.append(f"{where}: kind {kind} needs {low} expected name(s), found {len(expected)}")
                if len(set(expected)) != len(expected):
                    errors.append(f"{where}: the same name twice in 'expected'")
                for name in expected:
                    if name not in documents:
                        errors.append(f"{where}: expected {name!r} is not a document of {label}")
                    elif not documents[name]:
                        errors.append(
                            f"{where}: expected {name!r} is retired/superseded, gov never routes to it"
                        )
                    expected_count[name] += 1
                key = normalise(prompt)
                here = f"{label}:{number}"
                if key in seen_prompts:
                    errors.append(
                        f"{where}: duplicate prompt (first at {seen_prompts[key]}): {prompt[:70]!r}"
                    )
                else:
                    seen_prompts[key] = here
        for name, routable in sorted(documents.items()):
            if routable and expected_count[name] == 0:
                errors.append(f"{label}: document {name!r} is never expected by any prompt")
        total = sum(kinds.values())
        retired = sum(1 for routable in documents.values() if not routable)
        table.append((label, len(documents), retired, total, kinds))

    header = f"{'corpus':<28} {'docs':>5} {'prompts':>8}  " + "  ".join(f"{k:>14}" for k in KIND_ORDER)
    print(header)
    print("-" * len(header))
    totals: Counter[str] = Counter()
    for label, n_docs, retired, total, kinds in table:
        docs = f"{n_docs}" + ("*" if retired else "")
        cells = "  ".join(
            f"{kinds[k]:>5} ({kinds[k] / total:>5.1%})" if total else f"{0:>14}" for k in KIND_ORDER
        )
        print(f"{label:<28} {docs:>5} {total:>8}  {cells}")
        totals.update(kinds)
    grand = sum(totals.values())
    print("-" * len(header))
    cells = "  ".join(f"{totals[k]:>5} ({totals[k] / grand:>5.1%})" for k in KIND_ORDER)
    print(f"{'all':<28} {sum(t[1] for t in table):>5} {grand:>8}  {cells}")
    if any(t[2] for t in table):
        print(
            "* includes documents gov leaves out of routing (status superseded etc.):",
            ", ".join(f"{t[0]} {t[2]}" for t in table if t[2]),
        )
    if errors:
        print(f"\n{len(errors)} problem(s):")
        for error in errors:
            print(f"  {error}")
        return 1
    print("\nall checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
