"""Shared helpers for the corpus tests: a file writer and a policy with every header line."""

from __future__ import annotations

from pathlib import Path


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


POLICY = """# Deploying

**Agent-trigger:** Shipping a service to production, or rolling one back.
**Agent-example:** roll back last night's release
**Agent-example:** push the new build to prod
**Family:** delivery
**Depends-on:** on-call, testing

Body with a rule.

Exception: hotfixes may skip the window.
"""
