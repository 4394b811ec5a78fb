"""Weather and day-by-day travel plans (QUERY_WEATHER, MAKE_TRAVEL_PLAN).

The numbers come from the weather port (a forecast, or climate normals labelled as such) and the activities from
catalogue rows; the text comes from the reply templates `weather*.txt` and `travel_plan*.txt`.
"""

import calendar
import datetime as dt

from django.urls import reverse

from assistant import cards
from assistant.dispatcher import Reply, TurnContext, chip, handles
from assistant.knowledge import destination_entries
from assistant.llm.schema import Intent, IntentName
from assistant.replies import compose, format_day, format_range
from itinerary.matching import viewer_for
from itinerary.travel_plans import (
    DEFAULT_DAYS,
    INDOOR_FIRST,
    MAX_DAYS,
    TravelPlan,
    rain_likely,
    travel_plan_make,
)
from itinerary.weather import UNAVAILABLE, DayWeather, UnknownPlace, WeatherLookup, weather_lookup
from itinerary.weather.normals import climate_table

WEATHER_DAYS = 7
WEEKDAYS_ZH = ("周一", "周二", "周三", "周四", "周五", "周六", "周日")
PLACE_EXAMPLES = {"zh-hans": ["三亚", "大理", "哈尔滨"], "en": ["Sanya", "Dali", "Harbin"]}


def _places(intent: Intent) -> list[str]:
    """Where the user means: the first destination keyword (then its city, the station a scenic spot stands
    for), else the city, else the province. A province never stands in for a place inside it: its capital's
    weather says little about a spot hundreds of kilometres away."""
    if intent.destination_keywords:
        found = [intent.destination_keywords[0], intent.city]
    else:
        found = [intent.city or intent.province]
    return list(dict.fromkeys(p for p in found if p))


def place_label(place: str, language: str) -> str:
    """The place as the reply names it: Chinese as asked, or its English name when we know one."""
    if language == "zh-hans" or place.isascii():
        return place
    for entry in destination_entries():
        if entry["destination"] == place:
            return entry.get("destination_en") or place
    table = climate_table()
    if place in table.stations:
        return table.stations[place].en
    return place


def day_label(day: dt.date, language: str) -> str:
    if language == "zh-hans":
        return f"{format_day(day, language)} {WEEKDAYS_ZH[day.weekday()]}"
    return f"{day:%a}, {format_day(day, language)}"


def weather_day(day: DayWeather, language: str) -> dict:
    return {
        "date": day.date.isoformat(),
        "label": day_label(day.date, language),
        "condition": day.condition,
        "condition_zh": day.condition_zh,
        "min": round(day.temp_min_c),
        "max": round(day.temp_max_c),
        "precipitation_mm": day.precipitation_mm,
        "probability": day.precipitation_probability,
        "rain_likely": rain_likely(day),
    }


def _station_label(found: WeatherLookup, place: str, language: str) -> str:
    """The station, when its numbers stand in for the place asked (a spot's city, a province's capital)."""
    report = found.report
    if report.station == place or report.station_en.casefold() == place.casefold():
        return ""
    return report.station if language == "zh-hans" else report.station_en


def _source_note(found: WeatherLookup, language: str) -> str:
    return found.report.source_note_zh if language == "zh-hans" else found.report.source_note


def weather_card(found: WeatherLookup, *, place: str, language: str) -> dict:
    report = found.report
    return {
        "type": "weather",
        "place": place_label(place, language),
        "station": _station_label(found, place, language),
        "kind": report.kind,
        "source": report.source,
        "source_note": _source_note(found, language),
        "fallback": found.fallback,
        "note": report.place_note_zh if language == "zh-hans" else report.place_note,
        "language": language,
        "days": [weather_day(d, language) for d in report.days],
    }


