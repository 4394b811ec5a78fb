"""What a booking option should be: time of day, order, direct, seat class, star level, vendor, number.

Each reader is a small grammar over the normalised sentence (Chinese and English, any register) and returns the
value with the span it read, so the engine can mask it (a star level is never a budget, "早上的" is not a place).
A negated want ("不要早上的", "not the red-eye") is skipped; the first want that is not negated wins.

| slot | said as |
| --- | --- |
| time_band | 早上/早晨/清早/上午/早班/明早 morning AM · 中午/午间 noon midday · 下午/午后 afternoon PM · 晚上/傍晚/夜里/今晚 evening night · 红眼/夜航/凌晨 red-eye overnight |
| sort | 最便宜/便宜点/省钱/实惠 cheapest cheaper · 最快/快一点/用时最短 fastest quicker · 最早/早一点 earliest · 最晚/晚一点 latest |
| direct | 直飞/直达/不转机/不中转 nonstop direct → True · 转机也行 / connecting is fine → False |
| seat_class | 经济舱 · 二等座 · 一等座/头等舱 · 商务座/公务舱/商务舱 · 卧铺/软卧/硬卧/动卧 · 硬座 (and the English class names) |
| star | 四星/4星/四钻/4-star/four star; 以上/及以上/至少/起/or above/at least/+ → star_or_above |
| vendor | airline and hotel brand names and short forms (东航, 国航, 如家, Hilton); any "X航空" / "X Airlines" / "X酒店" / "X Hotel" |
| number | flight and train numbers: MU5101, CZ 5927, 3U8888, G101, D3021 (lower case for known airline codes and G/D) |
"""

import re
from dataclasses import dataclass, field

from assistant.llm.rules.numbers import cn_to_int
from core.vendors import Vendor, airline_codes, vendors

Span = tuple[int, int]

_NEG_BEFORE = re.compile(
    r"(?:不要|不想要?|别|不用|不坐|不订|不选|不考虑|不喜欢|讨厌|避开|\bno\b|\bnot\b|\bdon'?t want\b|\bavoid\b|\bno more\b)"
    r"\s*(?:(?:in|during|at|on|for)\s+)?(?:坐|订|选|要|买|the|a|an)?\s*$",
    re.I,
)


def _negated(text: str, start: int) -> bool:
    return bool(_NEG_BEFORE.search(text[max(0, start - 12) : start]))


# "两个晚上" / "one night" count nights; "good night" and "last night" are not a time to leave.
_COUNTED_BEFORE = re.compile(
    r"(?:(?<![周期拜])[0-9一二两三四五六七八九十几半每]\s*个?|\b(?:\d+|a|one|two|three|four|five|six|seven|per|"
    r"each|a single|last|good|every|all)\s*)$",
    re.I,
)


def _rejected(value: str, text: str, match: re.Match) -> bool:
    if _negated(text, match.start()):
        return True
    return value == "EVENING" and bool(_COUNTED_BEFORE.search(text[max(0, match.start() - 10) : match.start()]))


def _negated_band(text: str) -> tuple[str | None, Span | None]:
    """The time of day the sentence refuses ("不要晚上的", "not in the evening", "no red-eye")."""
    for value, pattern in TIME_BANDS:
        for match in pattern.finditer(text):
            if _negated(text, match.start()):
                return value, match.span()
    return None, None


def _first(patterns: tuple[tuple[str, re.Pattern], ...], text: str) -> tuple[str | None, Span | None]:
    """The value of the earliest match among `patterns` that is not negated (or a count of nights)."""
    best: tuple[int, str, Span] | None = None
    for value, pattern in patterns:
        for match in pattern.finditer(text):
            if _rejected(value, text, match):
                continue
            if best is None or match.start() < best[0]:
                best = (match.start(), value, match.span())
            break
    return (best[1], best[2]) if best else (None, None)


# -- time of day ---------------------------------------------------------------------------------------------------

