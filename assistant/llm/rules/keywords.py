"""Place phrases the gazetteer does not know, read from the place slot of a travel frame or by their ending.

"日照金山有什么活动", "火星上有什么活动", "去呀诺达玩", "things to do on Mars": the words in the place slot of a
frame ("X有什么活动", "去X玩", "things to do in X") are kept whole as a keyword when the gazetteer does not cover
them. A known place at the front of an unknown phrase is not the destination ("日照金山" is not the city 日照); a
known place followed by other words stays the place ("三亚海边", "成都周边", "霞浦滩涂摄影": 霞浦). The two ends of
an English route ("from Lisbon to Porto", "to Porto from Lisbon") are read the same way, each marked with its
`role`: where the route starts is an origin, not a destination.

Anywhere in a Chinese sentence, a name followed by the word for a kind of place (岛, 古镇, 湖, 山, 草原 …) is a
place: "东极岛现在还有出海钓鱼的项目不", "查一下南浔古镇的游船票". The ending alone ("小镇", "山上"), after a
verb ("爬山") or after a province ("内蒙古大草原") names none; a known place with its ending ("平潭岛") is the known
place, said as written (`with_ending`).

A name in Latin letters is a place by the grammar of where it stands and by not being English (`_latin_names`): a
capitalised word or run of them ("Hoi An", "Tromsø") after "in / at / around / near / to", "visit / explore", "what's
on in"; first in a sentence before what is asked of it ("Zermatt hotel for 2 nights"); in a Chinese place slot
("去Rovaniemi", "Tbilisi有什么…", "Nara一日游"); at either end of a route ("从Lisbon到Porto", "上海到Lisbon"). A
word English has (`spelling.english_word`: "Friday", "Best", "Christmas"), a word of the readers' lexicons (a
product, a vendor) and a word typed in lower case are no names there.
"""

import re
from dataclasses import dataclass

from assistant.llm.rules import booking_prefs, conversation_cues, dates, intents, products, spelling
from assistant.llm.rules.text import LATIN

Span = tuple[int, int]

