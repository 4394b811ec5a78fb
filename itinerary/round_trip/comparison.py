"""The round-trip comparison (PLAN_ITINERARY): supplier candidates, preference scores, the engine, the store.

    comparison = round_trip_compare(user=alice, origin="上海", destination="杭州", depart_date=date(2026, 12, 5),
                                    return_date=date(2026, 12, 7), preferences_text="想坐高铁", port=port)

1. The trip is checked first (`round_trip_problems`): a bad one is refused (INVALID_PARAM, with which part is
   wrong) before anything is searched.
2. Candidates from the supplier's searches, as the traveller (`itinerary.round_trip.candidates`); a failed search is listed,
   never filled in. Without a candidate for one of the three parts there is no comparison.
3. Preference scores from the LLM port over the traveller's own words; the port audits its own call. A model that
   fails leaves every candidate neutral (50), and the result says so.
4. `plan_itinerary` (objective maths), stored with `plan_store` for its owner (no plan id when the store is down),
   and the comparison's facts: the four named plans with the supplier's own prices. Nothing is booked here.

The result is language-neutral; the assistant's presenter adds the words.
"""

import datetime as dt
import logging
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone

from assistant.llm.audit import audited
from assistant.llm.port import LLMError
from assistant.llm.preferences import MAX_SCORE, MIN_SCORE, PREFERENCES
from core.envelope import Code
from core.errors import ApplicationError
from itinerary.round_trip.candidates import (
    Candidates,
    SearchFailure,
    candidates_collect,
    preference_candidates,
    train_seat_class,
)
from itinerary.round_trip.engine import plan_itinerary
from itinerary.round_trip.plan_types import (
    PLAN_NAMES,
    HotelOption,
    Leg,
    PlanInputError,
    PlanRequest,
    PlanResult,
    TravelPolicy,
)
from itinerary.round_trip.store import PlanStoreError, plan_store

logger = logging.getLogger(__name__)

MAX_NIGHTS = 30  # the longest stay the supplier's hotel search accepts
MAX_PREFERENCES_CHARS = 2000  # what of the traveller's words the preference reader is given
# What can be wrong with a trip, in the order a question about it names them.
PROBLEMS = (
    "origin",
    "destination",
    "depart_date",
    "depart_in_past",
    "return_date",
    "return_after_depart",
    "stay_too_long",
    "different_places",
)


class RoundTripError(ApplicationError):
    """A trip that cannot be compared; `data["problems"]` names what is missing or wrong (see PROBLEMS)."""

    default_code = Code.INVALID_PARAM


@dataclass(frozen=True)
class Trip:
    origin: str
    destination: str
    depart_date: dt.date
    return_date: dt.date

    @property
    def nights(self) -> int:
        return (self.return_date - self.depart_date).days

    def as_json(self) -> dict:
        return {
            "origin": self.origin,
            "destination": self.destination,
            "depart_date": self.depart_date.isoformat(),
            "return_date": self.return_date.isoformat(),
            "nights": self.nights,
        }


@dataclass(frozen=True)
class RoundTripComparison:
    """What a comparison found. `comparison` holds the facts of the four named plans (None when there is no plan:
    a part `lacking`, or no legal combination, `no_plan`); `failures` are the supplier searches that failed."""

    trip: Trip
    max_price: int | None
    failures: list[SearchFailure]
    lacking: list[str]  # "out", "ret", "stay": parts with no candidate at all
    preferences_read: bool  # whether the preference port answered (False: every candidate counted neutral)
    preferences: tuple[str, ...]  # the preferences it read (names of assistant.llm.preferences.PREFERENCES)
    result: PlanResult | None = None
    no_plan: str | None = None  # "no_legal" (every return leaves before any outbound arrives) or "unusable"
    plan_id: str | None = None  # None when the plan store (Redis) is down: the comparison is shown, not kept
    comparison: dict | None = None
    llm_calls: list = field(default_factory=list)  # the audit rows of the model calls made for it

    @property
    def status(self) -> str:
        """compared | unavailable (a part is lacking because a search failed) | empty (nothing to compare)."""
        if self.comparison is not None:
            return "compared"
        return "unavailable" if self.lacking and self.failures else "empty"

    def as_json(self) -> dict:
        """The facts as JSON, for an envelope (no words: the presenter adds them)."""
        return {
            "status": self.status,
            "trip": self.trip.as_json(),
            "max_price": self.max_price,
            "failures": [{"product": f.product, "direction": f.direction, "code": f.code} for f in self.failures],
            "lacking": list(self.lacking),
            "no_plan": self.no_plan,
            "preferences": {"read": self.preferences_read, "stated": list(self.preferences)},
            "plan_id": self.plan_id,
            "comparison": self.comparison,
        }


