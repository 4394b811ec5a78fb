"""What a sentence says about the conversation rather than about the trip: which option it picks, whether it
corrects or excludes a place, whether it only changes slots of the task at hand, asks for activities or points back
at the task's time, a greeting or thanks, a change of an existing booking (改签), and why the traveller wants their
money back.

Each reader is a grammar over the normalised sentence; the engine decides what the findings mean for the intent.
The conversation state (what to carry between turns, `assistant.conversation_state`) is not decided here: the sentence only reports what it says.
"""

import re

from assistant.llm.rules.numbers import cn_to_int

Span = tuple[int, int]

# -- picking one of the options shown -------------------------------------------------------------------------------

_ORDINAL_EN = {
    "first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5, "5th": 5,
    "sixth": 6, "6th": 6, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
}  # fmt: skip
_PICK_UNIT = r"(?:个|家|班|趟|条|种|项|款|套|间|位|个方案|个选项|号|选项|方案|航班|车次|酒店|张)"
PICK_PATTERNS = (
    re.compile(rf"第\s*(?P<n>\d{{1,2}}|[一二两三四五六七八九十]{{1,2}})\s*{_PICK_UNIT}"),
    re.compile(r"(?<![\d月])(?P<n>\d{1,2}|[一二三四五六七八九十])\s*号\s*(?:方案|选项|套餐|option)"),
    re.compile(r"(?:方案|选项|套餐)\s*(?P<n>\d{1,2}|[一二三四五六七八九十])(?![\d号月日天])"),
    re.compile(r"(?:选|要|订|就|来)\s*(?P<n>[1-9])\s*(?:吧|号|个)?\s*$"),
    re.compile(r"\b(?:option|choice|number|no\.|#)\s*(?P<n>\d{1,2})\b", re.I),
    # "pick 2" (the chip's own words), "take 3": a number alone after the verb, not "book 2 tickets".
    re.compile(
        r"\b(?:pick|choose|select|take|go with|i'?ll take|let'?s do)\s+(?:number\s+|no\.?\s*|#)?(?P<n>\d{1,2})\b"
        r"(?!\s*(?:tickets?|seats?|people|persons?|adults?|kids?|children|rooms?|nights?|days?|pm|am|:|点|号))",
        re.I,
    ),
    re.compile(
        r"\b(?:the\s+)?(?P<o>first|second|third|fourth|fifth|sixth|1st|2nd|3rd|4th|5th|6th)\s+"
        r"(?:one|option|choice|plan|result|room|combo|combination)\b",
        re.I,
    ),
    # "the second flight" picks; "the first flight out" is the earliest one (a sort, not a pick).
    re.compile(
        r"\b(?:the\s+)?(?P<o>second|third|fourth|fifth|sixth|2nd|3rd|4th|5th|6th)\s+(?:flight|train|hotel)\b", re.I
    ),
    re.compile(
        r"\b(?:take|pick|choose|select|go with|book|want|i'?ll take|i'?ll have|give me|let'?s do|let'?s go with)\s+"
        r"(?:the\s+)?(?P<o>first|second|third|fourth|fifth|sixth|1st|2nd|3rd|4th|5th|6th)\b(?![- ]class)",
        re.I,
    ),
    re.compile(r"\b(?:option|choice|plan|number)\s+(?P<o>one|two|three|four|five|six)\b", re.I),
    # "that one, the third" / "the second, please": an ordinal standing alone.
    re.compile(
        r"\bthe\s+(?P<o>first|second|third|fourth|fifth|sixth|1st|2nd|3rd|4th|5th|6th)\b(?=\s*(?:[,.!?]|please|$))",
        re.I,
    ),
)


def read_pick(text: str) -> tuple[int | None, Span | None]:
    """The 1-based position of the option the sentence picks ("第二个", "option 2", "the second one")."""
    for pattern in PICK_PATTERNS:
        match = pattern.search(text)
        if not match:
            continue
        groups = match.groupdict()
        if groups.get("o"):
            value = _ORDINAL_EN.get(groups["o"].lower())
        else:
            raw = groups["n"]
            value = int(raw) if raw.isdigit() else cn_to_int(raw)
        if value and 0 < value <= 20:
            return value, match.span()
    return None, None


# -- corrections and exclusions -------------------------------------------------------------------------------------

