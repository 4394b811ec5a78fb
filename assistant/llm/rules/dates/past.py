"""Days already over: 昨天, 前天, yesterday, last Friday, a month and day just gone ("11月20号" on December 1st)."""

import re
from datetime import date, timedelta

from assistant.llm.rules.dates.absolute import _EN_DAY_MONTH_RE, _EN_MONTH_DAY_RE, _ZH_FULL_DATE_RE
from assistant.llm.rules.dates.days import _EN_DAYS, MONTH_EN, WEEKDAY_EN, _int, _num, _safe_date
from assistant.llm.rules.dates.expressions import _zh_mentions

# A month and day said without a year that fell at most this many days ago is that day just gone ("11月20日" on
# December 1st), said by mistake or not: never the same day almost a year ahead.
RECENT_PAST_DAYS = 62
_ZH_PAST_DAY_RE = re.compile(r"(?P<w>大前天|前天|昨天|昨日|昨晚|昨儿|昨早)")
_EN_PAST_DAY_RE = re.compile(
    rf"(?<![A-Za-z])(?:(?P<before>the\s+day\s+before\s+)?(?P<y>yesterday|yday)|(?:last|past)\s+(?P<d>{_EN_DAYS}))"
    r"(?![A-Za-z])",
    re.IGNORECASE,
)
_ZH_PAST_OFFSET = {"大前天": 3, "前天": 2}


def _recently(today: date, month: int, day: int, year: int | None) -> date | None:
    """A month/day that is past: with its year, any day before today; without, its latest occurrence before today
    when that is at most RECENT_PAST_DAYS ago."""
    if year is not None:
        found = _safe_date(year, month, day)
        return found if found and found < today else None
    found = _safe_date(today.year, month, day)
    if found is None or found >= today:
        found = _safe_date(today.year - 1, month, day)
    return found if found and found < today and (today - found).days <= RECENT_PAST_DAYS else None


def past_day(text: str, today: date) -> tuple[date, tuple[int, int]] | None:
    """The first day of the sentence that is already over: 昨天 / 前天 / yesterday / last Friday, 上周五 or any other
    date expression that ends before today, a month/day just gone ("11月20号", "Nov 20" on December 1st). None when
    the sentence names no past day; else the day and the span of its words. A booking cannot be made for it: the
    caller says so and asks for another."""
    found: list[tuple[tuple[int, int], date]] = []
    for m in _ZH_PAST_DAY_RE.finditer(text):
        found.append((m.span(), today - timedelta(days=_ZH_PAST_OFFSET.get(m.group("w"), 1))))
    if re.search(r"[A-Za-z]", text):
        for m in _EN_PAST_DAY_RE.finditer(text):
            if m.group("y"):
                found.append((m.span(), today - timedelta(days=2 if m.group("before") else 1)))
            else:
                back = (today.weekday() - WEEKDAY_EN[m.group("d").lower()]) % 7 or 7
                found.append((m.span(), today - timedelta(days=back)))
        for pattern in (_EN_MONTH_DAY_RE, _EN_DAY_MONTH_RE):
            for m in pattern.finditer(text):
                day = _recently(today, MONTH_EN[m.group("mon").lower()], int(m.group("d")), _int(m.group("y")))
                if day:
                    found.append((m.span(), day))
    for m in _ZH_FULL_DATE_RE.finditer(text):
        month, day_no = _num(m.group("m")), _num(m.group("d"))
        if month and day_no and 1 <= month <= 12:
            day = _recently(today, month, day_no, int(m.group("y")) if m.group("y") else None)
            if day:
                found.append((m.span(), day))
    for mention in _zh_mentions(text, today):
        if (mention.last or mention.first) < today:
            found.append(((mention.start, mention.end), mention.first))
    if not found:
        return None
    span, day = min(found, key=lambda pair: pair[0])
    return day, span
