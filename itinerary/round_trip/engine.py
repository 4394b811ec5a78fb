"""plan_itinerary: the objective maths of a round trip, over every outbound × hotel × return combination.

A combination (o, h, r) is legal when the return leaves after the outbound arrives. Over the legal ones:

    total price  = o.price + h.price_per_night · nights + r.price
    transit time = (o.arrive − o.depart) + (r.arrive − r.depart)
    time, price  = min–max normalised to 0–100, lower is better (50 for all when max == min)
    preference   = mean of the three candidates' preference scores (a missing id counts 50)
    overall      = 0.3·time + 0.2·price + 0.5·preference − penalty · (policy violations)

Soft policy rules lower the score and explain why; they never remove a combination. Four representative plans
come back: best overall, cheapest, fastest and best preference, ties broken by the overall score, then by the
candidates' ids (outbound, hotel, return). The answer is exactly what an exhaustive enumeration gives.

How it stays fast without enumerating: every term of the overall score is a per-outbound, per-hotel or per-return
term, except the price-cap violation, which depends on the total. So:

- Money is counted in fen, times in microseconds, scores in hundredths: integers. The normalisations only divide
  by two fixed ranges, so multiplying the overall score by a common denominator D turns it into an exact integer
  key per candidate (ko + kh + kr) minus D·penalty when the total is over the cap. Ranking never depends on float
  rounding; the key is int64 when it provably fits, Python integers (object arrays) when it might not.
- Returns are sorted by departure: the returns legal with an outbound are a suffix of that order, so the ranges
  (min/max price and time over legal combinations) come from suffix minima and maxima.
- The best hotel for an (outbound, return) pair is one array lookup: hotels sorted by price with a running "best
  so far" (affordable under the cap) and a running "best from here" (over the cap, minus the penalty). The search
  therefore runs over (outbound, return) pairs, in NumPy chunks, never over hotels × pairs, and skips outbounds
  whose upper bound cannot reach the best found.

Here: shaping the answer and `plan_itinerary`; what it is asked and answers is `plan_types`, checking the request
`reading`, the search over pairs `search`. No Django import in any of them: plain Python and NumPy.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from itinerary.round_trip.plan_types import PLAN_NAMES, HotelOption, Leg, PlanInputError, PlanRequest, PlanResult
from itinerary.round_trip.reading import (
    Clock,
    Policy,
    read_dates,
    read_hotels,
    read_legs,
    read_policy,
    read_scores,
    read_text,
)
from itinerary.round_trip.search import Search


def _two_decimals(value: Fraction) -> float:
    return float(round(value, 2))


def _yuan(fen: int) -> float | int:
    return fen // 100 if fen % 100 == 0 else fen / 100


def _minutes(micros: int) -> float | int:
    minutes = Fraction(micros, 60_000_000)
    return int(minutes) if minutes.denominator == 1 else _two_decimals(minutes)


def _leg_facts(leg: Leg, fen: int, duration: int) -> dict[str, Any]:
    return {
        "id": leg.id,
        "mode": leg.mode,
        "number": leg.number,
        "depart": leg.depart.isoformat(),
        "arrive": leg.arrive.isoformat(),
        "duration_minutes": _minutes(duration),
        "price": _yuan(fen),
        "seat_class": leg.seat_class,
        "meta": dict(leg.meta),
    }


def _hotel_facts(hotel: HotelOption, per_night: int, nights: int) -> dict[str, Any]:
    return {
        "id": hotel.id,
        "name": hotel.name,
        "star": hotel.star,
        "price_per_night": _yuan(per_night),
        "nights": nights,
        "cost": _yuan(per_night * nights),
        "meta": dict(hotel.meta),
    }


class _Shaper:
    def __init__(self, search: Search, policy: Policy | None, nights: int, per_night: list[int]) -> None:
        self.s, self.policy, self.nights, self.per_night = search, policy, nights, per_night

    def plan(self, combo: tuple[int, int, int]) -> dict[str, Any]:
        s = self.s
        i, j, k = combo
        out, hotel, ret = s.out.items[i], s.hotels.items[j], s.ret.items[k]
        total = int(s.out.price[i] + s.hotels.cost[j] + s.ret.price[k])
        transit = int(s.out.duration[i] + s.ret.duration[k])
        time = Fraction(100 * (s.t_max - transit), s.t_max - s.t_min) if s.t_max > s.t_min else Fraction(50)
        price = Fraction(100 * (s.p_max - total), s.p_max - s.p_min) if s.p_max > s.p_min else Fraction(50)
        preference = Fraction(int(s.out.pref[i] + s.hotels.pref[j] + s.ret.pref[k]), 300)
        violations = self.violations(out, hotel, ret, total)
        penalty = Fraction(self.policy.penalty, 100) if self.policy else Fraction(0)
        overall = (
            Fraction(3, 10) * time + Fraction(2, 10) * price + Fraction(5, 10) * preference - penalty * len(violations)
        )
        return {
            "outbound": out.id,
            "hotel": hotel.id,
            "return": ret.id,
            "total_price": _yuan(total),
            "transit_minutes": _minutes(transit),
            "scores": {
                "time": _two_decimals(time),
                "price": _two_decimals(price),
                "preference": _two_decimals(preference),
                "overall": _two_decimals(overall),
            },
            "violations": violations,
            "details": {
                "outbound": _leg_facts(out, int(s.out.price[i]), int(s.out.duration[i])),
                "hotel": _hotel_facts(hotel, self.per_night[j], self.nights),
                "return": _leg_facts(ret, int(s.ret.price[k]), int(s.ret.duration[k])),
            },
        }

    def violations(self, out: Leg, hotel: HotelOption, ret: Leg, total: int) -> list[str]:
        policy = self.policy
        if policy is None:
            return []
        found = []
        if policy.cap_fen is not None and total > policy.cap_fen:
            found.append(f"total price ¥{_yuan(total)} is over the policy cap of ¥{_yuan(policy.cap_fen)}")
        if policy.max_star is not None and hotel.star > policy.max_star:
            found.append(f"hotel {hotel.name} is {hotel.star}-star, above the policy's {policy.max_star}-star")
        allowed = "、".join(policy.seats)
        for which, leg in (("outbound", out), ("return", ret)):
            if policy.seats and leg.seat_class not in policy.seats:
                seat = leg.seat_class or "unknown"
                found.append(f"{which} {leg.number} seat class {seat} is not allowed by the policy ({allowed})")
        return found


def _inputs(request: PlanRequest, search: Search, policy: Policy | None, nights: int) -> dict[str, Any]:
    return {
        "origin": request.origin,
        "destination": request.destination,
        "depart_date": request.depart_date.isoformat(),
        "return_date": request.return_date.isoformat(),
        "nights": nights,
        "preferences_text": request.preferences_text,
        "policy": None
        if policy is None
        else {
            "max_total_price": None if policy.cap_fen is None else _yuan(policy.cap_fen),
            "max_hotel_star": policy.max_star,
            "allowed_seat_classes": list(policy.seats),
            "penalty": float(Fraction(policy.penalty, 100)),
        },
        "candidates": {
            "outbound": len(search.out.items),
            "hotels": len(search.hotels.items),
            "returns": len(search.ret.items),
        },
        "ranges": {
            "total_price": {"min": _yuan(search.p_min), "max": _yuan(search.p_max)},
            "transit_minutes": {"min": _minutes(search.t_min), "max": _minutes(search.t_max)},
        },
    }


def plan_itinerary(request: PlanRequest) -> PlanResult:
    """Score every legal outbound × hotel × return combination and return the four representative plans.

    Raises PlanInputError (a ValueError) with a message fit to show when the request cannot be planned.
    """
    if not isinstance(request, PlanRequest):
        raise PlanInputError("plan_itinerary needs a PlanRequest")
    read_text(request.origin, "origin")
    read_text(request.destination, "destination")
    read_text(request.preferences_text, "preferences_text")
    nights = read_dates(request)
    policy = read_policy(request.policy)
    prefs = read_scores(request.preference_scores)
    clock, seen = Clock(), set()
    out = read_legs(request.outbound, "outbound", clock, prefs, policy, seen)
    hotels, per_night = read_hotels(request.hotels, nights, prefs, policy, seen)
    ret = read_legs(request.returns, "return", clock, prefs, policy, seen)
    unknown = sorted(set(prefs) - seen)
    if unknown:
        listed = ", ".join(repr(u) for u in unknown[:5]) + (" …" if len(unknown) > 5 else "")
        raise PlanInputError(f"preference_scores names unknown candidates: {listed}")

    search = Search(out, hotels, ret, policy)
    combos = {
        "best_overall": search.best_overall(),
        "cheapest": search.cheapest(),
        "fastest": search.fastest(),
        "best_preference": search.best_preference(),
    }
    shaper = _Shaper(search, policy, nights, per_night)
    won: dict[tuple[int, int, int], list[str]] = {}
    for name in PLAN_NAMES:
        won.setdefault(combos[name], []).append(name)
    plans, labels = {}, []
    for combo, names in won.items():
        plan = shaper.plan(combo)
        plan["labels"] = names
        labels.append({"names": names, "outbound": plan["outbound"], "hotel": plan["hotel"], "return": plan["return"]})
        for name in names:
            plans[name] = plan
    counts = {"combinations": len(out.items) * len(hotels.items) * len(ret.items), "legal": search.legal}
    return PlanResult(
        plans={name: plans[name] for name in PLAN_NAMES},
        labels=labels,
        counts=counts,
        inputs=_inputs(request, search, policy, nights),
    )
