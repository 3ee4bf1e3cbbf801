"""Task cards: the bounded, typed packet an agent hands back instead of prose.

Exports are lazy so ``import gov.core.cards`` costs nothing until a name is used.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Card": "gov.core.cards.models",
    "MemorySuggestion": "gov.core.cards.models",
    "SCHEMA_VERSION": "gov.core.cards.plain",
    "is_card": "gov.core.cards.plain",
    "check_card": "gov.core.cards.validate",
    "parse_card": "gov.core.cards.validate",
    "CardInvalid": "gov.core.cards.validate",
    "Problem": "gov.core.cards.schema",
    "card_schema": "gov.core.cards.schema",
    "explain": "gov.core.cards.schema",
    "Contract": "gov.core.cards.contracts",
    "load_contract": "gov.core.cards.contracts",
    "default_contract": "gov.core.cards.contracts",
    "verify": "gov.core.cards.verify",
    "Verification": "gov.core.cards.verify",
    "build_card": "gov.core.cards.build",
    "read_cards": "gov.core.cards.sources",
    "measure": "gov.core.cards.budget",
    "validate_cards": "gov.core.cards.workflows",
    "verify_cards": "gov.core.cards.workflows",
    "new_card": "gov.core.cards.workflows",
    "new_cards": "gov.core.cards.workflows",
    "budget_cards": "gov.core.cards.workflows",
    "export_cards": "gov.core.cards.interop",
    "import_cards": "gov.core.cards.interop",
    "open_repo": "gov.core.cards.repo_checks",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'gov.core.cards' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
