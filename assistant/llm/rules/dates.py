"""Dates relative to `today`: 今天/明天, 本周末/下周/下周五, 12月5日, 12.5, Dec 5, next weekend, 国庆, 月底 …

Each expression found is a `Mention` (a day or a span of days, with its place in the text). Two mentions joined by
到/至/-/to, or a second one followed by 回/返/back, form a range; a bare weekday or day in the second place is read
relative to the first ("下周五…周日回" → Fri to the Sunday after it). Festivals fall on their next occurrence that is
not already over. Weeks start on Monday.
"""

import calendar
import json
import re
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache
from pathlib import Path

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

# Lunar festivals and solar terms by year, from `festivals.json` (built from jionlp by `build_festivals.py`, loaded
# once): each the festival's own day; a public holiday's reading spans the days off around it, of `_FESTIVAL_LENGTH`
# days (a festival that is no holiday, 元宵 七夕 重阳 冬至, is its one day).
FESTIVAL_FILE = Path(__file__).resolve().parent / "festivals.json"
_FESTIVAL_LENGTH = {"春节": 7, "清明": 3, "端午": 3, "中秋": 3}
_FIXED = {  # (month, day, length in days)
    "国庆": (10, 1, 7),
    "元旦": (1, 1, 3),
    "五一": (5, 1, 5),
    "平安夜": (12, 24, 1),
    "圣诞": (12, 25, 1),
    "跨年夜": (12, 31, 1),
    "跨年": (12, 31, 2),
    "暑假": (7, 1, 62),
    "寒假": (1, 20, 40),
    "情人节": (2, 14, 1),
    "除夕": None,
}


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


def festival(name: str, today: date) -> tuple[date, date] | None:
    """The next (or current) occurrence of a festival: (first day, last day)."""
    for year in (today.year - 1, today.year, today.year + 1, today.year + 2):
        span = _festival_in(name, year)
        if span and span[1] >= today:
            return span
    return None


@lru_cache(maxsize=1)
def _festival_days() -> tuple[int, dict[str, list[str]]]:
    data = json.loads(FESTIVAL_FILE.read_text(encoding="utf-8"))
    return data["first_year"], data["dates"]


def festival_day(name: str, year: int) -> date | None:
    """The day of a lunar festival (春节 is 正月初一) or of 清明 in `year`; None outside the data (1901-2100)."""
    first_year, days = _festival_days()
    by_year = days.get(name)
    if by_year is None or not 0 <= year - first_year < len(by_year):
        return None
    month_day = by_year[year - first_year]
    return date(year, int(month_day[:2]), int(month_day[3:]))


def _festival_in(name: str, year: int) -> tuple[date, date] | None:
    if name in ("除夕", "春节", "大年初一"):
        # The holiday starts on the eve (除夕), the day before 正月初一 (大年初一).
        new_year = festival_day("春节", year)
        if not new_year:
            return None
        eve = new_year - timedelta(days=1)
        if name != "春节":
            return (eve, eve) if name == "除夕" else (new_year, new_year)
        return eve, eve + timedelta(days=_FESTIVAL_LENGTH[name] - 1)
    if name in _festival_days()[1]:
        day = festival_day(name, year)
        if not day:
            return None
        # 清明's three days lean to the weekend before when it falls on a Monday or Tuesday, else start the day before.
        first = day - timedelta(days=(2 if day.weekday() <= 1 else 1)) if name == "清明" else day
        return first, first + timedelta(days=_FESTIVAL_LENGTH.get(name, 1) - 1)
    fixed = _FIXED.get(name)
    if not fixed:
        return None
    month, day, length = fixed
    first = date(year, month, day)
    return first, first + timedelta(days=length - 1)


# ---------------------------------------------------------------------------------------------------------------
# Chinese grammar

