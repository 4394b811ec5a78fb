"""Presenters of the weather report (kind `weather`) and the day-by-day travel plan (kind `travel_plan`).

The numbers come from the envelope's facts (the weather port's days, the catalogue rows the plan placed); the text
from the reply templates `weather*.txt` and `travel_plan*.txt`; the cards `weather` and `travel_plan`. Words are the
.po file's, in the reply's language (`translation.override`); the facts a data file holds in both languages (a
station's English name, its notes) are picked by that language.
"""

import calendar
import datetime as dt

from django.utils import translation
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from assistant import cards
from assistant.knowledge import destination_entries, tip_for
from assistant.presenters.activities import refinements
from assistant.presenters.base import Presenter, merge_replies
from assistant.replies import compose, format_day, format_range
from assistant.turn import Reply, TurnContext, chip
from itinerary.travel_plans import INDOOR_FIRST
from itinerary.weather import UNAVAILABLE
from itinerary.words import activity_title, place_name
from itinerary.words import place_label as words_place_label

# Places a traveller might ask the weather of instead (chips, in the reply's language).
PLACE_EXAMPLES = (gettext_noop("Sanya"), gettext_noop("Dali"), gettext_noop("Harbin"))
FORECAST = "forecast"
# Which of a fact's two forms a language reads (the weather port and the data files carry both).
FACT_SUFFIX = {"en": ""}  # any other language: the Chinese form ("_zh")


def _date(value: str) -> dt.date:
    return dt.date.fromisoformat(value)


def _fact(facts: dict, key: str, language: str) -> str:
    """`facts[key]` in the language: the English form, or its Chinese twin `<key>_zh`."""
    return facts.get(key + FACT_SUFFIX.get(language, "_zh")) or ""


def place_label(place: str, language: str) -> str:
    """The place as the reply names it (`itinerary.words.place_label`: "Hangzhou (杭州)" in English, 杭州 in
    Chinese), with the catalogue's own English name of its destinations first."""
    english = next((e.get("destination_en") for e in destination_entries() if e["destination"] == place), None)
    return words_place_label(place, language, english=english or None)


def day_label(day: dt.date, language: str) -> str:
    """12月5日 星期六 / Sat, Dec 5."""
    with translation.override(language):
        return _("%(weekday)s, %(day)s") % {"weekday": date_format(day, "D"), "day": format_day(day, language)}


def _condition(day: dict, language: str) -> str:
    """The sky in words: the weather vocabulary's English name, translated."""
    with translation.override(language):
        return _(day["condition"]) if day.get("condition") else ""


def weather_day(day: dict, language: str) -> dict:
    """One day of the weather facts as a card and a template show it."""
    return {
        "date": day["date"],
        "label": day_label(_date(day["date"]), language),
        "condition": _condition(day, language),
        "condition_key": day.get("condition"),
        "min": round(day["temp_min_c"]),
        "max": round(day["temp_max_c"]),
        "precipitation_mm": day["precipitation_mm"],
        "probability": day["probability"],
        "rain_likely": day["rain_likely"],
    }


def _station_name(weather: dict, language: str) -> str:
    names = {"en": weather.get("station_en")}
    return names.get(language) or weather["station"]


def _station_label(weather: dict, place: str, language: str) -> str:
    """The station, when its numbers stand in for the place asked (a spot's city, a province's capital)."""
    if weather["station"] == place or weather["station_en"].casefold() == place.casefold():
        return ""
    return _station_name(weather, language)


def _source_note(weather: dict, language: str) -> str:
    return _fact(weather, "source_note", language)


def _place_note(weather: dict, language: str) -> str:
    return _fact(weather, "place_note", language)


def weather_card(data: dict, *, language: str) -> dict:
    place = data["place"]
    return {
        "type": "weather",
        "place": place_label(place, language),
        "station": _station_label(data, place, language),
        "kind": data["report_kind"],
        "source": data["source"],
        "source_note": _source_note(data, language),
        "fallback": data["fallback"],
        "note": _place_note(data, language),
        "language": language,
        "days": [weather_day(d, language) for d in data["days"]],
    }


