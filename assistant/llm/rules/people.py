"""Who travels: the passengers' (or guests') names and mobiles a sentence gives, for one person or several.

"张三 13800000000", "乘客李四，电话13900000000", "入住人：王五 手机号 137 0000 0000", "张三13800000000和李四
13900000000", "for John Smith, 13800000000", "passengers: Zhang San 138…, Li Si 139…", "乘客是王芳" (no mobile).

Each mobile belongs to the name nearest before it (after the previous mobile), or right after it when none is
before; a name introduced by a label (乘客 / 入住人 / 联系人 / 姓名 / 叫 / passenger / guest / name / for) needs no
mobile. A bare Chinese name must start with a common surname and is never an ordinary travel word (高铁, 周末 …).
"""

import re
from dataclasses import dataclass

from assistant.llm.rules.ids import PHONE_RE

Span = tuple[int, int]

SURNAMES = set(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范"
    "金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜"
    "倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁"
    "蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师仇栾"
    "隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝"
)
COMPOUND_SURNAMES = (
    "欧阳",
    "司马",
    "诸葛",
    "上官",
    "东方",
    "皇甫",
    "尉迟",
    "公孙",
    "慕容",
    "令狐",
    "长孙",
    "宇文",
    "夏侯",
    "司徒",
)
# Characters a given name does not contain in practice (function words, numerals, travel words' heads).
_NOT_GIVEN = set(
    "的了吗呢吧啊么和及与跟或是为叫在去到要想我你他她们个些订住坐乘买退改签电手号机票航班酒店高铁火车动车天晚月日周末点元块钱"
)
_NOT_NAME_WORDS = re.compile(
    r"^(?:高铁|高速|周末|周边|金山|明天|今天|后天|江南|海边|黄山|华山|温泉|房间|方便|程序|石林|马上|常规|时间|全部|全家|成人|"
    r"儿童|单人|双人|安排|包车|包机|包间|宁可|任何|万一|于是|文化|云南|向导|关于|古城|古镇|白天|黄金|秦岭|史上|毛毯|康养|"
    r"龙门|武夷|武当|华东|华南|华北|东北|西北|西南|东南|中午|钟头|明早|明晚|严格|连续|连住|路线|路上|一共|计划|段落|包括)"
)
_ZH_LABEL_RE = re.compile(
    r"(?:乘机人|乘车人|乘客|旅客|出行人|入住人|住客|客人|联系人|预订人|姓名|名字|名叫|我叫|叫做|人是|人为|人叫)"
    r"\s*(?:[:：]|是|为|叫)?\s*"
)
_ZH_LIST_SEP = re.compile(r"^\s*(?:[,，、和及与跟]|以及|还有)\s*")
_ZH_RUN_BEFORE = re.compile(
    r"(?P<run>[\u4e00-\u9fff·]{2,12})\s*[,，:：]?\s*(?:的)?(?:手机号?码?|电话(?:号码)?|联系方式|tel|mobile|phone)?\s*[:：]?\s*$",
    re.I,
)
_EN_NAME = r"[A-Z][a-z]+(?:[-'][A-Za-z]+)?(?:\s+[A-Z][a-z]+(?:[-'][A-Za-z]+)?){0,2}"
_EN_NAME_ANY_CASE = r"[A-Za-z][a-z]+(?:[-'][A-Za-z]+)?(?:\s+[A-Za-z][a-z]+(?:[-'][A-Za-z]+)?){0,2}"
_EN_LABEL_RE = re.compile(
    rf"\b(?:passengers?|guests?|travell?ers?|contact|name|names|my name is|booked under|under the name(?: of)?)\b\s*"
    rf"(?:[:：=]|is\b|are\b)?\s*(?P<name>{_EN_NAME_ANY_CASE})",
    re.I,
)
# "I'm John Smith, 138…": a self-introduction names a passenger only next to a mobile.
_EN_SELF_RE = re.compile(rf"\b(?i:i am|i'm|this is|it'?s)\s+(?P<name>{_EN_NAME})")
_EN_FOR_RE = re.compile(rf"\bfor\s+(?:mr\.?\s+|ms\.?\s+|mrs\.?\s+)?(?P<name>{_EN_NAME})")
_EN_BEFORE_RE = re.compile(
    rf"(?P<name>{_EN_NAME})\s*[,:]?\s*(?:\(?\s*(?:mobile|phone|tel|cell|number|no\.?)\s*(?:number|no\.?)?\s*[:#]?\s*)?$"
)
_EN_STOP_WORDS = {
    "mobile", "phone", "tel", "telephone", "cell", "number", "no", "and", "with", "on", "from", "to", "at", "in",
    "is", "the", "a", "please", "thanks", "thank", "contact", "name", "by", "via", "his", "her", "my", "book",
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
    "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "today", "tomorrow",
    "tonight", "next", "this", "me", "us", "two", "one", "three", "nights", "night", "people", "adults", "house",
    "room", "rooms", "hotel", "flight", "flights", "train", "trains", "ticket", "tickets", "seat", "seats", "ok",
    "okay", "yes", "hi", "hello", "hey", "sure", "christmas", "new", "year", "weekend", "week", "days", "day",
    "economy", "business", "first", "second", "class", "morning", "afternoon", "evening", "direct", "nonstop",
    "cheapest", "cheap", "passenger", "passengers", "guest", "guests", "traveller", "travellers", "traveler",
    "travelers", "also", "both", "each", "are", "am", "i", "we", "it", "booking", "reservation", "going",
    "looking", "want", "need", "would", "like", "stay", "staying", "check", "checking", "me,", "sir", "madam",
}  # fmt: skip