CORRECTION_RE = re.compile(
    r"(?:^|[,，.。!！?？\s])(?:不对|不是不是|错了)+(?=[,，.。!！?？\s啊呀哦]|$)|说错|搞错|弄错|写错了|打错了|看错了|记错了|口误|"
    r"更正|纠正一下|我是说|我说的是|我的意思是|我是想说|应该是|其实是|"
    r"\b(?:i meant|i mean|sorry,? (?:i meant|it'?s|make that|not)|correction|my (?:bad|mistake)|wrong (?:city|place|date|one)|"
    r"actually,? (?:it'?s|i meant|i want|make it)|not that one)\b",
    re.I,
)
# "不是X是Y" / "是Y不是X" / "not X, Y" / "Y, not X": a place said right and one said wrong.
NOT_THIS_BUT_THAT_ZH = re.compile(r"不是\s*$")
_NEG_BEFORE_ZH = re.compile(
    r"(?:不想|不要|不愿意?|不打算|不考虑|不太想|不喜欢|不去|别去|别再去|别推荐|别|甭|除了|除开|排除|避开|不用|不是|没兴趣去|不包括|不含|"
    r"除去|不选|不订|不飞)\s*(?:再|去|到)?\s*(?:去|到|飞|推荐|考虑|选|要|看|玩)?\s*(?:了)?\s*$"
)
_NEG_AFTER_ZH = re.compile(
    r"^\s*(?:以外|之外|除外|就不去了|不去了?|不想去|不要了?(?!太|过|超)|不考虑|就算了|算了|pass|去过了|去腻了|玩过了|"
    r"太(?:远|贵|冷|热|挤|累|晒|远了|贵了)了?|人太多|不行|不合适|不感兴趣|没意思|排除)"
)
_NEG_BEFORE_EN = re.compile(
    r"\b(?:not|no|except|excluding|exclude|but|other than|rather than|instead of|avoid|avoiding|skip|never|"
    r"anywhere but|anything but|somewhere other than|don'?t (?:want to |wanna |like to )?(?:go to|visit|like|want)|"
    r"do not (?:want to )?(?:go to|visit)|not (?:to|in)|no more|not interested in|without|"
    r"(?:not|never|don'?t|do not|won'?t|wouldn'?t)\s+(?:want to\s+|wanna\s+|like to\s+)?"
    r"(?:go(?:ing)? (?:to|back to)|visit(?:ing)?|travel(?:l?ing)? to|fly(?:ing)? to|see))\s*$",
    re.I,
)
_NEG_AFTER_EN = re.compile(r"^\s*(?:is out|excluded|not please|no thanks|is off the list)\b", re.I)


def is_correction(text: str) -> bool:
    return bool(CORRECTION_RE.search(text))


def correction_spans(text: str) -> list[Span]:
    return [m.span() for m in CORRECTION_RE.finditer(text)]


# "除了北京、上海" / "not Beijing or Shanghai": the places listed right after an excluded one are excluded too.
EXCLUSION_LIST_SEP = re.compile(r"\s*(?:、|和|跟|与|及|或|或者|还有|/|\bor\b|\band\b|\bnor\b)?\s*", re.I)


def negation_span(text: str, start: int, end: int) -> Span | None:
    """The span of the exclusion around the place at text[start:end] ("不想去三亚", "三亚以外", "not Sanya"), or None
    when the place is not excluded."""
    window = max(0, start - 24)
    before = text[window:start]
    after = text[end : end + 8]
    for pattern in (_NEG_BEFORE_ZH, _NEG_BEFORE_EN):
        match = pattern.search(before)
        if match:
            return window + match.start(), end
    for pattern in (_NEG_AFTER_ZH, _NEG_AFTER_EN):
        match = pattern.match(after)
        if match:
            return start, end + match.end()
    return None


def negated_place(text: str, start: int, end: int) -> bool:
    """Whether the place at text[start:end] is excluded by the words around it."""
    return negation_span(text, start, end) is not None


# -- follow-ups -------------------------------------------------------------------------------------------------