_CJK = r"[\u3400-\u9fff]"
# "X有什么活动" / "X上有什么好玩的" / "X有没有团": the CJK run right before the tail is the slot.
_ZH_TAIL = re.compile(
    r"(?:上|里|那边|那儿|那里|这边)?(?:有(?:什么|啥|哪些|没有)|有无|能玩|可以玩|怎么玩|好玩吗|好玩不|值得去|的活动|的景点|"
    r"的攻略|的行程|的天气|的团|天气)"
)
# "去X玩" / "到X旅游": between a verb of going and a verb of doing.
_ZH_GO = re.compile(rf"(?:去|到|飞去|飞到|前往)(?P<x>{_CJK}{{2,8}}?)(?:玩|旅游|旅行|度假|看看|逛逛|走走|转转|游玩)")
_TRAILING_AROUND = re.compile(r"(?:附近|周边|周围|一带|那边|这边|边上|旁边|那儿|那里)$")
_LEADING_WORDS = re.compile(
    r"^(?:看看|看下|看一下|查查|查一下|查下|问问|问一下|请问|想知道|知道|推荐|推荐一下|介绍|介绍一下|告诉|说说|了解|了解一下|"
    r"搜|搜索|搜一下|找|找找|帮忙|麻烦|请|关于|听说|据说|去|到|在|想去)+"
)
_EN_PLACE = rf"(?P<x>(?:the\s+)?[{LATIN}][{LATIN}'.-]*(?:\s+[{LATIN}][{LATIN}'.-]*){{0,2}})"
_EN_FRAMES = (
    re.compile(
        r"\b(?:things to do|what to do|activities|tours?|trips?|fun|weather|places to visit|what'?s there to do|"
        r"events?|happening|going on|to see|to visit|to eat|sights?|attractions?|museums?|shows?|concerts?|"
        r"anything|something|hiking|hikes?|skiing|diving|surfing|camping|sightseeing|forecast|rain(?:ing)?|"
        r"snow(?:ing)?|storms?|hail|tornado(?:es)?|warnings?|humid(?:ity)?|temperatures?|cold|hot|warm|sunny|"
        r"windy|freezing|chilly|like|hotels?|rooms?|hostels?|stay|staying|accommodation|apartments?|outside|"
        r"guides?|itinerary|plan|trips?|days?)\s+"
        rf"(?:in|on|at|around|near|for|over|close to|next to|by|from)\s+{_EN_PLACE}",
        re.I,
    ),
    re.compile(
        r"\b(?:flights?|trains?|tickets?|bus|ferry|fly|flying|drive|driving|ride)\s+(?:to|into|for)\s+" + _EN_PLACE,
        re.I,
    ),
    re.compile(r"\b(?:visit|visiting|explore|exploring)\s+" + _EN_PLACE),
    re.compile(
        r"\b(?:do|go|stay|eat|shop|see|hike|ski|swim|dive|surf|camp|coming|come|headed|going|getting)\s+"
        r"(?:in|at|around|near|to|into)\s+" + _EN_PLACE,
        re.I,
    ),
    re.compile(
        r"\b(?:go|going|travel|travell?ing|fly|flying|head|heading|trip|vacation|holiday)\s+to\s+"
        rf"(?P<x>[{LATIN}][{LATIN}'-]*(?:\s+[{LATIN}][{LATIN}'-]*){{0,2}})",
        re.I,
    ),
)
# The two ends of a route ("from Lisbon to Porto", "to Porto from Lisbon"), each a name that starts with a capital
# (or any word, in a sentence typed all in lower case): "from work to home", "from economy to business" are no route.
_EN_END_WORD = rf"(?!(?:to|from)\b)[{LATIN}][{LATIN}'.-]*"
_EN_END = rf"(?:the\s+)?{_EN_END_WORD}(?:\s+{_EN_END_WORD}){{0,2}}?"
_EN_ROUTES = (
    re.compile(rf"\bfrom\s+(?P<o>{_EN_END})\s+(?:to|->|→)\s+(?P<x>{_EN_END})(?![{LATIN}'.-])", re.I),
    re.compile(rf"\bto\s+(?P<x>{_EN_END})\s+from\s+(?P<o>{_EN_END})(?![{LATIN}'.-])", re.I),
)
# A phrase made of these is not a place of its own.
_FUNCTION_CHARS = set(
    "我你他她它们的了吗呢吧啊么也都还很太最更就才要想去到在是和跟与或个些点下这那哪谁几多少什么怎样好有没不啥咋"
)
_GENERIC = re.compile(
    r"^(?:周末|周边|附近|国内|国外|海外|境外|外地|本地|当地|市区|市内|郊区|郊外|城里|城区|景区|古城|老城|一带|地区|那边|这边|"
    r"冬天|夏天|春天|秋天|冬季|夏季|春季|秋季|寒假|暑假|假期|节假日|节日|白天|晚上|今天|明天|最近|平时|亲子|情侣|老人|小孩|"
    r"孩子|学生|公司|团建|户外|室内|免费|便宜|城市|山里|山上|海边|岛上|乡下|农村|北方|南方|东北|西北|西南|华东|华南|华北|"
    r"其他|别的|另外|一般|这里|那里|这儿|那儿|家里|家附近|旅游|旅行|活动|景点|项目|套餐|行程|攻略|天气|温泉|滑雪|徒步|露营|"
    r"爬山|登山|潜水|冲浪|骑行|自驾|看雪|赏雪|看海|赏花|赏枫|漂流|观星|摄影|拍照|看日出|游船|骑马|草原|古镇|海岛|沙漠|"
    r"雪山|湖边|江边|河边|森林|公园|博物馆|乐园|游乐园|动物园|年底|月底|下周|本周|这周|下个月|元旦|春节|国庆|五一|圣诞|跨年|"
    r"度假|网红|小众|热门|著名|有名|出名|美丽|漂亮|特色)$"
)
# After a known place, a generic word keeps the place ("三亚海边", "成都周边", "杭州西湖边").
_GENERIC_AFTER_PLACE = re.compile(
    r"^(?:环线|大环线|小环线|环湖|环岛|线路|路线|一线|自驾|徒步|深度游|之旅|游|周边游|周边玩|一日游|二日游|两日游|自由行|跟团游|美食|小吃|夜景|夜市|酒吧|购物|玩法|特产|民俗|文化|"
    r"风景|风光|老街|步行街|商圈|市场|雪景|红叶|樱花|花海|周末|冬天|夏天|春天|秋天|冬季|夏季|春季|秋季|"
    r"市|县|区|省|州|镇|乡|村|的?周边|附近|一带|地区|市区|市内|城区|郊区|郊外|当地|本地|那边|这边|边上|边|海边|山上|山里|岛上|"
    r"古城|老城|新区|景区|周围|附近的?|地方|这里|那里|城|站|机场|火车站|高铁站|湖边|江边|河边|沿海|沿线|园林|园子)$"
)
_EN_STOP = {
    "the", "a", "an", "my", "our", "this", "that", "next", "winter", "summer", "spring", "autumn", "fall", "town",
    "city", "there", "here", "china", "the city", "area", "nearby", "weekend", "holiday", "vacation", "december",
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "tomorrow", "today", "see",
    "yesterday", "yday", "last",
    "be", "do", "go", "get", "somewhere", "anywhere", "places", "place", "it", "them", "you", "me", "with", "for",
    "from", "and", "or", "under", "budget", "days", "day", "week", "weeks", "month", "night", "nights", "cheap",
    "book", "plan", "visit", "travel", "beach", "mountains", "mountain", "countryside", "abroad", "overseas",
    "local", "downtown", "hotel", "flight", "train", "airport", "station", "family", "kids", "friends",
    "christmas", "new", "year", "what", "which", "where", "is", "are", "will", "would", "please", "some", "any",
    "in", "on", "at", "to", "of", "about", "around", "near", "by", "now", "then", "also", "too", "again",
    "was", "were", "has", "had", "got", "been", "tonight", "morning", "afternoon", "evening", "right", "soon",
    "later", "early", "late", "cheapest", "best", "good", "nice", "fun", "first", "back", "home", "work", "school",
    "outside", "dinner", "lunch", "breakfast", "over", "during", "tmrw", "tmr", "tonite", "asap", "pls", "plz", "rn",
    "btw", "thx",
    # verbs that follow "going to" / "want to" ("is it going to hail in Denver")
    "hail", "rain", "snow", "storm", "pour", "freeze", "happen", "buy", "eat", "have", "take", "make", "stay",
    "start", "leave", "arrive", "cost", "need", "try", "cancel", "change", "pay", "ask", "know", "find", "check",
    # what a "from … to …" runs between besides places: classes, seats, ends of a scale, parts of a trip
    "economy", "business", "premium", "coach", "window", "aisle", "standard", "deluxe", "low", "high", "top",
    "bottom", "office", "terminal", "gate", "hostel", "north", "south", "east", "west", "end", "finish", "door",
    "bad", "worse", "better",
}  # fmt: skip