def round_trip_problems(
    *,
    origin: str | None,
    destination: str | None,
    depart_date: dt.date | None,
    return_date: dt.date | None,
    today: dt.date,
) -> list[str]:
    """What is missing or wrong in a trip (names of PROBLEMS, in that order); empty when it can be compared."""
    problems = []
    if not origin:
        problems.append("origin")
    if not destination:
        problems.append("destination")
    if not depart_date:
        problems.append("depart_date")
    elif depart_date < today:
        problems.append("depart_in_past")
    if not return_date:
        problems.append("return_date")
    elif depart_date and return_date <= depart_date:
        problems.append("return_after_depart")
    elif depart_date and (return_date - depart_date).days > MAX_NIGHTS:
        problems.append("stay_too_long")
    if origin and destination and origin == destination:
        problems.append("different_places")
    return problems


def round_trip_compare(
    *,
    user,
    origin: str,
    destination: str,
    depart_date: dt.date,
    return_date: dt.date,
    max_price: int | None = None,
    preferences_text: str = "",
    port: Any,
    today: dt.date | None = None,
) -> RoundTripComparison:
    """Compare round trips (outbound × hotel × return) for `user` from the supplier's live answers.

    Raises RoundTripError (INVALID_PARAM, `data["problems"]`) for a trip that cannot be compared; nothing is
    searched then. A failed supplier search or model call is never raised: the result says what is missing.
    """
    origin, destination = (origin or "").strip(), (destination or "").strip()
    problems = round_trip_problems(
        origin=origin,
        destination=destination,
        depart_date=depart_date,
        return_date=return_date,
        today=today or timezone.localdate(),
    )
    if problems:
        raise RoundTripError(
            message=f"the trip cannot be compared: {', '.join(problems)}",
            data={"problems": problems},
        )
    trip = Trip(origin, destination, depart_date, return_date)
    text = (preferences_text or "")[:MAX_PREFERENCES_CHARS]
    found = candidates_collect(
        user=user,
        origin=origin,
        destination=destination,
        depart_date=depart_date,
        return_date=return_date,
        seat_class=train_seat_class(text),
    )
    lacking = _lacking(found)
    if lacking:
        return RoundTripComparison(trip, max_price, found.failures, lacking, preferences_read=False, preferences=())

    port = audited(port, user=user)
    already = len(port.calls)
    scores, stated, read = _preference_scores(port, text, found)
    calls = port.calls[already:]
    request = PlanRequest(
        origin=origin,
        destination=destination,
        depart_date=depart_date,
        return_date=return_date,
        outbound=found.outbound,
        hotels=found.hotels,
        returns=found.returns,
        preference_scores=scores,
        policy=TravelPolicy(max_total_price=float(max_price)) if max_price else None,
        preferences_text=text,
    )
    base = {"failures": found.failures, "lacking": [], "preferences_read": read, "preferences": stated}
    try:
        result = plan_itinerary(request)
    except PlanInputError as exc:  # every return leaves before any outbound arrives (inputs are checked above)
        logger.warning("no plan for a round trip: %s", exc)
        no_plan = "no_legal" if str(exc).startswith("no legal combination") else "unusable"
        return RoundTripComparison(trip, max_price, no_plan=no_plan, llm_calls=calls, **base)
    plan_id = _stored(result, owner_id=user.pk)
    comparison = round_trip_facts(result, found, plan_id=plan_id, trip=trip)
    return RoundTripComparison(
        trip, max_price, result=result, plan_id=plan_id, comparison=comparison, llm_calls=calls, **base
    )


# --- candidates and preferences ------------------------------------------------------------------------------------


def _lacking(found: Candidates) -> list[str]:
    """Which of the three parts has no candidate at all: no plan can be made without each."""
    parts = (("out", found.outbound), ("ret", found.returns), ("stay", found.hotels))
    return [name for name, items in parts if not items]


def _preference_scores(port, text: str, found: Candidates) -> tuple[dict[str, float], tuple[str, ...], bool]:
    """(candidate id → 0..100, preferences stated, whether the port answered). Neutral on failure."""
    candidates = preference_candidates(found)
    try:
        answer = port.preference_scores(text, candidates)
    except LLMError as exc:
        logger.info("preferences left neutral: the port failed (%s)", exc.kind)
        return {}, (), False
    known = {c.id for c in candidates}
    # Adapters validate their answers; this keeps the engine's input contract whatever an adapter returns.
    scores = {
        cid: float(score)
        for cid, score in (answer.scores or {}).items()
        if cid in known and isinstance(score, int | float) and MIN_SCORE <= score <= MAX_SCORE
    }
    stated = tuple(name for name in (answer.stated or ()) if name in PREFERENCES)
    return scores, stated, True