FOLLOW_UP_RE = re.compile(
    r"^\s*(?:那|那么|那要是|要是|如果是)[^,，.。!！?？]{0,12}(?:呢|的话)\s*[?？]?\s*$"
    r"|^\s*(?:换成|改成|改为|换个|换一个|改到|换到)"
    r"|改成|换成|改为|换为|换个|换一个|改一下|换一下|变成|调成|调整为|调到|延长|缩短|多(?:玩|待|住|呆)?一天|少(?:玩|待|住|呆)?一天|"
    r"加一天|减一天|再便宜|再早|再晚|再快|再(?:多|少)|算了[,，\s]*(?:还是|那就|就|换|改)|还是.{1,12}吧|"
    r"(?:^|[\s,，])(?:那就|那还是|那)[^,，.。!！?？]{1,12}吧"
    r"|^\s*(?:and|what about|how about|what if|ok(?:ay)?,?\s+(?:now|then|so)|now|then|instead|actually|so)\b"
    r"|\b(?:make it|change (?:it|that) to|switch to|instead|rather|what about|how about|same but|but cheaper|"
    r"one more day|one day (?:more|less|fewer))\b",
    re.I,
)
# "算了还是高铁吧": a change of mind about the transport, not a cancellation.
CHANGE_OF_MIND_RE = re.compile(
    r"算了(?=[,，.。!！\s]*(?:还是|那就|就|换|改|要|坐|订|去|选|用|直接))|"
    # a reason between: "算了，火车太慢，改坐飞机" (the switch said after it, in the same message)
    r"算了[^?？]{0,12}?(?<![不别没])(?:还是|那就|换成|换坐|换乘|改成|改坐|改乘|改订|改买)|"
    # "never mind the train, let's fly instead", "forget the flight, book a train"
    r"\b(?:never ?mind|forget(?: about)?|scrap|drop|ditch)\b[^?.!]{0,30}?"
    r"\b(?:let'?s|instead|rather|go with|switch to|change to|make it|book|get|take)\b",
    re.I,
)


# A comparison with what was shown ("要便宜一点的", "an earlier one"): a follow-up when nothing else is said.
COMPARATIVE_RE = re.compile(
    r"(?:便宜|早|晚|快|近|好)一?点(?:的|儿)?(?!.{0,2}(?:处理|退|回复|给|办))|更(?:便宜|早|晚|快|近|好)|"
    r"\b(?:cheaper|earlier|later|faster|quicker|closer|better|the cheapest one|the fastest one|the earliest one)\b",
    re.I,
)
# A question names a request of its own ("What's fun in Guangzhou?"); bare slots answer one ("Lijiang, 3 days").
QUESTION_RE = re.compile(
    r"[?？吗]|什么|哪|怎么|多少|几|如何|\b(?:what|which|how|where|when|who|is it|are there|any|worth|can i|could)\b",
    re.I,
)


# How a search sounds when it only changes the slots of another task ("那丽江呢", "还是大理", "便宜点", "what about
# Lijiang", "cheaper", "and in March"): read when the markers above did not flag it.
FOLLOW_UP_GRAMMAR = re.compile(
    r"^(?:那|那么|那就|换成|换到|改成|改为|改到|还是|再)|呢[？?！!。.]*$|(?:便宜|贵|早|晚|快|近|远)一?(?:点|些)"
    r"|^(?:ok(?:ay)?|and|so|then)?[ ,]*(?:what|how) about\b|^and\b|\binstead\b|\b(?:cheaper|cheapest|faster|fastest|"
    r"earlier|later)\b|^(?:ok(?:ay)?|so)?[ ,]*(?:now|then)\b",
    re.I,
)
# Words that ask what there is to do or see: with a place of its own, a request for its activities.
ACTIVITY_RE = re.compile(
    r"活动|好玩|玩什么|玩的|景点|推荐|activit|things to do|\bto do\b|\b(?:can|could|should) (?:i|we) do\b|\bfun\b|"
    r"\btours?\b|\bsee\b|\bvisit\b",
    re.I,
)
# The sentence points back at the time of the task at hand ("杭州那天天气怎么样", "that day").
SAME_TIME_RE = re.compile(r"那天|当天|那几天|那时|到时|那个时候|that day|those days|then\b", re.I)


def has_follow_up_marker(text: str) -> bool:
    return bool(FOLLOW_UP_RE.search(text))


def sounds_like_follow_up(text: str) -> bool:
    """ "那丽江呢", "还是大理", "cheaper", "what about Lijiang": a search that only changes another task's slots."""
    return bool(FOLLOW_UP_GRAMMAR.search(text))


def asks_activities(text: str) -> bool:
    """ "有什么好玩的", "景点", "things to do", "what can we do": the sentence asks for activities."""
    return bool(ACTIVITY_RE.search(text))


def same_time(text: str) -> bool:
    """ "杭州那天天气怎么样", "that day", "those days": the sentence means the time of the task at hand."""
    return bool(SAME_TIME_RE.search(text))


def change_of_mind_spans(text: str) -> list[Span]:
    return [m.span() for m in CHANGE_OF_MIND_RE.finditer(text)]


# -- a trip made longer or shorter -----------------------------------------------------------------------------------

