"""Candidates for a round trip, collected from the supplier platform as the traveller (their platform key).

    found = candidates_collect(user=user, origin="上海", destination="杭州",
                               depart_date=date(2026, 12, 5), return_date=date(2026, 12, 7))

Five searches: outbound flights and trains (origin → destination on the depart date), return flights and trains
(destination → origin on the return date), hotels in the destination for the stay. Every price, time and number
comes from the supplier's answers (`bookings/skills/booking.md` for their shapes); an entry that cannot be read is
left out, never guessed. The five are independent and run at once (`platform_run_many`), so a supplier that hangs
costs one timeout, not five; each search that fails is recorded in `failures` and the others still count: the
caller decides what it can honestly show.

Ids: `out:FLIGHT:MU5101`, `ret:TRAIN:G102`, `hotel:HDL001`. A train's price is that of one seat class: 二等座,
unless the traveller asked for another (一等座, 商务座) and the train has it.
"""

import datetime as dt
import logging
import re
from dataclasses import dataclass, field
from typing import Any

from assistant.llm.preferences import PreferenceCandidate
from bookings.platform import PlatformCommand, PlatformError, platform_run_many
from itinerary.round_trip.plan_types import HotelOption, Leg

logger = logging.getLogger(__name__)

DEFAULT_SEAT_CLASS = "二等座"
SEAT_CLASS_CUES = (
    ("商务座", re.compile(r"商务座|business class", re.I)),
    ("一等座", re.compile(r"一等座|first class", re.I)),
    ("二等座", re.compile(r"二等座|second class", re.I)),
)
OUTBOUND, RETURN = "out", "ret"
# Beyond these a supplier entry is not a real option (and the planning engine would refuse the whole request).
MAX_LEG_DURATION = dt.timedelta(hours=48)
MAX_PRICE = 1_000_000
STARS = range(0, 8)


@dataclass(frozen=True)
class SearchFailure:
    """One supplier search that gave no answer to use."""

    product: str  # flight | train | hotel
    direction: str  # out | ret | stay
    code: str  # PlatformError code
    message: str


@dataclass
class Candidates:
    outbound: list[Leg] = field(default_factory=list)
    returns: list[Leg] = field(default_factory=list)
    hotels: list[HotelOption] = field(default_factory=list)
    failures: list[SearchFailure] = field(default_factory=list)

    @property
    def failed_products(self) -> set[tuple[str, str]]:
        return {(f.product, f.direction) for f in self.failures}

    def by_id(self) -> dict[str, Leg | HotelOption]:
        return {c.id: c for c in (*self.outbound, *self.returns, *self.hotels)}


def train_seat_class(text: str) -> str:
    """The seat class the traveller asked for, 二等座 if none."""
    for seat, pattern in SEAT_CLASS_CUES:
        if pattern.search(text or ""):
            return seat
    return DEFAULT_SEAT_CLASS


def candidates_collect(
    *,
    user,
    origin: str,
    destination: str,
    depart_date: dt.date,
    return_date: dt.date,
    seat_class: str = DEFAULT_SEAT_CLASS,
) -> Candidates:
    """Search the supplier for the round trip's candidates; failed searches are listed, never raised."""
    found = Candidates()
    out = {"from": origin, "to": destination, "date": depart_date.isoformat()}
    back = {"from": destination, "to": origin, "date": return_date.isoformat()}
    stay = {"city": destination, "checkInDate": depart_date.isoformat(), "checkOutDate": return_date.isoformat()}
    searches = (
        ("flight", OUTBOUND, out),
        ("train", OUTBOUND, out),
        ("flight", RETURN, back),
        ("train", RETURN, back),
        ("hotel", "stay", stay),
    )
    answers = platform_run_many([PlatformCommand(product, "search", args) for product, _, args in searches], user=user)
    for (product, direction, _), answer in zip(searches, answers, strict=True):
        if isinstance(answer, PlatformError):
            found.failures.append(SearchFailure(product, direction, answer.code, answer.message))
            continue
        if product == "hotel":
            found.hotels.extend(_unique(_hotel(item) for item in _items(answer, "hotels")))
            continue
        into = found.outbound if direction == OUTBOUND else found.returns
        if product == "flight":
            into.extend(_unique(_flight_leg(direction, item) for item in _items(answer, "flights")))
        else:
            into.extend(_unique(_train_leg(direction, item, seat_class) for item in _items(answer, "trains")))
    return found


def _items(answer: dict | None, key: str) -> list[dict]:
    items = (answer or {}).get(key)
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def _unique(candidates) -> list:
    """Readable candidates, the first of each id (a supplier listing a number twice must not break the plan)."""
    seen: dict[str, Any] = {}
    for candidate in candidates:
        if candidate is not None and candidate.id not in seen:
            seen[candidate.id] = candidate
    return list(seen.values())