_EN_NAME_WORDS = {
    "mountain", "mountains", "lake", "beach", "island", "islands", "park", "river", "valley", "town", "city", "bay",
}  # fmt: skip
_EN_GENERIC = {
    "area", "city", "centre", "center", "downtown", "district", "region", "province", "old", "town", "county",
    "suburbs", "outskirts", "nearby", "surroundings", "side", "coast", "beach", "lake", "park",
}  # fmt: skip


@dataclass(frozen=True)
class Phrase:
    text: str
    start: int
    end: int
    role: str = ""  # "from" / "to": an end of a route ("from Lisbon to Porto"); "" elsewhere


# A Chinese place no list knows, read by its ending: a name followed by the word for the kind of place it is
# ("东极岛", "南浔古镇", "梅里雪山"). Longest ending first; an ending that holds a generic word (雪山, 小镇, 海岛)
# still needs a name before it, so "爬雪山", "小镇", "山上" alone are no places.
_ZH_ENDINGS = (
    "大峡谷", "大草原", "古镇", "小镇", "古村", "乡村", "山村", "渔村", "雪山", "火山", "海岛", "小岛", "群岛",
    "景区", "草原", "峡谷", "岛", "镇", "村", "湖", "山",
)  # fmt: skip
_ENDING_RE = re.compile("|".join(sorted(_ZH_ENDINGS, key=len, reverse=True)))
_ENDS_AS_PLACE = re.compile(f"(?:{_ENDING_RE.pattern})$")
# Words that start with an ending and are no ending ("桂林山水", "山区", "村民", "黄山山顶").
_NOT_ENDINGS = (
    "山水", "山区", "山庄", "山寨", "山顶", "山脚", "山腰", "湖水", "湖畔", "湖滨", "村民", "岛民", "岛国", "镇长",
)  # fmt: skip
# Verbs of going to or about a place: before an ending they make no name ("爬山", "登岛", "游湖", "逛古镇").
_VERBS_BEFORE_PLACE = frozenset("爬登游逛环绕上下进出看拍赏玩")