_NUM = rf"(?:\d{{1,2}}|[{CN_NUM_CHARS}]{{1,3}})"
_ZH_FESTIVAL_RE = re.compile(
    r"(?P<name>国庆节?|国庆假期|国庆长假|十一(?=长假|假期|黄金周|期间|小长假|出去|去|出游|的时候|那几天|玩|旅游|[,.!?，。？！ ]|$)"
    r"(?:长假|假期|黄金周)?|元旦|春节|过年|大年初一|除夕|五一|劳动节|清明节?|端午节?|中秋节?|圣诞节?|平安夜|跨年夜|跨年|暑假|寒假|情人节|"
    r"元宵节?|七夕节?|重阳节?|冬至)"
)
_FESTIVAL_ALIAS = {
    "国庆节": "国庆", "国庆假期": "国庆", "国庆长假": "国庆", "过年": "春节", "劳动节": "五一",
    "清明节": "清明", "端午节": "端午", "中秋节": "中秋", "圣诞节": "圣诞", "元宵节": "元宵", "七夕节": "七夕",
    "重阳节": "重阳",
}  # fmt: skip
_ZH_FULL_DATE_RE = re.compile(
    rf"(?:(?P<y>\d{{4}})\s*年\s*)?(?P<m>{_NUM})\s*月\s*(?P<d>{_NUM})\s*(?:日|号)?(?:\s*(?:-|~|到|至)\s*"
    rf"(?P<d2>{_NUM})\s*(?:日|号))?"
)
_ISO_DATE_RE = re.compile(r"(?<!\d)(?P<y>20\d{2})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})(?!\d)")
_DOT_DATE_RE = re.compile(
    r"(?<![\d.,¥$])(?<!评分)(?<!rated )(?<!rating )(?P<m>1[0-2]|0?[1-9])[./](?P<d>3[01]|[12]\d|0?[1-9])"
    r"(?![\d.%]|\s*(?:[kKwW万千元块分+]|以上|及以上|个|天|人|折|倍|星|公里|km|小时|stars?|or (?:above|higher|more)))"
)
_ZH_DAY_ONLY_RE = re.compile(
    rf"(?<![月\d{CN_NUM_CHARS}])(?P<d>{_NUM})\s*号(?![线楼门床位码]|\s*(?:方案|选项|套餐|房|桌|option))"
)
# "12月10日入住，12日退房": a bare "N日" is a day of the month when a stay or travel verb follows it, or when it
# comes after a full date with nothing of a length around it ("3日游", "玩3日" stay lengths).
_ZH_DAY_RI_RE = re.compile(rf"(?<![月\d{CN_NUM_CHARS}第])(?P<d>{_NUM})\s*日(?![游内前后])")
_DAY_RI_VERB_AFTER = re.compile(
    r"^\s*(?:入住|退房|离店|出发|返回|回来|回|返|到达|抵达|走|离开|那天|当天|的(?:航班|机票|高铁|火车|动车|票|酒店))"
)
_DAY_RI_NOT_BEFORE = re.compile(r"(?:玩|待|呆|住|共|一共|总共|游|行程|为期|连续|连住|大概|差不多)\s*$")
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

_EN_MONTHS = "|".join(sorted(MONTH_EN, key=len, reverse=True))
_EN_DAYS = "|".join(sorted(WEEKDAY_EN, key=len, reverse=True))
_EN_MONTH_DAY_RE = re.compile(
    rf"\b(?P<mon>{_EN_MONTHS})\.?\s+(?:the\s+)?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s*(?P<y>20\d{{2}}))?"
    rf"(?:\s*(?:-|to|until|till|through|thru)\s*(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?\b(?!\s*(?:{_EN_MONTHS})))?",
    re.IGNORECASE,
)
_EN_DAY_MONTH_RE = re.compile(
    rf"\b(?:the\s+)?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?:\s*(?:-|to)\s*(?P<d0>\d{{1,2}})(?:st|nd|rd|th)?)?\s+(?:of\s+)?"
    rf"(?P<mon>{_EN_MONTHS})\b\.?(?:,?\s*(?P<y>20\d{{2}}))?",
    re.IGNORECASE,
)
_EN_THE_NTH_RE = re.compile(
    r"\b(?:on\s+)?the\s+(?P<d>\d{1,2})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:" + _EN_MONTHS + "))", re.I
)
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
_EN_MONTH_ONLY_RE = re.compile(
    rf"\b(?P<p>in|during|for|this|next|early|late|mid|end of|the end of)\s+(?P<mon>{_EN_MONTHS})\b(?!\s*\d)",
    re.IGNORECASE,
)
_EN_NUM = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "ten": 10}
_EN_FESTIVAL = {
    "christmas eve": "平安夜", "christmas": "圣诞", "christmas day": "圣诞", "new years eve": "跨年夜",
    "new years": "元旦", "new years day": "元旦", "national day": "国庆", "golden week": "国庆",
    "valentines day": "情人节", "lantern festival": "元宵", "qixi": "七夕", "qixi festival": "七夕",
    "double ninth festival": "重阳", "winter solstice": "冬至", "qingming": "清明", "qingming festival": "清明",
    "tomb sweeping day": "清明", "tomb-sweeping day": "清明",
    "chinese new year": "春节", "lunar new year": "春节", "spring festival": "春节", "may day": "五一",
    "labor day": "五一", "labour day": "五一", "mid-autumn": "中秋", "mid autumn": "中秋",
    "mid-autumn festival": "中秋", "mid autumn festival": "中秋", "dragon boat festival": "端午",
    "summer holiday": "暑假", "summer vacation": "暑假", "summer break": "暑假", "winter holiday": "寒假",
    "winter vacation": "寒假", "winter break": "寒假",
}  # fmt: skip
_EN_ONE_DAY = {"new years day", "christmas day"}  # the day itself of a holiday of several days off

