"""Relative dates: days, weeks and months counted from today (明天, 3天后, 下周五, 下个月底, tomorrow, next weekend,
in 3 days), and days counted from another (a day before or after, a booking moved by days)."""

import re
from datetime import date, timedelta

from assistant.llm.rules.dates.days import (
    _EN_DAYS,
    _EN_NUM,
    _NUM,
    WEEKDAY_ZH,
    Mention,
    _monday,
    _month_end,
    _next_month,
    _num,
)
from assistant.llm.rules.dates.holidays import _EN_FESTIVAL, _EN_ONE_DAY, festival
from assistant.llm.rules.numbers import CN_NUM_CHARS

_ZH_RELATIVE_DAY_RE = re.compile(r"(?P<w>大后天|后天|明天|明日|明早|明晚|明儿|今天|今日|今晚|今早|今儿|这两天|这几天)")
_ZH_DAYS_LATER_RE = re.compile(rf"(?P<n>{_NUM})\s*(?:天|日)(?:以后|之后|后)")
_ZH_WEEK_RE = re.compile(
    r"(?P<p>下下个?|下个?|这个?|本|上个?)?\s*(?P<unit>周|星期|礼拜)(?P<d>[一二三四五六日末]|天(?!气))?(?P<d2>[六日]|天(?!气))?"
)
_ZH_MONTH_RE = re.compile(
    rf"(?P<p>下下个?|下个?|这个?|本|(?:(?P<y>\d{{4}}|明)年)?(?P<m>{_NUM}))\s*月份?\s*(?P<part>初|中旬|中|底|末|上旬|下旬)?"
)
_ZH_MONTH_PART_RE = re.compile(r"(?<![个本这下])(?P<part>月初|月中|月底|月末)")
_ZH_YEAR_END_RE = re.compile(r"(?P<w>年底|年末|年前|年后)")


# Days named from today, short forms included ("tmrw"); "the day after" one of them is the day after it.
EN_DAY_WORDS = {
    "today": 0, "tonight": 0, "tonite": 0, "tomorrow": 1, "tmrw": 1, "tmr": 1, "tmw": 1, "2moro": 1, "2morrow": 1,
}  # fmt: skip
_EN_DAY_RE = re.compile(
    r"(?<![A-Za-z0-9])(?P<after>(?:the\s+)?day\s+after\s+)?(?P<w>"
    + "|".join(sorted(EN_DAY_WORDS, key=len, reverse=True))
    + r")(?![A-Za-z0-9])",
    re.IGNORECASE,
)
# A week, weekend or month counted from this one, as 这/下/下下 count it in Chinese: a modifier ("this", "next",
# "after next") on a unit, and for a month or the year a part of it ("early next month", "end of the month").
_EN_UNIT_AHEAD = {"": 0, "this": 0, "the": 0, "over the": 0, "on the": 0, "next": 1}
_EN_UNIT_RE = re.compile(
    r"\b(?:(?P<part>early|beginning of|end of|later)\s+)?(?:(?P<p>this|next|the|over the|on the)\s+)?"
    r"(?P<unit>weekend|week|month|year)(?:\s+(?P<after>after next))?\b",
    re.IGNORECASE,
)
_EN_RELATIVE_RE = re.compile(
    r"\b(?P<w>"
    r"christmas eve|christmas(?: day)?|new year'?s? eve|new year'?s?(?: day)?|national day|golden week|chinese new year|"
    r"lunar new year|spring festival|may day|labou?r day|mid[- ]autumn(?: festival)?|dragon boat festival|"
    r"valentine'?s day|lantern festival|qixi(?: festival)?|double ninth festival|winter solstice|"
    r"qingming(?: festival)?|tomb[- ]sweeping day|"
    r"summer (?:holiday|vacation|break)|winter (?:holiday|vacation|break)|"
    r"in (?P<n>\d{1,2}|a|one|two|three|four|five|six|seven|ten) (?P<u>days?|weeks?))\b",
    re.IGNORECASE,
)
# A weekday, or two joined as a span of days as 周六日 is ("sat and sun", "this sat+sun").
_EN_WEEKDAY_RE = re.compile(
    rf"\b(?:(?P<p>this|next|coming|this coming|on|by|until|till|to)\s+)?(?P<d>{_EN_DAYS})\b"
    rf"(?:\s*(?:\+|&|/|-|and)\s*(?P<d2>{_EN_DAYS})\b)?(?!\s*\d)",
    re.IGNORECASE,
)