_NOT_PLACE_WORDS = re.compile(
    r"^[一二两三四五六七八九十几半]|夜|昨天|昨日|前天|顺便|顺带|顺道|另外|同时|然后|帮忙|麻烦|查|问|告诉|了解|知道|推荐|介绍|以内|以下|之内|左右|"
    r"预算|块钱|元|人均|价格|便宜|贵|星级|适合|孩子|小孩|宝宝|老人|情侣|亲子|学生|家庭|朋友|同事|一家|全家|带娃"
)


def _zh_ok(phrase: str) -> bool:
    return (
        2 <= len(phrase) <= 8
        and not any(ch in _FUNCTION_CHARS for ch in phrase)
        and not _NOT_PLACE_WORDS.search(phrase)
        and not _GENERIC.match(phrase)
        and re.fullmatch(rf"{_CJK}+", phrase) is not None
    )


def _ending_phrases(text: str, known: list[Span], regions: list[Span]) -> list[Phrase]:
    """Chinese places no list knows, read by their ending ("东极岛", "南浔古镇", "日照金山")."""
    found: list[Phrase] = []
    for match in _ENDING_RE.finditer(text):
        at, end = match.span()
        if text.startswith(_NOT_ENDINGS, at) or any(s < end and e > at for s, e in known):
            continue
        start = at
        while start > 0 and re.match(_CJK, text[start - 1]):
            start -= 1
        run = text[start:at]
        cuts = [start + i + 1 for i, ch in enumerate(run) if ch in _FUNCTION_CHARS]
        cuts += [start + m.end() for m in _NOT_PLACE_WORDS.finditer(run)]
        cuts += [e for s, e in regions if start <= s and e <= at]  # "内蒙古大草原": the province is no name
        # (never inside a known place: "三亚" starts with a numeral, "都江堰" with a function word)
        name_start = max((c for c in cuts if not any(s < c < e for s, e in known)), default=start)
        place = max(((s, e) for s, e in known if name_start <= s and e <= at), key=lambda span: span[1], default=None)
        if place is not None and (place[1] == at or text[place[1]] in _VERBS_BEFORE_PLACE):
            continue  # a known place with its ending ("厦门岛": the place, as said, `with_ending`) or a verb ("黄山爬山")
        if place is not None and at - place[1] == 1:
            name = text[place[0] : at]  # "日照金山": the place and one word of its own make one name
        else:
            name = text[place[1] if place else name_start : at]  # "舟山东极岛": 舟山, then the name 东极
            lead = _LEADING_WORDS.match(name)
            name = name[lead.end() :] if lead else name
            while len(name) > 2 and name[0] in _VERBS_BEFORE_PLACE:  # "逛南浔古镇"
                name = name[1:]
            if not 2 <= len(name) <= 4 or name[-1] in _VERBS_BEFORE_PLACE or _GENERIC.match(name):
                continue
        if _zh_ok(name + match.group()):
            found.append(Phrase(name + match.group(), at - len(name), end))
    return found