_RANGE_JOIN_RE = re.compile(
    r"^\s*(?:-|~|到|至|一直到|直到|to|until|till|through|thru|and|,|，)?\s*(?:the\s+)?$", re.IGNORECASE
)
_RETURN_AFTER_RE = re.compile(
    r"^\s*(?:再|就|晚上|下午|上午)?\s*(?:回|返|回来|返回|离店|退房)|^\s*(?:back|return|check(?:ing)?[- ]?out)", re.I
)
_UNTIL_BEFORE_RE = re.compile(r"(?:到|至|until|till|through|thru)\s*$", re.I)
_RETURN_BEFORE_RE = re.compile(
    r"(?:回来|返回|返程|回程|back|return(?:ing)?|退房|离店|check(?:ing)? out|\band out|\bleaving)\s*"
    r"(?:(?:改|换|推迟|提前)?(?:到|成|为|在)|on(?: the)?|日期|时间|是)?\s*$",
    re.I,
)
_NIGHTS_RE = re.compile(
    rf"(?<![周期拜月号日点])(?:住|待|呆|stay(?:ing)?\s*(?:for)?)?\s*(?<![周期拜月号日点])(?P<n>\d{{1,2}}|[{CN_NUM_CHARS}]{{1,2}}|one|two|three|four|five|six|seven)"
    r"\s*(?:个)?\s*(?:晚上?|夜|nights?)",
    re.IGNORECASE,
)


def _num(raw: str | None) -> int | None:
    if raw is None:
        return None
    if raw.isdigit():
        return int(raw)
    return cn_to_int(raw)


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


_VERB_XIA_RE = re.compile(r"(?<=[一看查])下(?=下个?(?:周|星期|礼拜|月))")


