"""gov's library: policy routing and task cards, with no CLI dependencies.

Names are exported lazily so that importing one part (cards, say) never pulls the
numeric stack that routing needs.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hook's client imports this package for __version__ alone
    from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "Document": "gov.core.corpus.document",
    "Corpus": "gov.core.corpus.document",
    "load_corpus": "gov.core.corpus.reader",
    "build_index": "gov.core.routing.indexes",
    "load_index": "gov.core.routing.indexes",
    "ensure_index": "gov.core.routing.indexes",
    "Router": "gov.core.routing.router",
    "Route": "gov.core.routing.answer",
    "RouteAnswer": "gov.core.routing.answer",
    "OperatingPoint": "gov.core.routing.point",
    "calibrate_index": "gov.core.calibration.calibrate",
    "evaluate_jsonl": "gov.core.calibration.metrics",
    "route_rows": "gov.core.routing.pipeline",
    "route_jsonl": "gov.core.routing.pipeline",
    "GovError": "gov.core.errors",
}

__all__ = [*sorted(_EXPORTS), "__version__"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'gov.core' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
