"""Check the hand-written benchmark corpora: documents, labels, kinds and duplicates.

Run from anywhere with ``python benchmarks/corpora/check.py`` (with gov installed).
Every folder next to this file that holds ``documents/`` and ``labelled.jsonl`` is a corpus.
For each corpus it checks that

- gov's own reader reads every document (strictly: a file gov would skip is an error) and no
  two documents share a name; a skill's ``name`` matches its folder;
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


def read_documents(folder: Path, errors: list[str]) -> dict[str, bool]:
    """Each document's name and whether gov routes it, as gov's reader reads the folder."""
    from gov.core.corpus.reader import load_corpus
    from gov.core.errors import GovError

    try:
        corpus = load_corpus([folder], strict=True, warn=lambda _m: None, base=HERE,
                             on_duplicate="error")
    except GovError as exc:
        errors.append(str(exc))
        return {}
    for doc in [*corpus.documents, *corpus.retired]:
        path = Path(doc.source)
        if path.name == "SKILL.md" and doc.name != path.parent.name:
            errors.append(f"{doc.source}: skill name {doc.name!r} differs from its folder "
                          f"{path.parent.name!r}")
    return {**{doc.name: False for doc in corpus.retired},
            **{doc.name: True for doc in corpus.documents}}


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
        documents = read_documents(corpus / "documents", errors)
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
