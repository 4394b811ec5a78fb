"""A question about the options on screen: what it asks of them (the price, how long, when it leaves or arrives,
the airline, the class, whether it is direct, a hotel's stars) and whether the sentence also chooses one ("第二个多少钱？
那就订它吧"). Which option is asked about is the pick reader's (第二个 / the second one) or an order's (哪个最便宜 /
which is the fastest); the engine puts them together.

A fact word alone is no question: "要直飞的" and "1000以内" are wants of the booking. A fact is asked when its words
are a question's (多少钱, 多久, 几点到, how much, how long, what time) or stand with a question's mark (吗, 是不是, ?,
is it / does it). The words are kinds, not sentences: a price, a length of time, a clock time, a name, a class.
"""

import re

Span = tuple[int, int]

PRICE = "PRICE"
DURATION = "DURATION"
DEPARTURE = "DEPARTURE"
ARRIVAL = "ARRIVAL"
VENDOR = "VENDOR"
SEAT_CLASS = "SEAT_CLASS"
DIRECT = "DIRECT"
STAR = "STAR"
FACTS = (PRICE, DURATION, DEPARTURE, ARRIVAL, VENDOR, SEAT_CLASS, DIRECT, STAR)

_Q_ZH = r"(?:吗|嘛|么|呢|是不是|是否|有没有|[?？])"
_Q_EN = r"(?:\?|\b(?:is|are|does|do|was|will)\b)"
_LEAVE_ZH = r"(?:出发|起飞|飞|走|开|发车|开车|离开|登机)"
_ARRIVE_ZH = r"(?:到|到达|抵达|落地|降落|到站)"

# Each fact: words that ask it by themselves, and words that name it and are a question only with a question's mark.
ASKS: dict[str, re.Pattern] = {
    PRICE: re.compile(
        r"多少钱|几块钱?|几百块?|什么价|啥价|价格(?:是|多少|呢|怎么样|如何)|票价(?:是|多少|呢)|价钱|贵不贵|贵吗|多贵|便宜吗|"
        r"\bhow much\b|\bwhat(?:'s| is| are)? the (?:price|fare|cost)s?\b|\bprices?\?|\bcosts?\?|\bexpensive\?",
        re.I,
    ),
    DURATION: re.compile(
        r"多久|多长时间|多少时间|几个?小时|几个钟头?|要飞多|(?:飞|坐|开|跑)多长|时长|用时多|"
        r"\bhow long\b|\b(?:flight|travel|journey|trip) time\b|\bduration\b|\bhow many hours\b",
        re.I,
    ),
    DEPARTURE: re.compile(
        rf"(?:几点|什么时候|啥时候|何时|什么时间)(?:钟)?{_LEAVE_ZH}|{_LEAVE_ZH}时间|"
        r"\b(?:when|what time)\b[^.?!]{0,30}\b(?:leave|leaves|depart|departs|take off|takes off|go|goes)\b|"
        r"\bdeparture time\b|\bdeparts? at\b",
        re.I,
    ),
    ARRIVAL: re.compile(
        rf"(?:几点|什么时候|啥时候|何时|什么时间)(?:钟)?(?:能)?{_ARRIVE_ZH}|{_ARRIVE_ZH}(?:时间|是几点)|"
        r"\b(?:when|what time)\b[^.?!]{0,30}\b(?:arrive|arrives|land|lands|get in|gets in|get there)\b|"
        r"\barrival time\b",
        re.I,
    ),
    VENDOR: re.compile(
        r"(?:哪|什么|啥)(?:家|个)?(?:航空公司|航空|航司|公司|酒店)|"
        r"\b(?:which|what) (?:airline|carrier|company|hotel)\b|\bwho (?:flies|operates)\b",
        re.I,
    ),
    SEAT_CLASS: re.compile(
        r"(?:什么|啥|哪种|哪个)(?:舱|舱位|座位?|座席|席别|铺)|"
        r"\b(?:which|what) (?:class|cabin|seat)\b",
        re.I,
    ),
    DIRECT: re.compile(
        rf"(?:是不是|是否|有没有)?(?:直飞|直达|经停|中转|转机){_Q_ZH}|(?:是不是|是否|有没有)(?:直飞|直达|经停|中转|转机)|"
        rf"(?:要不要|需不需要|需要)(?:经停|中转|转机)|"
        rf"{_Q_EN}[^.?!]{{0,30}}\b(?:direct|non-?stop|a stopover|any stops?|a layover|connecting)\b|"
        r"\bhow many stops\b|\b(?:direct|non-?stop)\s*\?",
        re.I,
    ),
    STAR: re.compile(
        r"几星|几颗星|(?:什么|啥)星级|星级(?:是|多少|呢|怎么样)|\bhow many stars\b|\bwhat(?:'s| is)? the (?:star )?rating\b",
        re.I,
    ),
}

# Which one, asked with an order: "哪个最便宜", "最快的是哪班", "which one is the cheapest", "what's the fastest".
WHICH_RE = re.compile(
    r"哪(?:个|班|趟|家|一个|一班|一趟|一家)?(?:最|更|比较)|最\S{1,3}的?(?:是)?哪|"
    r"\bwhich(?: one| flight| train| hotel)?(?: is| has| gets| leaves| arrives)?\b|\bwhat(?:'s| is) the (?:cheapest|fastest|"
    r"quickest|earliest|latest|shortest)\b",
    re.I,
)

# The sentence also chooses one: "那就订它吧", "就要这个", "book it", "I'll take that one".
CHOOSES_RE = re.compile(
    r"(?:订|定|要|选|买|就)(?:它|这个|那个|这班|那班|这趟|那趟|这家|那家|这张|那张)|(?:那就|就)(?:订|定|要|选|买)|"
    r"(?:订|定|选)(?:吧|了)|"
    r"\b(?:book|take|choose|pick|reserve) (?:it|that|this)\b|\bi'?ll (?:take|have|go with)\b|\bgo with (?:it|that)\b|"
    r"\blet'?s (?:do|go with|book) (?:it|that)\b",
    re.I,
)


def read_option_question(text: str) -> tuple[list[str], list[Span]]:
    """The facts the sentence asks of the options shown, in the order the facts are listed, and the spans that
    ask them; ([], []) when it asks none."""
    facts, spans = [], []
    for fact, pattern in ASKS.items():
        match = pattern.search(text)
        if match:
            facts.append(fact)
            spans.append(match.span())
    return facts, spans


def asks_which(text: str) -> bool:
    """The sentence asks which option is the one in an order ("哪个最便宜", "which is the fastest")."""
    return bool(WHICH_RE.search(text))


def also_chooses(text: str) -> bool:
    """The sentence also takes an option ("那就订它吧", "book it")."""
    return bool(CHOOSES_RE.search(text))
