"""What a traveller asks of a booking, as bookings' rules read it, the same for both chat channels and any other way
in: the search it means (`booking_search`, `rebook_search`: the `find_booking_options` arguments, or the facts
still missing), the option it picks (`option_choice`) and who travels (`booking_passengers`).

The assistant turns its understanding into a `BookingWants` (`assistant.booking_wants`); nothing here knows how a
sentence was read.
"""

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bookings.facts import details_facts
from bookings.models import BizType

# What a booking still needs before any supplier search (the codes of the assistant's `booking_need` question).
NEEDS_BIZ_TYPE = "biz_type"
NEEDS_ROUTE = "route"
NEEDS_ORIGIN = "origin"
NEEDS_DESTINATION = "destination"
NEEDS_HOTEL_CITY = "hotel_city"
NEEDS_DATE = "date"
NEEDS_CHECK_OUT = "check_out"
# What the option should be, passed to find_booking_options as they are (with max_price).
PREFERENCE_ARGUMENTS = (
    "time_band", "avoid_time_band", "sort", "direct", "seat_class", "star", "star_or_above", "vendor", "avoid_vendor", "number"
)  # fmt: skip


@dataclass(frozen=True)
class BookingWants:
    """What the traveller said about a booking: the product, the route or city, the days, who travels, what the
    option should be (`preferences`: PREFERENCE_ARGUMENTS and max_price, those said), the option picked (1-based),
    and for a booking they already have, its id or its own day (`original_date`, a rebooking's)."""

    biz_type: str | None = None
    origin: str | None = None
    city: str | None = None
    places: tuple[str, ...] = ()  # the places named, the destination first when no city was
    date_start: dt.date | None = None
    date_end: dt.date | None = None
    nights: int | None = None
    passengers: tuple[Mapping, ...] = ()
    preferences: Mapping[str, Any] = field(default_factory=dict)
    pick: int | None = None
    accept_nearest: bool = False
    booking_id: str | None = None
    rebook: bool = False
    original_date: dt.date | None = None
    day_shift: int | None = None  # a rebooking by days ("push it back a day": +1), counted from the booking's day
    ordinal: str | None = None  # NEWEST / OLDEST: which of the traveller's bookings, by when it was made

    @property
    def booking_day(self) -> dt.date | None:
        """The day of a booking the traveller already has, when named: a rebooking's original date, a cancel's or a
        payment's date ("取消27号那张")."""
        return self.original_date if self.rebook else self.date_start

    @property
    def booking_days(self) -> tuple[dt.date, dt.date] | None:
        """The days a booking the traveller already has falls on, when named: its day, or a cancel's or a payment's
        span of days ("下周的火车": Monday to Sunday). A rebooking's dates are the new trip's, only its original day
        is the booking's."""
        day = self.booking_day
        if day is None:
            return None
        end = self.date_end if not self.rebook and self.date_end and self.date_end > day else day
        return day, end

    @property
    def booking_places(self) -> tuple[str, ...]:
        """The places named of a booking the traveller already has (where to, or the city, in every spelling said);
        where from is `origin`."""
        return tuple(dict.fromkeys(p for p in (self.city, *self.places) if p and p != self.origin))


@dataclass(frozen=True)
class BookingSearch:
    """The `find_booking_options` arguments (JSON-ready, empty ones left out), or what is missing."""

    arguments: dict[str, Any]
    missing: tuple[str, ...]
    check_in: dt.date | None = None
    check_out: dt.date | None = None

    @property
    def nights(self) -> int | None:
        return (self.check_out - self.check_in).days if self.check_in and self.check_out else None


def booking_search(wants: BookingWants, *, today: dt.date | None = None) -> BookingSearch:
    """What to search for a booking: the route (flight, train) or the city and the stay (hotel: check-out from the
    end date, else check-in + nights), the date, and the traveller's preferences. A date before `today` is no date.
    The ranking of what is found is `bookings.options`' business, not this."""
    biz = wants.biz_type
    start = wants.date_start if wants.date_start and (today is None or wants.date_start >= today) else None
    missing: list[str] = []
    arguments: dict[str, Any] = {"biz_type": biz}
    check_out = None
    if biz is None:
        missing.append(NEEDS_BIZ_TYPE)
    elif biz == BizType.HOTEL:
        city = wants.city or next(iter(wants.places), None)
        if not city:
            missing.append(NEEDS_HOTEL_CITY)
        arguments["city"] = city
    else:
        origin = wants.origin
        destination = wants.city or next((p for p in wants.places if p != origin), None)
        missing += route_missing(origin, destination)
        arguments |= {"origin": origin, "destination": destination}
    if start is None:
        missing.append(NEEDS_DATE)
    elif biz == BizType.HOTEL:
        check_out = stay_end(start, wants.date_end, wants.nights)
        if check_out is None:
            missing.append(NEEDS_CHECK_OUT)
        arguments["check_out"] = check_out.isoformat() if check_out else None
    arguments["date"] = start.isoformat() if start else None
    arguments |= _preferences(wants)
    people = len(wants.passengers)
    arguments["passengers"] = people if people > 1 else None
    given = {k: v for k, v in arguments.items() if v not in (None, "", [], False)}
    return BookingSearch(given, tuple(missing), start if biz == BizType.HOTEL else None, check_out)