TIME_BANDS = (
    ("RED_EYE", re.compile(r"红眼|夜航|凌晨|\bred[- ]?eyes?\b|\bovernight (?:flights?|ones?|train)?|\bovernight\b|\bsmall hours\b", re.I)),
    ("MORNING", re.compile(
        r"早上(?!好)|早晨|清早|清晨|一大?早|大清早|上午(?!好)|早班|明早|今早|早间|"
        r"\b(?:morning|mornings|a\.m\.)\b|(?<![A-Za-z])AM\b|(?<=\d)\s*am\b", re.I)),
    ("NOON", re.compile(r"中午(?!好)|午间|正午|晌午|\b(?:noon|midday|lunch ?time|around lunch)\b", re.I)),
    ("AFTERNOON", re.compile(r"下午(?!好)|午后|\b(?:afternoon|afternoons|p\.m\.)\b|(?<![A-Za-z])PM\b|(?<=\d)\s*pm\b", re.I)),
    ("EVENING", re.compile(
        r"晚上(?!好)|夜里|夜间|晚间|晚班|夜晚|傍晚|今晚|明晚|"
        r"\b(?:evening|evenings|tonight|night|late[- ]night)\b", re.I)),
)  # fmt: skip

# -- the order of the options -------------------------------------------------------------------------------------

SORTS = (
    ("CHEAPEST", re.compile(
        r"最便宜|便宜(?:一)?点|便宜些|便宜的|更便宜|再便宜|省钱|最省|价格最低|最低价|低价|实惠|划算|不要太贵|别太贵|"
        r"\b(?:cheapest|cheaper|cheap|lowest[- ](?:price|fare|cost)|least expensive|less expensive|budget (?:option|one)|"
        r"best price|lowest)\b", re.I)),
    # Activities only (a booking's options know no such order): the dearer first, the better rated first.
    ("PRICIEST", re.compile(
        r"贵一?点|贵些|更贵|高端|高档|豪华|上档次|\b(?:pricier|more expensive|upscale|high[- ]end|premium|luxury|"
        r"fancier|posher)\b", re.I)),
    ("TOP_RATED", re.compile(
        r"(?:评分|评价|口碑|好评|人气)(?:更|最|比较|高)?(?:好|高|多)|好评如潮|\b(?:(?:better|best|top|highly|well)[- ]rated|"
        r"better reviews?|best reviewed|higher rated)\b", re.I)),
    ("FASTEST", re.compile(
        r"(?:最|更|再|比较)快(?!递|乐|捷)|快一?点(?:的|儿)?(?!.{0,2}(?:处理|退|回复|给|办))|快些|用时最短|时间最短|耗时最短|"
        r"(?<!时间)最短|时间短|省时|\b(?:fastest|quickest|quicker|faster|shortest|quick one|less time)\b", re.I)),
    ("EARLIEST", re.compile(
        r"最早(?!\s*(?:\d|[一二三四五六七八九十]+月|明|后|下|这|本|周|星期))|越早越好|早一?点(?:的|儿|出发|走)?|早些|更早|提早|"
        r"\b(?:earliest|earlier|as early as possible|first (?:flight|train|departure|one out))\b", re.I)),
    ("LATEST", re.compile(
        r"最晚(?!\s*(?:\d|[一二三四五六七八九十]+月|明|后|下|这|本|周|星期))|越晚越好|晚一点(?:的|儿)?|晚些|更晚|晚点的|"
        r"\b(?:latest|later (?:one|flight|train)|as late as possible|last (?:flight|train|departure|one))\b", re.I)),
)  # fmt: skip

# -- direct or not --------------------------------------------------------------------------------------------------

DIRECT_YES = re.compile(
    r"直飞|直达|不(?:要|用)?转机|不(?:要|用)?中转|不经停|别转机|无中转|没有中转|不要经停|"
    r"\b(?:non-?stop|direct(?! me\b| us\b)|no (?:stops?|stopovers?|layovers?|connections?|transfers?)|"
    r"without (?:a |any )?(?:stops?|layovers?|connections?|transfers?))\b",
    re.I,
)
DIRECT_NO = re.compile(
    r"(?:转机|中转|经停)(?:也|都)?(?:行|可以|没关系|无所谓|ok)|可以(?:转机|中转)|"
    r"\b(?:(?:i )?don'?t mind (?:a |one )?(?:stops?|stopovers?|layovers?|connections?)|"
    r"connecting (?:flights? )?(?:is|are) (?:ok|fine)|connections? (?:is|are) (?:ok|fine))\b",
    re.I,
)