def with_ending(text: str, start: int, end: int) -> str | None:
    """A known place as said with the word for its kind, when it is ("平潭岛" for 平潭, "厦门岛", "丽江古镇")."""
    said = text[start:end]
    match = _ENDING_RE.match(text, end)
    if match and not text.startswith(_NOT_ENDINGS, end):
        said += match.group()
    return said if _ENDS_AS_PLACE.search(said) else None


def unknown_phrases(text: str, known: list[Span], regions: list[Span] = (), said: str | None = None) -> list[Phrase]:
    """Phrases in a place slot that the gazetteer does not cover (`known` = spans of its matches, `regions` those
    of them that are provinces), and places read by their ending anywhere; a phrase that starts with a known place
    and goes on with a word of its own is returned whole when it ends as a place ("日照金山"), else it stops at the
    place ("霞浦滩涂摄影": 霞浦). `text` has the other readers' slots masked; `said` (the same offsets) keeps them, for
    what stands after a name ("Nara一日游": a trip length, and what a place has)."""
    found = _ending_phrases(text, known, list(regions))
    endings = [(p.start, p.end) for p in found]
    slots: list[tuple[int, int]] = []
    for match in _ZH_TAIL.finditer(text):
        start = end = match.start()
        while start > 0 and re.match(_CJK, text[start - 1]):
            start -= 1
        slots.append((start, end))
    slots += [m.span("x") for m in _ZH_GO.finditer(text)]
    for start, end in slots:
        run = text[start:end]
        cut = max((i + 1 for i, ch in enumerate(run) if ch in _FUNCTION_CHARS), default=0)
        first_known = min((s for s, e in known if start <= s < end), default=None)
        if first_known is not None and first_known - start >= cut:
            cut = first_known - start  # a known place starts the phrase: what stands before it is not the place
        run = run[cut:]
        lead = _LEADING_WORDS.match(run)
        if lead and first_known is None:
            run = run[lead.end() :]
        tail = _TRAILING_AROUND.search(run)
        if tail and tail.start() >= 2:  # "南锣鼓巷附近": the place is what the nearness is to
            end -= len(run) - tail.start()
            run = run[: tail.start()]
        start = end - len(run)
        if any(start <= s and e <= end for s, e in endings):
            continue  # read by its ending ("东极岛出海钓鱼"), the places in it are read
        stop = max((min(e, end) for s, e in known if start <= s < end), default=end)
        end, run = stop, text[start:stop]  # "霞浦滩涂摄影": the phrase stops at the place
        phrase = run
        if not _zh_ok(phrase) or _ENDS_AS_PLACE.search(phrase):
            continue  # a phrase that ends as a place is the ending's to read ("小镇", "雨天爬山" are none)
        inside = [(s, e) for s, e in known if s < end and e > start]
        if inside:
            covered = sum(min(e, end) - max(s, start) for s, e in inside)
            rest = "".join(text[i] for i in range(start, end) if not any(s <= i < e for s, e in inside))
            if covered >= end - start or len(rest) < 2 or _GENERIC_AFTER_PLACE.match(rest) or _GENERIC.match(rest):
                continue
            if not any(s == start for s, _ in inside):
                continue  # the unknown part comes first ("呀诺达三亚"): not a phrase we can trust
        if all(p.start != start for p in found):
            found.append(Phrase(phrase, start, end))
    if re.search(r"[A-Za-z]", text):
        lowercase = text == text.lower()  # a sentence typed all in lower case names places in lower case
        for pattern in _EN_ROUTES:  # first, so that an end of a route keeps its role
            for match in pattern.finditer(text):
                ends = [_en_route_end(text, match, group, known, lowercase) for group in ("o", "x")]
                if None in ends:
                    continue  # "from work to home", "from cheapest to most expensive": no route between places
                found += [p for p in ends if isinstance(p, Phrase) and all(f.start != p.start for f in found)]
        for pattern in _EN_FRAMES:
            for match in pattern.finditer(text):
                phrase = _en_phrase(text, match.start("x"), match.group("x"), known, lowercase)
                if phrase and all(p.start != phrase.start for p in found):
                    found.append(phrase)
        found += _latin_names(text, known, found, said or text)
    found.sort(key=lambda p: p.start)
    return found