_N = r"(?P<n>\d{1,2}|[一二两三四五六七八九十]{1,2}|半)"
_EN_N = r"(?P<n>\d{1,2}|a|an|one|two|three|four|five|six|seven)"
LONGER = tuple(
    re.compile(pattern, re.I)
    for pattern in (
        rf"(?:再|多|加|增加|延长|多玩|多待|多呆|多住|再玩|再待|再住|再加|往后延)\s*{_N}\s*(?:个)?\s*(?:天|日|晚|夜)",
        rf"\b{_EN_N}\s+(?:more|extra|additional)\s+(?:days?|nights?)\b",
        rf"\b(?:add|adding|plus|extend (?:it |the trip |the stay )?by)\s+{_EN_N}\s+(?:more\s+)?(?:days?|nights?)\b",
        rf"\b{_EN_N}\s+(?:days?|nights?)\s+longer\b",
        r"\b(?:an? )?(?:extra|additional) (?:day|night)\b",
    )
)
SHORTER = tuple(
    re.compile(pattern, re.I)
    for pattern in (
        rf"(?:少|减|减少|缩短|少玩|少待|少住|砍掉|去掉)\s*{_N}\s*(?:个)?\s*(?:天|日|晚|夜)",
        rf"\b{_EN_N}\s+(?:fewer|less)\s+(?:days?|nights?)\b",
        rf"\b{_EN_N}\s+(?:days?|nights?)\s+(?:less|shorter)\b",
        rf"\b(?:drop|remove|cut|take off)\s+{_EN_N}\s+(?:days?|nights?)\b",
    )
)
_EN_NUMBER = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}


def read_length_change(text: str) -> tuple[int | None, Span | None]:
    """How many days or nights longer (positive) or shorter (negative) the trip at hand should be: 再加一天 → +1,
    多住两晚 → +2, one more day → +1, 少玩一天 → -1. (None, None) when the sentence says no such thing."""
    for pattern, sign in [(p, 1) for p in LONGER] + [(p, -1) for p in SHORTER]:
        match = pattern.search(text)
        if not match:
            continue
        raw = (match.groupdict().get("n") or "").lower()
        if not raw:
            value = 1  # "an extra day"
        elif raw.isdigit():
            value = int(raw)
        elif raw in _EN_NUMBER:
            value = _EN_NUMBER[raw]
        elif raw == "半":
            continue  # half a day changes no day count
        else:
            value = cn_to_int(raw)
        if value and 0 < value <= 30:
            return sign * value, match.span()
    return None, None


# -- greetings, thanks, help, goodbye ----------------------------------------------------------------------------

SOCIAL = (
    ("HELP", re.compile(
        r"^\s*(?:help|帮助|求助|菜单|menu|使用帮助|帮忙)\s*[!?.！？。~]*\s*$|"
        r"你(?:都)?(?:能|会|可以)(?:帮我|为我|给我)?(?:做|干|办|帮|提供)?(?:些)?(?:什么|啥|哪些|嘛)|你有(?:什么|哪些|啥)(?:功能|本事|能力|服务)|"
        r"怎么用|如何使用|使用说明|能帮(?:我|上)?(?:做|干)?(?:什么|啥)|可以帮(?:我)?(?:做)?(?:什么|啥)|你是谁|你是干(?:什么|啥)的|你是做什么的|"
        r"\b(?:what (?:can|do|could) you (?:do|help with|help me with)|what are you able to do|how (?:do i|can i|to) use (?:this|you|it)|"
        r"how (?:can|could|do) you help|what can i (?:ask|do here)|i need (?:some )?help|can you help(?: me)?\s*[?.!]*$|"
        r"who are you|what are you|what is this)\b",
        re.I)),
    ("GOODBYE", re.compile(
        r"再见|拜拜|拜了|回见|下次见|回头见|晚安|\b(?:bye|byebye|goodbye|good bye|see you|see ya|cya|good night|farewell|"
        r"that'?s all|that is all)\b",
        re.I)),
    ("THANKS", re.compile(r"谢谢|多谢|感谢|谢了|谢啦|辛苦了|\b(?:thanks|thank you|thank u|thx|ty|cheers|appreciate it|much appreciated)\b", re.I)),
    ("GREETING", re.compile(
        r"你好|您好|嗨|哈喽|哈啰|早上好|早安|上午好|中午好|下午好|晚上好|^\s*早\s*[!！~。.]*\s*$|^\s*在吗|^\s*在不在|"
        r"\b(?:hello|hi|hey|hiya|howdy|good (?:morning|afternoon|evening)|greetings)\b|^\s*yo\b",
        re.I)),
)  # fmt: skip


def read_social(text: str) -> tuple[str | None, list[Span]]:
    """The social act of the sentence (HELP before GOODBYE before THANKS before GREETING) and the spans of every
    social phrase (masked before the other readers: "早上好" is not a time of day)."""
    found: str | None = None
    spans: list[Span] = []
    for name, pattern in SOCIAL:
        matches = list(pattern.finditer(text))
        if matches and found is None:
            found = name
        spans += [m.span() for m in matches]
    return found, spans