# -- seat or cabin class ------------------------------------------------------------------------------------------

SEAT_CLASSES = (
    ("BUSINESS", re.compile(r"商务座|商务舱|公务舱|\bbusiness(?:[- ]class| seats?| cabin)\b|\bin business\b", re.I)),
    ("FIRST", re.compile(r"一等座|头等舱|\b(?:first|1st)[- ]class\b", re.I)),
    ("SECOND", re.compile(r"二等座|\b(?:second|2nd|standard)[- ]class\b", re.I)),
    ("SLEEPER", re.compile(r"卧铺|软卧|硬卧|动卧|\b(?:soft |hard )?(?:sleepers?|berths?|couchettes?)\b", re.I)),
    ("HARD_SEAT", re.compile(r"硬座|\bhard seats?\b", re.I)),
    (
        "ECONOMY",
        re.compile(
            r"经济舱|经济座|\b(?:premium )?economy(?:[- ]class)?\b(?! hotels?| rooms?| inn)|\bcoach class\b", re.I
        ),
    ),
)

# -- star level ---------------------------------------------------------------------------------------------------

_STAR_NUMBER = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
STAR_ZH_RE = re.compile(
    r"(?P<pre>至少|起码|最低|最少|不低于|不少于|不能低于)?\s*(?:准)?(?P<n>[一二两三四五1-5])\s*(?:星|钻)(?:级)?"
    r"(?P<up>\s*(?:酒店|宾馆)?\s*(?:及|或|或者|和)?以上|\s*起|\s*\+)?"
)
STAR_EN_RE = re.compile(
    r"(?P<pre>\bat least|\bminimum(?: of)?|\bmin\.?|\bno less than)?\s*\b(?P<n>[1-5]|one|two|three|four|five)"
    r"(?P<plus>\+)?[ -]?(?:stars?|\*|★)(?:\s+(?:hotel|rated))?"
    r"(?P<up>\s*(?:or (?:above|more|better|higher)|and (?:above|up|higher)|\+|plus))?",
    re.I,
)

# -- vendors: airlines and hotel brands (their words: the vendor lexicon, core/vendors.json) ---------------------


def _alias_pattern(entries: tuple[Vendor, ...]) -> re.Pattern:
    """Every alias of the vendors, longest first (English ones on word boundaries, spaces or hyphens between words)."""
    aliases = {alias.lower() for vendor in entries for alias in vendor.aliases}
    parts = []
    for alias in sorted(aliases, key=len, reverse=True):
        escaped = re.escape(alias).replace(r"\ ", r"[\s-]+")
        parts.append(rf"\b{escaped}\b" if alias.isascii() else escaped)
    return re.compile("|".join(parts), re.I)


# The lexicon's aliases, compiled here so the speller learns their English words; the vendor is reported as said
# (`bookings` finds the supplier's name for it in the same lexicon).
_AIRLINE_RE = _alias_pattern(vendors("FLIGHT"))
_HOTEL_RE = _alias_pattern(vendors("HOTEL"))
# Aliases that are ordinary words too (春秋, 吉祥): a vendor only in a flight sentence.
_AIRLINE_CONTEXT_RE = re.compile(
    "|".join(re.escape(w) for vendor in vendors("FLIGHT") for w in vendor.with_flight_words)
)
_FLIGHT_WORDS = re.compile(r"机票|航班|飞机|飞|\b(?:flights?|fly|airline)\b", re.I)