def _en_route_end(text: str, match: re.Match, group: str, known: list[Span], lowercase: bool) -> Phrase | bool | None:
    """An end of a route: its phrase, True for a place the gazetteer knows, None for no place ("work", "A")."""
    start, end = match.span(group)
    if any(s < end and e > start for s, e in known):
        return True
    said = match.group(group)
    name = re.sub(r"^the\s+", "", said, flags=re.I)
    if not (lowercase or name[:1].isupper()) or len(name.split()[0]) < 3:
        return None  # a name is written with a capital, and longer than "A"
    return _en_phrase(text, start, said, known, lowercase, "from" if group == "o" else "to")


def _en_phrase(text: str, at: int, said: str, known: list[Span], lowercase: bool, role: str = "") -> Phrase | None:
    """The English name a frame's place slot holds from `at` (`said`), as written, or None: its words run on while
    capitalised ("Rizhao Golden Mountain"), not into "below 2000", and a known place alone is no phrase."""
    words = []
    raw = said.split()
    if raw and raw[0].lower() == "the" and len(raw) > 1 and (raw[1][:1].isupper() or lowercase):
        raw = raw[1:]  # "the Alps", "the Great Wall"
    for word in raw:
        if words and not (word[:1].isupper() or lowercase) and word.lower() not in _EN_NAME_WORDS:
            break
        if word.lower() in _EN_STOP and not (words and word.lower() in _EN_NAME_WORDS) or word == "I":
            break  # "train to Kunming I can still get on"
        if word.endswith(".") and len(word) > 4:
            words.append(word[:-1])  # "a day-by-day for Chengdu. I arrive Thursday": the sentence ends
            break
        words.append(word)
    if not words:
        return None
    start = text.find(words[0], at)
    end = start + len(" ".join(words))
    if _known_alone(text, start, end, known):
        return None
    return Phrase(" ".join(words), start, end, role)  # as written (the engine adds a capitalised form)


def _known_alone(text: str, start: int, end: int, known: list[Span]) -> bool:
    """Whether a phrase is only a known place, maybe with generic words ("Beijing city"), or holds one it does not
    start with: "Rizhao Golden Mountain", a known place followed by words of its own, is a phrase of its own."""
    inside = [(s, e) for s, e in known if s < end and e > start]
    if not inside:
        return False
    rest = text[max(e for _, e in inside) : end].split()
    return inside[0][0] != start or not rest or all(w.lower() in _EN_GENERIC for w in rest)


