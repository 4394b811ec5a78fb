"""Which intent a sentence gets besides `intents.classify`'s reading: the products it is about, the requests of a
sentence that joins several, a booking's payment, and whether it only follows up on the task at hand."""

import re
from dataclasses import replace

from assistant.llm.rules import conversation_cues, intents, products
from assistant.llm.rules.gazetteer import PlaceMatch
from assistant.llm.rules.text import mask
from assistant.llm.schema import PREFERENCE_SLOTS

# What a booking is for (flight, hotel, train), from the lexicon of products (`products.json`).
BIZ_PATTERNS = products.PATTERNS


_FLY_BEFORE = re.compile(r"飞\s*$")


_FILLER_ZH = re.compile(
    r"[的了吧呢啊呀嘛哦噢嗯呗哈我想要去到在那就还是改成换成换改再也和跟还有左右大概大约差不多预算以内之内块元钱号出发玩行可以好吗"
    r"那个这个呢么一下看看呗就是然后另外以及或者还人均每人最多顶多不超过不到控制在上下]"
)


_FILLER_EN = re.compile(
    r"\b(?:the|a|an|to|in|on|at|for|and|or|maybe|how|what|about|ok|okay|then|please|around|budget|under|below|i|we|"
    r"want|wanna|go|let'?s|make|it|change|instead|actually|hmm|is|my|max|yuan|rmb|with|of|from|only|just|also|"
    r"that|this|would|be|fine|good|great|sure|yes|yeah|no|same|but|so|um|uh|like|rather|prefer)\b",
    re.I,
)


# Words that only name a slot being given ("日期是12月20号", "the date is …").
_SLOT_WORDS = re.compile(
    r"日期|时间|地点|目的地|出发地|天数|人数|\b(?:date|dates|time|day|place|destination|not|sorry)\b", re.I
)


_CJK_OR_WORD = re.compile(r"[\u3400-\u9fff]|[A-Za-z]{2,}")


_FOLLOW_UP_SLOTS = (
    "destination_keywords", "province", "city", "origin", "date_start", "days", "max_price", "order_id",
    "booking_id", "time_band", "sort", "seat_class", "star", "vendor", "number", "passengers", "pick",
    "exclude_places", "nights", "aftersale_reason",
)  # fmt: skip


def _payment(text: str, decision: intents.Decision, ev: intents.Evidence) -> intents.Decision | None:
    """A booking's payment: "我的订单付款了吗" / "my booking status" asks how the bookings stand (QUERY_PROGRESS,
    `booking_status`); "帮我付款" / "pay for my booking" pays one (BOOK, `pay`). Neither when the sentence is about
    money back, cancelling, a shop order, or a new trip (a place, a route, a date: "pay for a hotel in Dali")."""
    if ev.order_id or decision.intent in ("AFTERSALE", "CANCEL_BOOKING") and not ev.booking_id:
        return None
    if conversation_cues.MONEY_BACK.search(text) or intents.cancel_words(text):
        return None
    if conversation_cues.asks_booking_status(text):
        return intents.Decision("QUERY_PROGRESS", confidence=0.9)
    # "支付我的三亚酒店订单", "pay for my Sanya hotel booking": the place and the date are that booking's.
    new_trip = (
        ev.destination or ev.route or (ev.date and not ev.booking_id)
    ) and not conversation_cues.names_a_booking(text)
    if conversation_cues.wants_to_pay(text) and not new_trip:
        return intents.Decision("BOOK", confidence=0.9)
    return None


def _requests(
    text: str, evidence: intents.Evidence, matches: list[PlaceMatch], origin: PlaceMatch | None
) -> list[intents.Decision]:
    """The requests of a sentence that joins several ("…，顺便查天气"), in order; [] for an ordinary sentence.

    Each part is classified on its own words; the slots stay the sentence's, except what names a transport (the
    business type and the route), which belongs to the part that says it: in "对比一下飞机和高铁，顺便看看酒店"
    the hotel is part of the comparison, not a booking.
    """
    spans = intents.split_requests(text)
    if len(spans) < 2:
        return []
    found: list[intents.Decision] = []
    for start, end in spans:
        part = text[start:end]
        inside = [m for m in matches if m.start >= start and m.end <= end]
        part_evidence = replace(
            evidence,
            biz_types=_biz_types(part, [replace(m, start=m.start - start, end=m.end - start) for m in inside]),
            route=evidence.route and origin is not None and origin in inside and len(inside) > 1,
            slots_only=False,
        )
        decision = intents.classify(part, part_evidence)
        if decision.intent == "OUT_OF_SCOPE" or not intents.is_request(part, decision.intent):
            continue
        if all(d.intent != decision.intent for d in found):
            found.append(decision)
    return found


