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

No Django import here: the engine is plain Python and NumPy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

MAX_CANDIDATES = 5000  # per list (outbound, hotels, returns)
MAX_PRICE = 10_000_000  # yuan, per leg or per night
MAX_NIGHTS = 365
MAX_LEG_DURATION = timedelta(days=7)
MAX_PENALTY = 1000.0
DEFAULT_PREFERENCE = 50.0
MODES = ("FLIGHT", "TRAIN")
PLAN_NAMES = ("best_overall", "cheapest", "fastest", "best_preference")

# Integer keys at or above this magnitude switch the search from int64 to exact Python integers.
_INT64_SAFE = 2**62
# How many (outbound, return) pairs one NumPy chunk holds.
_CHUNK_PAIRS = 1 << 16

_EPOCH_NAIVE = datetime(1970, 1, 1)
_EPOCH_AWARE = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


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


# --------------------------------------------------------------------------------------------------------------
# Reading and checking the request


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


def _text(value: Any, what: str, *, allow_blank: bool = True) -> str:
    if not isinstance(value, str):
        raise PlanInputError(f"{what} must be text, got {value!r}")
    if not allow_blank and not value.strip():
        raise PlanInputError(f"{what} must not be blank")
    return value


class _Clock:
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
class _Legs:
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
class _Hotels:
    items: list[HotelOption]
    cost: np.ndarray  # fen, for the whole stay
    pref: np.ndarray
    bad: np.ndarray  # 0/1: star above the policy
    rank: np.ndarray


@dataclass(frozen=True)
class _Policy:
    cap_fen: int | None
    max_star: int | None
    seats: tuple[str, ...]
    penalty: int  # hundredths of a point


def _read_policy(policy: TravelPolicy | None) -> _Policy | None:
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
    return _Policy(cap_fen=cap, max_star=max_star, seats=tuple(seats), penalty=penalty)


def _ranks(ids: list[str]) -> np.ndarray:
    order = sorted(range(len(ids)), key=ids.__getitem__)
    rank = np.empty(len(ids), dtype=np.int64)
    rank[order] = np.arange(len(ids), dtype=np.int64)
    return rank


def _read_legs(
    legs: Any, what: str, clock: _Clock, prefs: dict[str, int], policy: _Policy | None, seen: set[str]
) -> _Legs:
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
        _text(leg.id, f"{where}.id", allow_blank=False)
        if leg.id in seen:
            raise PlanInputError(f"duplicate candidate id {leg.id!r}")
        seen.add(leg.id)
        where = f"{what} {leg.id!r}"
        if leg.mode not in MODES:
            raise PlanInputError(f"{where}: mode must be FLIGHT or TRAIN, got {leg.mode!r}")
        _text(leg.number, f"{where}: number")
        _text(leg.seat_class, f"{where}: seat_class")
        price[index] = _money(leg.price, f"{where}: price")
        depart[index] = clock.micros(leg.depart, f"{where}: depart")
        arrive[index] = clock.micros(leg.arrive, f"{where}: arrive")
        if not 0 < arrive[index] - depart[index] <= MAX_LEG_DURATION // _MICROSECOND:
            raise PlanInputError(f"{where}: must arrive after it departs, within {MAX_LEG_DURATION.days} days")
        pref[index] = prefs.get(leg.id, 5000)
        bad[index] = int(policy is not None and bool(policy.seats) and leg.seat_class not in policy.seats)
    return _Legs(
        items=list(legs),
        price=price,
        depart=depart,
        arrive=arrive,
        duration=arrive - depart,
        pref=pref,
        bad=bad,
        rank=_ranks([leg.id for leg in legs]),
    )


def _read_hotels(
    hotels: Any, nights: int, prefs: dict[str, int], policy: _Policy | None, seen: set[str]
) -> tuple[_Hotels, list[int]]:
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
        _text(hotel.id, f"hotels[{index}].id", allow_blank=False)
        if hotel.id in seen:
            raise PlanInputError(f"duplicate candidate id {hotel.id!r}")
        seen.add(hotel.id)
        where = f"hotel {hotel.id!r}"
        _text(hotel.name, f"{where}: name")
        if not isinstance(hotel.star, int) or isinstance(hotel.star, bool) or not 0 <= hotel.star <= 7:
            raise PlanInputError(f"{where}: star must be a whole number from 0 to 7, got {hotel.star!r}")
        fen = _money(hotel.price_per_night, f"{where}: price_per_night")
        per_night.append(fen)
        cost[index] = fen * nights
        pref[index] = prefs.get(hotel.id, 5000)
        bad[index] = int(policy is not None and policy.max_star is not None and hotel.star > policy.max_star)
    return _Hotels(items=list(hotels), cost=cost, pref=pref, bad=bad, rank=_ranks([h.id for h in hotels])), per_night


