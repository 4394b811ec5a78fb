"""The days a date reading yields (`Mention`, `DateRange`) and the calendar arithmetic every date reader shares."""

import calendar
from dataclasses import dataclass
from datetime import date, timedelta

from assistant.llm.rules.numbers import CN_NUM_CHARS, cn_to_int

WEEKDAY_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "末": 7}
WEEKDAY_EN = {
    "mon": 0, "monday": 0, "tue": 1, "tues": 1, "tuesday": 1, "wed": 2, "wednesday": 2, "thu": 3, "thur": 3,
    "thurs": 3, "thursday": 3, "fri": 4, "friday": 4, "sat": 5, "saturday": 5, "sun": 6, "sunday": 6,
}  # fmt: skip
MONTH_EN = {
    "jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4, "may": 5,
    "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8, "sep": 9, "sept": 9, "september": 9,
    "oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12, "december": 12,
}  # fmt: skip
EN_ORDINAL_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5}


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    first: date
    last: date | None = None  # None: a single day
    # How to read it when it follows another mention: "weekday" / "day" are relative to that mention's date.
    relative: str | None = None
    value: int | None = None


@dataclass(frozen=True)
class DateRange:
    start: date | None = None
    end: date | None = None
    spans: tuple[tuple[int, int], ...] = ()
    # A single date said as the day of coming back or checking out ("9号回来", "back on Dec 9", "12号退房"): the
    # words that say so (the caller decides whether it ends a trip it already knows).
    returning: str = ""
    # The one date said is a day of the week with no week named ("周四", "Thursday"): that weekday, 0 Monday … 6
    # Sunday (the dialogue may put it in the week of a date the conversation already has).
    weekday: int | None = None


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def _next_month(day: date) -> tuple[int, int]:
    return (day.year + 1, 1) if day.month == 12 else (day.year, day.month + 1)


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _upcoming(today: date, month: int, day: int, year: int | None = None) -> date | None:
    """Month/day on its next occurrence that is not in the past (an explicit year is kept)."""
    if year is not None:
        return _safe_date(year, month, day)
    found = _safe_date(today.year, month, day)
    if found is None or found < today:
        found = _safe_date(today.year + 1, month, day)
    return found


_NUM = rf"(?:\d{{1,2}}|[{CN_NUM_CHARS}]{{1,3}})"


_EN_MONTHS = "|".join(sorted(MONTH_EN, key=len, reverse=True))
_EN_DAYS = "|".join(sorted(WEEKDAY_EN, key=len, reverse=True))


_EN_NUM = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "ten": 10}


def _num(raw: str | None) -> int | None:
    if raw is None:
        return None
    if raw.isdigit():
        return int(raw)
    return cn_to_int(raw)


def _int(raw: str | None) -> int | None:
    return int(raw) if raw else None
