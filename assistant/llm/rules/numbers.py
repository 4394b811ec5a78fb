"""Numbers: Chinese and Arabic numerals, budgets (max_price) and trip lengths (days).

A number is a budget only with a budget cue around it (预算, 以内, 块, 元, ¥, under, budget …) or when it stands
alone in a travel sentence as a round amount; dates, days, people, ids and phone numbers are masked before.
"""

import re
from dataclasses import dataclass

CN_DIGIT = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "俩": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
CN_UNIT = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000, "万": 10000, "w": 10000, "k": 1000}
EN_NUMBER = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fourteen": 14, "fifteen": 15, "twenty": 20,
    "couple": 2, "a couple of": 2, "a few": 3,
}  # fmt: skip
CN_NUM_CHARS = "零〇一二两俩三四五六七八九十百千万"
CN_NUM = f"[{CN_NUM_CHARS}]+"


def cn_to_int(text: str) -> int | None:
    """'两千五' → 2500, '十五' → 15, '3千' → 3000, '1.5万' → 15000; None when it is not a number."""
    text = text.strip()
    if not text:
        return None
    try:
        import cn2an

        value = cn2an.cn2an(text.replace("俩", "两"), "smart")
    except Exception:
        return _cn_fallback(text)
    try:
        return int(round(float(value)))
    except (TypeError, ValueError, OverflowError):
        return None


