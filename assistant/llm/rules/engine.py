"""RulesLLM: the deterministic understanding engine behind the LLM port (provider `rules`).

One sentence goes through: normalise → ids and codes → trip length → dates → budget → places → business type →
intent. Every parser works on the same normalised text; spans already understood are masked for the next one, so
"12月20号" is never a budget and "7天" is never a price. Nothing here raises: the worst answer is OUT_OF_SCOPE.

A sentence that joins two requests ("帮我规划三天丽江行程，顺便查天气") gets the first as its intent and the others
in `also`, sharing the sentence's slots (`intents.split_requests`). Places come from `places.json` and from the
catalogue's place names in `UnderstandContext.places` (a gazetteer is built once per distinct tuple of them).
"""

import logging
import re
import time
from collections.abc import Iterable
from dataclasses import replace
from datetime import date, timedelta
from functools import lru_cache

from assistant.llm.messages import ChatResult
from assistant.llm.port import UnderstandContext, Understanding, Usage
from assistant.llm.preferences import PreferenceCandidate, PreferenceScores
from assistant.llm.rules import dates as dates_mod
from assistant.llm.rules import ids, intents, numbers, policy
from assistant.llm.rules import preferences as preferences_mod
from assistant.llm.rules.gazetteer import PROVINCE, Gazetteer, PlaceMatch, gazetteer
from assistant.llm.rules.text import ascii_lower, mask, normalise
from assistant.llm.schema import Intent, IntentName
from assistant.llm.verdict import VerdictRequest, VerdictResult

logger = logging.getLogger(__name__)

BIZ_PATTERNS = (
    (
        "FLIGHT",
        re.compile(
            r"机票|航班|飞机|直飞|飞往|飞到|坐飞机|航空|乘机|登机|\b(?:flights?|fly|flying|plane|airfare|air tickets?|airline)\b",
            re.I,
        ),
    ),
    (
        "HOTEL",
        re.compile(
            r"酒店|住宿|宾馆|旅馆|民宿|客栈|青旅|订房|开房|房间|入住|住(?:一|两|三|四|五|六|七|几|\d)晚|"
            r"\b(?:hotels?|rooms?|accommodation|hostel|inn|b&b|airbnb|guesthouse|guest house|check[- ]in)\b",
            re.I,
        ),
    ),
    (
        "TRAIN",
        re.compile(
            r"高铁|火车|动车|列车|车票|卧铺|硬卧|软卧|二等座|一等座|12306|(?<![A-Za-z])[GD]\d{2,4}(?!\d)|"
            r"\b(?:trains?|rail|railway|high[- ]speed|bullet train)\b",
            re.I,
        ),
    ),
)
_ZH_ROUTE_BETWEEN = re.compile(
    r"(?:东|西|南|北|虹桥|浦东|首都|大兴|白云|宝安|双流|天府|萧山|禄口|江北|咸阳|长水|高崎|美兰|凤凰|天河|滨海|地窝堡|太平|贡嘎)?"
    r"(?:火车站|高铁站|站|机场|国际机场)?\s*(?:出发)?\s*(?:坐|乘|搭)?\s*(?:飞机|高铁|火车|动车)?\s*(?:到|去|至|飞|飞往|飞到|前往|开往|往返|来回|往|回|→|->|-|~|—|－)\s*(?:的)?\s*$"
)
_EN_ROUTE_BETWEEN = re.compile(r"\s*(?:to|->|-|→|–|—)\s*$", re.I)
_EN_REVERSE_BETWEEN = re.compile(r"\s*(?:,\s*)?(?:from|leaving from|departing from|out of)\s*$", re.I)
_ORIGIN_BEFORE = re.compile(r"(?:从|由|自|离开)\s*$|\b(?:from|leaving|departing(?: from)?|out of)\s*$", re.I)
_ORIGIN_AFTER = re.compile(r"^\s*(?:出发|起飞|动身|走)")
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
_CJK_OR_WORD = re.compile(r"[\u3400-\u9fff]|[A-Za-z]{2,}")