def _price(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= MAX_PRICE:
        return None  # also NaN, which compares false
    return float(value)


def _times(item: dict) -> tuple[dt.datetime, dt.datetime] | None:
    """(depart, arrive) when both read and the leg takes a plausible time."""
    depart, arrive = _time(item.get("departTime")), _time(item.get("arriveTime"))
    if depart is None or arrive is None or (depart.tzinfo is None) != (arrive.tzinfo is None):
        return None
    return (depart, arrive) if dt.timedelta(0) < arrive - depart <= MAX_LEG_DURATION else None


def _time(value: object) -> dt.datetime | None:
    try:
        return dt.datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _number(value: object) -> str | None:
    text = str(value).strip().upper() if isinstance(value, str | int) and not isinstance(value, bool) else ""
    return text or None


def _english(item: dict, **names: str) -> dict:
    """The supplier's English names beside its Chinese ones (`airlineEn` …), under our names, when it sent them."""
    return {ours: item[theirs] for ours, theirs in names.items() if isinstance(item.get(theirs), str) and item[theirs]}


def _skipped(kind: str, item: dict) -> None:
    logger.warning("supplier %s entry left out: unreadable fields", kind, extra={"entry": str(item)[:300]})


def _flight_leg(direction: str, item: dict) -> Leg | None:
    number, price, times = _number(item.get("flightNo")), _price(item.get("price")), _times(item)
    if not (number and price is not None and times):
        _skipped("flight", item)
        return None
    depart, arrive = times
    return Leg(
        id=f"{direction}:FLIGHT:{number}",
        mode="FLIGHT",
        number=number,
        depart=depart,
        arrive=arrive,
        price=price,
        seat_class=str(item.get("cabin") or ""),
        meta={
            "airline": str(item.get("airline") or ""),
            "from": item.get("from"),
            "to": item.get("to"),
            **_english(item, airline_en="airlineEn", from_en="fromEn", to_en="toEn"),
        },
    )


def _train_leg(direction: str, item: dict, seat_class: str) -> Leg | None:
    number, times = _number(item.get("trainNo")), _times(item)
    seats = {
        str(s.get("seatType")): _price(s.get("price"))
        for s in (item.get("seats") if isinstance(item.get("seats"), list) else [])
        if isinstance(s, dict) and _price(s.get("price")) is not None
    }
    seat = next((s for s in (seat_class, DEFAULT_SEAT_CLASS) if s in seats), None)
    if not (number and times and seat):
        _skipped("train", item)
        return None
    depart, arrive = times
    return Leg(
        id=f"{direction}:TRAIN:{number}",
        mode="TRAIN",
        number=number,
        depart=depart,
        arrive=arrive,
        price=seats[seat],
        seat_class=seat,
        meta={"from": item.get("from"), "to": item.get("to"), **_english(item, from_en="fromEn", to_en="toEn")},
    )


def _hotel(item: dict) -> HotelOption | None:
    hotel_id, per_night = _number(item.get("hotelId")), _price(item.get("pricePerNight"))
    star = item.get("star")
    if not (
        hotel_id and per_night is not None and isinstance(star, int) and not isinstance(star, bool) and star in STARS
    ):
        _skipped("hotel", item)
        return None
    return HotelOption(
        id=f"hotel:{hotel_id}",
        name=str(item.get("name") or hotel_id),
        star=star,
        price_per_night=per_night,
        meta={
            "hotel_id": hotel_id,
            "rating": item.get("rating"),
            "address": item.get("address") or "",
            **_english(item, name_en="nameEn", city_en="cityEn"),
        },
    )


def preference_candidates(found: Candidates) -> list[PreferenceCandidate]:
    """The candidates as the LLM port's preference scoring sees them."""
    legs = [("outbound", leg) for leg in found.outbound] + [("return", leg) for leg in found.returns]
    result = [
        PreferenceCandidate(
            id=leg.id,
            kind=kind,
            mode=leg.mode,
            price=leg.price,
            name=leg.number,
            duration_minutes=int((leg.arrive - leg.depart).total_seconds() // 60),
            depart=leg.depart.isoformat(timespec="minutes"),
            arrive=leg.arrive.isoformat(timespec="minutes"),
            seat_class=leg.seat_class,
        )
        for kind, leg in legs
    ]
    result += [
        PreferenceCandidate(
            id=hotel.id, kind="hotel", mode="HOTEL", price=hotel.price_per_night, name=hotel.name, star=hotel.star
        )
        for hotel in found.hotels
    ]
    return result