# "X航空" / "X Airlines": any airline; "X酒店" / "X Hotel": any hotel with a name of its own.
_ZH_AIRLINE_RE = re.compile(r"(?P<x>[\u4e00-\u9fff]{2,4}?)航空(?:公司)?")
_EN_AIRLINE_RE = re.compile(r"\b(?P<x>[A-Z][a-z]+(?:\s[A-Z][a-z]+)?)\s(?:Airlines|Airways|Air)\b")
_ZH_HOTEL_RE = re.compile(r"(?P<x>[\u4e00-\u9fffA-Za-z]{2,8}?)(?P<suffix>大酒店|酒店|宾馆|饭店|大饭店)")
_EN_HOTEL_RE = re.compile(
    r"\b(?:the\s+)?(?P<x>[A-Z][A-Za-z'&]+(?:\s[A-Z][A-Za-z'&]+){0,2})\s(?:Hotel|Inn|Resort|Hostel)\b"
)
_VERB_HEAD = re.compile(
    r"^(?:.*(?:订|坐|乘|搭|要|想|选|买|住|找|是|用|的|个|[一这那哪每某][家间]|在|去|到|和|或|边|近|旁|加|及|与|跟|带|看|"
    r"[+＋、,，]))"
)
_NOT_HOTEL_NAME = re.compile(
    r"便宜|快捷|经济|商务|精品|度假|亲子|海景|湖景|山景|江景|河景|园景|豪华|高档|高端|中档|低档|连锁|青年|主题|温泉|情侣|网红|"
    r"特色|舒适|干净|附近|周边|市中心|市区|中心|机场|车站|火车站|高铁站|景区|古城|老城|星级|星|好|一点|这|那|哪|同一|其他|"
    r"别的|推荐|靠近|离|帮|给|我|你|他|她|它|们|想|要|订|住|找|什么|几|多|少|^家|^间|晚|天|号|月|点|度假村|民宿|客栈|"
    r"往返|来回|机票|高铁|火车|动车|航班|飞机|交通|顺便|方案|组合|出差|行程|"
    r"大|小|新|老|贵|整|全|单|双|标准|豪|套|房|床|含早|早餐"
)
_NOT_AIRLINE_NAME = re.compile(
    r"^(?:的|个|家|哪|什么|这|那|廉价|低价|便宜|国内|国外|外国|国际|民用|中国|任何|其他|别的)"
)
_EN_NOT_NAME = {
    "the", "a", "an", "any", "some", "cheap", "cheaper", "cheapest", "nice", "good", "best", "budget", "luxury",
    "boutique", "book", "find", "need", "want", "get", "my", "our", "this", "that", "one", "big", "small", "new",
    "old", "city", "downtown", "airport", "station", "nearby", "local", "decent", "clean", "quiet", "family",
    "business", "express", "star", "hotel", "hotels", "i", "we", "please", "near", "in", "at", "for", "with",
}  # fmt: skip

# -- flight and train numbers ------------------------------------------------------------------------------------

NUMBER_RE = re.compile(
    r"(?<![A-Za-z0-9-])(?:(?P<air>[A-Za-z][A-Za-z0-9]|[0-9][A-Za-z])\s?(?P<fn>\d{3,4})|(?P<tr>[GDCZTKYLgdcztkyl])(?P<tn>\d{1,5}))"
    r"(?![A-Za-z0-9])"
)
# A code in lower case or led by a digit is a flight's only if the vendor lexicon knows it (mu 5101, 3U8888; not 2B1234).
AIRLINE_CODES = frozenset(code.lower() for code in airline_codes())
_NOT_CODE_AFTER = re.compile(
    r"^\s*(?:航站楼|号航站楼|terminal|号线|线|路|次|年|层|楼|米|km|公里|分钟|小时|人|天|晚|元|块)", re.I
)
_NOT_CODE_BEFORE = re.compile(r"(?:terminal|航站楼)\s*$", re.I)
_AIRCRAFT = re.compile(r"^(?:A3\d\d|B7\d\d|C9\d\d|A2\d\d|ARJ\d+)$", re.I)


@dataclass
class BookingWants:
    """What the sentence wants of a booking option, and the spans that said it."""

    time_band: str | None = None
    sort: str | None = None
    direct: bool | None = None
    seat_class: str | None = None
    star: int | None = None
    star_or_above: bool = False
    vendor: str | None = None
    vendor_kind: str | None = None  # "FLIGHT" or "HOTEL"
    avoid_vendor: str | None = None  # a vendor named after a negation ("不要东航的", "no China Eastern")
    avoid_time_band: str | None = None  # a time of day refused ("不要晚上的", "not in the evening")
    number: str | None = None
    number_kind: str | None = None  # "FLIGHT" or "TRAIN"
    spans: list[Span] = field(default_factory=list)
    time_band_span: Span | None = None  # kept for the date reader ("明早" is a day and a time of day)
    seat_kind: str | None = None  # the business a seat class belongs to (二等座 → TRAIN, 经济舱 → FLIGHT)

    @property
    def booking_specific(self) -> bool:
        """A want only a booking has (an order alone — 便宜一点 — may be about activities too)."""
        return bool(
            self.time_band
            or self.avoid_time_band
            or self.direct is not None
            or self.seat_class
            or self.star
            or self.vendor
            or self.avoid_vendor
            or self.number
        )

    @property
    def any(self) -> bool:
        return self.booking_specific or self.sort is not None