class RulesLLM:
    """Deterministic understanding for Chinese and English (no key, no network)."""

    provider = "rules"
    model = "rules-v1"

    def __init__(self, extra_places: Iterable[str] = ()) -> None:
        self._extra = _place_names(extra_places)
        self._gazetteer = gazetteer(self._extra)

    def understand(self, text: str, *, context: UnderstandContext | None = None) -> Understanding:
        started = time.perf_counter()
        today = context.today if context is not None else date.today()
        pending = context.pending_intent if context is not None else None
        try:
            places = self._gazetteer_for(context.places if context is not None else ())
            intent = self._understand(text, today, _valid_pending(pending), places)
        except Exception:  # the engine must never fail a turn: log it, answer "out of scope"
            logger.exception("rules engine failed on a sentence")
            intent = Intent(intent="OUT_OF_SCOPE")
        latency_ms = int(round((time.perf_counter() - started) * 1000))
        return Understanding(intent=intent, usage=Usage(latency_ms=latency_ms))

    def chat(self, messages: list[dict], tools: list[dict]) -> ChatResult:
        """One turn of the tool-calling loop (channel 2): the deterministic policy picks the next tool or ends."""
        return policy.next_turn(self, messages, tools)

    def verdict(self, request: VerdictRequest) -> VerdictResult:
        """The after-sale verdict: the rules engine has no opinion of its own on money; it answers with aftersale's
        policy assessment that came with the request (`from_policy`), or UNCERTAIN when none came."""
        assessment = request.assessment
        if assessment is None:
            return VerdictResult(verdict="UNCERTAIN", reason="No policy assessment came with the request.")
        return VerdictResult(
            verdict=assessment.verdict,
            reason=assessment.reason,
            policy_ids=list(assessment.policy_ids),
            from_policy=True,
        )

    def preference_scores(self, text: str, candidates: list[PreferenceCandidate]) -> PreferenceScores:
        """Score each candidate 0..100 from the preferences the traveller stated (`rules/preferences.py`);
        nothing stated → 50 for all."""
        started = time.perf_counter()
        scores, stated = preferences_mod.preference_scores_for(text, candidates)
        latency_ms = int(round((time.perf_counter() - started) * 1000))
        return PreferenceScores(scores=scores, usage=Usage(latency_ms=latency_ms), stated=stated)

    # -----------------------------------------------------------------------------------------------------------

    def _gazetteer_for(self, places: object) -> Gazetteer:
        """The gazetteer with the context's catalogue places added (built once per distinct tuple of places)."""
        if not places:
            return self._gazetteer
        try:
            return _gazetteer_with(self._extra, places if isinstance(places, tuple) else tuple(places))
        except TypeError:  # not a sequence of names: understand without them
            return self._gazetteer

    def _understand(self, raw: object, today: date, pending: str | None, places: Gazetteer) -> Intent:
        text = normalise(raw)
        if not text:
            return Intent(intent="OUT_OF_SCOPE")
        order_id, order_span = ids.find_order_id(text)
        booking_id, booking_span = ids.find_booking_id(text)
        id_spans = [s for s in (order_span, booking_span) if s] + ids.non_money_spans(text)
        work = mask(text, id_spans)

        date_range = dates_mod.extract_dates(work, today)
        if date_range.start is None:
            date_range = dates_mod.jionlp_fallback(work, today) or date_range
        days = numbers.extract_days(mask(work, list(date_range.spans)))
        if days and date_range.start and date_range.end is None and days.value > 1:
            # "12月5号去大理玩3天": the trip ends on the third day.
            date_range = dates_mod.DateRange(
                date_range.start, date_range.start + timedelta(days=days.value - 1), date_range.spans
            )
        slot_spans = list(date_range.spans) + ([(days.start, days.end)] if days else [])
        money_text = mask(work, slot_spans)

        matches = [m for m in places.find(work) if not _inside(m, id_spans)]
        travel_context = bool(matches or days or pending) or bool(intents.SEARCH_CUES[0][0].search(work))
        max_price, price_span = numbers.extract_budget(money_text, travel_context=travel_context)
        if price_span:
            slot_spans.append(price_span)

        origin, destinations, province = _places(work, matches)
        biz_types = _biz_types(work, matches)
        evidence = intents.Evidence(
            order_id=bool(order_id),
            booking_id=bool(booking_id),
            destination=bool(destinations),
            province=bool(province),
            route=origin is not None and (bool(destinations) or province is not None),
            biz_types=biz_types,
            date=date_range.start is not None,
            date_range=date_range.end is not None,
            days=days is not None,
            budget=max_price is not None,
        )
        evidence.slots_only = _slots_only(work, slot_spans + [(m.start, m.end) for m in matches] + id_spans)
        lowered = ascii_lower(work)
        decision = intents.classify(lowered, evidence, pending)
        requests = _requests(lowered, evidence, matches, origin)
        if len(requests) > 1:  # two requests in one sentence: the first is the main one, the others follow
            decision = requests[0]
        also = [d.intent for d in requests[1:] if d.intent != decision.intent]
        name = decision.intent
        if name == "OUT_OF_SCOPE":
            return Intent(intent=name)
        wanted = {name, *also}

        destination_keywords = [m.place.name for m in destinations]
        city = destinations[0].place.name if destinations and destinations[0].place.is_prefecture_city else None
        data = {
            "intent": name,
            "destination_keywords": destination_keywords,
            "province": province,
            "city": city,
            "origin": origin.place.name if origin else None,
            "date_start": date_range.start,
            "date_end": date_range.end,
            "days": days.value if days else None,
            "max_price": max_price,
            "order_id": order_id,
            "booking_id": booking_id,
            "also": also,
        }
        if wanted & {"BOOK", "CANCEL_BOOKING", "QUERY_PROGRESS", "AFTERSALE"} and biz_types:
            data["biz_type"] = biz_types[0]
        if wanted & {"AFTERSALE", "QUERY_PROGRESS"}:
            data["aftersale_action"] = decision.aftersale_action or next(
                (d.aftersale_action for d in requests if d.aftersale_action), None
            )
        if name in ("AFTERSALE", "QUERY_PROGRESS", "CANCEL_BOOKING"):
            data["days"] = data["max_price"] = None  # "已经三天了" is not a trip length here
        return Intent(**data)


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