# -- changing an existing booking (改签) ----------------------------------------------------------------------------

_BOOKED = r"(?:机票|航班|飞机票?|车票|火车票|高铁票?|动车票?|车次|票|酒店|房间|预订|预定|订单|行程)"
REBOOK_RE = re.compile(
    r"(?<!退)改签(?!(?:费|政策|规则|手续费|多少钱|要钱|收费))|改期|改日期|改个日期|换(?:个)?日期|改(?:一下)?时间|"
    r"(?:原来|原先|本来|之前|已经)(?:订|买|定)(?:好)?的.{0,24}(?:改|换|推迟|提前|延后|挪)(?:到|成|为|至)|"
    rf"(?:把|将).{{0,24}}{_BOOKED}.{{0,8}}(?:改|换|推迟|提前|延后|延期|挪|调)(?:到|成|为|去|至)|"
    rf"{_BOOKED}(?:能|可以|想|要)?(?:改|换|推迟|提前|延后|延期|挪|调)(?:一下)?(?:到|成|为|至)|"
    r"\b(?:reschedul\w*|rebook\w*|change (?:the )?date|move (?:the )?date)\b|"
    r"\b(?:change|move|switch|shift|push|modify|postpone|bring forward)\b.{0,25}\b(?:my|our|the|this|that|\w+'s)\b.{0,12}"
    r"\b(?:flight|train|booking|reservation|ticket|trip|hotel|stay)s?\b",
    re.I,
)
# A booking named and then moved by an amount ("成都那班飞机能不能往后挪一天", "火车票往前调两天"): a change of that
# booking, unless the stay only gets longer (the engine asks this only when no length change is read).
BOOKING_MOVED_RE = re.compile(
    rf"{_BOOKED}.{{0,6}}(?:(?:往|向)(?:后|前)(?:推迟?|挪|延|移|调)?|推迟|推后|延后|延期|顺延|提前|提早)"
    r"(?:一|两|三|几|\d)?(?:个)?(?:天|日|个小时|小时)"
)
# "改到20号的航班" changes a booking when a date is inside; "换成下午的" only changes what is searched. "明天的火车改到
# 后天" names the booked day and the new one: a change of a booking when both are dates ("火车换成飞机" is not).
_CHANGE_TO = r"(?:改签|改|换|推迟|提前|延后|延期|挪|调)(?:一下)?(?:到|成|为|至)"
REBOOK_TO_DATED_RE = (
    re.compile(r"(?:改|换)(?:到|成)(?P<x>.{1,14}?)的(?:航班|机票|飞机|车次|高铁|火车|动车|票)"),
    re.compile(
        rf"(?P<x>.{{1,12}}?)的?(?:航班|机票|飞机|车次|高铁|火车|动车|票|酒店|房间|民宿|客栈|宾馆)"
        rf"(?:能不能|可不可以|可以|能|想|要|需要|帮|麻烦|请|我|你)*{_CHANGE_TO}(?P<y>.{{1,12}})"
    ),
)
NEW_DATE_BEFORE = re.compile(
    r"(?:改签|改|换|推迟|提前|延后|延期|挪|调)(?:一下)?(?:到|成|为|至|去)\s*(?:了)?\s*$|"
    r"\b(?:to|for|until|till|onto|into)\s*(?:the\s+)?$|(?:新的?|new)\s*(?:日期|date)?\s*(?:是|[:：]|is)?\s*$",
    re.I,
)
OLD_DATE_BEFORE = re.compile(
    r"(?:从|原来|原定|原本|本来|之前|订的是|from|on|originally|of)\s*(?:the\s+)?(?:是)?\s*$", re.I
)
OLD_DATE_AFTER = re.compile(
    rf"^\s*(?:的|那天的?|出发的?)\s*{_BOOKED}|^\s*(?:的)?(?:那班|那趟|那个)|^\s*(?:flight|train|booking|reservation|ticket)s?\b",
    re.I,
)


def is_rebook(text: str) -> bool:
    return bool(REBOOK_RE.search(text))


def booking_moved(text: str) -> bool:
    return bool(BOOKING_MOVED_RE.search(text))


def rebook_to_dated(text: str) -> re.Match | None:
    """The first frame of a change to a dated booking that the sentence holds: its groups must each hold a date."""
    return next((match for pattern in REBOOK_TO_DATED_RE if (match := pattern.search(text))), None)


# -- paying a booking, and asking how bookings stand ----------------------------------------------------------------

