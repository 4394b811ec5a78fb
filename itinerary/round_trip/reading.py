"""Reading and checking a round-trip request for the engine: money in fen, times in microseconds, scores in
hundredths (integers, so that ranking never depends on float rounding); a request that cannot be planned raises
PlanInputError with a message fit to show. Plain Python and NumPy."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from itinerary.round_trip.plan_types import (
    MAX_CANDIDATES,
    MAX_LEG_DURATION,
    MAX_NIGHTS,
    MAX_PENALTY,
    MAX_PRICE,
    MODES,
    HotelOption,
    Leg,
    PlanInputError,
    PlanRequest,
    TravelPolicy,
)

_EPOCH_NAIVE = datetime(1970, 1, 1)
_EPOCH_AWARE = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


def _finite(value: Any, what: str) -> Fraction:
    if not _is_number(value):
        raise PlanInputError(f"{what} must be a number, got {value!r}")
    if isinstance(value, Decimal) and not value.is_finite() or isinstance(value, float) and not math.isfinite(value):
        raise PlanInputError(f"{what} must be a finite number, got {value!r}")
    # A float is read as the decimal it prints as: 19.99 is 19.99, not 19.989999….
    return Fraction(Decimal(repr(value))) if isinstance(value, float) else Fraction(value)


def _hundredths(value: Any, what: str) -> int:
    """A number to the hundredth (fen for money, 0.01 point for scores), rounded half to even."""
    if type(value) is int:
        return value * 100
    if type(value) is float and math.isfinite(value):
        scaled = value * 100
        nearest = round(scaled)
        if abs(abs(scaled - nearest) - 0.5) > 1e-6:  # not near a half: float rounding cannot change the answer
            return nearest
    return round(_finite(value, what) * 100)


def _money(value: Any, what: str) -> int:
    fen = _hundredths(value, what)
    if fen < 0 or fen > MAX_PRICE * 100:
        raise PlanInputError(f"{what} must be between 0 and {MAX_PRICE} yuan, got {value!r}")
    return fen


def read_text(value: Any, what: str, *, allow_blank: bool = True) -> str:
    if not isinstance(value, str):
        raise PlanInputError(f"{what} must be text, got {value!r}")
    if not allow_blank and not value.strip():
        raise PlanInputError(f"{what} must not be blank")
    return value


class Clock:
    """Datetimes to integer microseconds; all naive or all aware, never mixed."""

    def __init__(self) -> None:
        self.aware: bool | None = None

    def micros(self, value: Any, what: str) -> int:
        if not isinstance(value, datetime):
            raise PlanInputError(f"{what} must be a datetime, got {value!r}")
        aware = value.utcoffset() is not None
        if self.aware is None:
            self.aware = aware
        elif self.aware != aware:
            raise PlanInputError(f"{what}: mixing times with and without a time zone")
        return (value - (_EPOCH_AWARE if aware else _EPOCH_NAIVE)) // _MICROSECOND


@dataclass
class Legs:
    """One list of legs as integer arrays."""

    items: list[Leg]
    price: np.ndarray  # fen
    depart: np.ndarray  # µs
    arrive: np.ndarray  # µs
    duration: np.ndarray  # µs
    pref: np.ndarray  # hundredths of a point
    bad: np.ndarray  # 0/1: seat class outside the policy
    rank: np.ndarray  # position of the id in sorted order


@dataclass
class Hotels:
    items: list[HotelOption]
    cost: np.ndarray  # fen, for the whole stay
    pref: np.ndarray
    bad: np.ndarray  # 0/1: star above the policy
    rank: np.ndarray


@dataclass(frozen=True)
class Policy:
    cap_fen: int | None
    max_star: int | None
    seats: tuple[str, ...]
    penalty: int  # hundredths of a point


def read_policy(policy: TravelPolicy | None) -> Policy | None:
    if policy is None:
        return None
    if not isinstance(policy, TravelPolicy):
        raise PlanInputError("policy must be a TravelPolicy")
    cap = None
    if policy.max_total_price is not None:
        cap = _money(policy.max_total_price, "policy.max_total_price")
    max_star = policy.max_hotel_star
    if max_star is not None and (not isinstance(max_star, int) or isinstance(max_star, bool) or max_star < 0):
        raise PlanInputError(f"policy.max_hotel_star must be a whole number ≥ 0, got {max_star!r}")
    seats = policy.allowed_seat_classes
    if isinstance(seats, str) or not all(isinstance(s, str) for s in seats):
        raise PlanInputError("policy.allowed_seat_classes must be a list of seat class names")
    penalty = _hundredths(policy.penalty, "policy.penalty")
    if penalty < 0 or penalty > MAX_PENALTY * 100:
        raise PlanInputError(f"policy.penalty must be between 0 and {MAX_PENALTY:g}, got {policy.penalty!r}")
    return Policy(cap_fen=cap, max_star=max_star, seats=tuple(seats), penalty=penalty)


def _ranks(ids: list[str]) -> np.ndarray:
    order = sorted(range(len(ids)), key=ids.__getitem__)
    rank = np.empty(len(ids), dtype=np.int64)
    rank[order] = np.arange(len(ids), dtype=np.int64)
    return rank


def read_legs(legs: Any, what: str, clock: Clock, prefs: dict[str, int], policy: Policy | None, seen: set[str]) -> Legs:
    if not isinstance(legs, list | tuple) or not legs:
        raise PlanInputError(f"no {what} candidates: at least one is needed")
    if len(legs) > MAX_CANDIDATES:
        raise PlanInputError(f"too many {what} candidates: {len(legs)} (at most {MAX_CANDIDATES})")
    n = len(legs)
    price, depart, arrive, pref, bad = (np.zeros(n, dtype=np.int64) for _ in range(5))
    for index, leg in enumerate(legs):
        where = f"{what}[{index}]"
        if not isinstance(leg, Leg):
            raise PlanInputError(f"{where} must be a Leg")
        read_text(leg.id, f"{where}.id", allow_blank=False)
        if leg.id in seen:
            raise PlanInputError(f"duplicate candidate id {leg.id!r}")
        seen.add(leg.id)
        where = f"{what} {leg.id!r}"
        if leg.mode not in MODES:
            raise PlanInputError(f"{where}: mode must be FLIGHT or TRAIN, got {leg.mode!r}")
        read_text(leg.number, f"{where}: number")
        read_text(leg.seat_class, f"{where}: seat_class")
        price[index] = _money(leg.price, f"{where}: price")
        depart[index] = clock.micros(leg.depart, f"{where}: depart")
        arrive[index] = clock.micros(leg.arrive, f"{where}: arrive")
        if not 0 < arrive[index] - depart[index] <= MAX_LEG_DURATION // _MICROSECOND:
            raise PlanInputError(f"{where}: must arrive after it departs, within {MAX_LEG_DURATION.days} days")
        pref[index] = prefs.get(leg.id, 5000)
        bad[index] = int(policy is not None and bool(policy.seats) and leg.seat_class not in policy.seats)
    return Legs(
        items=list(legs),
        price=price,
        depart=depart,
        arrive=arrive,
        duration=arrive - depart,
        pref=pref,
        bad=bad,
        rank=_ranks([leg.id for leg in legs]),
    )


def read_hotels(
    hotels: Any, nights: int, prefs: dict[str, int], policy: Policy | None, seen: set[str]
) -> tuple[Hotels, list[int]]:
    if not isinstance(hotels, list | tuple) or not hotels:
        raise PlanInputError("no hotel candidates: at least one is needed")
    if len(hotels) > MAX_CANDIDATES:
        raise PlanInputError(f"too many hotel candidates: {len(hotels)} (at most {MAX_CANDIDATES})")
    n = len(hotels)
    cost, pref, bad = (np.zeros(n, dtype=np.int64) for _ in range(3))
    per_night = []
    for index, hotel in enumerate(hotels):
        if not isinstance(hotel, HotelOption):
            raise PlanInputError(f"hotels[{index}] must be a HotelOption")
        read_text(hotel.id, f"hotels[{index}].id", allow_blank=False)
        if hotel.id in seen:
            raise PlanInputError(f"duplicate candidate id {hotel.id!r}")
        seen.add(hotel.id)
        where = f"hotel {hotel.id!r}"
        read_text(hotel.name, f"{where}: name")
        if not isinstance(hotel.star, int) or isinstance(hotel.star, bool) or not 0 <= hotel.star <= 7:
            raise PlanInputError(f"{where}: star must be a whole number from 0 to 7, got {hotel.star!r}")
        fen = _money(hotel.price_per_night, f"{where}: price_per_night")
        per_night.append(fen)
        cost[index] = fen * nights
        pref[index] = prefs.get(hotel.id, 5000)
        bad[index] = int(policy is not None and policy.max_star is not None and hotel.star > policy.max_star)
    return Hotels(items=list(hotels), cost=cost, pref=pref, bad=bad, rank=_ranks([h.id for h in hotels])), per_night


def read_scores(scores: Any) -> dict[str, int]:
    if not isinstance(scores, dict):
        raise PlanInputError("preference_scores must be a mapping of candidate id to a score from 0 to 100")
    read = {}
    for key, value in scores.items():
        if not isinstance(key, str):
            raise PlanInputError(f"preference_scores: candidate ids must be text, got {key!r}")
        hundredths = _hundredths(value, f"preference score of {key!r}")
        if not 0 <= hundredths <= 10000:
            raise PlanInputError(f"preference score of {key!r} must be between 0 and 100, got {value!r}")
        read[key] = hundredths
    return read


def read_dates(request: PlanRequest) -> int:
    days = []
    for name in ("depart_date", "return_date"):
        value = getattr(request, name)
        if isinstance(value, datetime):
            value = value.date()
        if not isinstance(value, date):
            raise PlanInputError(f"{name} must be a date, got {value!r}")
        days.append(value)
    nights = (days[1] - days[0]).days
    if nights < 0:
        raise PlanInputError(f"dates reversed: return_date {days[1]} is before depart_date {days[0]}")
    if nights == 0:
        raise PlanInputError(f"same day: return_date {days[1]} must be at least one night after depart_date")
    if nights > MAX_NIGHTS:
        raise PlanInputError(f"the stay is {nights} nights long (at most {MAX_NIGHTS})")
    return nights
