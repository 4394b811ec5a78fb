"""Preference scoring on the LLM port: what the port is asked, and what it answers.

The itinerary planner asks how well each candidate (an outbound or return flight or train, a hotel) fits what the
traveller said they prefer ("便宜一点", "坐高铁", "五星酒店"), as a score from 0 to 100; 50 is neutral. The scores
are one input of `plan_itinerary`'s objective maths; the candidates' prices and times stay the code's.
"""

from dataclasses import dataclass, field
from typing import Any

from assistant.llm.errors import Usage

NEUTRAL = 50.0
MIN_SCORE, MAX_SCORE = 0.0, 100.0

# What a traveller can prefer, by name: what the rules adapter understands and the model may report back.
PREFERENCES = ("cheap", "fast", "train", "flight", "luxury", "budget_hotel")
KINDS = ("outbound", "return", "hotel")


@dataclass(frozen=True)
class PreferenceCandidate:
    """One candidate as the port sees it: facts only, no prices invented or rounded.

    - `id`: the planner's candidate id (`out:FLIGHT:MU5101`, `ret:TRAIN:G102`, `hotel:HDL001`).
    - `kind`: "outbound", "return" or "hotel"; `mode`: "FLIGHT", "TRAIN" or "HOTEL".
    - `price`: yuan, per traveller for a leg, per night for a hotel.
    - `duration_minutes`, `depart`, `arrive` (ISO local times): legs only. `star`: hotels only.
    """

    id: str
    kind: str
    mode: str
    price: float
    name: str = ""
    duration_minutes: int | None = None
    depart: str | None = None
    arrive: str | None = None
    star: int | None = None
    seat_class: str = ""

    def as_json(self) -> dict[str, Any]:
        data = {
            "id": self.id,
            "kind": self.kind,
            "mode": self.mode,
            "name": self.name,
            "price": self.price,
            "duration_minutes": self.duration_minutes,
            "depart": self.depart,
            "arrive": self.arrive,
            "star": self.star,
            "seat_class": self.seat_class,
        }
        return {key: value for key, value in data.items() if value not in (None, "")}


@dataclass
class PreferenceScores:
    """The port's answer: candidate id → 0..100 (a missing id is neutral), the preferences it read, the cost."""

    scores: dict[str, float]
    usage: Usage = field(default_factory=Usage)
    stated: tuple[str, ...] = ()  # names from PREFERENCES that were understood, in that order