def route_missing(origin: str | None, destination: str | None) -> list[str]:
    """What a flight's or a train's route still lacks: the side not given ("去北京的高铁": where from), or both."""
    if origin and destination and origin != destination:
        return []
    if destination and not origin:
        return [NEEDS_ORIGIN]
    if origin and not destination:
        return [NEEDS_DESTINATION]
    return [NEEDS_ROUTE]


def stay_end(check_in: dt.date, date_end: dt.date | None, nights: int | None) -> dt.date | None:
    """The check-out day: the end day said when after check-in, else check-in + the nights said."""
    if date_end is not None and date_end > check_in:
        return date_end
    if nights:
        return check_in + dt.timedelta(days=nights)
    return None


def stay_after(details: Mapping | None) -> dict[str, Any]:
    """The hotel stay that follows a journey just booked: in the city it arrives in, checking in the day it arrives
    (a night train's or a red-eye's next day). {} when the booking names no arrival."""
    facts = details_facts(details)
    if not facts.destination:
        return {}
    day = _iso_day(facts.arrive) or facts.day
    if day and not facts.arrive and facts.overnight_days:
        day += dt.timedelta(days=facts.overnight_days)
    return {"city": facts.destination, **({"date_start": day} if day else {})}


def _iso_day(value: Any) -> dt.date | None:
    try:
        return dt.date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None


def rebook_day(booking: Mapping, wants: BookingWants) -> dt.date | None:
    """The new day of a rebooking: the day said, else the booking's own day moved by the days said ("往后推一天")."""
    if wants.date_start is not None or not wants.day_shift:
        return wants.date_start
    day = details_facts(booking.get("details")).day
    return day + dt.timedelta(days=wants.day_shift) if day else None


def rebook_search(booking: Mapping, wants: BookingWants) -> BookingSearch:
    """Options for a booking (as `list_my_bookings` lists it) on the new day (`wants.date_start`): same product and
    route (or city and length of stay), with the preferences of the rebooking."""
    facts = details_facts(booking.get("details"))
    biz = str(booking.get("biz_type") or "").upper() or wants.biz_type
    start = rebook_day(booking, wants)
    missing: list[str] = []
    arguments: dict[str, Any] = {"biz_type": biz}
    check_out = None
    if biz == BizType.HOTEL:
        arguments["city"] = facts.city or wants.city
        check_out = stay_end(start, wants.date_end, wants.nights or facts.nights) if start else None
        arguments["check_out"] = check_out.isoformat() if check_out else None
        if not arguments["city"]:
            missing.append(NEEDS_HOTEL_CITY)
    else:
        arguments["origin"] = facts.origin or wants.origin
        arguments["destination"] = facts.destination or wants.city
        if not arguments["origin"] or not arguments["destination"]:
            missing.append(NEEDS_ROUTE)
    if start is None:
        missing.append(NEEDS_DATE)
    arguments["date"] = start.isoformat() if start else None
    arguments |= _preferences(wants)
    given = {k: v for k, v in arguments.items() if v not in (None, "", [], False)}
    return BookingSearch(given, tuple(missing), start if biz == BizType.HOTEL else None, check_out)


def _preferences(wants: BookingWants) -> dict[str, Any]:
    return {k: v for k, v in wants.preferences.items() if v is not None and v is not False}


def option_choice(data: Mapping, pick: int | None, accept_nearest: bool = False) -> tuple[dict | None, str]:
    """The option to prepare from a `booking_options` answer: the one picked (1-based), else the best one when it
    meets what was asked (or the traveller accepted the nearest); None with the reason otherwise (nothing found, no
    such position, nothing matched: the traveller picks one of the nearest first)."""
    options = [o for o in data.get("options") or [] if isinstance(o, dict) and o.get("ref")]
    if not options:
        return None, "nothing found"
    if pick:
        if pick <= len(options):
            return options[pick - 1], ""
        return None, f"there is no option {pick} (only {len(options)} shown)"
    if data.get("matched") is False and not accept_nearest:
        unmet = ", ".join(str(u) for u in data.get("unmet") or []) or "what was asked"
        return None, f"no option meets {unmet}; the nearest are shown for the traveller to pick"
    return options[0], ""


def booking_passengers(
    named: Iterable[Mapping], *, contact_name: str | None = None, contact_mobile: str | None = None
) -> list[dict[str, str | None]]:
    """Who travels, as far as known: the passengers named (the first one's mobile may be the contact's), else the
    contact; empty when nothing is known. `book_option` says what is missing (`passengers_complete`)."""
    people = [{"name": p["name"], "mobile": p.get("mobile")} for p in named]
    if people:
        if not people[0]["mobile"] and contact_mobile:
            people[0]["mobile"] = contact_mobile
        return people
    if contact_name or contact_mobile:
        return [{"name": contact_name or "", "mobile": contact_mobile}]
    return []


def passengers_complete(passengers: list[dict]) -> bool:
    """Whether every passenger has a name and the first (the contact) a mobile."""
    return bool(passengers) and all(p.get("name") for p in passengers) and bool(passengers[0].get("mobile"))