def read_wants(text: str, *, places: list[Span] = ()) -> BookingWants:
    """Every booking want in the (normalised) sentence. `places` are spans of place names (never a vendor)."""
    wants = BookingWants()
    wants.time_band, span = _first(TIME_BANDS, text)
    wants.time_band_span = span
    _add(wants, span)
    wants.avoid_time_band, span = _negated_band(text)
    _add(wants, span)
    wants.sort, span = _first(SORTS, text)
    _add(wants, span)
    match = DIRECT_NO.search(text)
    if match:
        wants.direct = False
        _add(wants, match.span())
    else:
        match = DIRECT_YES.search(text)
        if match and not _negated(text, match.start()):
            wants.direct = True
            _add(wants, match.span())
    wants.seat_class, span = _first(SEAT_CLASSES, text)
    _add(wants, span)
    if span:
        wants.seat_kind = _seat_kind(text[span[0] : span[1]].lower(), wants.seat_class)
    _read_star(text, wants)
    _read_vendor(text, wants, places)
    _read_number(text, wants)
    return wants


def _seat_kind(said: str, seat_class: str | None) -> str:
    """The product a seat class names: 座, seats, second class, sleepers and hard seats are a train's; 舱, cabins and
    the other classes a flight's ("first class to Beijing"). While a booking is on, its product stands (engine)."""
    if "座" in said or "seat" in said or seat_class in ("SECOND", "SLEEPER", "HARD_SEAT"):
        return "TRAIN"
    return "FLIGHT"


def _add(wants: BookingWants, span: Span | None) -> None:
    if span:
        wants.spans.append(span)


def _read_star(text: str, wants: BookingWants) -> None:
    for pattern in (STAR_ZH_RE, STAR_EN_RE):
        for match in pattern.finditer(text):
            raw = match.group("n").lower()
            level = _STAR_NUMBER.get(raw) or (int(raw) if raw.isdigit() else cn_to_int(raw))
            if not level or not 1 <= level <= 5:
                continue
            wants.star = level
            plus = match.groupdict().get("plus")
            wants.star_or_above = bool(match.group("up") or match.group("pre") or plus)
            _add(wants, match.span())
            return


