"""Every date expression of a sentence (a `Mention` each), read by the absolute, relative and holiday grammars in
order; a span already read is not read again."""

import re
from datetime import date, timedelta

from assistant.llm.rules.dates.absolute import (
    _DAY_RI_NOT_BEFORE,
    _DAY_RI_VERB_AFTER,
    _DOT_DATE_RE,
    _EN_DAY_MONTH_RE,
    _EN_MONTH_DAY_RE,
    _EN_MONTH_ONLY_RE,
    _EN_THE_NTH_RE,
    _ISO_DATE_RE,
    _ZH_DAY_ONLY_RE,
    _ZH_DAY_RI_RE,
    _ZH_FULL_DATE_RE,
)
from assistant.llm.rules.dates.days import (
    MONTH_EN,
    WEEKDAY_EN,
    Mention,
    _int,
    _monday,
    _month_end,
    _next_month,
    _num,
    _safe_date,
    _upcoming,
)
from assistant.llm.rules.dates.holidays import _FESTIVAL_ALIAS, _ZH_FESTIVAL_RE, festival
from assistant.llm.rules.dates.relative import (
    _EN_DAY_RE,
    _EN_RELATIVE_RE,
    _EN_UNIT_RE,
    _EN_WEEKDAY_RE,
    _ZH_DAYS_LATER_RE,
    _ZH_MONTH_PART_RE,
    _ZH_MONTH_RE,
    _ZH_RELATIVE_DAY_RE,
    _ZH_WEEK_RE,
    _ZH_YEAR_END_RE,
    EN_DAY_WORDS,
    _en_relative,
    _en_unit,
    _month_mention,
    _week_mention,
)

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


def mentions(text: str, today: date) -> list[Mention]:
    """Every date expression of the sentence in order, a bare day or weekday read on its own (not yet relative to
    another mention: see `resolve_after`)."""
    return sorted(_zh_mentions(text, today), key=lambda m: m.start)
