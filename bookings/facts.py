"""What a booking is for, in one vocabulary: its number and name, route or city, day and times, stay, seat and
passengers (`BookingFacts`).

A booking's `details` hold what was booked in whichever words wrote them: ours (`booking_create`: `depart`,
`check_in`, `origin` …) or the supplier's (a traveller's own platform command, an order recovered from the supplier:
`departTime`, `checkInDate`, `from` …). `details_facts` is the one place that knows both; everything that asks what
a booking is for (cards, previews, which booking a sentence means, a rebooking's search) reads `BookingFacts`, and
the day of a booking is `BookingFacts.day`, the same for every decision.
"""

import datetime as dt
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from bookings.options import overnight_days

# Our word for a fact → the supplier's words for it, in the order they are read.
SUPPLIER_WORDS: dict[str, tuple[str, ...]] = {
    "number": ("flightNo", "trainNo", "hotelId"),
    "name": ("airline", "hotelName"),
    "origin": ("from",),
    "destination": ("to",),
    "depart": ("departTime",),
    "arrive": ("arriveTime",),
    "check_in": ("checkInDate",),
    "check_out": ("checkOutDate",),
    "seat": ("cabin",),
    "passengers": ("guests",),
    "unit_price": ("unitPrice", "pricePerNight"),
    # The supplier's English names beside its Chinese ones (bookings.vocabulary shows them to English readers).
    "name_en": ("airlineEn", "nameEn", "trainTypeEn"),
    "origin_en": ("fromEn",),
    "destination_en": ("toEn",),
    "city_en": ("cityEn",),
    "seat_en": ("cabinEn",),
}


@dataclass(frozen=True)
class BookingFacts:
    """What was booked. Times are the supplier's ISO text (`2026-12-19T07:10`), days ISO dates (`2026-12-19`)."""

    number: str = ""
    name: str = ""
    origin: str = ""
    destination: str = ""
    city: str = ""
    date: str | None = None  # the day of a flight or a train, or a stay's check-in
    depart: str | None = None
    arrive: str | None = None
    overnight_days: int = 0
    seat: str = ""
    star: Any = None
    check_in: str | None = None
    check_out: str | None = None
    nights: int | None = None
    passengers: tuple[str, ...] = ()
    unit_price: Any = None
    # The English names the supplier sent ("" when it sent none; details stored before it did have none).
    name_en: str = ""
    origin_en: str = ""
    destination_en: str = ""
    city_en: str = ""
    seat_en: str = ""

    @property
    def day(self) -> dt.date | None:
        """The day the booking is for (departure, or check-in): what "取消27号那张" is compared with."""
        return _iso_day(self.date)

    def as_dict(self) -> dict:
        """The facts as cards, previews and envelopes carry them (JSON-ready)."""
        facts = asdict(self)
        facts["passengers"] = list(self.passengers)
        return facts


def booking_day(booking: Any) -> dt.date | None:
    """The day a booking is for (departure, or check-in): of a `BookingRecord`, or of a booking as
    `list_my_bookings` lists it (a mapping with its `details`)."""
    details = booking.get("details") if isinstance(booking, Mapping) else booking.details
    return details_facts(details).day


def details_facts(details: Mapping | None) -> BookingFacts:
    """The facts of a booking's `details`, whichever words wrote them (`SUPPLIER_WORDS`)."""
    d = details if isinstance(details, Mapping) else {}

    def read(word: str) -> Any:
        for key in (word, *SUPPLIER_WORDS.get(word, ())):
            value = d.get(key)
            if value not in (None, "", []):
                return value
        return None

    depart, arrive = read("depart"), read("arrive")
    check_in, check_out = read("check_in"), read("check_out")
    nights = d.get("nights")
    if nights is None:
        start, end = _iso_day(check_in), _iso_day(check_out)
        nights = (end - start).days if start and end else None
    people = read("passengers") or []
    names = [p.get("name") if isinstance(p, Mapping) else p for p in people] if isinstance(people, list) else []
    seat, seat_en = read("seat"), read("seat_en")
    resources = d.get("resources")
    if not seat and isinstance(resources, list) and resources and isinstance(resources[0], Mapping):
        seat = resources[0].get("seatType")  # a train order names the seat per passenger
        seat_en = seat_en or resources[0].get("seatTypeEn")
    return BookingFacts(
        number=str(read("number") or ""),
        name=str(read("name") or ""),
        origin=str(read("origin") or ""),
        destination=str(read("destination") or ""),
        city=str(d.get("city") or ""),
        date=(str(depart)[:10] if depart else None) or _text(d.get("date")) or _text(check_in),
        depart=_text(depart),
        arrive=_text(arrive),
        overnight_days=overnight_days(depart, arrive),
        seat=str(seat or ""),
        star=d.get("star"),
        check_in=_text(check_in),
        check_out=_text(check_out),
        nights=nights,
        passengers=tuple(str(n) for n in names if n),
        unit_price=read("unit_price"),
        name_en=str(read("name_en") or ""),
        origin_en=str(read("origin_en") or ""),
        destination_en=str(read("destination_en") or ""),
        city_en=str(read("city_en") or ""),
        seat_en=str(seat_en or ""),
    )


def _text(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


def _iso_day(value: Any) -> dt.date | None:
    try:
        return dt.date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None