@dataclass(frozen=True)
class Person:
    name: str
    mobile: str | None
    span: Span  # where the name is


def _mobile(raw: str) -> str:
    return re.sub(r"\D", "", raw)[-11:]


def _zh_name_at_end(run: str) -> str | None:
    """The Chinese name that ends `run` ("帮我订酒店张三" → 张三), or None."""
    for length in (4, 3, 2):
        if len(run) < length:
            continue
        candidate = run[-length:]
        if length == 4 and candidate[:2] not in COMPOUND_SURNAMES:
            continue
        if length < 4 and candidate[0] not in SURNAMES and candidate[:2] not in COMPOUND_SURNAMES:
            continue
        if any(ch in _NOT_GIVEN for ch in candidate[1:]) or _NOT_NAME_WORDS.match(candidate):
            continue
        if length == 3 and run[-4:-3] and run[-4] in SURNAMES and candidate[0] not in SURNAMES:
            continue
        return candidate
    return None


def _zh_labelled_name(text: str, start: int) -> tuple[str, Span] | None:
    match = re.match(r"[\u4e00-\u9fff·]{2,5}", text[start:])
    if not match:
        return None
    raw = match.group()
    for stop in ("电话", "手机", "号码", "联系", "的", "和", "及", "与", "先生", "女士", "订", "预订", "入住", "坐", "乘",
                 "是", "、", "，"):  # fmt: skip
        cut = raw.find(stop, 1)
        if cut > 0:
            raw = raw[:cut]
    raw = raw[:4]
    if len(raw) < 2 or _NOT_NAME_WORDS.match(raw) or any(ch in _NOT_GIVEN for ch in raw):
        return None
    return raw, (start, start + len(raw))


def _en_clean(raw: str) -> str | None:
    words = []
    for word in raw.split():
        if word.lower().strip(".,") in _EN_STOP_WORDS:
            break
        words.append(word)
    if not words:
        return None
    return " ".join(w.capitalize() if w.islower() else w for w in words)


_EN_LIST_SEP = re.compile(r"\s*(?:,\s*(?:and\s+|&\s*)?|and\s+|&\s*|\+\s*)(?:mr\.?\s+|ms\.?\s+|mrs\.?\s+)?", re.I)
_EN_NAME_RE = re.compile(_EN_NAME)
_EN_NAME_ANY_CASE_RE = re.compile(_EN_NAME_ANY_CASE)


