"""The installation identity: twelve hex digits, the same on every call, different for
another Python environment or another copy of gov's code."""

from __future__ import annotations

import sys

import pytest

from gov.core.serving import identity


def test_the_installation_is_twelve_hex_digits_and_follows_the_environment(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(identity, "_CACHE", [])
    mine = identity.installation()
    assert len(mine) == 12 and int(mine, 16) >= 0
    assert identity.installation() == mine
    assert identity.stem() == f"serve-{mine}-{identity.version()}"
    assert identity.signature() == f"{mine}-{identity.version()}".encode()

    monkeypatch.setattr(identity, "_CACHE", [])
    monkeypatch.setattr(sys, "prefix", sys.prefix + "-other")
    other = identity.installation()
    assert len(other) == 12 and other != mine


def test_a_stem_names_another_installation_safely() -> None:
    """A server's ping names its installation and version; a version with odd characters
    still gives a plain file name."""
    who = {"installation": "0123456789ab", "version": "1.0+local/../x"}
    assert identity.stem(who) == "serve-0123456789ab-1.0_local_.._x"
