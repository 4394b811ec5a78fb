"""What the agent may call about the catalogue, the weather and travel plans. Read-only.

Each tool is a few lines over a service of `itinerary.services`: it passes the validated, bounded arguments and the
authenticated user, and turns the result into an envelope whose `data["kind"]` names it and whose data holds every
fact the reply shows (ids, titles, prices, dates, weather days, the plan's days) as JSON.
"""

import datetime as dt
from typing import Annotated, Literal

from django.utils import timezone
from pydantic import Field

from assistant.llm.factory import get_llm_port
from bookings.tools import Passenger, booking_summary
from core.envelope import Code, fail, ok
from core.tools import Risk, ToolContext, tool
from itinerary.models import Activity
from itinerary.refs import activity_ref
from itinerary.round_trip import (
    PlanBookingError,
    RoundTripError,
    plan_book,
    plan_booking_preview,
    round_trip_compare,
)
from itinerary.services import (
    ActivityError,
    ActivityKinds,
    ActivitySearchResult,
    UnknownWeatherPlace,
    WeatherReportResult,
    activity_recommend,
    activity_search_for,
)
from itinerary.services import (
    activity_detail as activity_detail_get,
)
from itinerary.services import (
    weather_report as weather_report_for,
)
from itinerary.tagging import AUDIENCES, SYSTEM_TAGS
from itinerary.travel_plans import MAX_DAYS, TravelPlan, rain_likely, travel_plan_for
from itinerary.weather import DayWeather, WeatherLookup
from itinerary.weather.packing import packing_for

MAX_RESULTS = 6
MAX_KEYWORDS = 5
MAX_PRICE = 10_000_000

ACTIVITIES_KIND = "activities"
ACTIVITY_DETAIL_KIND = "activity_detail"
WEATHER_KIND = "weather"
TRAVEL_PLAN_KIND = "travel_plan"

# As long as a place the understanding keeps (the intent schema cuts keywords at 50 characters).
PLACE_CHARS = 50
# A trip asked for longer than the plan can be (up to a year) is planned for MAX_DAYS and says so; more is refused.
MAX_REQUESTED_DAYS = 366
PlaceName = Annotated[str, Field(min_length=1, max_length=PLACE_CHARS)]
Keywords = Annotated[
    list[PlaceName] | None,
    Field(
        max_length=MAX_KEYWORDS,
        description='Places or keywords, in Chinese or English (titles are in both), e.g. ["赛里木湖"], ["cycling"] '
        "(at most 5)",
    ),
]
Province = Annotated[str | None, Field(max_length=PLACE_CHARS, description="Short province name, e.g. 云南")]
City = Annotated[str | None, Field(max_length=PLACE_CHARS, description="City name, e.g. 大理")]
DateStart = Annotated[dt.date | None, Field(description="First day, YYYY-MM-DD")]
DateEnd = Annotated[dt.date | None, Field(description="Last day, YYYY-MM-DD")]
MaxPrice = Annotated[int | None, Field(ge=1, le=MAX_PRICE, description="Budget per activity, yuan")]
ExcludePlaces = Annotated[
    list[PlaceName] | None,
    Field(max_length=MAX_KEYWORDS, description='Places the traveller does not want, e.g. ["三亚"] (不想去三亚)'),
]
ActivitySort = Annotated[
    Literal["POPULAR", "CHEAPEST", "PRICIEST"] | None,
    Field(
        description="POPULAR (default: their interests first; also 'better rated'), CHEAPEST (price ascending) or "
        "PRICIEST (price descending: 'something more upscale')"
    ),
]
Interest = Literal[SYSTEM_TAGS]  # type: ignore[valid-type]
Interests = Annotated[
    list[Interest] | None,
    Field(max_length=MAX_KEYWORDS, description='Kinds of activity wanted, any of them, e.g. ["photography"]'),
]
AvoidInterests = Annotated[
    list[Interest] | None,
    Field(max_length=MAX_KEYWORDS, description='Kinds of activity not wanted, e.g. ["hiking"] (不要徒步 / no hiking)'),
]
Audience = Annotated[
    Literal[tuple(AUDIENCES)] | None,  # type: ignore[valid-type]
    Field(description="Who comes along when it decides what suits: KIDS (带孩子) or ELDERLY (带父母, seniors)"),
]


def _today(context: ToolContext) -> dt.date:
    return context.today or timezone.localdate()