def _en_name_at(text: str, start: int, *, any_case: bool) -> tuple[str, Span] | None:
    """The English name that starts at `start`, cut before the first word that is no name, with its span."""
    match = (_EN_NAME_ANY_CASE_RE if any_case else _EN_NAME_RE).match(text, start)
    name = _en_clean(match.group()) if match else None
    if not match or not name:
        return None
    kept = len(name.split())
    words = list(re.finditer(r"\S+", match.group()))
    return name, (start, start + words[kept - 1].end())


# "for John Smith" names a traveller only where something is being booked ("tornado warnings for Oklahoma City" not).
_BOOKING_WORDS = re.compile(
    r"\b(?:book|booking|reserve|reservation|tickets?|flights?|trains?|hotels?|rooms?|seats?|passengers?|guests?|"
    r"travell?ers?|mobile|phone)\b|订|票|乘|入住",
    re.I,
)


def _names_in(segment: str, offset: int, *, before_mobile: bool, booking: bool = True) -> list[tuple[str, Span]]:
    """Names in one stretch of text between mobiles, in order (the last one is the one nearest the next mobile)."""
    found: list[tuple[str, Span]] = []
    taken: list[Span] = []

    def add(name: str | None, span: Span) -> None:
        if name and all(span[1] <= s or span[0] >= e for s, e in taken) and name not in (n for n, _ in found):
            found.append((name, span))
            taken.append(span)

    for label in _ZH_LABEL_RE.finditer(segment):
        # "乘客张三、李四", "乘客Tom Smith和Anna Lee": the ones after the first must look like names
        got = _zh_labelled_name(segment, label.end()) or _en_name_at(segment, label.end(), any_case=False)
        while got:
            add(got[0], (offset + got[1][0], offset + got[1][1]))
            sep = _ZH_LIST_SEP.match(segment[got[1][1] :])
            nxt = got[1][1] + sep.end() if sep else None
            got = _zh_labelled_name(segment, nxt) if nxt is not None else None
            if got and _zh_name_at_end(got[0]) != got[0]:
                got = None
            if nxt is not None and got is None:
                got = _en_name_at(segment, nxt, any_case=False)
    for pattern in (_EN_LABEL_RE, _EN_FOR_RE, _EN_SELF_RE):
        if pattern is _EN_SELF_RE and not before_mobile:
            continue
        if pattern is _EN_FOR_RE and not (before_mobile or booking):
            continue
        for match in pattern.finditer(segment):
            got = _en_name_at(segment, match.start("name"), any_case=pattern is _EN_LABEL_RE)
            while got and (before_mobile or pattern is _EN_LABEL_RE or " " in got[0]):
                add(got[0], (offset + got[1][0], offset + got[1][1]))
                if pattern is _EN_SELF_RE:
                    break
                # "for Zhang Wei and Li Na", "passengers: Tom Smith, Anna Lee": the next one of the list
                sep = _EN_LIST_SEP.match(segment, got[1][1])
                got = _en_name_at(segment, sep.end(), any_case=pattern is _EN_LABEL_RE) if sep else None
    if before_mobile:
        tail = segment.rstrip()
        zh = _ZH_RUN_BEFORE.search(tail)
        if zh:
            name = _zh_name_at_end(zh.group("run"))
            if name:
                end = zh.start("run") + len(zh.group("run"))
                add(name, (offset + end - len(name), offset + end))
        en = _EN_BEFORE_RE.search(tail)
        if en:
            name = _en_clean(en.group("name"))
            if name:
                add(name, (offset + en.start("name"), offset + en.end("name")))
    found.sort(key=lambda item: item[1][0])
    return found


