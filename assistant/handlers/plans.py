"""Round-trip comparison (PLAN_ITINERARY): supplier candidates through the plan_itinerary engine.

    "12月5号从上海去杭州，12月7号回来，帮我比较一下交通和酒店方案"

1. The trip: origin, destination, depart and return dates; whatever is missing is asked in one question.
2. Candidates from the supplier's searches, as the traveller (`itinerary.candidates`); a failed search is said,
   never filled in.
3. Preference scores from the LLM port over what the traveller said (audited, purpose `preference`); a model that
   fails leaves every candidate neutral (50), and the reply says so.
4. `plan_itinerary` (objective maths), stored with `plan_store`; a comparison card of the four named plans with
   the supplier's own prices. Nothing is booked here.
"""

import datetime as dt
import logging

from assistant.audit import llm_call_record
from assistant.dispatcher import Reply, TurnContext, handles
from assistant.llm.factory import get_llm_port
from assistant.llm.port import LLMError
from assistant.llm.preferences import MAX_SCORE, MIN_SCORE, PREFERENCES
from assistant.llm.schema import IntentName
from assistant.memory import memory_load
from assistant.replies import compose, format_day
from itinerary.candidates import Candidates, candidates_collect, preference_candidates, train_seat_class
from itinerary.planning import (
    PLAN_NAMES,
    PlanInputError,
    PlanRequest,
    PlanStoreError,
    TravelPolicy,
    plan_itinerary,
    plan_store,
)

logger = logging.getLogger(__name__)

MAX_NIGHTS = 30  # the longest stay the supplier's hotel search accepts
AWAITING = "plan_itinerary"  # + ":" + the one slot asked for, when only one was missing
PLAN_TITLES = {
    "zh-hans": {"best_overall": "综合最佳", "cheapest": "最便宜", "fastest": "最快", "best_preference": "最合偏好"},
    "en": {
        "best_overall": "Best overall",
        "cheapest": "Cheapest",
        "fastest": "Fastest",
        "best_preference": "Best match",
    },
}
PREFERENCE_WORDS = {
    "zh-hans": {
        "cheap": "便宜",
        "fast": "快",
        "train": "坐火车",
        "flight": "坐飞机",
        "luxury": "高星级酒店",
        "budget_hotel": "经济型酒店",
    },
    "en": {
        "cheap": "cheap",
        "fast": "fast",
        "train": "by train",
        "flight": "by air",
        "luxury": "a high-star hotel",
        "budget_hotel": "a budget hotel",
    },
}
DIRECTION_WORDS = {
    "zh-hans": {"out": "去程", "ret": "回程", "stay": ""},
    "en": {"out": "outbound", "ret": "return", "stay": ""},
}
PRODUCT_WORDS = {
    "zh-hans": {"flight": "航班", "train": "火车", "hotel": "酒店"},
    "en": {"flight": "flights", "train": "trains", "hotel": "hotels"},
}


@handles(IntentName.PLAN_ITINERARY)
def plan_round_trip(context: TurnContext) -> Reply:
    language = context.language
    origin, destination, depart, back = _trip(context)
    missing = _missing(origin, destination, depart, back, context.today)
    if missing:
        text = compose("plan_need", language, missing=missing, origin=origin, destination=destination)
        awaiting = f"{AWAITING}:{missing[0]}" if len(missing) == 1 else AWAITING
        return Reply(text, "CLARIFY", awaiting=awaiting)

    found = candidates_collect(
        user=context.user,
        origin=origin,
        destination=destination,
        depart_date=depart,
        return_date=back,
        seat_class=train_seat_class(context.request_text),
    )
    trip = {"origin": origin, "destination": destination, "depart": format_day(depart, language)}
    trip["back"] = format_day(back, language)
    lacking = _lacking(found)
    if lacking:
        failed = [_failure_words(f.product, f.direction, language) for f in found.failures]
        if found.failures:
            text = compose("plan_unavailable", language, failed=failed, lacking=lacking, **trip)
            return Reply(text, "DEGRADED")
        return Reply(compose("plan_empty", language, lacking=lacking, **trip), "EMPTY")

    scores, stated, read, calls = _preference_scores(context, found)
    request = PlanRequest(
        origin=origin,
        destination=destination,
        depart_date=depart,
        return_date=back,
        outbound=found.outbound,
        hotels=found.hotels,
        returns=found.returns,
        preference_scores=scores,
        policy=TravelPolicy(max_total_price=float(context.intent.max_price)) if context.intent.max_price else None,
        preferences_text=context.request_text,
    )
    try:
        result = plan_itinerary(request)
    except PlanInputError as exc:  # every return leaves before any outbound arrives (inputs are checked above)
        logger.warning("no plan for a round trip: %s", exc)
        no_legal = str(exc).startswith("no legal combination")
        text = compose("plan_empty", language, no_legal=no_legal, unusable=not no_legal, **trip)
        return Reply(text, "EMPTY", llm_calls=calls)
    plan_id = _stored(result, owner_id=context.user.pk)
    card = plan_comparison_card(
        result, found, plan_id=plan_id, origin=origin, destination=destination, depart_date=depart, return_date=back
    )
    card["preferences"], card["preferences_read"] = list(stated), read
    titles = PLAN_TITLES[_lang(language)]
    text = compose(
        "plan_result",
        language,
        card=card,
        best=_plan(card, "best_overall"),
        cheapest=_plan(card, "cheapest"),
        shared=_shared_titles(card, titles),
        stated=[PREFERENCE_WORDS[_lang(language)][name] for name in stated],
        read=read,
        failed=[_failure_words(f.product, f.direction, language) for f in found.failures],
        max_price=context.intent.max_price,
        **trip,
    )
    outcome = "ANSWERED" if read and not found.failures else "DEGRADED"
    return Reply(text, outcome, cards=[card], llm_calls=calls)