def _read_vendor(text: str, wants: BookingWants, places: list[Span]) -> None:
    def is_place(start: int, end: int) -> bool:
        return any(s <= start and end <= e for s, e in places)

    match = _AIRLINE_RE.search(text)
    if match and _negated(text, match.start()):
        wants.avoid_vendor, wants.vendor_kind = _as_said(match.group()), "FLIGHT"
        _add(wants, match.span())
        match = _AIRLINE_RE.search(text, match.end())  # "不要东航，要国航": the one wanted may follow
    if match and not _negated(text, match.start()):
        wants.vendor, wants.vendor_kind = _as_said(match.group()), "FLIGHT"
        _add(wants, match.span())
        return
    match = _AIRLINE_CONTEXT_RE.search(text)
    if match and _FLIGHT_WORDS.search(text) and not _negated(text, match.start()):
        wants.vendor, wants.vendor_kind = match.group(), "FLIGHT"
        _add(wants, match.span())
        return
    for match in _ZH_AIRLINE_RE.finditer(text):
        name = _VERB_HEAD.sub("", match.group("x"))
        if len(name) >= 2 and not _NOT_AIRLINE_NAME.match(name) and not _negated(text, match.start()):
            wants.vendor, wants.vendor_kind = f"{name}航空", "FLIGHT"
            _add(wants, (match.end() - len(name) - 2, match.end()))
            return
    for match in _EN_AIRLINE_RE.finditer(text):
        name = match.group("x")
        if name.split()[0].lower() not in _EN_NOT_NAME:
            wants.vendor, wants.vendor_kind = f"{name} Airlines", "FLIGHT"
            _add(wants, match.span())
            return
    brand = _HOTEL_RE.search(text)
    generic = _generic_hotel(text, is_place, places)
    if brand and _negated(text, brand.start()) and not wants.avoid_vendor:
        wants.avoid_vendor, wants.vendor_kind = _as_said(brand.group()), "HOTEL"
        _add(wants, brand.span())
        return
    if brand and not _negated(text, brand.start()):
        canonical = _as_said(brand.group())
        # "湖畔假日酒店" names one hotel more closely than the brand inside it.
        if generic and generic[1][0] <= brand.start() and brand.end() <= generic[1][1]:
            inner = text[generic[1][0] : generic[1][1]]
            if len(inner) >= len(brand.group()) + 2 and not inner.startswith(brand.group()):
                wants.vendor, wants.vendor_kind = inner, "HOTEL"
                _add(wants, generic[1])
                return
        wants.vendor, wants.vendor_kind = canonical, "HOTEL"
        _add(wants, brand.span())
        return
    if generic:
        wants.vendor, wants.vendor_kind = generic
        _add(wants, generic[1])


def _as_said(name: str) -> str:
    """The vendor as the traveller named it (`bookings` maps short names to full ones): "东航", "China Eastern"."""
    name = re.sub(r"\s+", " ", name.strip())
    return name.title() if name.isascii() and name.islower() else name


def _generic_hotel(text: str, is_place, places: list[Span]) -> tuple[str, Span] | None:
    for match in _ZH_HOTEL_RE.finditer(text):
        raw = match.group("x")
        head = _VERB_HEAD.match(raw)
        name = raw[head.end() :] if head else raw
        start = match.start("x") + (len(raw) - len(name))
        # A place at the front is where the hotel is ("大理湖畔酒店" → 湖畔酒店); a place alone is a city.
        for s, e in places:
            if s <= start < e:
                cut = e - start
                name, start = name[cut:], start + cut
        if len(name) < 2 or _NOT_HOTEL_NAME.search(name) or is_place(start, match.start("suffix")):
            continue
        if _negated(text, start):
            continue
        return name + match.group("suffix"), (start, match.end())
    for match in _EN_HOTEL_RE.finditer(text):
        words = match.group("x").split()
        while words and words[0].lower() in _EN_NOT_NAME:
            words.pop(0)
        if not words or any(w.lower() in _EN_NOT_NAME for w in words):
            continue
        start = match.start("x") + match.group("x").find(words[0])
        if is_place(start, start + len(" ".join(words))):
            continue
        return " ".join(words) + " Hotel", (start, match.end())
    return None


def _read_number(text: str, wants: BookingWants) -> None:
    for match in NUMBER_RE.finditer(text):
        after = text[match.end() : match.end() + 6]
        if _NOT_CODE_AFTER.match(after) or _NOT_CODE_BEFORE.search(text[max(0, match.start() - 10) : match.start()]):
            continue
        raw = match.group().replace(" ", "")
        if _AIRCRAFT.match(raw):
            continue
        if re.fullmatch(r"[GDCZTKYLgdcztkyl]\d{1,5}", raw):  # G101, D3021: a train, never "D3" + "021"
            letter, digits = raw[0], raw[1:]
            if letter.islower() and (letter not in "gd" or len(digits) < 2):
                continue
            wants.number, wants.number_kind = raw.upper(), "TRAIN"
        else:
            code = match.group("air")
            if code is None or not re.search(r"[A-Za-z]", code) or code.lower() in ("or", "bk"):
                continue
            if not code.isupper() and not code[:1].isdigit() and code.lower() not in AIRLINE_CODES:
                continue
            if code[:1].isdigit() and code.lower() not in AIRLINE_CODES:
                continue
            wants.number, wants.number_kind = (code + match.group("fn")).upper(), "FLIGHT"
        _add(wants, match.span())
        return
