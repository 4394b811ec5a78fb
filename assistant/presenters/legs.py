"""How a leg (a flight or a train) and a hotel stay read on a card and in a reply, in the active language: names, not
ids; "18:45–03:55 +1" for a leg that lands the next day; "15小时55分" / "15 h 55 min"; the supplier's Chinese words
(airlines, seat classes) in English on an English page.

Call these under `translation.override(language)` (the presenters do): every word comes from the .po file.
"""

import datetime as dt

from django.utils.translation import gettext as _

from assistant.replies import format_day
from bookings.formatting import duration_text
from bookings.vocabulary import airline_name, hotel_name, route_name, seat_name, train_kind


def carrier_label(leg: dict) -> str:
    """Who runs the leg: the airline, or the kind of train (高铁 for G, 动车 for D)."""
    if leg.get("mode") == "FLIGHT":
        return airline_name(leg.get("airline"), leg.get("airline_en"))
    return train_kind(leg.get("number"))


def clock_range(depart_time: str, arrive_time: str, overnight_days: int) -> str:
    """18:45–03:55 +1 (the days after the departure day on which it arrives)."""
    text = f"{depart_time}–{arrive_time}"
    return f"{text} +{overnight_days}" if overnight_days else text


def _day(value: object, language: str) -> str:
    try:
        return format_day(dt.date.fromisoformat(str(value)[:10]), language) if value else ""
    except ValueError:
        return ""


def leg_words(leg: dict, language: str) -> dict:
    """The leg's facts with the words a card shows: carrier, route by name, day, times with +1, duration, seat."""
    return {
        **leg,
        "carrier": carrier_label(leg),
        "route": route_name(leg.get("origin"), leg.get("destination"), leg.get("origin_en"), leg.get("destination_en")),
        "day": _day(leg.get("date") or leg.get("depart"), language),
        "times": clock_range(leg["depart_time"], leg["arrive_time"], int(leg.get("overnight_days") or 0)),
        "duration": duration_text(leg.get("duration_minutes")),
        "seat": seat_name(leg.get("seat_class")),
    }


def hotel_words(hotel: dict, language: str) -> dict:
    """The stay's facts with its days as the reply says them (check-in and check-out)."""
    return {
        **hotel,
        "name": hotel_name(
            hotel.get("name"), hotel.get("name_en"), city=hotel.get("city"), city_en=hotel.get("city_en")
        ),
        "check_in_label": _day(hotel.get("check_in"), language),
        "check_out_label": _day(hotel.get("check_out"), language),
    }


def leg_sentence(leg: dict) -> str:
    """One leg in a line: 中国国际航空 CA1957，上海 → 杭州，12月5日 12:05–12:55（50分，经济舱），¥440 (words from
    `leg_words`)."""
    return _("%(carrier)s %(number)s, %(route)s, %(day)s %(times)s (%(duration)s, %(seat)s), ¥%(price)s") % leg


def hotel_sentence(hotel: dict) -> str:
    """The stay in a line (words from `hotel_words`)."""
    return (
        _(
            "%(name)s (%(star)s-star), check-in %(check_in_label)s, check-out %(check_out_label)s, ¥%(price_per_night)s "
            "a night"
        )
        % hotel
    )