def _month_summaries(days: list[DayWeather], language: str) -> list[dict]:
    """Climate normals are the same every day of a month: say them once per month."""
    months: dict[tuple[int, int], DayWeather] = {}
    for day in days:
        months.setdefault((day.date.year, day.date.month), day)
    summaries = []
    for (year, month), day in months.items():
        length = calendar.monthrange(year, month)[1]
        summaries.append(
            {
                "month": month if language == "zh-hans" else calendar.month_name[month],
                "condition": day.condition.lower(),
                "condition_zh": day.condition_zh,
                "min": round(day.temp_min_c),
                "max": round(day.temp_max_c),
                "probability": day.precipitation_probability,
                "wet_days": round((day.precipitation_probability or 0) * length / 100),
            }
        )
    return summaries


@handles(IntentName.QUERY_WEATHER)
def query_weather(context: TurnContext) -> Reply:
    intent, language = context.intent, context.language
    places = _places(intent)
    if not places:
        examples = PLACE_EXAMPLES.get(language, PLACE_EXAMPLES["en"])
        return Reply(
            compose("weather_clarify", language, examples=examples),
            "CLARIFY",
            suggestions=[chip(e) for e in examples],
            awaiting="destination",
        )
    start = intent.date_start or context.today
    place, found = places[0], None
    for candidate in places:
        try:
            found = weather_lookup(place=candidate, start=start, days=WEATHER_DAYS, today=context.today)
            break
        except UnknownPlace:
            continue
    if found is None:
        examples = PLACE_EXAMPLES.get(language, PLACE_EXAMPLES["en"])
        text = compose("weather_unknown_place", language, place=place_label(place, language), examples=examples)
        zh = language == "zh-hans"
        return Reply(text, "EMPTY", suggestions=[chip(e, f"{e}天气" if zh else f"Weather in {e}") for e in examples])

    report = found.report
    asked_end = intent.date_end if intent.date_start and intent.date_end else start
    if not intent.date_start:
        asked_end = start + dt.timedelta(days=2)  # no day named: today and the next two
    asked_end = min(max(asked_end, start), start + dt.timedelta(days=WEATHER_DAYS - 1))
    asked = [d for d in report.days if start <= d.date <= asked_end]
    text = compose(
        "weather",
        language,
        place=place_label(place, language),
        station=_station_label(found, place, language),
        dates=format_range(start, asked_end, language),
        start=format_day(start, language),
        shown=len(report.days),
        kind=report.kind,
        fallback=found.fallback,
        asked=[weather_day(d, language) for d in asked],
        months=_month_summaries(asked, language),
        rainy=[day_label(d.date, language) for d in asked if rain_likely(d)],
        note=report.place_note_zh if language == "zh-hans" else report.place_note,
    )
    outcome = "DEGRADED" if found.fallback == UNAVAILABLE else "ANSWERED"
    return Reply(text, outcome, cards=[weather_card(found, place=place, language=language)])


def _note(flags: tuple[str, ...], kind: str | None, language: str) -> str:
    return compose("travel_plan_note", language, flags=list(flags), kind=kind) if flags else ""


def _tour(tour) -> dict | None:
    if tour is None:
        return None
    return {
        "id": tour.activity.pk,
        "title": tour.activity.title,
        "url": reverse("itinerary:activity-detail", args=[tour.activity.pk]),
        "day": tour.day,
        "of": tour.of,
    }


def travel_plan_card(plan: TravelPlan, *, language: str) -> dict:
    kind = plan.weather.report.kind if plan.weather else None
    days = []
    for number, day in enumerate(plan.days, start=1):
        days.append(
            {
                "date": day.date.isoformat(),
                "number": number,
                "label": day_label(day.date, language),
                "weather": weather_day(day.weather, language) if day.weather else None,
                "activities": [cards.activity_card(a) for a in day.activities],
                "tour": _tour(day.tour),
                "note": _note(day.flags, kind, language),
                "flags": list(day.flags),
            }
        )
    destination = place_label(plan.destination, language)
    return {
        "type": "travel_plan",
        "destination": destination,
        "title": compose("travel_plan_title", language, destination=destination, days=len(plan.days)),
        "start": plan.start.isoformat(),
        "end": plan.end.isoformat(),
        "dates": format_range(plan.start, plan.end, language),
        "language": language,
        "weather_kind": kind,
        "weather_source_note": _source_note(plan.weather, language) if plan.weather else "",
        "weather_fallback": plan.weather.fallback if plan.weather else None,
        "days": days,
    }