def _month_summaries(days: list[dict], language: str) -> list[dict]:
    """Climate normals are the same every day of a month: say them once per month."""
    months: dict[tuple[int, int], dict] = {}
    for day in days:
        date = _date(day["date"])
        months.setdefault((date.year, date.month), day)
    summaries = []
    for (year, month), day in months.items():
        length = calendar.monthrange(year, month)[1]
        with translation.override(language):
            month_name = date_format(dt.date(year, month, 1), "F")
        summaries.append(
            {
                "month": month_name,
                "condition": _condition(day, language),
                "min": round(day["temp_min_c"]),
                "max": round(day["temp_max_c"]),
                "probability": day["probability"],
                "wet_days": round((day["probability"] or 0) * length / 100),
            }
        )
    return summaries


def _weather_unknown_place(data: dict, language: str) -> Reply:
    with translation.override(language):
        examples = [_(example) for example in PLACE_EXAMPLES]
        chips = [chip(e, _("Weather in %(place)s") % {"place": e}) for e in examples]
    text = compose("weather_unknown_place", language, place=place_label(data["place"], language), examples=examples)
    return Reply(text, "EMPTY", suggestions=chips)


def _weather_reply(envelope: dict, context: TurnContext) -> Reply:
    data, language = envelope["data"], context.language
    if not envelope["ok"]:
        return _weather_unknown_place(data, language)
    place = data["place"]
    start, end = _date(data["start"]), _date(data["end"])
    asked = [d for d in data["days"] if start <= _date(d["date"]) <= end]
    text = compose(
        "weather",
        language,
        place=place_label(place, language),
        station=_station_label(data, place, language),
        dates=format_range(start, end, language),
        start=format_day(start, language),
        shown=len(data["days"]),
        kind=data["report_kind"],
        fallback=data["fallback"],
        asked=[weather_day(d, language) for d in asked],
        months=_month_summaries(asked, language),
        rainy=[day_label(_date(d["date"]), language) for d in asked if d["rain_likely"]],
        note=_place_note(data, language),
    )
    if data.get("packing"):
        text = "\n".join((text, _packing(data, place, start, end, language)))
    outcome = "DEGRADED" if data["fallback"] == UNAVAILABLE else "ANSWERED"
    return Reply(text, outcome, cards=[weather_card(data, language=language)])


# What to wear and pack (`itinerary.weather.packing`'s keys), as the traveller reads it.
PACKING = {
    "down_jacket": gettext_noop("a down jacket or a thick coat, a hat and gloves"),
    "warm_coat": gettext_noop("a warm coat and a sweater"),
    "light_jacket": gettext_noop("a light jacket"),
    "long_sleeves": gettext_noop("long sleeves for the evenings"),
    "summer_clothes": gettext_noop("light summer clothes"),
    "layers": gettext_noop("layers you can take off (cold mornings and evenings, warm afternoons)"),
    "sun_protection": gettext_noop("sunscreen, sunglasses and a hat"),
    "snow_boots": gettext_noop("waterproof, non-slip shoes for snow"),
    "rain_gear": gettext_noop("an umbrella or a rain jacket"),
}


def _packing(data: dict, place: str, start: dt.date, end: dt.date, language: str) -> str:
    """What to wear and bring for the days shown, from their weather, and what the destination's own tip says to
    bring (`assistant.knowledge`, "建议携带")."""
    with translation.override(language):
        items = [_(PACKING[key]) for key in data["packing"] if key in PACKING]
    tip = tip_for([place], language)
    return compose(
        "weather_packing",
        language,
        dates=format_range(start, end, language),
        items=items,
        bring=tip["bring"] if tip else "",
    )


def present_weather(envelopes: list[dict], context: TurnContext) -> Reply:
    return merge_replies(_weather_reply(e, context) for e in envelopes)


# --- the travel plan ----------------------------------------------------------------------------------------------


def _note(flags: list[str], kind: str | None, language: str) -> str:
    return compose("travel_plan_note", language, flags=list(flags), kind=kind) if flags else ""


def _tour(tour: dict | None, language: str) -> dict | None:
    if tour is None:
        return None
    return {**tour, "title": activity_title(tour, language), "url": cards.activity_url(tour["id"])}


