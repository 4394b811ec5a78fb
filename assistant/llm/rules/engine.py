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

Here the pipeline; beside it `route` (where the sentence goes), `intent_choice` (the products, joined requests, a
payment, a follow-up) and `slot_filling` (the slots the intent is filled with beyond the readers' own).
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
    intent_choice,
    intents,
    keywords,
    numbers,
    option_questions,
    people,
    policy,
    refinements,
    route,
    scorer,
    slot_filling,
    spelling,
)
from assistant.llm.rules import dates as dates_mod
from assistant.llm.rules import preferences as preferences_mod
from assistant.llm.rules.gazetteer import PROVINCE, Gazetteer, PlaceMatch, gazetteer
from assistant.llm.rules.intent_choice import _also_booked, _biz_types, _follow_up, _payment, _requests, _slots_only
from assistant.llm.rules.route import _own_spelling, _places, _route_start
from assistant.llm.rules.slot_filling import (
    _bare_passenger,
    _booking_ordinal,
    _ends_known_trip,
    _nights,
    _option_question,
    _passengers,
    _past_date,
    _rebook_dates,
    _rebook_to_dated,
    _refining,
    _wants_slots,
)
from assistant.llm.rules.text import ascii_lower, mask, normalise
from assistant.llm.schema import Intent, IntentName
from assistant.llm.verdict import VerdictRequest, VerdictResult

logger = logging.getLogger(__name__)


# Orders only activities take (a booking's options know no such order).
ACTIVITY_ORDERS = ("PRICIEST", "TOP_RATED")
# "不是杭州是苏州" / "not Hangzhou, Suzhou": an exclusion that corrects (rather than "不想去三亚", a wish).
_NOT_THIS_BUT_THAT = re.compile(r"不是|\bnot\b|instead of|rather than|而是")


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


def _speller(places: Gazetteer) -> spelling.Speller:
    """The speller over this gazetteer's one-word English names (built once per gazetteer)."""
    speller = getattr(places, "speller", None)
    if speller is None:
        readers = (
            intents, *dates_mod.READERS, booking_prefs, conversation_cues, keywords, route, intent_choice, slot_filling,
            sys.modules[__name__],
        )  # fmt: skip
        speller = spelling.Speller((key[0] for key in places.en if len(key) == 1), readers)
        places.speller = speller
    return speller


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


# What may stand beside a kind's word in a phrase that is only that kind ("photography instead", "摄影类的").
_KIND_FILLER = re.compile(r"(?:\s|instead|ones?|stuff|things?|please|类的?|方面的?|主题的?|的)*", re.I)


def _overlaps(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(span[0] < end and span[1] > start for start, end in spans)


def _distinct(names: list[str]) -> list[str]:
    seen: list[str] = []
    for name in names:
        if name and name not in seen:
            seen.append(name)
    return seen
