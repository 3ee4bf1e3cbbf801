"""A document's body as passages: no headings, gov lines, code or front matter."""

from __future__ import annotations

from gov.core.corpus.passages import MAX_PASSAGES, passages


def test_passages_are_the_body_without_headings_gov_lines_code_or_front_matter() -> None:
    text = """---
description: a rule
---
# Title

**Agent-trigger:** deploying things
**Agent-example:** ship it

This first paragraph explains the purpose of the policy
and runs over two lines.

## Rules

1. Every deploy goes through the pipeline, no exceptions at all.
2. Rollbacks never need approval from anyone on the team.
- short
* A bullet that is long enough to count as a passage.

```sh
kubectl apply -f this-is-code-not-a-passage.yaml --namespace production
```
"""
    assert passages(text) == [
        "This first paragraph explains the purpose of the policy and runs over two lines.",
        "Every deploy goes through the pipeline, no exceptions at all.",
        "Rollbacks never need approval from anyone on the team.",
        "A bullet that is long enough to count as a passage.",
    ]
    many = "\n\n".join(f"Paragraph number {i} says something long enough." for i in range(200))
    assert len(passages(many)) == MAX_PASSAGES
    assert passages("**Agent-trigger:** only a trigger line here, nothing else") == []
