"""``--since``: when a report starts, from a duration, a date or an RFC 3339 time."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime

from .events import rfc3339

_RELATIVE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_since(text: str, now: float | None = None) -> str:
    """``--since`` as the event timestamp it starts at (events are compared as strings).

    Accepts a relative duration (``30m``, ``24h``, ``7d``, ``2w``: back from now), a date
    (``2026-12-01``: its start, UTC) or an RFC 3339 time (``2026-12-01T09:00:00+01:00``;
    without an offset, UTC). Raises :class:`ValueError` for anything else.
    """
    now = time.time() if now is None else now
    relative = _RELATIVE.match(text)
    if relative:
        start: str = rfc3339(max(0.0, now - float(relative.group(1)) * _UNITS[relative.group(2)]))
        return start
    raw = text.strip()
    try:
        if len(raw) == 10:
            moment = datetime.strptime(raw, "%Y-%m-%d").replace(tzinfo=UTC)
        else:
            moment = datetime.fromisoformat(raw.replace("z", "Z"))
    except ValueError:
        raise ValueError(
            f"--since {text!r}: give a duration (7d, 24h, 30m), a date (2026-12-01) "
            "or an RFC 3339 time (2026-12-01T09:00:00Z)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    epoch = moment.timestamp()
    if epoch < 0:
        raise ValueError(f"--since {text!r} is before 1970")
    stamp: str = rfc3339(epoch)
    return stamp