def _cn_fallback(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    total, section, digit, last_unit = 0, 0, None, 1
    for ch in text:
        if ch in CN_DIGIT:
            digit = CN_DIGIT[ch]
        elif ch in ("十", "百", "千"):
            unit = CN_UNIT[ch]
            section += (digit if digit is not None else 1) * unit
            digit, last_unit = None, unit
        elif ch == "万":
            total += (section + (digit or 0)) * 10000
            section, digit, last_unit = 0, None, 10000
        else:
            return None
    if digit is not None:
        # "两千五" → the trailing digit counts in the next smaller unit.
        section += digit * (last_unit // 10 if last_unit >= 10 else 1)
    return total + section


# ---------------------------------------------------------------------------------------------------------------
# Amounts: "2000", "2,000", "2.5k", "两千五", "3千", "1.5万", "2w", "五六百" (→ the upper figure).

_AMOUNT = (
    r"(?:(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*(?P<unit>[kKwW千万](?![a-zA-Z])(?:[一二两三四五六七八九\d](?![\d万千]))?)?"
    rf"|(?P<cn>{CN_NUM}))"
)
AMOUNT_RE = re.compile(rf"(?<![A-Za-z0-9_./:])(?<![A-Za-z]{{2}}-)(?:{_AMOUNT})")
_RANGE_SEP = r"\s*(?:-|~|到|至|to)\s*"

# A budget cue before the number (within a few characters) …
_PRE_CUE_RE = re.compile(
    r"(预算|budget|under|below|less than|lower than|cheaper than|within|up to|at most|no more than|not more than|"
    r"not over|max(?:imum)?|cap(?:ped)? at|不超过|不超|不高于|不能超过|别超过|低于|少于|不到|控制在|以内|最多|顶多|最高|"
    r"人均|每人|一个人|价格|价位|价钱|花费|花|费用|¥|\$|rmb|cny|≤|<=|<|around|about|roughly|大概|大约|差不多|左右|for|"
    r"给|有|带|准备|only have|got|spend|spending|afford|price|cost|costs|pay|paying)\s*(?:[:：]|is|of|around|about|大概|大约|"
    r"在|是|为|就|只有|只|总共|一共|共)?\s*(?:[¥$]|rmb|cny)?\s*$",
    re.IGNORECASE,
)
_STRONG_PRE = re.compile(
    r"(预算|budget|under|below|less than|within|up to|at most|no more than|not more than|不超过|不超|不高于|低于|少于|"
    r"不到|控制在|最多|顶多|最高|人均|每人|¥|\$|rmb|cny|≤|<=|<|cheaper than|max|cap)",
    re.IGNORECASE,
)
# … or after it.
_POST_CUE_RE = re.compile(
    r"^\s*(元|块|块钱|rmb|yuan|cny|kuai|bucks|刀|人民币|以内|以下|之内|内(?!蒙)|左右|上下|封顶|预算|budget|max|or less|"
    r"per person|pp\b|a person|一个人|/人|每人|够|能玩|能去|的预算|的团|的活动|的行程|的线路|的套餐|的旅|的|budget)",
    re.IGNORECASE,
)
_STRONG_POST = re.compile(
    r"^\s*(元|块|块钱|rmb|yuan|cny|kuai|bucks|刀|人民币|以内|以下|之内|内(?!蒙)|封顶|预算|budget|max|or less)",
    re.IGNORECASE,
)
# What a number may NOT be followed by to be money.
_NOT_MONEY_POST = re.compile(
    r"^\s*(天|日|晚|夜|号|月|年|点|个|人|位|岁|米|公里|千米|km|小时|分钟|分|度|℃|°|次|张|间|层|楼|星|折|%|倍|周|"
    r"days?|nights?|people|persons?|pax|adults?|kids?|children|years?|yrs?|km|miles?|m\b|meters?|hours?|hrs?|h\b|"
    r"minutes?|mins?|pm|am|st\b|nd\b|rd\b|th\b|stars?|weeks?|floors?|:)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Amount:
    value: int
    start: int
    end: int


def _amount_value(match: re.Match) -> int | None:
    if match.group("cn"):
        cn = match.group("cn")
        pair = re.fullmatch(r"([一二两三四五六七八九])([二两三四五六七八九])([十百千万])", cn)
        if pair:  # "五六百" → 600, "两三千" → 3000: the upper figure is the cap
            return CN_DIGIT[pair.group(2)] * CN_UNIT[pair.group(3)]
        if cn in ("千把", "千"):
            return 1000
        return cn_to_int(cn)
    raw = match.group("num").replace(",", "")
    if len(raw) > 12:  # not an amount anyone budgets (and a float overflow waiting to happen)
        return None
    try:
        value = float(raw)
    except ValueError:
        return None
    unit = (match.group("unit") or "").strip()
    if unit:
        head = unit[0].lower()
        multiplier = CN_UNIT.get(head, 1)
        value *= multiplier
        if len(unit) > 1:  # "2千5" → 2500, "1万2" → 12000
            tail = unit[1]
            tail_value = CN_DIGIT.get(tail, int(tail) if tail.isdigit() else 0)
            value += tail_value * multiplier / 10
    return int(round(value))


def find_amounts(text: str) -> list[Amount]:
    amounts = []
    for match in AMOUNT_RE.finditer(text):
        value = _amount_value(match)
        if value is not None and value > 0:
            amounts.append(Amount(value, match.start(), match.end()))
    return amounts


def extract_budget(text: str, *, travel_context: bool = True) -> tuple[int | None, tuple[int, int] | None]:
    """The budget (max_price) in `text` (already masked of dates, days, ids and phone numbers), and its span."""
    best: tuple[int, int, Amount] | None = None  # (strength, -position, amount)
    amounts = find_amounts(text)
    for index, amount in enumerate(amounts):
        before = text[max(0, amount.start - 14) : amount.start]
        after = text[amount.end : amount.end + 12]
        upper = amount
        # A range "2000-3000" / "两到三千": the cap is the upper figure.
        if index + 1 < len(amounts):
            nxt = amounts[index + 1]
            if re.fullmatch(_RANGE_SEP, text[amount.end : nxt.start], re.IGNORECASE):
                upper = nxt
                if amount.value < 20 and nxt.value >= 100 and nxt.value % 1000 == 0:
                    upper = nxt  # "两到三千" keeps three thousand
                after = text[nxt.end : nxt.end + 12]
        if _NOT_MONEY_POST.match(after) and not _STRONG_POST.match(after):
            continue
        if re.search(r"[A-Za-z]-?$", text[max(0, amount.start - 2) : amount.start]) and not re.search(
            r"(?i)(rmb|cny|k)\s*$", before
        ):
            continue  # part of a code such as G1234, CA1505
        strength = 0
        if _STRONG_POST.match(after) or _STRONG_PRE.search(before[-8:]):
            strength = 3
        elif _POST_CUE_RE.match(after) or _PRE_CUE_RE.search(before):
            strength = 2 if upper.value >= 50 else 0
        elif travel_context and upper.value >= 100 and upper.value % 50 == 0 and not _looks_like_year(upper, text):
            strength = 1
        # "1块钱以内" is a (tiny) budget when said with a strong cue; a bare small number is not.
        if strength == 0 or upper.value < (1 if strength == 3 else 10) or upper.value > 10_000_000:
            continue
        if strength < 3 and upper.value < 100:
            continue
        candidate = (strength, -amount.start, upper)
        if best is None or candidate[:2] > best[:2]:
            best = candidate
    if best is None:
        return None, None
    return best[2].value, (best[2].start, best[2].end)


def _looks_like_year(amount: Amount, text: str) -> bool:
    return 1990 <= amount.value <= 2100 and bool(re.match(r"\s*(年|-\d|/\d)", text[amount.end : amount.end + 3]))


# ---------------------------------------------------------------------------------------------------------------
# Days: "7天", "五日游", "3日", "两天一夜", "3 days", "4-day", "a week".

_DAYS_ZH_RE = re.compile(
    rf"(?<![第月过这那前近头\d{CN_NUM_CHARS}])(?P<n>\d{{1,2}}|[一二两三四五六七八九十]{{1,3}}|半个?)\s*个?\s*(?:天|日)(?P<tail>游|行程|的行程)?"
    rf"(?![后前内以之])"
)
_RELATIVE_DAYS_BEFORE = re.compile(
    r"(?:多|少|加|减|延长|缩短|再|推迟|提前|延后|延期|往后推|往前挪)(?:玩|待|呆|住|留|出|去)?\s*$"
)
_NOT_DAYS_AFTER_RE = re.compile(r"^(?:以后|之后|以前|之前|以内|之内|后|前|内)")
_WEEK_ZH_RE = re.compile(r"(?<![这本下上])(?P<n>[一两二三1-3])\s*(?:个)?\s*(?:周|星期|礼拜)(?![一二三四五六日天末])")
_HALF_MONTH_RE = re.compile(r"半个月")
_DAYS_EN_RE = re.compile(
    r"(?<![A-Za-z0-9])(?P<n>\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen|fifteen|a couple of|"
    r"couple of|a few)[\s-]*(?:full\s+)?days?(?![A-Za-z])(?!\s+(?:later|from now|ago|before|after))",
    re.IGNORECASE,
)
# Whole days said in hours ("48 hours in Chongqing", "72小时"); not "24小时" (round the clock) nor "48小时内".
_HOURS_RE = re.compile(
    r"(?<![A-Za-z0-9])(?P<n>\d{2,3})[\s-]*(?:hours?|hrs?|小时)(?![A-Za-z]|\s*(?:以内|之内|内|以后|之后|后))", re.I
)
_IN_BEFORE = re.compile(r"\b(?:in|within)\s*$", re.I)  # "in 3 days", "within 48 hours": a date or a deadline
_WEEK_EN_RE = re.compile(
    r"\b(?:(?P<n>a|one|1|two|2)[\s-]*weeks?\b|week[\s-]long|fortnight)(?!\s+(?:later|from now|ago))", re.I
)


@dataclass(frozen=True)
class Days:
    value: int
    start: int
    end: int


def extract_days(text: str) -> Days | None:
    """The trip length in days, and its span. Hotel nights ("住两晚") are not days."""
    for match in _DAYS_ZH_RE.finditer(text):
        raw = match.group("n")
        if raw.startswith("半"):
            continue
        if _NOT_DAYS_AFTER_RE.match(text[match.end() :]):
            continue
        # "N天后" is a date; "第N天" handled by the look-behind; "N日" right after a month is a date.
        if _RELATIVE_DAYS_BEFORE.search(text[max(0, match.start() - 4) : match.start()]):
            continue  # "多玩一天" changes a length, it is not one
        value = int(raw) if raw.isdigit() else cn_to_int(raw)
        if value and 0 < value <= 60:
            return Days(value, match.start(), match.end())
    match = _HALF_MONTH_RE.search(text)
    if match:
        return Days(15, match.start(), match.end())
    match = _WEEK_ZH_RE.search(text)
    if match:
        raw = match.group("n")
        weeks = int(raw) if raw.isdigit() else CN_DIGIT.get(raw, 1)
        return Days(7 * weeks, match.start(), match.end())
    for match in _DAYS_EN_RE.finditer(text):
        raw = match.group("n").lower()
        if _IN_BEFORE.search(text[: match.start()]):
            continue  # "in 3 days" is a date
        value = int(raw) if raw.isdigit() else EN_NUMBER.get(raw, 2 if "couple" in raw else None)
        if value and 0 < value <= 60:
            return Days(value, match.start(), match.end())
    for match in _HOURS_RE.finditer(text):
        hours = int(match.group("n"))
        if hours % 24 == 0 and 48 <= hours <= 24 * 60 and not _IN_BEFORE.search(text[: match.start()]):
            return Days(hours // 24, match.start(), match.end())
    match = _WEEK_EN_RE.search(text)
    if match:
        raw = (match.group("n") or "a").lower()
        weeks = 2 if raw in ("two", "2") or "fortnight" in match.group().lower() else 1
        return Days(7 * weeks, match.start(), match.end())
    return None
