"""What the round-trip engine (`engine.plan_itinerary`) is asked and answers: candidates, policy, request, result,
and the limits it accepts. Plain Python, no Django."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

MAX_CANDIDATES = 5000  # per list (outbound, hotels, returns)
MAX_PRICE = 10_000_000  # yuan, per leg or per night
MAX_NIGHTS = 365
MAX_LEG_DURATION = timedelta(days=7)
MAX_PENALTY = 1000.0
DEFAULT_PREFERENCE = 50.0
MODES = ("FLIGHT", "TRAIN")
PLAN_NAMES = ("best_overall", "cheapest", "fastest", "best_preference")


class PlanInputError(ValueError):
    """The request cannot be planned; the message says why, in words a caller can show."""


@dataclass(frozen=True)
class Leg:
    """One outbound or return option."""

    id: str  # unique among all candidates, e.g. "out:MU5101" / "ret:G102"
    mode: str  # "FLIGHT" | "TRAIN"
    number: str  # flight / train number
    depart: datetime  # local, naive or aware consistently
    arrive: datetime
    price: float  # yuan, per traveller
    seat_class: str = ""  # e.g. 经济舱 / 二等座 / 商务座
    meta: dict = field(default_factory=dict)


@dataclass(frozen=True)
class HotelOption:
    id: str  # "hotel:HDL001"
    name: str
    star: int
    price_per_night: float
    meta: dict = field(default_factory=dict)


@dataclass(frozen=True)
class TravelPolicy:
    """Soft rules: they lower the score and explain, never delete."""

    max_total_price: float | None = None
    max_hotel_star: int | None = None
    allowed_seat_classes: tuple[str, ...] = ()  # empty = any
    penalty: float = 20.0  # points off the overall score per violation


@dataclass(frozen=True)
class PlanRequest:
    origin: str
    destination: str
    depart_date: date
    return_date: date
    outbound: list[Leg]
    hotels: list[HotelOption]
    returns: list[Leg]
    preference_scores: dict[str, float]  # candidate id → 0..100 (from the model); missing id → 50
    policy: TravelPolicy | None = None
    preferences_text: str = ""


@dataclass(frozen=True)
class PlanResult:
    """The four representative plans, which names each distinct plan won, counts, and what was asked."""

    plans: dict[str, dict[str, Any]]  # name (PLAN_NAMES) → plan
    labels: list[dict[str, Any]]  # one entry per distinct plan: {"names", "outbound", "hotel", "return"}
    counts: dict[str, int]  # {"combinations", "legal"}
    inputs: dict[str, Any]  # the request in brief: route, dates, nights, policy, candidate counts, ranges

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (dates as ISO strings, numbers as int/float)."""
        return {"plans": self.plans, "labels": self.labels, "counts": self.counts, "inputs": self.inputs}