def _plan_chips(context: TurnContext, destination: str, days: int) -> list[dict]:
    zh = context.language == "zh-hans"
    intent = context.intent
    chips = []
    if intent.max_price:
        message = f"帮我做一个{destination}{days}天的行程" if zh else f"Plan a {days}-day trip to {destination}"
        chips.append(chip("不限预算" if zh else "Without the budget", message, fresh=True))
    chips.append(chip(f"{destination}有什么活动" if zh else f"Activities in {destination}", fresh=True))
    if intent.province and intent.province != destination:
        province = intent.province
        message = f"帮我做一个{province}{days}天的行程" if zh else f"Plan a {days}-day trip to {province}"
        chips.append(chip(f"{province}{days}天行程" if zh else f"{days} days in {province}", message, fresh=True))
    chips.append(chip("推荐热门活动" if zh else "Recommend popular activities", fresh=True))
    return chips


@handles(IntentName.MAKE_TRAVEL_PLAN)
def make_travel_plan(context: TurnContext) -> Reply:
    intent, language = context.intent, context.language
    places = _places(intent)
    if not places:
        examples = (
            ["大理3天", "三亚5天", "哈尔滨4天"] if language == "zh-hans" else ["3 days in Dali", "5 days in Sanya"]
        )
        return Reply(
            compose("travel_plan_clarify", language, examples=examples),
            "CLARIFY",
            suggestions=[chip(e) for e in examples],
            awaiting="destination",
        )
    days = intent.days
    if not days and intent.date_start and intent.date_end:
        days = (intent.date_end - intent.date_start).days + 1
    plan = travel_plan_make(
        destination=places[0],
        today=context.today,
        keywords=intent.destination_keywords,
        province=intent.province if not intent.destination_keywords else None,
        city=intent.city if not intent.destination_keywords else None,
        start=intent.date_start,
        days=days or DEFAULT_DAYS,
        max_price=intent.max_price,
        viewer=viewer_for(user=context.user, today=context.today),
        weather_places=places,
    )
    label = place_label(places[0], language)
    dates = format_range(plan.start, plan.end, language)
    if not plan.has_activities:
        text = compose(
            "travel_plan_empty",
            language,
            destination=label,
            dates=dates,
            max_price=intent.max_price,
            province=intent.province if intent.province != places[0] else None,
            unplaced_tours=plan.unplaced_tours,
        )
        return Reply(text, "EMPTY", suggestions=_plan_chips(context, label, len(plan.days)))

    card = travel_plan_card(plan, language=language)
    found = plan.weather
    forecast = card["weather_kind"] == "forecast"
    season = ""
    if found and not forecast:  # normals are alike all month: their advice is said once, not on every day
        flags = {f for d in plan.days for f in d.flags}
        season = compose("travel_plan_season", language, flags=sorted(flags), indoor=INDOOR_FIRST in flags)
    text = compose(
        "travel_plan",
        language,
        destination=label,
        n=len(plan.days),
        dates=dates,
        defaulted_start=plan.defaulted_start,
        capped=plan.capped,
        max_days=MAX_DAYS,
        days=card["days"],
        day_notes=forecast,
        season=season,
        placed=len(plan.activities),
        free_days=plan.free_days,
        weather_kind=card["weather_kind"],
        fallback=found.fallback if found else None,
        station=(found.report.station if language == "zh-hans" else found.report.station_en) if found else "",
        unplaced_tours=plan.unplaced_tours,
        max_price=intent.max_price,
    )
    return Reply(text, "ANSWERED", cards=[card])