# --- names in Latin letters -------------------------------------------------------------------------------------
# A capitalised word no list knows is a place where a place stands and English has no word for it (`_latin_names`).
_LATIN_WORD = re.compile(rf"(?<![{LATIN}0-9'’-])[{LATIN}]+(?:['’-][{LATIN}]+)*")
# Words that stand before a name and belong to it ("Lake Tahoe", "Mount Kailash", "Old Tbilisi").
_EN_NAME_HEADS = {"lake", "mount", "mt", "san", "santa", "saint", "st", "port", "fort", "cape", "isle", "new", "old"}
# Where a place stands in English: "in / at / around / near / to X", "visit / explore X", "what's on in X" …
_EN_BEFORE_NAME = re.compile(
    r"(?:\b(?:in|at|around|near|to|visit|visiting|explore|exploring)|\bwhat'?s on in)\s+(?:the\s+)?$", re.I
)
# … but after "to" a word that takes a person or a thing names no place ("talk to Emily", "send it to Lisa").
_TO_NO_PLACE = re.compile(
    r"\b(?:talk(?:ing)?|speak(?:ing)?|say|said|send|sent|give|gave|given|write|wrote|reply|replied|explain|"
    r"introduce|listen|belongs?|email|text|message|forward|pass|married|thanks|sorry|similar|compared|due|"
    r"according|prefer|switch|change|upgrade)\s+(?:(?:it|them|this|that|me|us|him|her)\s+)?to\s+(?:the\s+)?$",
    re.I,
)
# 到 goes to a place, but completes another verb ("收到Emily的消息", "看到", "找到", "遇到": received, saw, found, met).
_ARRIVE = "(?<![收看见遇碰找拿得听想办做买用等感受提说])到"
# … and in Chinese: after a verb of going or being ("去Rovaniemi", "在Nara"), before what a place has ("Tbilisi有什么",
# "Nara一日游", "Porto的天气", "Zermatt酒店").
_ZH_BEFORE_NAME = re.compile(rf"(?:去|{_ARRIVE}|在|飞|飞往|飞到|前往|回到|来|从|由|至)\s*$")
_ZH_AFTER_NAME = re.compile(
    rf"\s*(?:{_ZH_TAIL.pattern}|{_GENERIC_AFTER_PLACE.pattern[1:-1]}|玩|旅游|旅行|度假|看看|逛逛|走走|转转|游玩|"
    r"(?:的)?(?:酒店|民宿|机票|航班|火车|高铁|景点|活动|攻略|行程))"
)
_ON_OR_HOME = re.compile(r"\s*(?:上(?!海)|家)")
# A route between two places: "从Lisbon到Porto", "上海到Lisbon", "Lisbon to Porto".
_ORIGIN_MARK = re.compile(r"(?:从|由)\s*$|\bfrom\s+$", re.I)
_ROUTE_ON = re.compile(r"\s*(?:到|至|飞|去|->|→|\bto\b)\s*", re.I)
_ROUTE_TO = re.compile(r"(?:到|至|飞|去|飞往|飞到|前往|->|→|\bto)\s*$", re.I)
_CLAUSE_END = re.compile(r"[,.!?;:，。！？；：]")


def _capitalised(word: str) -> bool:
    return word[:1].isupper() and not word.isupper()  # not a code ("SFO", "ORD"), nor "I"


def _name_word(word: str, first: bool) -> bool:
    """A word that can be (part of) a name: none of English (the dictionary), of the readers' lexicons (products,
    vendors, cue words) or of the words that are never a place."""
    lowered = word.lower()
    lexicon = spelling.cue_words((intents, products, booking_prefs, conversation_cues, *dates.READERS))  # read once
    return not (lowered in _EN_STOP or lowered in lexicon or spelling.english_word(word, first=first))


def _name_at(text: str, at: int, first: bool = False) -> tuple[int, int] | None:
    """The name a run of capitalised words from `at` spells ("Hoi An", "Lake Tahoe", "Tromsø"), or None when the run
    starts with a word of English ("Friday"; with `first`, first in an English sentence where every word has a
    capital, with any word about as common as "Sushi": "Best hikes", "Cheap flights"). A name goes on over capitalised
    words English has not, syllables ("Hoi An", "Chiang Mai") and the words for a kind of place ("Halong Bay"), never
    over "I"."""
    words = []
    for match in _LATIN_WORD.finditer(text, at):
        if match.start() != (words[-1].end() + 1 if words else at) or not _capitalised(match.group()):
            break
        words.append(match)
    heads = 0
    while heads < len(words) and words[heads].group().lower() in _EN_NAME_HEADS:
        heads += 1
    if (
        heads == len(words)
        or len(words[heads].group()) < 3
        or not _name_word(words[heads].group(), first and not heads)
    ):
        return None
    end = heads + 1
    while end < len(words):
        word = words[end].group()
        lowered = word.lower()
        if not (_name_word(word, False) or lowered in spelling.pinyin_syllables() or lowered in _EN_NAME_WORDS):
            break
        end += 1
    last = words[end - 1]
    return words[0].start(), last.end() - (2 if re.search("['’]s$", last.group()) else 0)  # "Nara's deer park"


