"""Corpus: finding and reading the documents a team keeps (markdown, SKILL.md, .mdc, JSONL)."""
