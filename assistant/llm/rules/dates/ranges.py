"""The date range of a sentence: its mentions joined by 到/至/-/to, or a second one followed by 回/返/back, and the
nights of a stay."""

import re
from datetime import date, timedelta

from assistant.llm.rules.dates.days import _EN_NUM, DateRange, Mention, _next_month, _num, _safe_date
from assistant.llm.rules.dates.expressions import _zh_mentions
from assistant.llm.rules.numbers import CN_NUM_CHARS

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


def nights_span(text: str) -> tuple[int, int] | None:
    """Where the nights of a stay are said ("住两晚"), for the engine to mask as understood."""
    match = _NIGHTS_RE.search(text)
    return match.span() if match and _nights(text) else None


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