def _request_follows(text: str, end: int) -> bool:
    """Whether the words after a name ask for an activity or a product ("Hoi An lantern-making workshops?", "Tromsø
    husky sledding", "Zermatt hotel for 2 nights"): one of the next three, in lower case, is a word of the search,
    plan, weather or product cues, or an activity (a verb's -ing form)."""
    rest = text[end:]
    cut = _CLAUSE_END.search(rest)
    words = (rest[: cut.start()] if cut else rest).split()[:3]
    if not words or not words[0][:1].islower():
        return False
    said = " ".join(words)
    cues = [pattern for _, pattern in products.PATTERNS]
    cues += [
        pattern
        for cue_list in (intents.SEARCH_CUES, intents.PLAN_CUES, intents.WEATHER_CUES)
        for pattern, _ in cue_list
    ]
    if any(pattern.search(said) for pattern in cues):
        return True
    return any(w.endswith("ing") and spelling.english_word(w) for w in re.findall(f"[{LATIN}]+", said))


def _starts_sentence(text: str, at: int) -> bool:
    head = text[:at].rstrip()
    return not head or head[-1] in ".!?;。！？；"


def _place_follows(text: str, end: int, taken: list[Span]) -> bool:
    """Whether a route goes on from `end` to a place: "Lisbon到上海", "Lisbon to Porto"."""
    step = _ROUTE_ON.match(text, end)
    return step is not None and (any(s == step.end() for s, _ in taken) or _name_at(text, step.end()) is not None)


def _place_ends_at(text: str, start: int, ends: list[int]) -> bool:
    """Whether a place ends right before the route's word that leads to `start`: "上海到Lisbon"."""
    step = _ROUTE_TO.search(text, max(0, start - 12), start)
    if step is None:
        return False
    return len(text[: step.start()].rstrip()) in ends


def _latin_names(text: str, known: list[Span], found: list[Phrase], said: str) -> list[Phrase]:
    """Names in Latin letters that stand where a place stands: after "in / at / around / near / to", "visit /
    explore", "what's on in"; in a Chinese place slot ("去Rovaniemi", "Tbilisi有什么…", "Nara一日游"); at either end
    of a route ("从Lisbon到Porto", "上海到Lisbon", "Lisbon to Porto"); first in a sentence that names no other place,
    before what it asks of it ("Zermatt hotel for 2 nights"). Kept as written; a capitalised word English has, or a
    word in lower case, is none.
    """
    names: list[Phrase] = []
    leading: list[Phrase] = []
    taken = [(p.start, p.end) for p in found] + list(known)
    for match in _LATIN_WORD.finditer(text):
        at = match.start()
        if not _capitalised(match.group()) or any(s <= at < e for s, e in taken):
            continue
        span = _name_at(text, at)
        if span is None or _known_alone(text, *span, known):
            continue
        start, end = span
        before, after = text[max(0, start - 40) : start], said[end : end + 40]
        # what a place has, said after the name itself or after a slot between ("Dubrovnik下周天气", "Nara一日游")
        has_after = _ZH_AFTER_NAME.match(after) or _ZH_AFTER_NAME.match(text, end)
        route_to = bool(_ROUTE_TO.search(before)) and _place_ends_at(text, start, [e for _, e in taken])
        role = "from" if _ORIGIN_MARK.search(before) or _place_follows(text, end, taken) else "to" if route_to else ""
        english_slot = _EN_BEFORE_NAME.search(before) and not _TO_NO_PLACE.search(before)
        on_or_at_home = _ON_OR_HOME.match(after)  # "在Agoda上订的", "在Emily家": a site, a person's home
        chinese_slot = (_ZH_BEFORE_NAME.search(before) and not on_or_at_home) or has_after
        if role or english_slot or chinese_slot:
            names.append(Phrase(text[start:end], start, end, role))
            taken.append((start, end))
        elif _starts_sentence(text, start) and _name_at(text, at, first=True) and _request_follows(text, end):
            leading.append(Phrase(text[start:end], start, end))
    # A request names one place: beside another, a word leading it is what it is about ("Ramen tours in Tokyo").
    return names if names or known or found else leading[:1]