def activity_facts(activity: Activity, *, suggested_for: str | None = None) -> dict:
    """An activity as JSON: what a card and a reply show of it. `suggested_for`: the traveller's interest (a system
    tag) it was suggested for, when their profile put it first. Its title in both languages, `title` the catalogue's
    Chinese and `title_en` the English ("" when none is written): a card or a reply names it in its own language
    (`itinerary.words.activity_title`), whatever language is active."""
    return {
        "id": activity.pk,
        "title": activity.title_zh_hans or activity.title_en or "",
        "title_en": activity.title_en or "",
        "city": activity.city,
        "province": activity.province,
        "price": str(activity.price),
        "start_date": activity.start_date.isoformat(),
        "end_date": activity.end_date.isoformat(),
        "tags": list(activity.tags or [])[:5],
        "cover_image_url": activity.cover_url,
        "suggested_for": suggested_for,
        "ref": activity_ref(activity.pk, activity.price),  # how it is named among the options on screen
    }


def _activities(kind_data: dict, activities: list[Activity], reasons: dict[int, str] | None = None) -> dict:
    facts = [activity_facts(a, suggested_for=(reasons or {}).get(a.pk)) for a in activities]
    return {"kind": ACTIVITIES_KIND, **kind_data, "activity_ids": [a["id"] for a in facts], "activities": facts}


def _query(result: ActivitySearchResult) -> dict:
    query = result.query
    return {
        "place": result.place,
        "keywords": list(query.keywords),
        "province": result.province,
        "city": result.city,
        "date_start": query.date_start.isoformat(),
        "date_end": query.date_end.isoformat(),
        "defaulted_window": query.defaulted_window,
        "max_price": query.max_price,
        **_narrowing(query),
    }


def _narrowing(query) -> dict:
    """What narrowed or ordered the search beyond place, dates and budget, when something did."""
    if not query:
        return {}
    narrowing = {"exclude_places": list(query.exclude_places)} if query.exclude_places else {}
    sort = "CHEAPEST" if query.cheapest_first else "PRICIEST" if query.priciest_first else None
    kinds = {
        "interests": list(query.interests),
        "avoid_interests": list(query.avoid_interests),
        "audience": query.audience,
    }
    return narrowing | ({"sort": sort} if sort else {}) | {key: value for key, value in kinds.items() if value}


def _kinds(interests, avoid_interests, audience, sort) -> ActivityKinds:
    return ActivityKinds(
        interests=tuple(interests or ()),
        avoid_interests=tuple(avoid_interests or ()),
        audience=audience,
        priciest_first=sort == "PRICIEST",
    )


@tool(risk=Risk.READ, tags=("activities",))
def search_activities(
    context: ToolContext,
    keywords: Keywords = None,
    province: Province = None,
    city: City = None,
    date_start: DateStart = None,
    date_end: DateEnd = None,
    max_price: MaxPrice = None,
    exclude_places: ExcludePlaces = None,
    sort: ActivitySort = None,
    interests: Interests = None,
    avoid_interests: AvoidInterests = None,
    audience: Audience = None,
) -> dict:
    """Search the published activity catalogue by place (keywords such as a scenic spot, else a city or a
    province), dates (default: the next 30 days) and budget, leaving out the places the traveller excluded, of the
    kinds wanted (interests), none of the kinds avoided, suiting who comes along (audience). Give at least one of
    keywords, city, province, exclude_places (alone: everywhere but those places). A follow-up on the results
    ("cheaper", "no hiking", "photography instead", "for my parents") is the same search with that change."""
    asked = {"mode": "search", "query": {"keywords": keywords or [], "province": province, "city": city}}
    try:
        found = activity_search_for(
            user=context.user,
            today=_today(context),
            keywords=keywords,
            province=province,
            city=city,
            date_start=date_start,
            date_end=date_end,
            max_price=max_price,
            exclude_places=exclude_places,
            cheapest_first=sort == "CHEAPEST",
            kinds=_kinds(interests, avoid_interests, audience, sort),
            limit=MAX_RESULTS,
        )
    except ActivityError as exc:
        return fail(exc.code, exc.message, {**_activities(asked, []), "total": 0, "reason": "no_place"})
    query = _query(found) | ({"sort": "POPULAR"} if sort == "POPULAR" else {})  # "better rated", said so
    data = _activities({"mode": "search", "query": query, "total": found.total}, found.activities, found.reasons)
    return ok(data, f"{found.total} found, {found.shown} shown")