_BOOKING_THING = r"(?:订单|预订|预定|机票|车票|火车票|高铁票|动车票|酒店|房间|航班|订的票|买的票)"
_MY = r"(?:我的|我订的|我定的|我买的|刚才?(?:订|定|买)的|之前(?:订|定|买)的)"
BOOKING_STATUS_RE = re.compile(
    r"(?:付款|支付|付钱|付费|缴费|交钱|付)(?:成功)?(?:了吗|了没有?|了嘛|了么|没有?(?=[?？。!！\s]*$)|成功了吗|好了吗|完了吗|过了吗)|"
    r"(?:有没有|是否|是不是)(?:已经)?(?:付款|支付|付钱|付过|出票|确认)|出票(?:了吗|了没有?|没有?|成功了吗)|"
    rf"{_BOOKING_THING}(?:现在|目前)?(?:的|是)?(?:什么|啥)?(?:状态|情况)|{_BOOKING_THING}(?:现在|目前)?(?:怎么样了|咋样了|有变化吗|确认了吗|还在吗|"
    r"还有效吗|过期了吗|被取消了吗|还能用吗)|"
    rf"^(?:看看|查查?|查一下|看一下)?{_MY}(?:所有的?)?{_BOOKING_THING}(?:呢|都有哪些|有哪些|列表)?[?？。!！\s]*$|"
    r"\b(?:(?:is|was|has|are) (?:my|the|our) (?:(?:train|flight|plane|hotel|rail) )?(?:booking|order|reservation|flight|ticket|hotel|train)s? (?:been )?"
    r"(?:paid|confirmed|ticketed|issued|still (?:valid|on|active|there)|expired|cancell?ed)|"
    r"(?:paid|confirmed|ticketed) yet|(?:booking|order|reservation)s? status|"
    r"status of (?:my|the|our) (?:booking|order|reservation|flight|train|hotel)s?|"
    r"did (?:my|the) payment go through|(?:show|list|see|check)(?: me)? (?:all )?(?:my|our) (?:bookings|orders|reservations)|"
    r"^(?:my|our) (?:bookings|reservations)\W*$)",
    re.I,
)
PAY_RE = re.compile(
    r"(?:付款|支付|付钱|买单|结账|付费)(?!宝|方式|密码|失败|了吗|了没|没|成功|好了|完了)|"
    r"(?:把|将).{0,16}(?:付了|付掉|付一下|支付了|付款了|支付一下)|付一下|"
    r"\b(?:pay(?: for| now| it| this| that| the| my| off)?(?!\s+(?:attention|someone|a visit))(?=\W|$)|"
    r"make (?:a |the )?payment|complete (?:the |my )?payment|check ?out (?:now|please|my booking))\b",
    re.I,
)
# Which of the traveller's own bookings, by when it was made: "最新的那个三亚酒店订单", "the last one I booked". A
# word of time alone ("最晚的航班", "the last train") is how to order options (`booking_prefs.SORTS`), not this.
_BOOKED = r"(?:订的|预订的|预定的|下的|买的)"
_A_BOOKING = r"(?:订单|预订|预定|那(?:个|张|单|笔)|一(?:个|张|单|笔))"
BOOKING_ORDINALS = (
    ("NEWEST", re.compile(
        rf"最新(?:的)?(?:一|那)?(?:个|张|单|笔)?|最近(?:一次)?{_BOOKED}|最近的?{_A_BOOKING}|刚(?:才|刚)?{_BOOKED}|"
        rf"最后(?:一次|一个|一张|一单)?{_BOOKED}|最后(?:的)?{_A_BOOKING}|"
        r"\b(?:(?:the )?(?:latest|newest|most recent)(?: one| booking| order| reservation)?|"
        r"(?:the )?last (?:one|booking|order|reservation)(?: i (?:made|booked))?|(?:the )?one i (?:just|last) booked|"
        r"(?:i )?(?:just|most recently) booked)\b", re.I)),
    ("OLDEST", re.compile(
        rf"(?:第一|最早|最先|最开始)(?:个|张|单|次)?{_BOOKED}|最早的?{_A_BOOKING}|最旧的|"
        r"\b(?:(?:the )?(?:oldest|earliest|first) (?:booking|order|reservation)|"
        r"(?:the )?first one i (?:made|booked)|(?:the )?one i booked first)\b", re.I)),
)  # fmt: skip
# A sentence that points at a booking the traveller has (not a new trip): "我的三亚酒店", "那个订单", "my booking".
NAMES_A_BOOKING = re.compile(
    r"订单|我的|我订的|那(?:个|张|单|笔)(?:订单|预订|酒店|机票|火车票|车票)|\b(?:my|our) |\b(?:booking|reservation)s?\b",
    re.I,
)