def _zh_mentions(text: str, today: date) -> list[Mention]:
    # "规划一下下周末": the first 下 belongs to the verb ("一下"), the week is 下周末.
    text = _VERB_XIA_RE.sub(" ", text)
    found: list[Mention] = []
    taken: list[tuple[int, int]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e in taken)

    def add(mention: Mention | None) -> None:
        if mention is not None and free(mention.start, mention.end):
            found.append(mention)
            taken.append((mention.start, mention.end))

    for m in _ISO_DATE_RE.finditer(text):
        day = _safe_date(int(m.group("y")), int(m.group("m")), int(m.group("d")))
        if day:
            add(Mention(m.start(), m.end(), day))
    for m in _ZH_FULL_DATE_RE.finditer(text):
        month, day_no = _num(m.group("m")), _num(m.group("d"))
        if not month or not day_no or not 1 <= month <= 12:
            continue
        day = _upcoming(today, month, day_no, int(m.group("y")) if m.group("y") else None)
        if not day:
            continue
        second = _num(m.group("d2"))
        last = _safe_date(day.year, day.month, second) if second else None
        if last and last < day:
            last = None
        add(Mention(m.start(), m.end(), day, last))
    for m in _ZH_FESTIVAL_RE.finditer(text):
        name = _FESTIVAL_ALIAS.get(m.group("name"), m.group("name"))
        if name.startswith("十一"):
            name = "国庆"
        span = festival(name, today)
        if span:
            add(Mention(m.start(), m.end(), span[0], span[1] if span[1] != span[0] else None))
    for m in _ZH_DAYS_LATER_RE.finditer(text):
        n = _num(m.group("n"))
        if n and n <= 365:
            add(Mention(m.start(), m.end(), today + timedelta(days=n)))
    for m in _ZH_RELATIVE_DAY_RE.finditer(text):
        word = m.group("w")
        if word in ("这两天", "这几天"):
            add(Mention(m.start(), m.end(), today, today + timedelta(days=3)))
            continue
        offset = 3 if word == "大后天" else 2 if word == "后天" else 1 if word.startswith("明") else 0
        add(Mention(m.start(), m.end(), today + timedelta(days=offset)))
    for m in _ZH_WEEK_RE.finditer(text):
        after = text[m.end() : m.end() + 1]
        if m.group("d") is None and after in ("边", "围", "岁", "年", "全", "期", "内", "报", "刊"):
            continue
        if m.group("d") in ("一", "二", "三") and after in ("周", "次", "个"):
            continue
        add(_week_mention(m, today))
    for m in _ZH_MONTH_RE.finditer(text):
        if re.match(r"\s*\d", text[m.end() : m.end() + 2]):
            continue
        add(_month_mention(m, today))
    for m in _ZH_MONTH_PART_RE.finditer(text):
        part = m.group("part")[1]
        year, month = today.year, today.month
        if part == "初" and today.day > 10:
            year, month = _next_month(today)
        first, last = date(year, month, 1), _month_end(year, month)
        if part == "初":
            last = date(year, month, 10)
        elif part == "中":
            first, last = date(year, month, 11), date(year, month, 20)
        else:
            first = last - timedelta(days=6)
        add(Mention(m.start(), m.end(), max(first, today), last))
    for m in _ZH_YEAR_END_RE.finditer(text):
        if m.group("w") in ("年底", "年末"):
            add(Mention(m.start(), m.end(), max(date(today.year, 12, 20), today), date(today.year, 12, 31)))
    for m in _DOT_DATE_RE.finditer(text):
        day = _upcoming(today, int(m.group("m")), int(m.group("d")))
        if day:
            add(Mention(m.start(), m.end(), day, relative=None))
    full_dates = [x for x in found if x.relative is None and x.last is None]
    for m in _ZH_DAY_RI_RE.finditer(text):
        day_no = _num(m.group("d"))
        if not day_no or not 1 <= day_no <= 31 or _DAY_RI_NOT_BEFORE.search(text[max(0, m.start() - 4) : m.start()]):
            continue
        earlier = [x for x in full_dates if x.end <= m.start()]
        verb_after = bool(_DAY_RI_VERB_AFTER.match(text[m.end() : m.end() + 6]))
        if not verb_after and not (earlier and day_no > earlier[-1].first.day):
            continue
        day = _safe_date(today.year, today.month, day_no)
        if day is None or day < today:
            year, month = _next_month(today)
            day = _safe_date(year, month, day_no)
        if day:
            add(Mention(m.start(), m.end(), day, relative="day", value=day_no))
    for m in _ZH_DAY_ONLY_RE.finditer(text):
        day_no = _num(m.group("d"))
        if not day_no or not 1 <= day_no <= 31:
            continue
        day = _safe_date(today.year, today.month, day_no)
        if day is None or day < today:
            year, month = _next_month(today)
            day = _safe_date(year, month, day_no)
        if day:
            add(Mention(m.start(), m.end(), day, relative="day", value=day_no))
    return _with_english(text, today, found, add)