@tool(risk=Risk.READ, tags=("activities",))
def recommend_activities(
    context: ToolContext,
    date_start: DateStart = None,
    date_end: DateEnd = None,
    exclude_places: ExcludePlaces = None,
    sort: ActivitySort = None,
    max_price: MaxPrice = None,
    interests: Interests = None,
    avoid_interests: AvoidInterests = None,
    audience: Audience = None,
) -> dict:
    """The most popular published activities open in the window (default: the next 30 days), for this traveller,
    leaving out the places they excluded, within the budget, of the kinds wanted, none of the kinds avoided,
    suiting who comes along."""
    found = activity_recommend(
        user=context.user,
        today=_today(context),
        date_start=date_start,
        date_end=date_end,
        exclude_places=exclude_places,
        cheapest_first=sort == "CHEAPEST",
        max_price=max_price,
        kinds=_kinds(interests, avoid_interests, audience, sort),
        limit=MAX_RESULTS,
    )
    query = found.query
    dates = {"date_start": query.date_start.isoformat(), "date_end": query.date_end.isoformat()}
    dates |= _narrowing(query) | ({"max_price": query.max_price} if query.max_price else {})
    dates |= {"sort": "POPULAR"} if sort == "POPULAR" else {}
    data = _activities(
        {"mode": "recommend", "query": {**dates, "asked_dates": found.asked_dates}}, found.activities, found.reasons
    )
    return ok({**data, "total": len(found.activities)}, f"{len(found.activities)} found")


@tool(risk=Risk.READ, tags=("activities",))
def activity_detail(
    context: ToolContext,
    activity_id: Annotated[int, Field(ge=1, le=2_147_483_647, description="The id of an activity found before")],
) -> dict:
    """One published activity in full: description, place, dates, price, who may join."""
    try:
        activity = activity_detail_get(user=context.user, activity_id=activity_id)
    except ActivityError as exc:
        return fail(exc.code, exc.message, {"kind": ACTIVITY_DETAIL_KIND, "activity_id": activity_id})
    facts = {
        **activity_facts(activity),
        "tags": list(activity.tags or []),
        "description": activity.description_zh_hans or "",
        "description_en": activity.description_en or "",
        "min_age": activity.min_age,
        "max_age": activity.max_age,
        "gender_restriction": activity.gender_restriction,
    }
    return ok({"kind": ACTIVITY_DETAIL_KIND, "activity_id": activity.pk, "activity": facts}, facts["title"])


def weather_day_facts(day: DayWeather) -> dict:
    return {
        "date": day.date.isoformat(),
        "condition": day.condition,
        "condition_zh": day.condition_zh,
        "code": day.code,
        "temp_min_c": day.temp_min_c,
        "temp_max_c": day.temp_max_c,
        "precipitation_mm": day.precipitation_mm,
        "probability": day.precipitation_probability,
        "rain_likely": rain_likely(day),
    }


def weather_facts(found: WeatherLookup) -> dict:
    """A weather lookup as JSON: which source, which kind (forecast or normals), why normals stood in, the days."""
    report = found.report
    return {
        "report_kind": report.kind,
        "source": report.source,
        "source_note": report.source_note,
        "source_note_zh": report.source_note_zh,
        "fallback": found.fallback,
        "station": report.station,
        "station_en": report.station_en,
        "place_note": report.place_note,
        "place_note_zh": report.place_note_zh,
        "days": [weather_day_facts(d) for d in report.days],
    }


def _weather(result: WeatherReportResult) -> dict:
    return {
        "kind": WEATHER_KIND,
        "place": result.place,
        "start": result.start.isoformat(),
        "end": result.end.isoformat(),
        **weather_facts(result.lookup),
    }


@tool(risk=Risk.READ, tags=("travel",))
def weather_report(
    context: ToolContext,
    place: Annotated[
        str, Field(min_length=1, max_length=PLACE_CHARS, description="City or scenic spot, e.g. 大理, 西湖")
    ],
    city: Annotated[
        str | None,
        Field(max_length=PLACE_CHARS, description="The city the spot is in, tried when the spot has no station"),
    ] = None,
    date_start: DateStart = None,
    date_end: DateEnd = None,
    packing: Annotated[
        bool, Field(description="The traveller asks what to wear or pack (要带什么衣服 / what should I pack)")
    ] = False,
) -> dict:
    """The weather of a place for the days asked (default: today and the next two): a forecast where one is
    available, else climate normals, labelled as such; with packing, what to wear and bring for those days."""
    try:
        found = weather_report_for(place=place, city=city, start=date_start, end=date_end, today=_today(context))
    except UnknownWeatherPlace as exc:
        return fail(exc.code, exc.message, {"kind": WEATHER_KIND, "reason": "unknown_place", "place": place})
    data = _weather(found)
    if packing:
        asked = [d for d in found.lookup.report.days if found.start <= d.date <= found.end] or list(
            found.lookup.report.days
        )
        data["packing"] = packing_for(asked, rain=any(rain_likely(d) for d in asked))
    return ok(data, f"{found.lookup.report.kind} for {place}")


