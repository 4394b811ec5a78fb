"""Holidays and festivals: their days in a year (fixed, lunar, solar terms) and the words that name them."""

import json
import re
from datetime import date, timedelta
from functools import lru_cache
from pathlib import Path

# Lunar festivals and solar terms by year, from `festivals.json` (built from jionlp by `build_festivals.py`, loaded
# once): each the festival's own day; a public holiday's reading spans the days off around it, of `_FESTIVAL_LENGTH`
# days (a festival that is no holiday, 元宵 七夕 重阳 冬至, is its one day).
FESTIVAL_FILE = Path(__file__).resolve().parent.parent / "festivals.json"
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
