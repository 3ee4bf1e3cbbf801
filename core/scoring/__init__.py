"""Scoring: per-document evidence for prompts against a loaded index (words, meaning, learned)."""
