"""RulesLLM: the deterministic understanding engine behind the LLM port (provider `rules`).

One sentence goes through: normalise → social words, ids and codes, a pick, passengers (`people`) → places and what
a booking should be (`booking_prefs`: time of day, order, direct, seat, star, vendor, number) → dates and nights →
trip length → budget → unknown place phrases (`keywords`) → exclusions and corrections (`conversation_cues`) → business type →
intent, rebooking, the after-sale reason and whether the sentence only follows up on the task at hand. What the
dialogue reads of the sentence as a whole (a yes or a no to the card, a mobile, a request for activities, the task's
time pointed back at) is read beside them, for every intent. Every parser works on the same normalised text; spans
already understood are masked for the next one, so "12月20号" is never a budget and "7天" is never a price. Nothing
here raises: the worst answer is OUT_OF_SCOPE.

A sentence that joins two requests ("帮我规划三天丽江行程，顺便查天气") gets the first as its intent and the others
in `also`, sharing the sentence's slots (`intents.split_requests`). Places come from `places.json` and from the
catalogue's place names in `UnderstandContext.places` (a gazetteer is built once per distinct tuple of them).
"""

import logging
import re
import sys
import time
from collections.abc import Iterable
from dataclasses import replace
from datetime import date, timedelta
from functools import lru_cache

from assistant.llm.messages import ChatResult
from assistant.llm.port import ChatState, UnderstandContext, Understanding, Usage
from assistant.llm.preferences import PreferenceCandidate, PreferenceScores
from assistant.llm.rules import (
    booking_prefs,
    confirm,
    conversation_cues,
    ids,
    intents,
    keywords,
    numbers,
    option_questions,
    people,
    policy,
    products,
    refinements,
    scorer,
    spelling,
)
from assistant.llm.rules import dates as dates_mod
from assistant.llm.rules import preferences as preferences_mod
from assistant.llm.rules.gazetteer import ABROAD, PROVINCE, Gazetteer, PlaceMatch, gazetteer
from assistant.llm.rules.text import ascii_lower, mask, normalise
from assistant.llm.schema import PREFERENCE_SLOTS, Intent, IntentName
from assistant.llm.verdict import VerdictRequest, VerdictResult

logger = logging.getLogger(__name__)

