"""gov's library: policy routing and task cards, with no CLI dependencies.

Names are exported lazily so that importing one part (cards, say) never pulls the
numeric stack that routing needs.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "Document": "gov.core.corpus.reader",
    "Corpus": "gov.core.corpus.reader",
    "load_corpus": "gov.core.corpus.reader",
    "build_index": "gov.core.routing.router",
    "load_index": "gov.core.routing.router",
    "Index": "gov.core.routing.router",
    "Route": "gov.core.routing.select",
    "RouteResult": "gov.core.routing.select",
    "OperatingPoint": "gov.core.routing.point",
    "GovError": "gov.core.errors",
}

__all__ = [*sorted(_EXPORTS), "__version__"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'gov.core' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
