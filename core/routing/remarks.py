"""Remarks: a prompt that reads as a remark about a topic, not a request, routes nothing.

The false alarms that clear the background gate on real libraries are asides that name a
library's topic ("thanks, the stripe webhook fires fine now", "ok the react upgrade is
merged, closing the ticket"): they score near the topic's document like a request would, and
the bank's generic asides do not stand near them. What tells them apart is their form, so an
index fits a linear probe over embeddings at build: remarks written from scratch for gov
(``core/data/remarks.json``, templates times topics) against requests written the same way
plus the corpus's own lines (its triggers and example lines are what a request here reads
like), with every remark within ``SCREEN_COSINE`` of one of those lines left out (a corpus
with a "thank you" intent governs thanks). A route applies it with numpy alone: a prompt whose
remark probability reaches the point's ``remark_veto`` abstains.
"""

from __future__ import annotations

import random
from functools import cache
from importlib import resources
from typing import Any

import numpy as np
from numpy.typing import NDArray

SCREEN_COSINE = 0.65
# How many texts of each kind the probe learns from: a sample of the expansions, so a first
# build embeds 2,500 short texts (about 5 s of CPU) once per model; the cache keeps them.
REMARKS = 1000
REQUESTS = 1000
LEAD_INS = 500  # requests with a lead-in ("thanks for earlier! now ...") drawn at random
PROBE_C = 1.0
SEED = 0


@cache
def training_texts() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The shipped remarks and requests: a fixed sample of each template expanded with each
    topic, and requests with a lead-in, drawn with a fixed seed (the same on every machine)."""
    import orjson

    data = orjson.loads((resources.files("gov.core") / "data" / "remarks.json").read_bytes())
    topics = data["topics"]
    remarks = [t.format(t=topic) for t in data["remarks"] for topic in topics]
    requests = [t.format(t=topic) for t in data["requests"] for topic in topics]
    rng = random.Random(SEED)
    rng.shuffle(remarks)
    rng.shuffle(requests)
    del remarks[REMARKS:], requests[REQUESTS:]
    for _ in range(LEAD_INS):
        first, second = rng.sample(topics, 2)
        requests.append(rng.choice(data["lead_ins"]).format(t=first)
                        + rng.choice(data["asks"]).format(u=second))
    return tuple(remarks), tuple(requests)


def fit_probe(remarks: NDArray[np.float32], requests: NDArray[np.float32],
              lines: NDArray[np.float32]) -> tuple[NDArray[np.float32], float]:
    """The probe's weights and bias: ``remarks`` (unit vectors) against ``requests`` and the
    corpus's ``lines``, a remark near one of the lines left out, both classes weighing the
    same. scikit-learn is imported here only, at build."""
    from sklearn.linear_model import LogisticRegression

    keep = (remarks @ lines.T).max(axis=1) < SCREEN_COSINE if lines.size else np.ones(
        remarks.shape[0], dtype=bool)
    x = np.vstack([remarks[keep], requests, lines])
    y = np.r_[np.ones(int(keep.sum())), np.zeros(requests.shape[0] + lines.shape[0])]
    model = LogisticRegression(C=PROBE_C, max_iter=2000, class_weight="balanced").fit(x, y)
    return np.asarray(model.coef_[0], dtype=np.float32), float(model.intercept_[0])


def probabilities(vectors: NDArray[Any], weights: NDArray[np.float32], bias: float
                  ) -> NDArray[np.float64]:
    """Each prompt's remark probability (vectors: prompts by dimensions)."""
    logits = np.asarray(vectors, dtype=np.float64) @ weights.astype(np.float64) + bias
    out: NDArray[np.float64] = 1.0 / (1.0 + np.exp(-np.clip(logits, -50.0, 50.0)))
    return out


def vetoes(remark: Any, veto: float) -> Any:
    """Whether a remark probability (scalar or array) stops a route: at or over ``veto``,
    which 0 turns off."""
    return (np.asarray(remark) >= veto) & (veto > 0.0)