def _with_english(text: str, today: date, found: list[Mention], add) -> list[Mention]:
    if not re.search(r"[A-Za-z]", text):
        return found
    for m in _EN_MONTH_DAY_RE.finditer(text):
        day = _upcoming(today, MONTH_EN[m.group("mon").lower()], int(m.group("d")), _int(m.group("y")))
        if day:
            last = _safe_date(day.year, day.month, int(m.group("d2"))) if m.group("d2") else None
            add(Mention(m.start(), m.end(), day, last if last and last > day else None))
    for m in _EN_DAY_MONTH_RE.finditer(text):
        month = MONTH_EN[m.group("mon").lower()]
        if m.group("mon").lower() == "may" and not re.match(r"\s", text[m.end() : m.end() + 1] or " "):
            continue
        if m.group("d0"):
            first = _upcoming(today, month, int(m.group("d")), _int(m.group("y")))
            last = _upcoming(today, month, int(m.group("d0")), _int(m.group("y")))
            if first and last and last > first:
                add(Mention(m.start(), m.end(), first, last))
                continue
        day = _upcoming(today, month, int(m.group("d")), _int(m.group("y")))
        if day:
            add(Mention(m.start(), m.end(), day))
    for m in _EN_RELATIVE_RE.finditer(text):
        add(_en_relative(m, today))
    for m in _EN_DAY_RE.finditer(text):
        ahead = EN_DAY_WORDS[m.group("w").lower()] + (1 if m.group("after") else 0)
        add(Mention(m.start(), m.end(), today + timedelta(days=ahead)))
    for m in _EN_UNIT_RE.finditer(text):
        add(_en_unit(m, today))
    for m in _EN_WEEKDAY_RE.finditer(text):
        weekday = WEEKDAY_EN[m.group("d").lower()]
        if m.group("d").lower() in ("sun", "sat", "wed", "mar") and not (m.group("p") or m.group("d2")):
            continue  # "sun" (the sun), "sat" (sat down): only with a preposition or beside another day
        prefix = (m.group("p") or "").lower()
        monday = _monday(today)
        if prefix == "next":
            day = monday + timedelta(days=7 + weekday)
        else:
            day = monday + timedelta(days=weekday)
            if day < today:
                day += timedelta(days=7)
        start = m.start() if prefix not in ("on", "by", "until", "till", "to") else m.start("d")
        if m.group("d2"):
            last = day + timedelta(days=(WEEKDAY_EN[m.group("d2").lower()] - weekday) % 7 or 7)
            add(Mention(start, m.end(), day, last))
            continue
        relative = "weekday" if prefix in ("", "on", "by", "until", "till", "to") else None
        add(Mention(start, m.end(), day, relative=relative, value=weekday))
    for m in _EN_MONTH_ONLY_RE.finditer(text):
        month = MONTH_EN[m.group("mon").lower()]
        year = today.year if month >= today.month else today.year + 1
        if m.group("p").lower() == "next" and month == today.month:
            year += 1
        first, last = date(year, month, 1), _month_end(year, month)
        prefix = m.group("p").lower()
        if prefix == "early":
            last = date(year, month, 10)
        elif prefix == "mid":
            first, last = date(year, month, 11), date(year, month, 20)
        elif prefix in ("late", "end of", "the end of"):
            first = date(year, month, 21)
        add(Mention(m.start(), m.end(), max(first, today), last))
    for m in _EN_THE_NTH_RE.finditer(text):
        day_no = int(m.group("d"))
        day = _safe_date(today.year, today.month, day_no) if 1 <= day_no <= 31 else None
        if day is None or day < today:
            year, month = _next_month(today)
            day = _safe_date(year, month, day_no) if 1 <= day_no <= 31 else None
        if day:
            add(Mention(m.start(), m.end(), day, relative="day", value=day_no))
    return found


def _int(raw: str | None) -> int | None:
    return int(raw) if raw else None


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


# ---------------------------------------------------------------------------------------------------------------


def _resolve_relative(mention: Mention, anchor: date) -> date:
    """A bare weekday or day-of-month that follows another date: its first occurrence on or after that date."""
    if mention.relative == "weekday" and mention.value is not None:
        return anchor + timedelta(days=(mention.value - anchor.weekday()) % 7)
    if mention.relative == "day" and mention.value is not None:
        day = _safe_date(anchor.year, anchor.month, mention.value)
        if day is None or day < anchor:
            year, month = _next_month(anchor)
            day = _safe_date(year, month, mention.value)
        return day or mention.first
    return mention.first


def nights(text: str) -> int | None:
    """The nights of a stay the sentence names ("住两晚", "两个晚上", "for 2 nights", "三天两晚"), or None."""
    return _nights(text)


# A day said as its night: "今晚", "明晚", "tonight", or a day followed by its evening ("明天晚上", "周五晚上",
# "tomorrow night", "Friday night").
_NIGHT_WORD_RE = re.compile(r"今晚|明晚|(?<![A-Za-z])toni(?:ght|te)(?![A-Za-z])", re.IGNORECASE)
_NIGHT_AFTER_RE = re.compile(
    r"^\s*(?:的\s*)?(?:晚上|晚(?![点饭餐些])|夜里|夜晚)|^\s*(?:night|evening)\b", re.IGNORECASE
)


def one_night(text: str, date_range: DateRange) -> bool:
    """Whether the one day of the sentence is said as a night ("明晚", "tomorrow night"): for a stay, one night."""
    if date_range.start is None or date_range.end is not None or len(date_range.spans) != 1:
        return False
    start, end = date_range.spans[0]
    return bool(_NIGHT_WORD_RE.search(text[start:end]) or _NIGHT_AFTER_RE.match(text[end : end + 6]))


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


def nights_span(text: str) -> tuple[int, int] | None:
    """Where the nights of a stay are said ("住两晚"), for the engine to mask as understood."""
    match = _NIGHTS_RE.search(text)
    return match.span() if match and _nights(text) else None


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