# What a booking is for (flight, hotel, train), from the lexicon of products (`products.json`).
BIZ_PATTERNS = products.PATTERNS
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
# Words that only name a slot being given ("日期是12月20号", "the date is …").
_SLOT_WORDS = re.compile(
    r"日期|时间|地点|目的地|出发地|天数|人数|\b(?:date|dates|time|day|place|destination|not|sorry)\b", re.I
)
# Orders only activities take (a booking's options know no such order).
ACTIVITY_ORDERS = ("PRICIEST", "TOP_RATED")
_CJK_OR_WORD = re.compile(r"[\u3400-\u9fff]|[A-Za-z]{2,}")
# "不是杭州是苏州" / "not Hangzhou, Suzhou": an exclusion that corrects (rather than "不想去三亚", a wish).
_NOT_THIS_BUT_THAT = re.compile(r"不是|\bnot\b|instead of|rather than|而是")
_FOLLOW_UP_SLOTS = (
    "destination_keywords", "province", "city", "origin", "date_start", "days", "max_price", "order_id",
    "booking_id", "time_band", "sort", "seat_class", "star", "vendor", "number", "passengers", "pick",
    "exclude_places", "nights", "aftersale_reason",
)  # fmt: skip


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

    def chat(self, messages: list[dict], tools: list[dict], *, state: ChatState | None = None) -> ChatResult:
        """One turn of the tool-calling loop (channel 2): the next call of the caller's flow (`state.next_call`),
        or the end (content only, no call) when it has none; without a `next_call` it always ends (`rules.policy`)."""
        return policy.next_turn(messages, tools, state=state)

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

    def _understand(
        self, raw: object, today: date, pending: str | None, places: Gazetteer, shapes: list | None = None
    ) -> Intent:
        text = normalise(raw)
        if not text:
            return Intent(intent="OUT_OF_SCOPE")
        # English words typed with a slip ("wether in beijng") read as the lexicon's words; not a name being given.
        text = _speller(places).correct(text, names_ok=pending != "BOOK")
        social, social_spans = conversation_cues.read_social(text)
        order_id, order_span = ids.find_order_id(text)
        booking_id, booking_span = ids.find_booking_id(text)
        id_spans = [s for s in (order_span, booking_span) if s] + ids.non_money_spans(text)
        work = mask(text, id_spans + social_spans)
        # What the dialogue reads of the sentence as a whole (the conversation's state is decided from these).
        talk = {
            "answer": confirm.confirmation_answer(raw),
            "mobile": people.first_mobile(mask(text, [s for s in (order_span, booking_span) if s])),
            "same_time": conversation_cues.same_time(text),
            "asks_activities": conversation_cues.asks_activities(text),
        }
        pick, pick_span = conversation_cues.read_pick(work)
        length_change, length_span = conversation_cues.read_length_change(work)  # "再加一天" is no trip of one day
        pick_spans = [span for span in (pick_span, length_span) if span]
        passengers, people_spans = _passengers(text, [s for s in (order_span, booking_span) if s], places)
        if not passengers and pending == "BOOK":  # "张三" alone answers "who travels?"
            passengers, people_spans = _bare_passenger(work, places)

        # Places first (a vendor's name is never a place: "海南航空", "厦门航空"), then what a booking should be.
        place_text = mask(work, people_spans + pick_spans)
        matches = [m for m in places.find(place_text) if not _inside(m, id_spans)]
        # A place typed with a wrong character of the same sound (杭洲, 厦们) is that place.
        matches += places.sounding(place_text, [(m.start, m.end) for m in matches] + id_spans)
        matches.sort(key=lambda m: m.start)
        # (codes are masked in `work` for the budget; the number reader needs them)
        wants_text = mask(text, [s for s in (order_span, booking_span) if s] + social_spans + people_spans + pick_spans)
        wants = booking_prefs.read_wants(wants_text, places=[(m.start, m.end) for m in matches])
        vendor_spans = wants.spans if wants.vendor else []
        matches = [m for m in matches if not _inside(m, vendor_spans)]
        # Dates, trip length and budget, on the text without what other readers took.
        not_dates = people_spans + pick_spans + [s for s in wants.spans if s != wants.time_band_span]
        date_text = mask(work, not_dates)
        date_range = dates_mod.extract_dates(date_text, today)
        if date_range.start is None:
            date_range = dates_mod.jionlp_fallback(date_text, today) or date_range
        if date_range.returning and _ends_known_trip(pending, date_range.returning):
            # "9号回来" while a round trip is compared, "改成12号退房" while a hotel is booked: the trip's last day.
            date_range = dates_mod.DateRange(None, date_range.start, date_range.spans)
        # "前一天", "the day after": a day counted from the date the conversation has (no date of its own)
        offset = dates_mod.day_offset(date_text) if date_range.start is None and date_range.end is None else None
        offset_spans = [offset[1]] if offset else []
        days = numbers.extract_days(mask(date_text, list(date_range.spans) + offset_spans))
        if days and date_range.start and date_range.end is None and days.value > 1:
            # "12月5号去大理玩3天": the trip ends on the third day.
            date_range = dates_mod.DateRange(
                date_range.start, date_range.start + timedelta(days=days.value - 1), date_range.spans
            )
        slot_spans = list(date_range.spans) + offset_spans + ([(days.start, days.end)] if days else [])
        money_text = mask(date_text, slot_spans + [(m.start, m.end) for m in matches])
        travel_context = bool(matches or days or pending) or bool(intents.SEARCH_CUES[0][0].search(work))
        max_price, price_span = numbers.extract_budget(money_text, travel_context=travel_context)
        if price_span:
            slot_spans.append(price_span)
        known = [(m.start, m.end) for m in matches]
        regions = [(m.start, m.end) for m in matches if m.place.kind == PROVINCE]  # a province is part of no name
        phrases = [p for p in keywords.unknown_phrases(mask(place_text, slot_spans), known, regions, place_text)
                   if not _overlaps((p.start, p.end), wants.spans + people_spans)]  # fmt: skip
        if phrases:  # "日照金山": the phrase is the keyword, not the city it starts with
            matches = [m for m in matches if not any(p.start <= m.start and m.end <= p.end for p in phrases)]

        # What refines a result: kinds of activity wanted or refused, who comes along, details, packing, a day moved
        # (read with the known places masked: "大理古城" names a place, not an interest in old towns). A phrase no
        # list knows that is only a kind's word is that kind, no place ("anything for photography instead?"); one
        # with a name of its own is a place of that kind ("南浔古镇", "old town prague").
        refine = refinements.read_refinement(mask(work, [(m.start, m.end) for m in matches]))
        kind_led = [
            p for p in phrases
            if _KIND_FILLER.fullmatch(mask(work, refine.spans)[p.start : p.end].strip()) and p.end - p.start > 1
            and any(p.start < end and start < p.end for start, end in refine.spans)
        ]  # fmt: skip
        if kind_led:
            phrases = [p for p in phrases if p not in kind_led]
        refine = refinements.read_refinement(
            mask(work, [(m.start, m.end) for m in matches] + [(p.start, p.end) for p in phrases])
        )
        # Which places are excluded ("不想去三亚", "not Sanya", "不是杭州"), which remain.
        excluded = []
        for m in matches:
            listed = bool(excluded) and excluded[-1] is matches[matches.index(m) - 1]
            between = work[excluded[-1].end : m.start] if listed else ""
            if conversation_cues.negated_place(work, m.start, m.end) or (
                listed and conversation_cues.EXCLUSION_LIST_SEP.fullmatch(between)
            ):
                excluded.append(m)
        excluded_phrases = [p for p in phrases if conversation_cues.negated_place(work, p.start, p.end)]
        kept = [m for m in matches if m not in excluded]
        kept_phrases = [p for p in phrases if p not in excluded_phrases]
        exclude_places = _distinct([m.place.name for m in excluded] + [p.text for p in excluded_phrases])
        exclude_places = [name for name in exclude_places if name not in {m.place.name for m in kept}]
        correction = conversation_cues.is_correction(work) or bool(
            exclude_places and (kept or kept_phrases) and _NOT_THIS_BUT_THAT.search(ascii_lower(work))
        )

        # A question about the options on screen: a booking waits and the sentence names no place nor day of its own.
        names_a_trip = bool(matches or phrases or date_range.start or date_range.end)
        talk.update(_option_question(work, pending, pick, wants.sort) if not names_a_trip else {})

        origin, destinations, province = _places(work, kept, travelling=pending in ("BOOK", "PLAN_ITINERARY"))
        if origin is None and (origin := _route_start(work, kept, kept_phrases)) is not None:
            destinations = [m for m in destinations if m.place.name != origin.place.name]
        # "from Lisbon to Porto": an end of a route no list knows is kept as written; its start is the origin.
        origin_name = origin.place.name if origin else next((p.text for p in kept_phrases if p.role == "from"), None)
        kept_phrases = [p for p in kept_phrases if p.role != "from"]
        routed_to = bool(destinations) or province is not None or any(p.role == "to" for p in kept_phrases)
        biz_types = _biz_types(work, kept)
        inferred = (
            wants.vendor_kind,
            wants.number_kind,
            wants.seat_kind,
            # a star is a hotel's, unless the sentence is about tours ("temple tours, 4+ stars": a rating)
            "HOTEL" if wants.star and not intents.about_tours(ascii_lower(work)) else None,
            "FLIGHT" if wants.time_band == "RED_EYE" else None,
        )
        if pending == "BOOK":
            inferred = ()  # "actually first class" while a train is booked: the booking's product stands
        # A transport or a hotel named as such (not only guessed from a want: "二等座就行", "东航的").
        named_biz = bool(_biz_types(mask(work, wants.spans), kept))
        for kind in inferred:
            if kind and kind not in biz_types:
                biz_types.append(kind)
        reason, reason_span = conversation_cues.read_reason(work)
        # "往后推一天", "push it back a day": a booking moved by days, unless a new trip is named with it or the stay
        # only gets longer ("往后延一天 多住一晚")
        shift = dates_mod.day_shift(work) if length_change is None else None
        moved = shift is not None and not (destinations or kept_phrases)
        moved = moved or (length_change is None and conversation_cues.booking_moved(work))
        rebook = conversation_cues.is_rebook(work) or _rebook_to_dated(work, date_range) or moved
        change_spans = conversation_cues.change_of_mind_spans(work)
        if change_spans and (switched := _biz_types(mask(work, [(0, change_spans[-1][1])]), kept)):
            # "算了，火车太慢，改坐飞机": the product said after the change of mind is the one wanted now
            biz_types = [*switched, *(b for b in biz_types if b not in switched)]
        evidence = intents.Evidence(
            order_id=bool(order_id),
            booking_id=bool(booking_id),
            destination=bool(destinations or kept_phrases),
            province=bool(province),
            route=origin_name is not None and routed_to,
            origin=origin_name is not None,
            biz_types=biz_types,
            date=date_range.start is not None or date_range.end is not None or offset is not None,
            date_range=date_range.end is not None,
            days=days is not None,
            budget=max_price is not None,
            preferences=wants.booking_specific,
            sort=wants.sort is not None,
            pick=pick is not None,
            passengers=bool(passengers),
            reason=reason is not None,
            rebook=rebook,
            change_of_mind=bool(change_spans) or conversation_cues.has_follow_up_marker(work),
            excluded=bool(exclude_places),
        )
        understood = (
            slot_spans + [(m.start, m.end) for m in matches] + [(p.start, p.end) for p in phrases] + id_spans
            + wants.spans + pick_spans + people_spans + change_spans + ([reason_span] if reason_span else [])
            + (people.label_spans(work) if passengers else []) + conversation_cues.correction_spans(work)
            + ([nights_span] if (nights_span := dates_mod.nights_span(date_text)) else [])
        )  # fmt: skip
        evidence.slots_only = _slots_only(work, understood)
        classify_spans = list(change_spans)
        if reason == "NOT_RECEIVED" and reason_span:  # "没收到货" is why, not a question about progress
            classify_spans.append(reason_span)
        lowered = ascii_lower(mask(work, classify_spans))
        decision = intents.classify(lowered, evidence, pending)
        if (
            refine.packing
            and decision.intent in ("OUT_OF_SCOPE", "RECOMMEND", "SEARCH_ACTIVITIES")
            and not (talk["asks_activities"] or rebook)
        ):  # "要带什么衣服", "what should I pack": the climate of the place and time answers it
            decision = replace(decision, intent="QUERY_WEATHER")
        # The sentence's shape for the fitted scorer: each slot replaced by its kind ("订<P>到<P><D>的票").
        kinds = (
            [(m.start, m.end, scorer.PLACE) for m in matches] + [(p.start, p.end, scorer.PLACE) for p in phrases]
            + [(*span, scorer.DATE) for span in date_range.spans] + [(*span, scorer.CODE) for span in id_spans]
            + ([(days.start, days.end, scorer.NUMBER)] if days else [])
            + ([(*price_span, scorer.NUMBER)] if price_span else []) + [(*s, scorer.PERSON) for s in people_spans]
            + [(*span, scorer.VENDOR) for span in vendor_spans]
        )  # fmt: skip
        shaped, signals = scorer.shape(lowered, kinds), intents.signals(lowered, evidence)
        if conversation_cues.asks_booking_status(
            lowered
        ):  # "我订了什么": the bookings reader's finding, for the scorer too
            signals.append("booking_status")
        signals += refine.signals()
        if shapes is not None:  # the scorer's build reads the shapes of its labelled sentences
            shapes.append((shaped, signals))
        requests = _requests(lowered, evidence, kept, origin)
        if len(requests) > 1:  # two requests in one sentence: the first is the main one, the others follow
            decision = requests[0]
        if rebook and decision.intent not in ("AFTERSALE", "QUERY_PROGRESS", "QUERY_WEATHER"):
            decision = intents.Decision("BOOK")  # 改签 / change my flight: a new booking in place of the old
        payment = None if rebook else _payment(lowered, decision, evidence)
        if payment is not None:
            decision = payment
        elif shapes is None and not (pending or rebook):
            # A new request: the fitted scorer weighs the rules' reading (a task's follow-up, a rebooking and a
            # payment are the dialogue's to read).
            fitted = scorer.scorer()
            joined = tuple(d.intent for d in requests)
            decision = fitted.settle(decision, fitted.score(shaped, signals), lowered, joined)
        also = [d.intent for d in requests[1:] if d.intent != decision.intent]
        name = decision.intent
        talk["details"] = refine.details and pick is not None  # about one of the options shown
        reading = {"confidence": decision.confidence, "alternatives": list(decision.alternatives)}
        if name == "OUT_OF_SCOPE":
            # "再加一天" alone: the dialogue applies it to the trip at hand (or, with none, it is out of scope).
            # "昨天" alone answering "which date?" of a booking: a day already over.
            passed = _past_date(date_text, today, {}, date_range).get("past_date") if pending == "BOOK" else None
            return Intent(
                intent=name, social=social, length_change=length_change, past_date=passed, **reading,
                # (a question about the options on screen says itself which one it takes, if any)
                **{**_refining(refine, pick=pick if talk["details"] else None, rebook=rebook), **talk},
                # an order only activities take ("show me the top rated ones"): the dialogue gives it to them
                sort=wants.sort if wants.sort in ACTIVITY_ORDERS else None,
            )  # fmt: skip
        wanted = {name, *also}

        named = [(m.start, m.place.name) for m in destinations]
        # A place abroad keeps the traveller's own spelling beside its Chinese name ("Lisbon" → 里斯本, Lisbon); a
        # phrase no list knows is kept as written (and capitalised, when written all in lower case).
        written = [(m.start + 0.5, spelled) for m in destinations if (spelled := _own_spelling(work, m))]
        written += [(p.start, p.text) for p in kept_phrases]
        for at, said in written:
            named.append((at, said))
            if said.isascii() and said.islower():
                named.append((at + 0.25, said.title()))
        destination_keywords = _distinct([x for _, x in sorted(named)])
        if destinations and destinations[0] is not None and destinations[0].place.name in destination_keywords:
            # The route's destination stays first ("上海飞成都").
            destination_keywords.remove(destinations[0].place.name)
            destination_keywords.insert(0, destinations[0].place.name)
        # A city named is the city (a scenic spot's city in the gazetteer may not be the catalogue's: 博尔塔拉 / 博乐).
        city = destinations[0].place.name if destinations and destinations[0].place.is_prefecture_city else None
        if name in ("SEARCH_ACTIVITIES", "QUERY_WEATHER", "MAKE_TRAVEL_PLAN") and origin and not destination_keywords:
            # "day trips from Guilin": where the trips start is where they are
            city = origin.place.name if origin.place.is_prefecture_city else None
            destination_keywords, origin_name = [origin.place.name], None
        data = {
            "intent": name,
            "destination_keywords": destination_keywords,
            "province": province,
            "city": city,
            "origin": origin_name,
            "date_start": date_range.start,
            "date_end": date_range.end,
            "days": days.value if days else None,
            "max_price": max_price,
            "order_id": order_id,
            "booking_id": booking_id,
            "also": also,
            "social": social,
            "pick": pick,
            "passengers": passengers,
            "exclude_places": exclude_places,
            "correction": correction,
            "length_change": length_change,
            "weekday": date_range.weekday if date_range.start is not None else None,
            "day_offset": offset[0] if offset and not date_range.returning else None,
            **reading,
            **talk,
        }
        if wanted & {"BOOK", "CANCEL_BOOKING", "QUERY_PROGRESS", "AFTERSALE"} and biz_types:
            data["biz_type"] = biz_types[0]
        if wanted & {"AFTERSALE", "QUERY_PROGRESS"}:
            data["aftersale_action"] = decision.aftersale_action or next(
                (d.aftersale_action for d in requests if d.aftersale_action), None
            )
        if "AFTERSALE" in wanted:
            data["aftersale_reason"] = reason
        if name == "BOOK" and not (rebook or payment is not None):
            data["also_book"] = _also_booked(work, biz_types)
        if name == "HANDOVER":
            data["complaint"] = bool(intents.COMPLAINT.search(lowered))
        if name in ("AFTERSALE", "QUERY_PROGRESS", "CANCEL_BOOKING"):
            data["days"] = data["max_price"] = None  # "已经三天了" is not a trip length here
        if name not in ("AFTERSALE", "QUERY_PROGRESS", "QUERY_WEATHER"):
            data.update(_wants_slots(wants))
            data["nights"] = _nights(date_text, date_range, biz_types)
        if name in ("SEARCH_ACTIVITIES", "RECOMMEND", "MAKE_TRAVEL_PLAN", "QUERY_WEATHER"):
            data.update(_refining(refine, pick=pick, rebook=rebook))
        if payment is not None:
            data["pay" if name == "BOOK" else "booking_status"] = True
        if name == "CANCEL_BOOKING" or (name == "BOOK" and (rebook or payment is not None)):
            data.update(_booking_ordinal(work, data))
        if rebook and name == "BOOK":
            data["rebook"] = True
            new, original = _rebook_dates(date_text, today)
            if shift is not None:  # the day said is the booking's; the new one is counted from it by the handler
                new, original = None, original or new
                data["day_shift"], data["days"], data["time_band"] = shift[0], None, None
                if data.get("sort") in ("EARLIEST", "LATEST"):
                    data["sort"] = None  # "a day earlier" moves the day, it orders no options
            if original is not None or new is not None or shift is not None:
                data["date_start"], data["date_end"], data["original_date"] = new, None, original
                data["nights"] = dates_mod.nights(date_text)  # from the old day to the new one is no stay
        if talk.get("asks_option"):
            # "哪个最便宜", "is it direct?" ask about the options; they want no order and no nonstop flight.
            data["sort"] = None if talk.get("asked_order") else data.get("sort")
            data["direct"] = None if option_questions.DIRECT in talk["asks_option"] else data.get("direct")
        if name == "BOOK" and data.get("day_shift") is None:
            data.update(_past_date(date_text, today, data, date_range))
        negations = [conversation_cues.negation_span(work, m.start, m.end) for m in excluded]
        not_cues = wants.spans + [span for span in negations if span]  # "不想去三亚": 想去 is not a request here
        cued = intents.cue_strength(mask(lowered, not_cues)) >= 2
        # A request for a person ("还是转人工吧") changes no slot of the task at hand.
        data["follow_up"] = name != "HANDOVER" and (
            _follow_up(work, decision, pending, evidence, data, named_biz=named_biz, cued=cued)
            # "那丽江呢", "还是大理", "cheaper" read as a search: it changes the slots of the task at hand
            or (
                name == "SEARCH_ACTIVITIES"
                and conversation_cues.sounds_like_follow_up(text)
                and not talk["asks_activities"]
            )
        )
        return Intent(**data)