def _place_names(places: Iterable[object]) -> tuple[str, ...]:
    """Distinct, stripped place names in a stable order (so equal sets share one gazetteer)."""
    try:
        return tuple(sorted({p.strip() for p in places if isinstance(p, str) and p.strip()}))
    except TypeError:
        return ()


@lru_cache(maxsize=16)
def _gazetteer_with(extra: tuple[str, ...], places: tuple[object, ...]) -> Gazetteer:
    # Keyed by the caller's tuple as given: a cached `catalogue_places()` hands the same tuple every time, so a
    # repeat costs one hash; a new catalogue builds one new gazetteer (`gazetteer` caches by the cleaned names).
    return gazetteer(_place_names((*extra, *places)))


def _valid_pending(pending: object) -> str | None:
    if not isinstance(pending, str):
        return None
    name = pending.strip().upper()
    if name in IntentName.__members__ and name != "OUT_OF_SCOPE":
        return name
    return None


def _inside(match: PlaceMatch, spans: list[tuple[int, int]]) -> bool:
    return any(match.start < end and match.end > start for start, end in spans)


def _places(text: str, matches: list[PlaceMatch]) -> tuple[PlaceMatch | None, list[PlaceMatch], str | None]:
    """(origin, destinations in order with the route's destination first, province short name)."""
    origin: PlaceMatch | None = None
    route_destination: PlaceMatch | None = None
    for a, b in zip(matches, matches[1:], strict=False):
        between = text[a.end : b.start]
        if a.place.name == b.place.name:
            continue
        if _ZH_ROUTE_BETWEEN.fullmatch(between) or _EN_ROUTE_BETWEEN.fullmatch(between):
            origin, route_destination = a, b
            break
        if _EN_REVERSE_BETWEEN.fullmatch(between):
            origin, route_destination = b, a
            break
    if origin is None:
        several = len({x.place.name for x in matches}) > 1
        for m in matches:
            marked_before = _ORIGIN_BEFORE.search(text[max(0, m.start - 12) : m.start])
            if marked_before or _ORIGIN_AFTER.match(text[m.end : m.end + 4]):
                # "从成都出发…" alone is an origin; "成都出发的两日游" alone is where the trips are.
                if several or marked_before:
                    origin = m
                break
    province = None
    destinations: list[PlaceMatch] = []
    seen = set()
    for m in matches:
        if origin is not None and m.place.name == origin.place.name:
            continue
        if m.place.kind == PROVINCE:
            province = province or m.place.name
            continue
        if m.place.name not in seen:
            seen.add(m.place.name)
            destinations.append(m)
    if route_destination is not None and route_destination in destinations:
        destinations.remove(route_destination)
        destinations.insert(0, route_destination)
    return origin, destinations, province


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


def _slots_only(text: str, spans: list[tuple[int, int]]) -> bool:
    """True when, once slots and filler words are removed, (almost) nothing is left: a follow-up answer."""
    rest = mask(text, spans)
    rest = _FILLER_EN.sub(" ", rest)
    rest = _FILLER_ZH.sub("", rest)
    return len(_CJK_OR_WORD.findall(rest)) <= 2