def travel_plan_card(data: dict, *, language: str) -> dict:
    weather = data["weather"]
    kind = weather["report_kind"] if weather else None
    days = [
        {
            "date": day["date"],
            "number": day["number"],
            "label": day_label(_date(day["date"]), language),
            "weather": weather_day(day["weather"], language) if day["weather"] else None,
            "activities": [cards.activity_card(a, language=language) for a in day["activities"]],
            "tour": _tour(day["tour"], language),
            "note": _note(day["flags"], kind, language),
            "flags": list(day["flags"]),
        }
        for day in data["days"]
    ]
    destination = place_label(data["destination"], language)
    start, end = _date(data["start"]), _date(data["end"])
    return {
        "type": "travel_plan",
        "destination": destination,
        "title": compose("travel_plan_title", language, destination=destination, days=len(days)),
        "start": data["start"],
        "end": data["end"],
        "dates": format_range(start, end, language),
        "language": language,
        "weather_kind": kind,
        "weather_source_note": _source_note(weather, language) if weather else "",
        "weather_fallback": weather["fallback"] if weather else None,
        "days": days,
    }


def _plan_chips(data: dict, destination: str, days: int, language: str) -> list[dict]:
    """What to try instead of an empty plan, as messages in the reply's language the understanding reads."""
    with translation.override(language):
        chips = []
        if data["max_price"]:
            message = _("Plan a %(days)s-day trip to %(place)s") % {
                "days": days,
                "place": place_name(destination, language),
            }
            chips.append(chip(_("Without the budget"), message, fresh=True))
        chips.append(chip(_("Activities in %(place)s") % {"place": place_name(destination, language)}, fresh=True))
        province = data.get("province")
        if province and province != destination:
            words = {"days": days, "place": place_label(province, language)}
            message = _("Plan a %(days)s-day trip to %(place)s") % words
            chips.append(chip(_("%(days)s days in %(place)s") % words, message, fresh=True))
        chips.append(chip(_("Recommend popular activities"), fresh=True))
    return chips


def _travel_plan_reply(envelope: dict, context: TurnContext) -> Reply:
    data, language = envelope["data"], context.language
    label = place_label(data["destination"], language)
    dates = format_range(_date(data["start"]), _date(data["end"]), language)
    province = data.get("province")
    if not data["has_activities"]:
        text = compose(
            "travel_plan_empty",
            language,
            destination=label,
            dates=dates,
            max_price=data["max_price"],
            province=province if province != data["destination"] else None,
            unplaced_tours=data["unplaced_tours"],
        )
        return Reply(text, "EMPTY", suggestions=_plan_chips(data, label, len(data["days"]), language))

    card = travel_plan_card(data, language=language)
    weather = data["weather"]
    forecast = card["weather_kind"] == FORECAST
    season = ""
    if weather and not forecast:  # normals are alike all month: their advice is said once, not on every day
        flags = {f for d in data["days"] for f in d["flags"]}
        season = compose("travel_plan_season", language, flags=sorted(flags), indoor=INDOOR_FIRST in flags)
    text = compose(
        "travel_plan",
        language,
        destination=label,
        n=len(data["days"]),
        dates=dates,
        defaulted_start=data["defaulted_start"],
        capped=data["capped"],
        max_days=data["max_days"],
        days=card["days"],
        day_notes=forecast,
        season=season,
        placed=data["placed"],
        free_days=data["free_days"],
        weather_kind=card["weather_kind"],
        fallback=weather["fallback"] if weather else None,
        station=_station_name(weather, language) if weather else "",
        unplaced_tours=data["unplaced_tours"],
        max_price=data["max_price"],
        cheapest_first=data.get("cheapest_first"),
    )
    refined = _plan_refinements(data, language)
    if refined:
        text = "\n".join((compose("plan_refined", language, refined=refined), text))
    return Reply(text, "ANSWERED", cards=[card])


def _plan_refinements(data: dict, language: str) -> str:
    """What the traveller asked of the plan beyond place and days (a budget per activity, kinds they like first,
    kinds avoided, who comes along), said first so a remade plan says what changed."""
    with translation.override(language):
        budget = _("up to ¥%(price)s per activity") % {"price": data["max_price"]} if data.get("max_price") else ""
        kinds = refinements(data, language, first=True)
        return _("; ").join(part for part in (budget, kinds) if part)


def present_travel_plan(envelopes: list[dict], context: TurnContext) -> Reply:
    return merge_replies(_travel_plan_reply(e, context) for e in envelopes)


PRESENTERS: dict[str, Presenter] = {"weather": present_weather, "travel_plan": present_travel_plan}