def _week_mention(match: re.Match, today: date) -> Mention | None:
    prefix = (match.group("p") or "").rstrip("个")
    day_char = match.group("d")
    monday = _monday(today)
    if prefix == "下下":
        monday += timedelta(days=14)
    elif prefix == "下":
        monday += timedelta(days=7)
    elif prefix == "上":
        monday -= timedelta(days=7)
    if day_char is None:
        if not prefix:
            return None  # "周" alone is not a date
        if prefix in ("这", "本"):
            return Mention(match.start(), match.end(), today, monday + timedelta(days=6))
        return Mention(match.start(), match.end(), monday, monday + timedelta(days=6))
    weekday = WEEKDAY_ZH[day_char]
    if weekday == 7:  # 周末
        saturday = monday + timedelta(days=5)
        first = max(saturday, today) if not prefix or prefix in ("这", "本") else saturday
        return Mention(match.start(), match.end(), first, monday + timedelta(days=6))
    second = match.group("d2")
    day = monday + timedelta(days=weekday)
    if not prefix and day < today:
        day += timedelta(days=7)
    if second and WEEKDAY_ZH.get(second, -1) > weekday:  # 周六日
        return Mention(match.start(), match.end(), day, day + timedelta(days=WEEKDAY_ZH[second] - weekday))
    return Mention(match.start(), match.end(), day, None, relative=None if prefix else "weekday", value=weekday)


def _month_mention(match: re.Match, today: date) -> Mention | None:
    prefix = match.group("p") or ""
    part = match.group("part")
    if prefix.startswith("下下"):
        year, month = _next_month(date(*_next_month(today), 1))
    elif prefix.startswith("下"):
        year, month = _next_month(today)
    elif prefix.startswith(("这", "本")):
        year, month = today.year, today.month
    else:
        month = _num(match.group("m"))
        if not month or not 1 <= month <= 12:
            return None
        raw_year = match.group("y")
        if raw_year == "明":
            year = today.year + 1
        elif raw_year:
            year = int(raw_year)
        else:
            year = today.year if month >= today.month else today.year + 1
    first, last = date(year, month, 1), _month_end(year, month)
    if part == "初" or part == "上旬":
        first, last = first, date(year, month, 10)
    elif part in ("中", "中旬"):
        first, last = date(year, month, 11), date(year, month, 20)
    elif part in ("底", "末", "下旬"):
        first = date(year, month, 21) if part == "下旬" else last - timedelta(days=6)
    if last < today:
        return None
    return Mention(match.start(), match.end(), max(first, today), last)


def _en_unit(m: re.Match, today: date) -> Mention | None:
    """A week, weekend or month counted from this one ("the week after next"), or a part of it ("end of the month")."""
    unit, part = m.group("unit").lower(), (m.group("part") or "").lower()
    prefix = re.sub(r"\s+", " ", (m.group("p") or "").lower())
    ahead = 2 if m.group("after") else _EN_UNIT_AHEAD[prefix]
    monday = _monday(today) + timedelta(days=7 * ahead)
    if unit == "weekend":
        saturday = monday + timedelta(days=5)
        return Mention(m.start(), m.end(), max(saturday, today), saturday + timedelta(days=1))
    if unit == "week":
        if not (prefix in ("this", "next") or m.group("after")):
            return None  # "a week", "the week": a length or no date
        return Mention(m.start(), m.end(), max(monday, today), monday + timedelta(days=6))
    if unit == "year":
        if part != "end of" or ahead:
            return None
        return Mention(m.start(), m.end(), max(today, date(today.year, 12, 20)), date(today.year, 12, 31))
    if not (prefix or part or m.group("after")):
        return None  # "a month": a length
    year, month = today.year, today.month
    for _ in range(ahead):
        year, month = _next_month(date(year, month, 1))
    first, last = date(year, month, 1), _month_end(year, month)
    if part in ("early", "beginning of"):
        last = date(year, month, 10)
    elif part == "end of":
        first = last - timedelta(days=6)
    return Mention(m.start(), m.end(), max(first, today), last) if last >= today else None


def _en_relative(m: re.Match, today: date) -> Mention | None:
    word = re.sub(r"\s+", " ", m.group("w").lower())
    span: tuple[date, date | None] | None = None
    if name := _EN_FESTIVAL.get(key := re.sub(r"^new years?", "new years", word.replace("'", ""))):
        found = festival(name, today)
        if found:
            # "New Year's Day" is the one day, not the days off around it
            span = (found[0], found[1] if found[1] != found[0] and key not in _EN_ONE_DAY else None)
    elif word.startswith("in "):
        n = _EN_NUM.get(m.group("n").lower()) if not m.group("n").isdigit() else int(m.group("n"))
        if n:
            days = n * 7 if m.group("u").lower().startswith("week") else n
            span = (today + timedelta(days=days), None)
    if span is None:
        return None
    return Mention(m.start(), m.end(), span[0], span[1])