# --- the trip ------------------------------------------------------------------------------------------------------


def _trip(context: TurnContext) -> tuple[str | None, str | None, dt.date | None, dt.date | None]:
    """(origin, destination, depart, return) from the intent, reading an answer to this handler's own question.

    Asked for the return date, "12月7号回来" is understood as a single date, which the slots merge over the depart
    date; asked where from, "上海" is understood as a place, which replaces the destination. The question we asked
    tells which slot the answer fills.
    """
    intent = context.intent
    origin = intent.origin
    destination = intent.city or (intent.destination_keywords[0] if intent.destination_keywords else None)
    depart, back = intent.date_start, intent.date_end
    asked, remembered = _open_question(context)
    if asked in ("return_date", "return_after_depart") and depart and (back is None or back <= depart):
        earlier = _iso_date(remembered.get("date_start"))
        if earlier and earlier < depart:
            depart, back = earlier, depart
    elif asked == "origin" and destination and not origin:
        before = remembered.get("city") or next(iter(remembered.get("destination_keywords") or []), None)
        if before and before != destination:
            origin, destination = destination, before
    return origin, destination, depart, back


def _open_question(context: TurnContext) -> tuple[str | None, dict]:
    if not context.conversation_id:
        return None, {}
    memory = memory_load(context.conversation_id)  # the previous turn's: this turn's is saved after the reply
    if memory.intent != IntentName.PLAN_ITINERARY or not (memory.awaiting or "").startswith(f"{AWAITING}:"):
        return None, {}
    return memory.awaiting.split(":", 1)[1], memory.slots


def _iso_date(value: object) -> dt.date | None:
    try:
        return dt.date.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _missing(origin, destination, depart, back, today: dt.date) -> list[str]:
    missing = []
    if not origin:
        missing.append("origin")
    if not destination:
        missing.append("destination")
    if not depart:
        missing.append("depart_date")
    elif depart < today:
        missing.append("depart_in_past")
    if not back:
        missing.append("return_date")
    elif depart and back <= depart:
        missing.append("return_after_depart")
    elif depart and (back - depart).days > MAX_NIGHTS:
        missing.append("stay_too_long")
    if origin and destination and origin == destination:
        missing.append("different_places")
    return missing


# --- candidates and preferences ------------------------------------------------------------------------------------


def _lacking(found: Candidates) -> list[str]:
    """Which of the three parts has no candidate at all: no plan can be made without each."""
    parts = (("out", found.outbound), ("ret", found.returns), ("stay", found.hotels))
    return [name for name, items in parts if not items]


def _failure_words(product: str, direction: str, language: str) -> str:
    lang = _lang(language)
    words = DIRECTION_WORDS[lang].get(direction, "")
    what = PRODUCT_WORDS[lang].get(product, product)
    return f"{words}{what}" if lang == "zh-hans" else " ".join(x for x in (words, what) if x)


def _preference_scores(context: TurnContext, found: Candidates) -> tuple[dict[str, float], tuple, bool, list]:
    """(candidate id → 0..100, preferences stated, whether the port answered, audit rows). Neutral on failure."""
    port = context.port or get_llm_port()
    candidates = preference_candidates(found)
    try:
        answer = port.preference_scores(context.request_text, candidates)
    except LLMError as exc:
        call = llm_call_record(
            port=port, purpose="preference", usage=exc.usage, outcome=exc.kind, error=str(exc), user=context.user
        )
        return {}, (), False, [call]
    call = llm_call_record(port=port, purpose="preference", usage=answer.usage, outcome="OK", user=context.user)
    known = {c.id for c in candidates}
    # Adapters validate their answers; this keeps the engine's input contract whatever an adapter returns.
    scores = {
        cid: float(score)
        for cid, score in answer.scores.items()
        if cid in known and isinstance(score, int | float) and MIN_SCORE <= score <= MAX_SCORE
    }
    stated = tuple(name for name in answer.stated if name in PREFERENCES)
    return scores, stated, True, [call]