def _refining(refine: refinements.Refinement, *, pick: int | None, rebook: bool) -> dict:
    """The refinement's slots (a day moved from the one shown only outside a rebooking, which moves a booking)."""
    return {
        "interests": refine.interests,
        "avoid_interests": refine.avoid_interests,
        "audience": refine.audience,
        "packing": refine.packing,
        "day_shift": None if rebook else refine.day_shift,
        "pick": pick,
    }


# The fact an order implies when a sentence asks only which option comes first in it ("哪个最便宜").
_ORDER_FACT = {
    "CHEAPEST": option_questions.PRICE,
    "FASTEST": option_questions.DURATION,
    "EARLIEST": option_questions.DEPARTURE,
    "LATEST": option_questions.DEPARTURE,
}


def _option_question(text: str, pending: str | None, pick: int | None, sort: str | None) -> dict:
    """What the sentence asks of the options a waiting booking showed: the facts, about which one (a position, or
    the first in an order); {} when it asks nothing of them."""
    if pending != "BOOK":
        return {}
    facts, _spans = option_questions.read_option_question(text)
    order = sort if sort and option_questions.asks_which(text) else None
    if order and not facts:
        facts = [_ORDER_FACT[order]]
    if not facts:
        return {}
    # "第一个多少钱" asks about the first without taking it; "第二个多少钱？那就订它吧" takes it too.
    chosen = pick if option_questions.also_chooses(text) else None
    return {"asks_option": facts, "asked_option": None if order else pick, "asked_order": order, "pick": chosen}