def mentions(text: str, today: date) -> list[Mention]:
    """Every date expression of the sentence in order, a bare day or weekday read on its own (not yet relative to
    another mention: see `resolve_after`)."""
    return sorted(_zh_mentions(text, today), key=lambda m: m.start)


def resolve_after(mention: Mention, anchor: date) -> date:
    """The day a mention names when it follows `anchor` ("19号的…改签到20号": the 20th after the 19th)."""
    return _resolve_relative(mention, anchor)


def _nights(text: str) -> int | None:
    match = _NIGHTS_RE.search(text)
    if not match:
        return None
    raw = match.group("n").lower()
    value = _EN_NUM.get(raw) or {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}.get(raw)
    if value is None:
        value = _num(raw)
    return value if value and 0 < value <= 30 else None


def extract_dates(text: str, today: date) -> DateRange:
    """The date range of a sentence: (start, end, spans of every date expression used)."""
    mentions = sorted(_zh_mentions(text, today), key=lambda m: m.start)
    if not mentions:
        return DateRange()
    spans = tuple((m.start, m.end) for m in mentions)
    first = mentions[0]
    start, end = first.first, first.last
    for nxt in mentions[1:]:
        between = text[first.end : nxt.start]
        after = text[nxt.end : nxt.end + 14]
        before = text[first.end : nxt.start]  # (the patterns read its end: "… checking out on" Sunday)
        joined = bool(_RANGE_JOIN_RE.match(between))
        returning = bool(
            _RETURN_AFTER_RE.match(after) or _RETURN_BEFORE_RE.search(before) or _UNTIL_BEFORE_RE.search(before)
        )
        if not (joined or returning):
            # A later, more precise day inside the first span ("下周五" after "下周") refines it.
            if end and first.first <= nxt.first <= end and nxt.last is None:
                start, end = nxt.first, None
                first = nxt
                continue
            if nxt.relative is None and end is None and nxt.first > start and nxt.first - start <= timedelta(days=31):
                end = nxt.last or nxt.first  # two separate days: the second is the return
            continue
        anchor = start
        last = nxt.last or _resolve_relative(nxt, anchor)
        if last >= start:
            end = last
        break
    nights = _nights(text) if start is not None else None
    if nights and (end is None or len(mentions) == 1):
        end = start + timedelta(days=nights)  # a stay of N nights ends on the morning after the last one
    if end is not None and end < start:
        end = None
    returning = ""
    if len(mentions) == 1 and end is None:
        after = _RETURN_AFTER_RE.match(text[first.end : first.end + 8])
        before = _RETURN_BEFORE_RE.search(text[max(0, first.start - 14) : first.start])
        returning = (after or before).group().strip() if (after or before) else ""
    weekday = first.value if len(mentions) == 1 and first.relative == "weekday" and end is None else None
    return DateRange(start, end, spans, returning, weekday)


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


# Expressions our grammar leaves to jionlp (slow to import, so only loaded when one of these appears).
_RARE_TIME_RE = re.compile(
    rf"上旬|中旬|下旬|正月|腊月|农历|元宵|七夕|重阳|冬至|小年|初[一二三四五六七八九十]|"
    rf"(?:{_NUM})\s*(?:个)?\s*(?:周|星期|礼拜|月)(?:以后|之后|后)"
)


def jionlp_fallback(text: str, today: date) -> DateRange | None:
    """Ask jionlp about Chinese time expressions the grammar above does not read; None when it has no answer."""
    match = _RARE_TIME_RE.search(text)
    if not match:
        return None
    try:
        import time as _time

        import jionlp

        for base in (today, _safe_date(today.year + 1, today.month, min(today.day, 28))):
            if base is None:
                continue
            found = jionlp.ner.extract_time(text, time_base=_time.mktime(base.timetuple()), with_parsing=True)
            for item in found:
                span = (item.get("detail") or {}).get("time")
                if not isinstance(span, list) or len(span) != 2:
                    continue
                first = date.fromisoformat(str(span[0])[:10])
                last = date.fromisoformat(str(span[1])[:10])
                if last < today or last < first:
                    continue
                offset = item.get("offset") or (match.start(), match.end())
                return DateRange(max(first, today), last if last != first else None, (tuple(offset),))
    except Exception:  # jionlp is a helper here; its failure means "no date", never a failed turn
        return None
    return None