def _plan(plan: TravelPlan) -> dict:
    days = []
    for number, day in enumerate(plan.days, start=1):
        tour = day.tour
        days.append(
            {
                "date": day.date.isoformat(),
                "number": number,
                "weather": weather_day_facts(day.weather) if day.weather else None,
                "activities": [activity_facts(a) for a in day.activities],
                "tour": {
                    "id": tour.activity.pk,
                    "title": tour.activity.title_zh_hans or "",
                    "title_en": tour.activity.title_en or "",
                    "day": tour.day,
                    "of": tour.of,
                }
                if tour
                else None,
                "flags": list(day.flags),
            }
        )
    found = plan.weather
    return {
        "destination": plan.destination,
        "start": plan.start.isoformat(),
        "end": plan.end.isoformat(),
        "defaulted_start": plan.defaulted_start,
        "requested_days": plan.requested_days,
        "capped": plan.capped,
        "max_days": MAX_DAYS,
        "found": plan.found,
        "placed": len(plan.activities),
        "free_days": plan.free_days,
        "unplaced_tours": plan.unplaced_tours,
        "has_activities": plan.has_activities,
        "activity_ids": [a.pk for a in plan.activities],
        "weather": {k: v for k, v in weather_facts(found).items() if k != "days"} if found else None,
        "days": days,
    }


@tool(risk=Risk.READ, tags=("travel",))
def make_travel_plan(
    context: ToolContext,
    destination: Annotated[str, Field(min_length=1, max_length=PLACE_CHARS, description="Where to go, e.g. 丽江")],
    keywords: Keywords = None,
    city: City = None,
    province: Province = None,
    days: Annotated[
        int | None, Field(ge=1, le=MAX_REQUESTED_DAYS, description=f"How many days (default 3, at most {MAX_DAYS})")
    ] = None,
    date_start: DateStart = None,
    date_end: DateEnd = None,
    max_price: MaxPrice = None,
    sort: ActivitySort = None,
    interests: Interests = None,
    avoid_interests: AvoidInterests = None,
    audience: Audience = None,
) -> dict:
    """A day-by-day plan of catalogue activities at the destination, with each day's weather. Without dates the
    trip starts next Saturday; without a number of days it lasts from date_start to date_end, else 3 days.
    sort CHEAPEST: the traveller wants a cheaper trip (cheaper activities first). interests: the kinds they like
    go in first ("we like food"); avoid_interests and audience leave out what does not suit."""
    found = travel_plan_for(
        user=context.user,
        today=_today(context),
        destination=destination,
        keywords=keywords,
        city=city,
        province=province,
        days=days,
        start=date_start,
        end=date_end,
        max_price=max_price,
        cheapest_first=sort == "CHEAPEST",
        kinds=_kinds(interests, avoid_interests, audience, None),
    )
    data = {
        "kind": TRAVEL_PLAN_KIND,
        **_plan(found.plan),
        "province": found.province,
        "max_price": max_price,
        "cheapest_first": sort == "CHEAPEST",
        **{key: value for key, value in _narrowing(found.plan.query or ()).items() if key != "sort"},
    }
    plan = found.plan
    return ok(data, f"{len(plan.days)} days, {len(plan.activities)} activities placed")


TOOLS = [search_activities, recommend_activities, activity_detail, weather_report, make_travel_plan]


# --- the round-trip comparison (compare_round_trip, kind "round_trip") ---------------------------------------------
# Owned by the round-trip slice; the service is `itinerary.round_trip`.

ROUND_TRIP_KIND = "round_trip"
Place = Annotated[str, Field(min_length=1, max_length=100)]