def _stored(result, *, owner_id: int | None) -> str | None:
    """The plan id (readable by its owner only), or None when the store (Redis) is down: the comparison is still
    shown, just not kept."""
    try:
        return plan_store(result, owner_id=owner_id)
    except PlanStoreError:
        return None


# --- the card ------------------------------------------------------------------------------------------------------


def _money(value: float) -> int | float:
    value = round(float(value), 2)
    return int(value) if value == int(value) else value


def _leg_facts(leg) -> dict:
    return {
        "id": leg.id,
        "mode": leg.mode,
        "number": leg.number,
        "depart": leg.depart.isoformat(timespec="minutes"),
        "arrive": leg.arrive.isoformat(timespec="minutes"),
        "depart_time": leg.depart.strftime("%H:%M"),
        "arrive_time": leg.arrive.strftime("%H:%M"),
        "duration_minutes": int((leg.arrive - leg.depart).total_seconds() // 60),
        "price": _money(leg.price),
        "seat_class": leg.seat_class,
        "airline": leg.meta.get("airline", ""),
    }


def _hotel_facts(hotel, nights: int) -> dict:
    return {
        "id": hotel.id,
        "hotel_id": hotel.meta.get("hotel_id", hotel.id.split(":", 1)[-1]),
        "name": hotel.name,
        "star": hotel.star,
        "rating": hotel.meta.get("rating"),
        "price_per_night": _money(hotel.price_per_night),
        "nights": nights,
        "price": _money(hotel.price_per_night * nights),
    }


def _plans_of(result) -> dict[str, dict]:
    plans = result.plans if hasattr(result, "plans") else result["plans"]
    return {name: plans[name] for name in PLAN_NAMES if name in plans}


def _counts_of(result) -> dict:
    counts = result.counts if hasattr(result, "counts") else result.get("counts", {})
    return dict(counts or {})


def plan_comparison_card(
    result,
    found: Candidates,
    *,
    plan_id: str | None,
    origin: str,
    destination: str,
    depart_date: dt.date,
    return_date: dt.date,
) -> dict:
    """The comparison card: the four named plans, each with the supplier's facts of its three candidates and every
    title its combination won (one plan can be both the cheapest and the best overall)."""
    by_id = found.by_id()
    plans = _plans_of(result)
    nights = (return_date - depart_date).days
    combination = {name: (p["outbound"], p["hotel"], p["return"]) for name, p in plans.items()}
    entries = []
    for name, plan in plans.items():
        entries.append(
            {
                "name": name,
                "labels": [
                    other for other in PLAN_NAMES if combination.get(other) == combination[name]
                ],  # = the engine's
                "outbound": _leg_facts(by_id[plan["outbound"]]),
                "hotel": _hotel_facts(by_id[plan["hotel"]], nights),
                "return": _leg_facts(by_id[plan["return"]]),
                "total_price": _money(plan["total_price"]),
                "transit_minutes": int(plan["transit_minutes"]),
                "scores": {key: round(float(value), 2) for key, value in plan["scores"].items()},
                "violations": [str(v) for v in plan.get("violations", [])],
            }
        )
    counts = {
        **_counts_of(result),
        "outbound": len(found.outbound),
        "returns": len(found.returns),
        "hotels": len(found.hotels),
    }
    return {
        "type": "plan_comparison",
        "plan_id": plan_id,
        "origin": origin,
        "destination": destination,
        "depart_date": depart_date.isoformat(),
        "return_date": return_date.isoformat(),
        "nights": nights,
        "plans": entries,
        "counts": counts,
    }


def _shared_titles(card: dict, titles: dict[str, str]) -> list[list[str]]:
    """The titles won by one and the same plan, for each plan that won several (e.g. [["综合最佳", "最便宜"]])."""
    groups = {tuple(p["labels"]) for p in card["plans"] if len(p["labels"]) > 1}
    return [[titles[name] for name in group] for group in sorted(groups, key=lambda g: PLAN_NAMES.index(g[0]))]


def _plan(card: dict, name: str) -> dict | None:
    return next((p for p in card["plans"] if p["name"] == name), None)


def _lang(language: str) -> str:
    return language if language in PLAN_TITLES else "zh-hans"