# A day moved by a relative amount: "往后推一天", "推迟两天", "提前一天", "早一天"; "push it back a day", "move it a
# day earlier", "two days later". The count and the direction, never a date: the day moved is the booking's.
_SHIFT_COUNT = rf"(?P<n>\d{{1,2}}|[{CN_NUM_CHARS}]{{1,2}})\s*(?:个)?\s*(?:天|日)"
_ZH_SHIFT_RE = re.compile(
    r"(?P<dir>(?:往|向)(?:后|前)(?:推迟?|挪|延|移|调)?|推迟|推后|延后|延期|顺延|提前|提早|(?<![今明昨当])(?:晚|早))"
    rf"\s*(?:了)?\s*{_SHIFT_COUNT}(?!\s*(?:到达?|抵达|去|回来|走|离开|游|的(?:行程|时间)))"
)
_EN_SHIFT_NUMBER = r"a|one|two|three|\d{1,2}"
_EN_SHIFT_RE = re.compile(
    rf"\b(?:(?P<verb>push(?:ed)?|move[ds]?|shift|bump|postpone|delay|bring|pull|change|reschedule)\b[\w' ]{{0,24}}?\s+"
    rf"(?:(?P<dir>back|forward|up|later|earlier|ahead)\s+(?:by\s+)?(?P<n1>{_EN_SHIFT_NUMBER})\s+days?|"
    rf"(?:by\s+)?(?P<n2>{_EN_SHIFT_NUMBER})\s+days?(?:\s+(?P<dir2>back|forward|later|earlier|sooner|ahead))?)|"
    rf"(?P<n3>{_EN_SHIFT_NUMBER})\s+days?\s+(?P<dir3>later|earlier|sooner))\b",
    re.IGNORECASE,
)
_EN_SHIFT_EARLIER = {"forward", "up", "earlier", "sooner", "ahead", "bring", "pull"}


def day_shift(text: str) -> tuple[int, tuple[int, int]] | None:
    """A move by a number of days the sentence says ("往后推一天" +1, "提前两天" -2, "push it back a day" +1, "a day
    earlier" -1) and where it is said; None when it says none."""
    if zh := _ZH_SHIFT_RE.search(text):
        count = _num(zh.group("n"))
        earlier = "前" in zh.group("dir") or zh.group("dir") in ("提早", "早")
        return ((-count if earlier else count), zh.span()) if count else None
    if en := _EN_SHIFT_RE.search(text):
        raw = (en.group("n1") or en.group("n2") or en.group("n3")).lower()
        count = int(raw) if raw.isdigit() else _EN_NUM.get(raw)
        said = [en.group(g).lower() for g in ("dir", "dir2", "dir3") if en.group(g)]
        direction = said[0] if said else (en.group("verb") or "").lower()
        if not count or not said and direction not in ("postpone", "delay", "bring", "pull"):
            return None  # "move it a day": which way is not said
        return (-count if direction in _EN_SHIFT_EARLIER else count), en.span()
    return None


# A day said from the date already talked about: "前一天", "头一天", "the day before" (-1); "后一天", "第二天", "次日",
# "the day after", "the next day" (+1). Not a move of a booking ("往后一天", "推迟一天": `day_shift`), not "后天".
_ZH_OFFSET_RE = re.compile(
    r"(?<![往向推延挪移调提早晚今明昨当大])(?:(?P<before>前一天|前1天|头一天)|(?P<after>后一天|后1天|第二天|第2天|次日|隔天))"
)
_EN_OFFSET_RE = re.compile(
    r"\bthe\s+(?:(?P<before>day\s+before|previous\s+day|night\s+before)|(?P<after>day\s+after|next\s+day|following\s+day))\b"
    r"(?!\s+(?:tomorrow|tmrw|tmr))",
    re.IGNORECASE,
)


def day_offset(text: str) -> tuple[int, tuple[int, int]] | None:
    """A day counted from the date already talked about (-1 the day before, +1 the day after) and where it is
    said; None when the sentence says none."""
    for pattern in (_ZH_OFFSET_RE, _EN_OFFSET_RE):
        if found := pattern.search(text):
            return (-1 if found.group("before") else 1), found.span()
    return None