@tool(risk=Risk.READ, tags=("plans",))
def compare_round_trip(
    context: ToolContext,
    origin: Annotated[Place, Field(description="The city the traveller leaves from, e.g. 上海")],
    destination: Annotated[Place, Field(description="The city they travel to, e.g. 杭州")],
    depart_date: Annotated[dt.date, Field(description="The outbound day, YYYY-MM-DD")],
    return_date: Annotated[dt.date, Field(description="The return day, YYYY-MM-DD, after depart_date")],
    max_price: Annotated[int | None, Field(ge=1, le=10_000_000, description="Budget for the whole trip, yuan")] = None,
) -> dict:
    """Compare round trips: every outbound flight or train × hotel × return flight or train from the supplier's
    live search, giving the best overall, cheapest, fastest and best-matching plans with their prices. Books
    nothing. The traveller's preferences (train, cheap, five-star …) are read from their own message."""
    try:
        found = round_trip_compare(
            user=context.user,
            origin=origin,
            destination=destination,
            depart_date=depart_date,
            return_date=return_date,
            max_price=max_price,
            preferences_text=context.request_text,
            port=context.port or get_llm_port(),
            today=context.today,
        )
    except RoundTripError as exc:
        trip = {"origin": origin, "destination": destination}
        trip |= {"depart_date": depart_date.isoformat(), "return_date": return_date.isoformat()}
        data = {"kind": ROUND_TRIP_KIND, "status": "invalid", "trip": trip, "max_price": max_price, **exc.data}
        return fail(exc.code, exc.message, data)
    data = {"kind": ROUND_TRIP_KIND, **found.as_json()}
    if found.status == "unavailable":
        return fail(Code.PLATFORM_UNAVAILABLE, "the supplier could not be searched: nothing was compared", data)
    if found.status == "empty":
        return ok(data, "no plan: a part of the trip has no option, or none connect")
    return ok(data, f"{found.comparison['counts'].get('legal', 0)} combinations compared; nothing was booked")


TOOLS.append(compare_round_trip)


# --- booking a compared plan (book_plan, kind "plan_booking") ------------------------------------------------------

PLAN_BOOKING_KIND = "plan_booking"
PlanName = Literal["best_overall", "cheapest", "fastest", "best_preference"]


def passengers_of(value) -> list[dict]:
    """The passengers as the booking services read them (name, mobile or None)."""
    return [
        {"name": str(p.get("name") or "").strip(), "mobile": p.get("mobile") or None}
        for p in value or []
        if isinstance(p, dict)
    ]


def _plan_booking_preview(context: ToolContext, arguments: dict) -> dict:
    try:
        return plan_booking_preview(
            user=context.user,
            plan_id=arguments["plan_id"],
            plan=arguments["plan"],
            passengers=passengers_of(arguments.get("passengers")),
            language=context.language,
        )
    except PlanBookingError as exc:  # the refusal carries the kind, so the plans presenter answers it
        data = {**(exc.data or {}), "kind": PLAN_BOOKING_KIND, "plan_id": arguments["plan_id"]}
        raise PlanBookingError(exc.code, exc.message, {**data, "plan": arguments["plan"]}) from None


def _part_facts(part) -> dict:
    return {
        "part": part.part,
        "option_ref": part.option_ref,
        "booked": part.booked,
        "booking": booking_summary(part.booking) if part.booking is not None else None,
        "tried": part.tried,
        "code": part.code,
        "message": part.message,
        "unrecorded_order_no": part.unrecorded_order_no,
    }


@tool(risk=Risk.WRITE, tags=("plans", "booking"), preview=_plan_booking_preview)
def book_plan(
    context: ToolContext,
    plan_id: Annotated[str, Field(min_length=1, max_length=64, description="The plan_id compare_round_trip returned")],
    plan: Annotated[PlanName, Field(description="Which of the compared plans (its name)")],
    passengers: Annotated[
        list[Passenger],
        Field(max_length=9, description="Who travels: name and mobile each (the first is the contact)"),
    ],
) -> dict:
    """Book one plan of a round-trip comparison (compare_round_trip): its outbound, hotel and return, each as a
    booking pending payment. The traveller is first shown one confirmation card listing every part with the
    supplier's facts and the total, and nothing is booked until they confirm. If a part cannot be booked, the parts
    after it are not booked and the answer says which were."""
    try:
        outcome = plan_book(
            user=context.user,
            plan_id=plan_id,
            plan=plan,
            passengers=passengers_of(passengers),
            scope=context.scope,
        )
    except PlanBookingError as exc:
        return exc.envelope(kind=PLAN_BOOKING_KIND, plan_id=plan_id)
    data = {
        "kind": PLAN_BOOKING_KIND,
        "plan_id": plan_id,
        "plan": plan,
        "parts": [_part_facts(part) for part in outcome.parts],
    }
    failure = outcome.failure
    if failure is None:
        return ok(data, f"booked the {len(outcome.parts)} parts of the plan")
    booked = [p.part for p in outcome.parts if p.booked]
    message = f"{failure.part} was not booked ({failure.message}); booked: {', '.join(booked) or 'nothing'}"
    return fail(failure.code or Code.INTERNAL_ERROR, message, data)


TOOLS.append(book_plan)
