"""Operating points: the routing parameters in force, and where they came from.

Precedence everywhere: ``--operating-point FILE`` > the point stored in the index >
the shipped default (``core/data/operating_point.json``). A point carries its
provenance (corpus, model, labelled set, metrics) so a default is honest about what it
was measured on; one measured under another model is refused, never silently applied.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import asdict, dataclass, field, fields, replace
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ..atomic import write_bytes_atomic
from ..bounded import MEGABYTE, read_regular
from ..errors import OperatingPointError

POINT_LIMIT = 4 * MEGABYTE  # bytes of an operating point file read at most

if TYPE_CHECKING:
    from ..scoring.learned import LearnedArrays

FILE_FORMAT = 1


@dataclass(frozen=True)
class OperatingPoint:
    """Admission floors, fusion and selection parameters, plus provenance."""

    lexical_floor: float = 0.10
    semantic_floor: float = 0.25
    rrf_k: float = 60.0
    top_k: int = 2
    lexical_weight: float = 1.0
    semantic_weight: float = 1.0
    # Abstain when the confidence of the best route (the chance it is right) is below this
    # (None: off), under either gate.
    min_confidence: float | None = None
    # Logistic model of "the top route is right": intercept, then one weight per feature.
    confidence_weights: tuple[float, ...] | None = None
    # A second route must score at least this share of the first one's fused score.
    second_ratio: float = 0.0
    # With a learned classifier, a second route also needs at least this probability from it
    # (0: no such condition). Two documents that both govern a prompt share the classifier's
    # mass; a runner-up the classifier barely considers does not.
    second_learned_floor: float = 0.0
    # How many surfaces a document's body summary counts as in its semantic score (0: the
    # body is not used): with b, a document of n surfaces scores (n * pooled + b * body) / (n + b).
    body_surfaces: float = 0.0
    # Route dependencies of a routed document too, marked as dependencies (off by default).
    expand_dependencies: bool = False
    # Name of a pickle-free array file beside the point with learned example surfaces.
    learned_surfaces: str | None = None
    # "rrf" (reciprocal-rank fusion, oiax's design) or "weighted" (a weighted sum of scores).
    fusion: str = "rrf"
    # Weight of the learned classifier's probability in the fusion (0: not used).
    learned_weight: float = 0.0
    # How a document's surface similarities become its semantic score: max, mean, max_mean.
    semantic_pool: str = "max"
    # What decides abstention: "confidence" (the floors and the calibrated confidence model)
    # or "background" (the best score must clear what prompts no document governs score on
    # this corpus: the index's background bank and example lines, measured at build).
    gate: str = "confidence"
    # Background gate: the share of the background bank allowed to route (its quantile sets
    # the threshold), and the share of the corpus's own example lines allowed to fall under
    # the example floor.
    background_alpha: float = 0.05
    example_beta: float = 0.05
    # Background gate: how the bank's share grows with the corpus's size. The bank's best
    # score is a maximum over every document, so the same share is stricter on a large corpus
    # than on a small one; with growth g, a corpus of n documents lets through
    # background_alpha * (n / 200) ** g of the bank (n taken within 200..2000: the written and
    # intent corpora the share was chosen on hold under 200 documents, real libraries up to
    # about 1,700). 0: the same share whatever the size.
    background_alpha_growth: float = 0.0
    # Background gate: a third floor, this quantile of the corpus's example lines each scored
    # against the other documents only (its own left out): what a prompt of this corpus's
    # domain scores against documents that do not govern it. 0: off.
    orphan_quantile: float = 0.0
    # Background gate: how much of a document's closeness to the bank is held against it
    # (a document close to everything stops winning everything).
    hub_weight: float = 0.25
    # Remarks: a prompt whose remark probability (``remarks.py``, the index's probe) reaches
    # this routes nothing ("thanks, the webhook fires fine now"). 0: off.
    remark_veto: float = 0.0
    model_id: str | None = None
    # What the array file holds: the learned surfaces' documents and texts, the classifier's
    # documents, the file's sha256 (``LearnedInfo`` checks it).
    learned: dict[str, Any] | None = field(default=None, compare=False)
    provenance: dict[str, Any] = field(default_factory=dict, compare=False)
    source: str | None = field(default=None, compare=False)

    PARAMETERS = (
        "lexical_floor", "semantic_floor", "rrf_k", "top_k", "lexical_weight", "semantic_weight",
        "min_confidence", "confidence_weights", "second_ratio", "expand_dependencies",
        "learned_surfaces", "fusion", "learned_weight", "semantic_pool", "second_learned_floor",
        "body_surfaces", "gate", "background_alpha", "example_beta", "hub_weight",
        "background_alpha_growth", "orphan_quantile", "remark_veto",
    )

    def params(self) -> dict[str, Any]:
        """The parameters as JSON values (a tuple of weights becomes a list)."""
        data = asdict(self)
        return {name: list(data[name]) if isinstance(data[name], tuple) else data[name]
                for name in self.PARAMETERS}

    @cached_property
    def id(self) -> str:
        """A short hash of the parameters (and model) in force: the point's identity (worked
        out once per point: a route reads it, and hashing is 0.4 ms)."""
        payload = orjson.dumps({"params": self.params(), "model_id": self.model_id},
                               option=orjson.OPT_SORT_KEYS)
        return hashlib.sha256(payload).hexdigest()[:16]

    def with_params(self, **changes: Any) -> OperatingPoint:
        return replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "gov_operating_point": FILE_FORMAT,
            "id": self.id,
            "model_id": self.model_id,
            "params": self.params(),
            "provenance": self.provenance,
        }
        if self.learned is not None:
            out["learned"] = self.learned
        return out

    def learned_path(self) -> Path | None:
        """The array file beside the point file, when the point has learned arrays."""
        if self.learned_surfaces is None or self.source is None or self.source == "default":
            return None
        return Path(self.source).parent / self.learned_surfaces


_NUMBER_FIELDS = {"lexical_floor", "semantic_floor", "rrf_k", "lexical_weight",
                  "semantic_weight", "second_ratio", "learned_weight", "second_learned_floor",
                  "body_surfaces", "background_alpha", "example_beta", "hub_weight",
                  "background_alpha_growth", "orphan_quantile", "remark_veto"}
_SHARES = {"background_alpha", "example_beta", "orphan_quantile", "remark_veto"}
GATES = ("confidence", "background")
FUSIONS = ("rrf", "weighted")
POOLS = ("max", "mean", "max_mean")


def _check_param(name: str, value: Any, where: str) -> Any:
    def bad(rule: str) -> OperatingPointError:
        return OperatingPointError(f"{where}: params.{name} {rule}")

    if name in _NUMBER_FIELDS:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise bad("must be a number")
        if value < 0:
            raise bad("must not be negative")
        if name in _SHARES and value > 1:
            raise bad("must be a number from 0 to 1")
        if name == "background_alpha_growth" and value > 2:
            raise bad("must be a number from 0 to 2")
        return float(value)
    if name == "top_k":
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10:
            raise bad("must be an integer from 1 to 10")
        return value
    if name == "min_confidence":
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise bad("must be null or a number from 0 to 1")
        return float(value)
    if name == "confidence_weights":
        if value is None:
            return None
        if not isinstance(value, list) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in value
        ):
            raise bad("must be null or a list of numbers")
        return tuple(float(v) for v in value)
    if name == "expand_dependencies":
        if not isinstance(value, bool):
            raise bad("must be true or false")
        return value
    if name == "learned_surfaces":
        if value is None:
            return None
        if not isinstance(value, str) or "/" in value or "\\" in value or value.startswith("."):
            raise bad("must be null or a file name beside the point")
        return value
    if name == "fusion":
        if value not in FUSIONS:
            raise bad(f"must be one of {', '.join(FUSIONS)}")
        return value
    if name == "semantic_pool":
        if value not in POOLS:
            raise bad(f"must be one of {', '.join(POOLS)}")
        return value
    if name == "gate":
        if value not in GATES:
            raise bad(f"must be one of {', '.join(GATES)}")
        return value
    raise bad("is not a known parameter")


def _check_learned(value: Any, where: str) -> dict[str, Any] | None:
    if value is None:
        return None

    def bad(rule: str) -> OperatingPointError:
        return OperatingPointError(f"{where}: field 'learned' {rule}")

    if not isinstance(value, dict):
        raise bad("must be an object")
    for key in ("names", "texts", "classifier_names"):
        items = value.get(key, [])
        if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
            raise bad(f"{key} must be a list of strings")
    if len(value.get("names", [])) != len(value.get("texts", [])):
        raise bad("names and texts must have the same length")
    if not isinstance(value.get("abstain_class", False), bool):
        raise bad("abstain_class must be true or false")
    if not isinstance(value.get("sha256"), str):
        raise bad("sha256 must be the array file's sha256")
    return value


def from_json(data: Any, where: str) -> OperatingPoint:
    """Validate a decoded operating point; every problem names the file and the field."""
    if not isinstance(data, dict):
        raise OperatingPointError(f"{where}: an operating point is a JSON object")
    if data.get("gov_operating_point") != FILE_FORMAT:
        raise OperatingPointError(
            f"{where}: field 'gov_operating_point' must be {FILE_FORMAT} "
            "(is this an operating point?)"
        )
    params = data.get("params")
    if not isinstance(params, dict):
        raise OperatingPointError(f"{where}: field 'params' must be an object")
    known = {f.name for f in fields(OperatingPoint)}
    checked: dict[str, Any] = {}
    for name, value in params.items():
        if name not in OperatingPoint.PARAMETERS or name not in known:
            raise OperatingPointError(f"{where}: params.{name} is not a known parameter")
        checked[name] = _check_param(name, value, where)
    model_id = data.get("model_id")
    if model_id is not None and not isinstance(model_id, str):
        raise OperatingPointError(f"{where}: field 'model_id' must be a string")
    provenance = data.get("provenance", {})
    if not isinstance(provenance, dict):
        raise OperatingPointError(f"{where}: field 'provenance' must be an object")
    learned = _check_learned(data.get("learned"), where)
    if checked.get("learned_surfaces") and learned is None:
        raise OperatingPointError(
            f"{where}: field 'learned' is missing (params.learned_surfaces names an array file)"
        )
    return OperatingPoint(**checked, model_id=model_id, provenance=provenance, source=where,
                          learned=learned)


def load_operating_point(path: str | os.PathLike[str]) -> OperatingPoint:
    """Read a point from a file: missing or malformed is an error, never a fallback."""
    shown = str(path)
    try:
        raw = read_regular(path, POINT_LIMIT)
    except FileNotFoundError:
        raise OperatingPointError(f"{shown}: operating point file not found") from None
    except OSError as exc:
        raise OperatingPointError(
            f"{shown}: cannot read the operating point: {exc.strerror or exc}") from None
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise OperatingPointError(f"{shown}: not valid JSON ({exc})") from None
    return from_json(data, shown)


def save_operating_point(point: OperatingPoint, path: str | os.PathLike[str]) -> None:
    write_bytes_atomic(path, orjson.dumps(point.to_json(), option=orjson.OPT_INDENT_2) + b"\n")


def default_operating_point() -> OperatingPoint:
    """The shipped default, with the provenance of how it was chosen (``core/data``)."""
    source = resources.files("gov.core") / "data" / "operating_point.json"
    try:
        data = orjson.loads(source.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return OperatingPoint(provenance={"note": "built-in values; the shipped file is missing"})
    return replace(from_json(data, "gov.core/data/operating_point.json"), source="default")


def stored_or_default(stored: dict[str, Any] | None, where: str) -> OperatingPoint:
    """The point an index routes with when none is given: the one it stores (its JSON),
    else the shipped default."""
    if stored:
        return from_json(stored, f"{where} (stored operating point)")
    return default_operating_point()


def check_model(point: OperatingPoint, model_id: str, where: str) -> None:
    """Refuse a point measured under another embedding model."""
    if point.model_id is not None and point.model_id != model_id:
        raise OperatingPointError(
            f"{where}: operating point was measured with model {point.model_id!r}, "
            f"the index uses {model_id!r}; recalibrate with: gov calibrate"
        )


def point_learned(point: OperatingPoint, dim: int | None) -> LearnedArrays | None:
    """The learned arrays of a point read from a file (``None`` when it has none)."""
    from ..scoring.learned import load_learned

    path = point.learned_path()
    if path is None or point.learned is None:
        return None
    return load_learned(path, point.learned, dim)