def _speller(places: Gazetteer) -> spelling.Speller:
    """The speller over this gazetteer's one-word English names (built once per gazetteer)."""
    speller = getattr(places, "speller", None)
    if speller is None:
        readers = (intents, dates_mod, booking_prefs, conversation_cues, keywords, sys.modules[__name__])
        speller = spelling.Speller((key[0] for key in places.en if len(key) == 1), readers)
        places.speller = speller
    return speller


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


def _booking_ordinal(text: str, data: dict) -> dict:
    """Which of the traveller's bookings a cancel, a rebooking or a payment names by when it was made ("最新的那个订单",
    "the last one I booked"); its words are no order of options ("latest") nor a pick ("第一个") there."""
    ordinal, span = conversation_cues.read_booking_ordinal(text)
    if ordinal is None or span is None:
        return {}
    said = text[span[0] : span[1]]
    found = {"booking_ordinal": ordinal}
    if data.get("sort") and booking_prefs.read_wants(said).sort == data["sort"]:
        found["sort"] = None
    if data.get("pick") and conversation_cues.read_pick(said)[0] == data["pick"]:
        found["pick"] = None
    return found


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


def _places(
    text: str, matches: list[PlaceMatch], *, travelling: bool = False
) -> tuple[PlaceMatch | None, list[PlaceMatch], str | None]:
    """(origin, destinations in order with the route's destination first, province short name). `travelling`: a
    journey is being arranged, so "上海出发" alone is where it leaves from."""
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
                if several or marked_before or travelling:
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