def _read_scores(scores: Any) -> dict[str, int]:
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


def _read_dates(request: PlanRequest) -> int:
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


# --------------------------------------------------------------------------------------------------------------
# The search


def _suffix(values: np.ndarray, ufunc: np.ufunc) -> np.ndarray:
    """suffix[p] = ufunc over values[p:]."""
    return ufunc.accumulate(values[::-1])[::-1]


class _HotelChoice:
    """For a set of hotels: the best one for an (outbound, return) pair, given what the pair costs.

    Best = highest hotel key (the hotel's share of the overall score) minus the penalty when the total goes over
    the price cap; among equals, the smallest id.
    """

    def __init__(self, idx: np.ndarray, key: np.ndarray, hotels: _Hotels, cap: int | None, violation: int) -> None:
        self.key, self.rank, self.cap, self.violation = key, hotels.rank, cap, violation
        best_order = np.array(sorted(idx.tolist(), key=lambda j: (-key[j], hotels.rank[j])), dtype=np.int64)
        self.best = int(best_order[0])
        self.best_key = key[self.best]
        if cap is None:
            return
        position = np.empty(len(hotels.items), dtype=np.int64)
        position[best_order] = np.arange(len(best_order), dtype=np.int64)
        by_cost = idx[np.argsort(hotels.cost[idx], kind="stable")]
        self.costs = hotels.cost[by_cost]
        in_cost_order = position[by_cost]
        self.affordable_best = best_order[np.minimum.accumulate(in_cost_order)]  # among the cheapest 1..m
        self.over_cap_best = best_order[_suffix(in_cost_order, np.minimum)]  # among m'..m

    def choose(self, pair_cost: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(hotel index, hotel key after any cap penalty) for each pair."""
        if self.cap is None:
            return np.full(len(pair_cost), self.best, dtype=np.int64), np.full(
                len(pair_cost), self.best_key, dtype=self.key.dtype
            )
        m = len(self.costs)
        affordable = np.searchsorted(self.costs, self.cap - pair_cost, side="right")
        has_a, has_b = affordable > 0, affordable < m
        a = self.affordable_best[np.maximum(affordable - 1, 0)]
        b = self.over_cap_best[np.minimum(affordable, m - 1)]
        key_a, key_b = self.key[a], self.key[b] - self.violation
        take_a = has_a & (~has_b | (key_a > key_b) | ((key_a == key_b) & (self.rank[a] < self.rank[b])))
        return np.where(take_a, a, b), np.where(take_a, key_a, key_b)


@dataclass
class _Best:
    key: Any
    order: tuple[int, int, int]  # id ranks (outbound, hotel, return)
    combo: tuple[int, int, int]  # indices (outbound, hotel, return)

    def beats(self, other: _Best | None) -> bool:
        return other is None or self.key > other.key or (self.key == other.key and self.order < other.order)


class _Search:
    def __init__(self, out: _Legs, hotels: _Hotels, ret: _Legs, policy: _Policy | None) -> None:
        self.out, self.hotels, self.ret, self.policy = out, hotels, ret, policy
        self.n_r = len(ret.items)
        # Returns in departure order; those legal with outbound i are the positions first[i]:.
        self.by_depart = np.argsort(ret.depart, kind="stable")
        self.first = np.searchsorted(ret.depart[self.by_depart], out.arrive, side="right")
        self.active = np.nonzero(self.first < self.n_r)[0]
        self.legal = int((self.n_r - self.first).sum()) * len(hotels.items)
        if not self.legal:
            raise PlanInputError(
                "no legal combination: every return leaves before the outbound it would follow arrives"
            )
        self.r_price = ret.price[self.by_depart]
        self.r_duration = ret.duration[self.by_depart]
        self.r_pref = ret.pref[self.by_depart]
        self.r_price_suffix_min = _suffix(self.r_price, np.minimum)
        first = self.first[self.active]
        durations = out.duration[self.active] + _suffix(self.r_duration, np.minimum)[first]
        self.t_min = int(durations.min())
        self.t_max = int((out.duration[self.active] + _suffix(self.r_duration, np.maximum)[first]).max())
        pair_cost_min = out.price[self.active] + self.r_price_suffix_min[first]
        self.pair_cost_min = int(pair_cost_min.min())
        self.p_min = self.pair_cost_min + int(hotels.cost.min())
        self.p_max = int((out.price[self.active] + _suffix(self.r_price, np.maximum)[first]).max()) + int(
            hotels.cost.max()
        )
        self.pair_pref_max = int((out.pref[self.active] + _suffix(self.r_pref, np.maximum)[first]).max())
        self._build_keys()

    def _build_keys(self) -> None:
        """Integer keys: D · overall = ko[o] + kh[h] + kr[r] − wv·[total over the cap] + a constant."""
        out, hotels, ret = self.out, self.hotels, self.ret
        t_step = math.gcd(*out.duration.tolist(), *ret.duration.tolist()) or 1
        p_step = math.gcd(*out.price.tolist(), *hotels.cost.tolist(), *ret.price.tolist()) or 1
        t_range, p_range = (self.t_max - self.t_min) // t_step, (self.p_max - self.p_min) // p_step
        scale = math.lcm(t_range or 1, p_range or 1, 600)
        w_time = 30 * scale // t_range if t_range else 0  # 0.3 · 100 · (T_max − T) / ΔT
        w_price = 20 * scale // p_range if p_range else 0  # 0.2 · 100 · (P_max − P) / ΔP
        w_pref = scale // 600  # 0.5 · (sum of scores in hundredths) / 300
        penalty = self.policy.penalty if self.policy else 0
        self.violation = penalty * scale // 100

        def shifted(values: np.ndarray, step: int) -> np.ndarray:
            return (values - values.min()) // step

        parts = {
            "out": (shifted(out.duration, t_step), shifted(out.price, p_step), out.pref, out.bad),
            "hotel": (
                np.zeros(len(hotels.items), dtype=np.int64),
                shifted(hotels.cost, p_step),
                hotels.pref,
                hotels.bad,
            ),
            "ret": (shifted(ret.duration, t_step), shifted(ret.price, p_step), ret.pref, ret.bad),
        }
        bound = 4 * self.violation
        for duration, price, pref, _bad in parts.values():
            # max(…, 1): the weights themselves must fit too, even when every value they multiply is 0.
            bound += sum(w * max(int(a.max()), 1) for w, a in ((w_time, duration), (w_price, price), (w_pref, pref)))
        self.exact_objects = bound >= _INT64_SAFE
        keys = {}
        for name, arrays in parts.items():
            if self.exact_objects:  # Python integers: exact whatever their size, slower
                arrays = tuple(a.astype(object) for a in arrays)
            duration, price, pref, bad = arrays
            keys[name] = pref * w_pref - duration * w_time - price * w_price - bad * self.violation
        self.k_out, self.k_hotel, self.k_ret = keys["out"], keys["hotel"], keys["ret"]
        self.k_ret_by_depart = self.k_ret[self.by_depart]
        self.k_ret_suffix_max = _suffix(self.k_ret_by_depart, np.maximum)

    def best(self, *, outbounds: np.ndarray, hotels: np.ndarray, pair_filter=None) -> tuple[int, int, int]:
        """The best (outbound, hotel, return) by overall then ids, among the given outbounds and hotels, over
        the legal pairs that `pair_filter(outbounds) -> bool[len, n_r]` (return positions by departure) keeps."""
        cap = self.policy.cap_fen if self.policy else None
        choice = _HotelChoice(hotels, self.k_hotel, self.hotels, cap, self.violation)
        # Upper bound per outbound: its key, the best return key among its legal returns, and the best hotel for
        # its cheapest legal return (a dearer pair can only afford fewer hotels under the cap).
        outbounds = outbounds[np.argsort(self.out.rank[outbounds], kind="stable")]
        first = self.first[outbounds]
        _, hotel_bound = choice.choose(self.out.price[outbounds] + self.r_price_suffix_min[first])
        bound = self.k_out[outbounds] + self.k_ret_suffix_max[first] + hotel_bound
        order = np.argsort(-bound, kind="stable")  # best bound first, then smaller id first
        outbounds, bound = outbounds[order], bound[order]
        rows = max(1, _CHUNK_PAIRS // self.n_r)
        positions = np.arange(self.n_r)
        best: _Best | None = None
        for start in range(0, len(outbounds), rows):
            if best is not None and (
                bound[start] < best.key
                or (bound[start] == best.key and self.out.rank[outbounds[start]] > best.order[0])
            ):
                break  # nothing further can beat the best found, nor tie it with a smaller outbound id
            chunk = outbounds[start : start + rows]
            keep = positions[None, :] >= self.first[chunk][:, None]
            if pair_filter is not None:
                keep &= pair_filter(chunk)
            row, pos = np.nonzero(keep)
            if not len(row):
                continue
            o, r = chunk[row], self.by_depart[pos]
            h, k_hotel = choice.choose(self.out.price[o] + self.ret.price[r])
            total = self.k_out[o] + k_hotel + self.k_ret[r]
            top = np.nonzero(total == total.max())[0]
            o, h, r = o[top], h[top], r[top]
            w = np.lexsort((self.ret.rank[r], self.hotels.rank[h], self.out.rank[o]))[0]  # smallest ids
            found = _Best(
                key=total[top[w]],
                order=(int(self.out.rank[o[w]]), int(self.hotels.rank[h[w]]), int(self.ret.rank[r[w]])),
                combo=(int(o[w]), int(h[w]), int(r[w])),
            )
            if found.beats(best):
                best = found
        assert best is not None  # every caller passes a set holding at least one legal pair
        return best.combo

    def best_overall(self) -> tuple[int, int, int]:
        return self.best(outbounds=self.active, hotels=np.arange(len(self.hotels.items)))

    def cheapest(self) -> tuple[int, int, int]:
        cost = self.out.price[self.active] + self.r_price_suffix_min[self.first[self.active]]
        outbounds = self.active[cost == self.pair_cost_min]
        hotels = np.nonzero(self.hotels.cost == self.hotels.cost.min())[0]
        target = self.pair_cost_min - self.out.price
        return self.best(
            outbounds=outbounds, hotels=hotels, pair_filter=lambda o: self.r_price[None, :] == target[o][:, None]
        )

    def fastest(self) -> tuple[int, int, int]:
        duration = self.out.duration[self.active] + _suffix(self.r_duration, np.minimum)[self.first[self.active]]
        outbounds = self.active[duration == self.t_min]
        target = self.t_min - self.out.duration
        return self.best(
            outbounds=outbounds,
            hotels=np.arange(len(self.hotels.items)),
            pair_filter=lambda o: self.r_duration[None, :] == target[o][:, None],
        )

    def best_preference(self) -> tuple[int, int, int]:
        pref = self.out.pref[self.active] + _suffix(self.r_pref, np.maximum)[self.first[self.active]]
        outbounds = self.active[pref == self.pair_pref_max]
        hotels = np.nonzero(self.hotels.pref == self.hotels.pref.max())[0]
        target = self.pair_pref_max - self.out.pref
        return self.best(
            outbounds=outbounds, hotels=hotels, pair_filter=lambda o: self.r_pref[None, :] == target[o][:, None]
        )


# --------------------------------------------------------------------------------------------------------------
# Shaping the answer


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
    def __init__(self, search: _Search, policy: _Policy | None, nights: int, per_night: list[int]) -> None:
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


def _inputs(request: PlanRequest, search: _Search, policy: _Policy | None, nights: int) -> dict[str, Any]:
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
    _text(request.origin, "origin")
    _text(request.destination, "destination")
    _text(request.preferences_text, "preferences_text")
    nights = _read_dates(request)
    policy = _read_policy(request.policy)
    prefs = _read_scores(request.preference_scores)
    clock, seen = _Clock(), set()
    out = _read_legs(request.outbound, "outbound", clock, prefs, policy, seen)
    hotels, per_night = _read_hotels(request.hotels, nights, prefs, policy, seen)
    ret = _read_legs(request.returns, "return", clock, prefs, policy, seen)
    unknown = sorted(set(prefs) - seen)
    if unknown:
        listed = ", ".join(repr(u) for u in unknown[:5]) + (" …" if len(unknown) > 5 else "")
        raise PlanInputError(f"preference_scores names unknown candidates: {listed}")

    search = _Search(out, hotels, ret, policy)
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
