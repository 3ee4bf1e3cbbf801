"""The card timestamp rule: an RFC 3339 date-time with a time zone.

ovi-cards 0.1.0 accepts any string here; gov insists on a real instant, because a card
whose time cannot be read cannot be judged stale. The schema pattern checks the shape;
this module also checks the calendar, so the pydantic models and the JSON Schema (with
its ``date-time`` format checked) agree on every string.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

_RFC3339 = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?"
    r"(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))"
)
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


# The same rule with the ranges in the pattern: month 01-12, day 01-31, hour 00-23, minute
# 00-59, second 00-60, zone hour 00-23. Only a day past the 28th still needs the calendar.
_IN_RANGE = re.compile(
    r"[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])[Tt](?:[01][0-9]|2[0-3]):[0-5][0-9]:"
    r"(?:[0-5][0-9]|60)(?:\.[0-9]+)?(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"
)


def is_rfc3339(text: str) -> bool:
    """Whether ``text`` is an RFC 3339 date-time: real date, real time, explicit zone.

    A leap second (``:60``) is allowed, as RFC 3339 allows it.
    """
    if _IN_RANGE.fullmatch(text) is None:
        return False
    if text[8:10] <= "28":
        return True  # every month has 28 days
    return _on_the_calendar(text)


def _on_the_calendar(text: str) -> bool:
    match = _RFC3339.fullmatch(text)
    if match is None:
        return False
    year, month, day, hour, minute, second = map(int, match.group(1, 2, 3, 4, 5, 6))
    if not 1 <= month <= 12 or day < 1:
        return False
    if day > _DAYS[month - 1] or (month == 2 and day == 29 and not _leap(year)):
        return False
    if hour > 23 or minute > 59 or second > 60:
        return False
    zoned = match.group(8) is not None
    return not zoned or (int(match.group(9)) <= 23 and int(match.group(10)) <= 59)


def parse_rfc3339(text: str) -> datetime:
    """An aware datetime for a valid RFC 3339 string (a leap second becomes :59).

    Raises ``ValueError`` when the string is not one.
    """
    match = _RFC3339.fullmatch(text)
    if match is None or not is_rfc3339(text):
        raise ValueError(f"not an RFC 3339 date-time with a time zone: {text!r}")
    year, month, day, hour, minute, second = map(int, match.group(1, 2, 3, 4, 5, 6))
    fraction = match.group(7) or ""
    micro = int((fraction[1:] + "000000")[:6]) if fraction else 0
    if match.group(8) is None:
        zone: timezone = UTC
    else:
        offset = timedelta(hours=int(match.group(9)), minutes=int(match.group(10)))
        zone = timezone(-offset if match.group(8) == "-" else offset)
    return datetime(year, month, day, hour, minute, min(second, 59), micro, tzinfo=zone)


def now_utc() -> datetime:
    return datetime.now(UTC)