def _stored(result: PlanResult, *, owner_id: int | None) -> str | None:
    """The plan id (readable by its owner only), or None when the store (Redis) is down."""
    try:
        return plan_store(result, owner_id=owner_id)
    except PlanStoreError:
        logger.warning("a round-trip comparison was not stored: the plan store is down")
        return None


# --- the comparison's facts ----------------------------------------------------------------------------------------


def _money(value: float) -> int | float:
    value = round(float(value), 2)
    return int(value) if value == int(value) else value


def _leg_facts(leg: Leg, *, origin: str, destination: str) -> dict:
    """One leg as the supplier quoted it: number, airline, where from and to (the supplier's names, else the
    trip's cities), the day, the clock times and how many days later it arrives (the "+1" of an overnight leg)."""
    return {
        "id": leg.id,
        "mode": leg.mode,
        "number": leg.number,
        "origin": str(leg.meta.get("from") or origin),
        "destination": str(leg.meta.get("to") or destination),
        "date": leg.depart.date().isoformat(),
        "depart": leg.depart.isoformat(timespec="minutes"),
        "arrive": leg.arrive.isoformat(timespec="minutes"),
        "depart_time": leg.depart.strftime("%H:%M"),
        "arrive_time": leg.arrive.strftime("%H:%M"),
        "overnight_days": max(0, (leg.arrive.date() - leg.depart.date()).days),
        "duration_minutes": int((leg.arrive - leg.depart).total_seconds() // 60),
        "price": _money(leg.price),
        "seat_class": leg.seat_class,
        "airline": leg.meta.get("airline", ""),
        # The supplier's English names ("" when it sent none; the leg's own places only).
        "airline_en": leg.meta.get("airline_en", ""),
        "origin_en": leg.meta.get("from_en", "") if leg.meta.get("from") else "",
        "destination_en": leg.meta.get("to_en", "") if leg.meta.get("to") else "",
    }


def _hotel_facts(hotel: HotelOption, trip: Trip) -> dict:
    return {
        "id": hotel.id,
        "hotel_id": hotel.meta.get("hotel_id", hotel.id.split(":", 1)[-1]),
        "name": hotel.name,
        "name_en": hotel.meta.get("name_en", ""),
        "city": trip.destination,
        "city_en": hotel.meta.get("city_en", ""),
        "address": hotel.meta.get("address", ""),
        "star": hotel.star,
        "rating": hotel.meta.get("rating"),
        "check_in": trip.depart_date.isoformat(),
        "check_out": trip.return_date.isoformat(),
        "price_per_night": _money(hotel.price_per_night),
        "nights": trip.nights,
        "price": _money(hotel.price_per_night * trip.nights),
    }


def round_trip_facts(result: PlanResult, found: Candidates, *, plan_id: str | None, trip: Trip) -> dict:
    """The comparison as JSON facts: the four named plans, each with the supplier's facts of its three candidates
    and every title its combination won (one plan can be both the cheapest and the best overall)."""
    by_id = found.by_id()
    plans = {name: result.plans[name] for name in PLAN_NAMES if name in result.plans}
    combination = {name: (p["outbound"], p["hotel"], p["return"]) for name, p in plans.items()}
    entries = [
        {
            "name": name,
            "labels": [other for other in PLAN_NAMES if combination.get(other) == combination[name]],
            "outbound": _leg_facts(by_id[plan["outbound"]], origin=trip.origin, destination=trip.destination),
            "hotel": _hotel_facts(by_id[plan["hotel"]], trip),
            "return": _leg_facts(by_id[plan["return"]], origin=trip.destination, destination=trip.origin),
            "total_price": _money(plan["total_price"]),
            "transit_minutes": int(plan["transit_minutes"]),
            "scores": {key: round(float(value), 2) for key, value in plan["scores"].items()},
            "violations": [str(v) for v in plan.get("violations", [])],
        }
        for name, plan in plans.items()
    ]
    counts = {
        **dict(result.counts or {}),
        "outbound": len(found.outbound),
        "returns": len(found.returns),
        "hotels": len(found.hotels),
    }
    return {"plan_id": plan_id, **trip.as_json(), "plans": entries, "counts": counts}