def read_booking_ordinal(text: str) -> tuple[str | None, Span | None]:
    """ "最新的那个订单" → NEWEST, "第一个订的" → OLDEST: which of the traveller's bookings, by when it was made."""
    for name, pattern in BOOKING_ORDINALS:
        match = pattern.search(text)
        if match:
            return name, match.span()
    return None, None


def names_a_booking(text: str) -> bool:
    """Whether the sentence is about a booking the traveller already has ("支付我的三亚酒店订单", "pay for my Sanya
    hotel booking"): a place in it is that booking's, not a new trip's."""
    return bool(NAMES_A_BOOKING.search(text)) or read_booking_ordinal(text)[0] is not None


# Money back: a refund's or a return's progress is not a booking's state.
MONEY_BACK = re.compile(r"退款|退货|退钱|退费|售后|工单|\b(?:refund|return|claim)", re.I)
_PRICE_QUESTION = re.compile(r"多少钱|how much|价格|price|cost", re.I)


# What the traveller has booked, asked in any of its short forms: who (我 / I), an adverb or two, a verb of booking in
# the past (订了, 买过, booked), and what is asked (什么, 哪些, 几张 / what, which); or who has what (我有哪些订单,
# do I have any bookings); or a bare show-me of the traveller's bookings (看看我的订单, list my trips).
_WE = r"(?:我|我们|咱们?)"
_SO_FAR = r"(?:都|一共|总共|已经|之前|以前|最近|刚才?|现在|目前|到底|究竟)"
_BOOKED_PAST = r"(?:订|定|预订|预定|买|下单)(?:了|过)+"
_WHICH = r"(?:什么|啥|哪些|哪几|几|多少|些什么|些啥)"
_LISTED = r"(?:订单|预订|预定|行程|票|机票|车票|火车票|酒店)"
_SHOW = r"(?:帮我|给我|请|麻烦)?(?:看看|看一下|查查?|查一下|查询|列出|列一下|显示|瞧瞧|找找)?(?:一下)?"
_EN_BOOKED = r"(?:booked|book|reserved|reserve|bought|buy)"
_EN_MINE = r"(?:bookings|reservations|trips|booked trips|tickets)"
BOOKINGS_ASKED_RE = re.compile(
    rf"{_WE}{_SO_FAR}*{_BOOKED_PAST}(?:些|哪)?{_WHICH}|"
    rf"{_WE}{_SO_FAR}*(?:订|定|预订|预定|买)(?:了|过)?的(?:所有的?|全部的?)?{_LISTED}?(?:都|一共)?(?:有|是)(?:哪些|什么|啥|几)|"
    rf"{_WE}{_SO_FAR}*(?:有|还有)(?:哪些|什么|几个|几张|几单|多少)(?:个|张|单)?{_LISTED}|"
    rf"{_WE}{_SO_FAR}*(?:有没有|是不是|是否)(?:订|定|预订|预定|买)过|"
    rf"^{_SHOW}{_WE}(?:的|订的|定的|买的)(?:所有的?|全部的?)?{_LISTED}(?:呢|都有哪些|有哪些|列表|都有啥)?[?？。!！\s]*$|"
    rf"\b(?:what|which)(?: \w+){{0,2}} (?:have|did|do) (?:i|we)(?: got| have)? (?:already |just |ever )?{_EN_BOOKED}\b|"
    rf"\b(?:do|did|have) (?:i|we) (?:have any {_EN_MINE}|(?:booked|reserved) anything)\b|"
    rf"\b(?:what|which|any) (?:\w+ )?{_EN_MINE} (?:have|do|did) (?:i|we)(?: got| have| booked| made)?\b|"
    rf"\b(?:show|list|see|check|view|display|give|tell)(?: me)? (?:all |all of )?(?:my|our) {_EN_MINE}\b|"
    rf"^(?:all )?(?:my|our) {_EN_MINE}\W*$",
    re.I,
)


def asks_booking_status(text: str) -> bool:
    """ "我的订单付款了吗", "my booking status", "机票出票了吗", "我订了什么", "list my trips": how the traveller's
    bookings stand, or which they have."""
    return bool(BOOKING_STATUS_RE.search(text) or BOOKINGS_ASKED_RE.search(text))


def wants_to_pay(text: str) -> bool:
    """ "帮我付款", "把刚才的机票付了", "pay for my booking": pay a booking that waits for payment (not a question
    about a price, nor one whether it is paid)."""
    return bool(PAY_RE.search(text)) and not _PRICE_QUESTION.search(text) and not asks_booking_status(text)


# -- why the traveller wants money back -----------------------------------------------------------------------------

