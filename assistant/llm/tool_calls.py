"""Which tool answers an understood intent, and with which arguments: one mapping for both channels.

Channel 1's handlers make this call once their clarifying questions are answered (and channel 2's `rules` adapter,
which replays channel 1's handlers, makes it through them). The places go to the tool as understood (keywords, city
and province together): the service decides which one searches and which one stands in for the weather, so no
channel drops a fact the other keeps. Booking (a model over the skill document), paying and cancelling (choose a
booking first) are flows of their own and are not mapped here.
"""

from dataclasses import dataclass, field
from typing import Any

from assistant.llm.schema import Intent, IntentName, SortName

SEARCH_ACTIVITIES_TOOL = "search_activities"
RECOMMEND_TOOL = "recommend_activities"
WEATHER_TOOL = "weather_report"
TRAVEL_PLAN_TOOL = "make_travel_plan"
ROUND_TRIP_TOOL = "compare_round_trip"
AFTERSALE_TOOL = "request_aftersale"
PROGRESS_TOOL = "query_progress"
CHECK_BOOKINGS_TOOL = "check_my_bookings"


@dataclass(frozen=True)
class ToolCallPlan:
    """A tool and its arguments (None values are "not given": callers leave them out)."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


def place_of(intent: Intent) -> tuple[str | None, str | None]:
    """(where, its city): the first destination keyword with the city it lies in, else the city, else the province.
    A province never stands in for a place inside it."""
    if intent.destination_keywords:
        return intent.destination_keywords[0], intent.city
    return intent.city or intent.province, None


def tool_call_for(intent: Intent) -> ToolCallPlan | None:
    """The call that answers `intent`, or None when a slot it needs is missing (ask, or end) or no single tool
    answers it."""
    name = intent.intent
    places = {"keywords": intent.destination_keywords or None, "city": intent.city, "province": intent.province}
    dates = {"date_start": intent.date_start, "date_end": intent.date_end}
    # Places the traveller excluded ("不想去三亚", "not Sanya") and the order asked ("最便宜的") of a search.
    narrowing = {"exclude_places": intent.exclude_places or None, "sort": activity_sort(intent), **kinds_of(intent)}
    if name == IntentName.SEARCH_ACTIVITIES:
        if not (any(places.values()) or intent.exclude_places):
            return None
        return ToolCallPlan(SEARCH_ACTIVITIES_TOOL, {**places, **dates, "max_price": intent.max_price, **narrowing})
    if name == IntentName.RECOMMEND:
        return ToolCallPlan(RECOMMEND_TOOL, {**dates, "max_price": intent.max_price, **narrowing})
    if name == IntentName.QUERY_WEATHER:
        place, city = place_of(intent)
        asked = {"place": place, "city": city, **dates, "packing": intent.packing or None}
        return ToolCallPlan(WEATHER_TOOL, asked) if place else None
    if name == IntentName.MAKE_TRAVEL_PLAN:
        destination, _ = place_of(intent)
        if not destination:
            return None
        arguments = {
            "destination": destination,
            **places,
            "days": intent.days,
            **dates,
            "max_price": intent.max_price,
            "sort": "CHEAPEST" if intent.sort == SortName.CHEAPEST else None,
            **kinds_of(intent),
        }
        return ToolCallPlan(TRAVEL_PLAN_TOOL, arguments)
    if name == IntentName.PLAN_ITINERARY:
        destination = intent.city or next(iter(intent.destination_keywords), None)
        if not (intent.origin and destination and intent.date_start and intent.date_end):
            return None
        return ToolCallPlan(ROUND_TRIP_TOOL, round_trip_arguments(intent, destination=destination))
    if name == IntentName.AFTERSALE:
        if not (intent.order_id and intent.aftersale_action):
            return None
        return ToolCallPlan(
            AFTERSALE_TOOL,
            {
                "order_id": intent.order_id,
                "action": intent.aftersale_action,
                "reason_kind": intent.aftersale_reason,  # picks the policy
                "reason": intent.aftersale_words,  # the traveller's own words; none: the tool asks them why
            },
        )
    if name == IntentName.QUERY_PROGRESS and (intent.booking_status or (intent.booking_id and not intent.order_id)):
        # "我的订单付款了吗": the bookings as the supplier has them now (one booking when its number is named)
        return ToolCallPlan(CHECK_BOOKINGS_TOOL, {"biz_type": intent.biz_type, "booking_id": intent.booking_id})
    if name == IntentName.QUERY_PROGRESS:
        return ToolCallPlan(PROGRESS_TOOL, {"order_id": intent.order_id})
    return None


# The activity search's order for the intent's sort; better rated is the catalogue's popularity (its default order).
ACTIVITY_SORTS = {SortName.CHEAPEST: "CHEAPEST", SortName.PRICIEST: "PRICIEST", SortName.TOP_RATED: "POPULAR"}


def activity_sort(intent: Intent) -> str | None:
    """The activity search's order for the intent's sort (None: the default, their interests first)."""
    return ACTIVITY_SORTS.get(intent.sort) if intent.sort else None


def kinds_of(intent: Intent) -> dict[str, Any]:
    """The kinds of activity a search or a plan asks for: wanted, avoided, who comes along (None: not given)."""
    return {
        "interests": list(intent.interests) or None,
        "avoid_interests": list(intent.avoid_interests) or None,
        "audience": intent.audience,
    }


def round_trip_arguments(intent: Intent, *, origin=None, destination=None, depart=None, back=None) -> dict:
    """The round-trip comparison's arguments; channel 1 passes the trip it read from its own open question."""
    return {
        "origin": origin or intent.origin,
        "destination": destination,
        "depart_date": depart or intent.date_start,
        "return_date": back or intent.date_end,
        "max_price": intent.max_price,
    }