def _route_start(text: str, matches: list[PlaceMatch], phrases: list[keywords.Phrase]) -> PlaceMatch | None:
    """The known place a route to a place no list knows starts from: "上海到Lisbon", "Beijing to Porto"."""
    for phrase in phrases:
        if phrase.role == "to":
            for m in matches:
                between = text[m.end : phrase.start]
                if m.end <= phrase.start and (
                    _ZH_ROUTE_BETWEEN.fullmatch(between) or _EN_ROUTE_BETWEEN.fullmatch(between)
                ):
                    return m
    return None


# What may stand beside a kind's word in a phrase that is only that kind ("photography instead", "摄影类的").
_KIND_FILLER = re.compile(r"(?:\s|instead|ones?|stuff|things?|please|类的?|方面的?|主题的?|的)*", re.I)


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


def _overlaps(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(span[0] < end and span[1] > start for start, end in spans)


def _distinct(names: list[str]) -> list[str]:
    seen: list[str] = []
    for name in names:
        if name and name not in seen:
            seen.append(name)
    return seen


def _wants_slots(wants: booking_prefs.BookingWants) -> dict:
    return {
        "time_band": wants.time_band,
        "avoid_time_band": wants.avoid_time_band,
        "sort": wants.sort,
        "direct": wants.direct,
        "seat_class": wants.seat_class,
        "star": wants.star,
        "star_or_above": wants.star_or_above,
        "vendor": wants.vendor,
        "avoid_vendor": wants.avoid_vendor,
        "number": wants.number,
    }


def _nights(text: str, date_range: dates_mod.DateRange, biz_types: list[str]) -> int | None:
    """The nights of a stay: as said ("住两晚"), or from the check-in and check-out days of a hotel."""
    said = dates_mod.nights(text)
    if said:
        return said
    if "HOTEL" in biz_types and date_range.start and date_range.end and date_range.end > date_range.start:
        return (date_range.end - date_range.start).days
    if "HOTEL" in biz_types and dates_mod.one_night(text, date_range):
        return 1  # "明晚的酒店", "a hotel for tomorrow night": in that evening, out the next morning
    return None


def _rebook_to_dated(text: str, date_range: dates_mod.DateRange) -> bool:
    """ "改到20号的航班", "明天的火车改到后天": a change to (or from and to) a dated booking is a change of a booking."""
    match = conversation_cues.rebook_to_dated(text)
    if not match:
        return False
    spans = [match.span(name) for name, said in match.groupdict().items() if said]
    return all(any(s < end and e > start for s, e in date_range.spans) for start, end in spans)


def _past_date(text: str, today: date, data: dict, date_range: dates_mod.DateRange) -> dict:
    """A booking for a day already over (昨天, last Friday, 11月20号 on December 1st): `past_date` is that day and
    the booking has no date (the handler says the day has passed and asks for another). Words read as a coming day
    that are the past day's own ("Friday" of "last Friday", next year's 11月20号) are that past day."""
    found = dates_mod.past_day(text, today)
    start = data.get("date_start")
    if found is None:
        return {}
    day, (begin, end) = found
    misread = any(begin < e and s < end for s, e in date_range.spans)
    if start is not None and start >= today and not misread:
        return {}  # "昨天订的机票改到周五": the new day is Friday
    return {"past_date": day, "date_start": None, "date_end": None, "nights": data.get("nights")}


def _rebook_dates(text: str, today: date) -> tuple[date | None, date | None]:
    """(the new date, the original one) of a rebooking sentence: "把12月19号的机票改签到20号" → (Dec 20, Dec 19)."""
    mentions = dates_mod.mentions(text, today)
    if not mentions:
        return None, None
    new = original = None
    for m in mentions:
        before = text[max(0, m.start - 10) : m.start]
        after = text[m.end : m.end + 10]
        if new is None and conversation_cues.NEW_DATE_BEFORE.search(before):
            new = m
        elif original is None and (
            conversation_cues.OLD_DATE_AFTER.match(after) or conversation_cues.OLD_DATE_BEFORE.search(before)
        ):
            original = m
    rest = [m for m in mentions if m is not new and m is not original]
    if new is None and rest and original is not None:
        new = next((m for m in rest if m.start > original.start), None)
    if original is None and new is not None:
        original = next((m for m in rest if m.start < new.start), None)
    if new is None and original is None:
        new = mentions[0]
    original_day = original.first if original is not None else None
    if new is None:
        return None, original_day
    new_day = dates_mod.resolve_after(new, original_day) if original_day and new.relative else new.first
    return new_day, original_day


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


_CHECK_OUT_WORDS = re.compile(r"退房|离店|check", re.I)


def _ends_known_trip(pending: str | None, words: str) -> bool:
    """Whether a lone coming-back date ends the trip the conversation is about rather than starting one."""
    return pending == "PLAN_ITINERARY" or (pending == "BOOK" and bool(_CHECK_OUT_WORDS.search(words)))


def _own_spelling(text: str, match: PlaceMatch) -> str | None:
    """The Latin spelling the traveller gave a place abroad, as written (title case when all lower case), or the
    place said with the word for its kind ("平潭岛" for 平潭, "丽江古镇")."""
    if match.place.kind != ABROAD:
        said = keywords.with_ending(text, match.start, match.end)
        return said if said != match.place.name else None
    said = " ".join(text[match.start : match.end].split())
    if not said.isascii() or not re.search(r"[A-Za-z]", said):
        return None
    return said


def _bare_passenger(text: str, places: Gazetteer) -> tuple[list[dict], list]:
    """A sentence that is only a name, read while a booking waits for its passengers (not a place's name)."""
    person = people.bare_name(text)
    if person is None or places.find(text) or booking_prefs.read_wants(text).any:
        return [], []
    start, end = person.span
    if any(m.start < end and start < m.end for m in dates_mod.mentions(text, date.today())):
        return [], []  # "周五吧": a day, not a name
    return [{"name": person.name, "mobile": None}], [person.span]


def _passengers(text: str, id_spans: list[tuple[int, int]], places: Gazetteer) -> tuple[list[dict], list]:
    """The passengers named, without any "name" that is a place ("I'm going to Dunhuang")."""
    found, spans = people.passengers(mask(text, id_spans))
    place_spans = [(m.start, m.end) for m in places.find(text)]
    kept = [
        (person, span)
        for person, span in zip(found, spans, strict=True)
        if not any(s <= span[0] and span[1] <= e for s, e in place_spans)
    ]
    return [p for p, _ in kept], [s for _, s in kept]