REASONS = (
    ("NOT_RECEIVED", re.compile(
        r"(?:没|未|没有|还没|一直没|迟迟没|始终没)(?:有)?(?:收到|到货|发货|送到|送达|寄到|到)(?!\s*(?:退款|钱|款|账|回复|消息|通知))|"
        r"快递丢|丢件|包裹丢|物流(?:不动|没更新|停了)|"
        r"\b(?:never (?:arrived|came|received|got)|not (?:received|arrived|delivered)|(?:didn'?t|did not|haven'?t|have not|hasn'?t|"
        r"has not|never) (?:receive|received|arrive|arrived|get|got|come|came|been delivered|shown up|showed up|turned up)|"
        r"lost in (?:the )?(?:post|mail|transit)|"
        r"still (?:hasn'?t|not) (?:arrived|come))\b(?!\s*(?:the |my )?(?:refund|money))",
        re.I)),
    ("QUALITY", re.compile(
        r"坏了|坏的|破了|破的|破损|损坏|弄坏|摔坏|质量问题|质量(?:不好|差|太差|很差|有问题|不行)|瑕疵|发错|寄错|送错|发的不对|"
        r"不能用|用不了|没法用|无法使用|开线|开胶|脱胶|掉色|褪色|漏水|漏气|有问题|残次|次品|划痕|裂了|裂开|断了|故障|不工作|假货|"
        r"少了(?:一|个|件|零件)|缺(?:零件|配件)|脏了|有污渍|发霉|有(?:个|一个)?(?:洞|破洞|裂缝|划痕|污渍)|不一样大|大小不一|"
        r"(?:颜色|型号|款式|尺码)(?:发)?(?:不对|错了)|(?:与|和|跟)描述不符|货不对板|不是我(?:买|订|要)的|"
        r"\b(?:broken|broke|damaged|defective|faulty|cracked|torn|ripped|scratched|stained|leak(?:s|ing|y)?|"
        r"doesn'?t work|does not work|not working|stopped working|wrong (?:item|product|size sent|colou?r sent|one)|"
        r"quality (?:issue|problem)s?|poor quality|bad quality|missing parts?|fake|counterfeit|sent (?:me )?the wrong|"
        r"(?:has|have|with|got) (?:a |an )?(?:hole|holes|tear|rip|crack|stain|dent)s?|not as described|"
        r"doesn'?t match the (?:description|picture|photo)|falling apart|fell apart)\b",
        re.I)),
    ("TICKET", re.compile(
        r"去不了|去不成|来不了|走不了|行程(?:取消|有变|变了|变动|改了)|计划(?:有变|变了|取消)|"
        r"(?:团|活动|演出|比赛|航班|项目|课程|旅行|旅游|行程|门票)[^，,。!！?？]{0,3}(?:被)?(?:取消|停办|延期|改期|停了)|"
        r"时间冲突|临时有事|有事去不|生病|病了|住院|航班取消|天气原因|封路|景区关闭|闭园|"
        r"\b(?:can'?t go|cannot go|can'?t make it|cannot make it|won'?t be able to (?:go|come|attend|make it)|"
        r"(?:trip|tour|event|activity|flight|show) (?:was |got |has been |is )?(?:cancell?ed|called off|postponed)|"
        r"plans? (?:changed|fell through)|change of plans|schedule conflict|fell ill|got sick|i'?m sick)\b",
        re.I)),
    ("NO_REASON", re.compile(
        r"不想要了?|不要了|无理由|不喜欢|不合适|不合身|尺码|太大|太小|买多了|买错了|拍错了|多买了|改变主意|不需要了|用不上|用不着|"
        # "do not" / "don't" / "dont" alike (and does, did): a contraction is how a sentence is typed, not what it says
        r"\b(?:changed my mind|change of mind|(?:do|does|did)(?:n'?t| not) (?:want|need) (?:it|them|this|these)|"
        r"do not want|no longer (?:want|need)|(?:do|does|did)(?:n'?t| not) (?:like|fit)|wrong size|"
        r"too (?:big|small|large|tight)|ordered (?:the wrong|by mistake|too many)|no reason)\b",
        re.I)),
)  # fmt: skip


# "退款还没收到" / "my refund hasn't arrived": the money is late, the goods are not missing.
_MONEY_BEFORE = re.compile(r"(?:退款|钱|款|账|refund|money)\S{0,2}\s*(?:还|也|都|is|has|have)?\s*$", re.I)


def read_reason(text: str) -> tuple[str | None, Span | None]:
    """The after-sale reason the sentence gives (the first found in REASONS' order), and its span."""
    for name, pattern in REASONS:
        for match in pattern.finditer(text):
            if name == "NOT_RECEIVED" and _MONEY_BEFORE.search(text[max(0, match.start() - 12) : match.start()]):
                continue
            return name, match.span()
    return None, None
