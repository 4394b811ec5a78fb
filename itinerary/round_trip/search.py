"""The engine's search over (outbound, return) pairs in NumPy chunks, the best hotel for each pair one lookup away
(see `engine` for why this equals the exhaustive enumeration). Plain Python and NumPy."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from itinerary.round_trip.plan_types import PlanInputError
from itinerary.round_trip.reading import Hotels, Legs, Policy

# Integer keys at or above this magnitude switch the search from int64 to exact Python integers.
_INT64_SAFE = 2**62
# How many (outbound, return) pairs one NumPy chunk holds.
_CHUNK_PAIRS = 1 << 16


def _suffix(values: np.ndarray, ufunc: np.ufunc) -> np.ndarray:
    """suffix[p] = ufunc over values[p:]."""
    return ufunc.accumulate(values[::-1])[::-1]


class _HotelChoice:
    """For a set of hotels: the best one for an (outbound, return) pair, given what the pair costs.

    Best = highest hotel key (the hotel's share of the overall score) minus the penalty when the total goes over
    the price cap; among equals, the smallest id.
    """

    def __init__(self, idx: np.ndarray, key: np.ndarray, hotels: Hotels, cap: int | None, violation: int) -> None:
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


class Search:
    def __init__(self, out: Legs, hotels: Hotels, ret: Legs, policy: Policy | None) -> None:
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