def find_people(text: str) -> list[Person]:
    """The people a (normalised) sentence names, each with the mobile given for them (or None), in order."""
    phones = list(PHONE_RE.finditer(text))
    people: list[Person] = []
    seen: set[str] = set()

    def add(name: str, mobile: str | None, span: Span) -> None:
        if name in seen:
            return
        seen.add(name)
        people.append(Person(name, mobile, span))

    previous_end = 0
    for index, phone in enumerate(phones):
        segment = text[previous_end : phone.start()]
        names = [n for n in _names_in(segment, previous_end, before_mobile=True) if n[0] not in seen]
        mobile = _mobile(phone.group())
        if names:
            for name, span in names[:-1]:
                add(name, None, span)
            add(names[-1][0], mobile, names[-1][1])
        else:
            # "13800000000 张三": the name right after the mobile (before the next one).
            nxt = phones[index + 1].start() if index + 1 < len(phones) else len(text)
            after = text[phone.end() : nxt]
            match = re.match(r"\s*[,，]?\s*(?P<run>[\u4e00-\u9fff]{2,4})(?![\u4e00-\u9fff])", after)
            name = _zh_name_at_end(match.group("run")) if match else None
            if match and name == match.group("run"):
                start = phone.end() + match.start("run")
                add(name, mobile, (start, start + len(name)))
        previous_end = phone.end()
    booking = bool(_BOOKING_WORDS.search(text))
    for name, span in _names_in(text[previous_end:], previous_end, before_mobile=False, booking=booking):
        add(name, None, span)
    return people


_LABEL_WORDS_RE = re.compile(
    r"乘机人|乘车人|乘客|旅客|出行人|入住人|住客|客人|联系人|预订人|姓名|名字|名叫|我叫|手机号?码?|电话(?:号码)?|联系方式|"
    r"\b(?:passengers?|guests?|travell?ers?|contact|names?|mobile|phone|tel|cell|number)\b",
    re.I,
)


def label_spans(text: str) -> list[Span]:
    """Where the words that introduce a passenger or a mobile are ("乘客", "电话", "mobile")."""
    return [m.span() for m in _LABEL_WORDS_RE.finditer(text)]


def first_mobile(text: str) -> str | None:
    """The first mobile number the sentence gives (digits only), with or without a name: "13800000000" alone."""
    phone = PHONE_RE.search(text)
    return _mobile(phone.group()) if phone else None


def passengers(text: str) -> tuple[list[dict], list[Span]]:
    """The passengers as the intent JSON has them ([{"name", "mobile"}]) and the spans of their names."""
    people = find_people(text)
    return [{"name": p.name, "mobile": p.mobile} for p in people], [p.span for p in people]


# What may stand around a name given alone as the answer to "who travels?" ("张三", "是张三", "乘客就写李四吧",
# "Zhang San", "name: John Smith please").
_BARE_FILLERS_ZH = re.compile(
    r"^(?:好的?|嗯|哦|那)?\s*(?:就|写|填|用)?\s*(?:是|叫)?\s*|\s*(?:就行|就好|吧|啊|呀|哈|的)?\s*$"
)
_BARE_EN = re.compile(
    rf"^(?:(?:it'?s|it is|name'?s?|under)\s*[:：]?\s*)?(?P<name>{_EN_NAME_ANY_CASE})\s*(?:please|thanks)?$", re.I
)


def bare_name(text: str) -> Person | None:
    """The name of a sentence that is only a name (with a few fillers around it), for the answer to a question
    about who travels: "张三", "是李四", "Zhang San". None when the sentence says anything else."""
    stripped = text.strip().strip(",，.。!！~～")
    zh = _BARE_FILLERS_ZH.sub("", stripped).strip()
    if re.fullmatch(r"[\u4e00-\u9fff·]{2,4}", zh) and zh not in COMPOUND_SURNAMES and _zh_name_at_end(zh) == zh:
        start = stripped.find(zh)
        return Person(zh, None, (start, start + len(zh)))
    match = _BARE_EN.match(stripped)
    if not match:
        return None
    said = match.group("name")
    name = _en_clean(said)  # None, or cut short, when a word of it is no name ("thanks", "hotel", "tomorrow")
    whole = name == " ".join(w.capitalize() if w.islower() else w for w in said.split())
    if name and whole and (" " in name or said[0].isupper()):
        return Person(name, None, match.span("name"))
    return None