def _biz_types(text: str, matches: list[PlaceMatch]) -> list[str]:
    found = []
    for name, pattern in BIZ_PATTERNS:
        match = pattern.search(text)
        if match:
            found.append((match.start(), name))
    if not any(name == "FLIGHT" for _, name in found):
        for m in matches:
            if _FLY_BEFORE.search(text[max(0, m.start - 2) : m.start]):
                found.append((m.start, "FLIGHT"))
                break
    return [name for _, name in sorted(found)]


# Two products offered as alternatives ("飞机还是高铁", "a flight or a train"), not both booked.
_EITHER = re.compile(r"还是|或者|或|要么|\bor\b|\beither\b", re.I)


def _also_booked(text: str, biz_types: list[str]) -> list[str]:
    """The products a booking sentence books besides its first: a hotel after a journey ("机票和上海的酒店", "a train
    there and a hotel for 2 nights"). Two journeys, or products said as alternatives, are not both booked."""
    if len(biz_types) < 2 or biz_types[0] == "HOTEL" or "HOTEL" not in biz_types[1:]:
        return []
    if _EITHER.search(text):
        return []
    return ["HOTEL"]


def _slots_only(text: str, spans: list[tuple[int, int]]) -> bool:
    """True when, once slots and filler words are removed, (almost) nothing is left: a follow-up answer."""
    rest = mask(text, spans)
    rest = _SLOT_WORDS.sub(" ", rest)
    rest = _FILLER_EN.sub(" ", rest)
    rest = _FILLER_ZH.sub("", rest)
    return len(_CJK_OR_WORD.findall(rest)) <= 2


def _follow_up(
    text: str,
    decision: intents.Decision,
    pending: str | None,
    ev: intents.Evidence,
    data: dict,
    *,
    named_biz: bool,
    cued: bool,
) -> bool:
    """Whether the sentence only changes slots of the task at hand ("那丽江呢", "改成四天吧", "要便宜一点的").

    A sentence that names what to book and where or when ("earliest flight to Beijing tomorrow") is a request of
    its own, not a follow-up, unless a marker says it changes the task at hand ("算了还是高铁吧", "换成…")."""
    has_slots = any(data.get(name) not in (None, [], "", False) for name in _FOLLOW_UP_SLOTS)
    has_slots = has_slots or data.get("direct") is not None or bool(ev.biz_types)
    # A question of its own with nothing to change ("and what can I do there") is a new request, not a follow-up.
    if not has_slots and data["intent"] != "OUT_OF_SCOPE" and conversation_cues.QUESTION_RE.search(text):
        return False
    if not (has_slots or ev.change_of_mind):
        return conversation_cues.has_follow_up_marker(text) and not decision.explicit  # "多玩一天", "换个城市"
    if pending and decision.explicit and decision.intent != pending:
        return False  # a side question or a new request
    if data.get("rebook"):
        return False  # a change of a booking is a task of its own
    if not pending and data["intent"] in ("AFTERSALE", "QUERY_PROGRESS", "CANCEL_BOOKING"):
        return False  # "发错货了 ORD-005": a request about an order or booking, nothing open to continue
    if conversation_cues.has_follow_up_marker(text) or data.get("correction") or data.get("pick"):
        return True
    if decision.explicit or not ev.slots_only:
        return False
    if conversation_cues.COMPARATIVE_RE.search(text):
        return True  # "要便宜一点的", "an earlier one"
    if conversation_cues.QUESTION_RE.search(text):
        return False
    if data["intent"] == "BOOK" and named_biz and (ev.destination or ev.route or ev.date):
        return False
    # Bare slots ("赛里木湖", "下周末", "张三 138…", "二等座就行"); a cue names a task of its own ("三亚的活动").
    wants = any(data.get(name) not in (None, False) for name in PREFERENCE_SLOTS) or data.get("passengers")
    return not cued or bool(wants and not named_biz)
