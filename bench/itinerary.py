"""plan_itinerary on 2M combinations: the engine against a plain Python triple loop, on the same data, in one run.

    .venv/bin/python bench/itinerary.py [--outbound 100] [--hotels 200] [--returns 100] [--runs 5] [--seed 20261205]

Candidates are random but shaped like a supplier's answers (fixed seed): flights and trains with their usual
prices, durations and seat classes, hotels whose price follows their star, a few same-day returns so that some
combinations are illegal, and a preference score for every candidate. Two cases: no policy, and a policy with a
price cap of ¥2000 (below the unconstrained best plan's total: the rule that couples all three choices decides),
a star limit and seat classes.

For each case: the engine's best and median time over --runs runs, the loop's time (once: it is slow), the ratio,
and whether both chose the same four plans. The loop is the plain reading of the rules: two passes over every
combination (ranges, then scores), with float arithmetic. No database: the engine is pure.
"""

import argparse
import os
import random
import statistics
import sys
import time
from datetime import date, datetime, timedelta
from pathlib import Path

import django

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# The engine module is plain Python and NumPy, but its package (`itinerary.round_trip`) exports the whole round trip:
# Django's apps are loaded for the import only (no database is touched).
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from itinerary.round_trip import (  # noqa: E402
    PLAN_NAMES,
    HotelOption,
    Leg,
    PlanRequest,
    TravelPolicy,
    plan_itinerary,
)

DEPART_DATE, NIGHTS = date(2026, 12, 5), 3
AIRLINES = ("MU", "CA", "CZ", "HU", "FM", "ZH")


def random_legs(rng: random.Random, prefix: str, count: int, day: date, *, same_day_share: float) -> list[Leg]:
    legs = []
    for n in range(count):
        flight = rng.random() < 0.55
        leg_day = DEPART_DATE if rng.random() < same_day_share else day
        depart = datetime.combine(leg_day, datetime.min.time()) + timedelta(minutes=rng.randrange(6 * 60, 22 * 60, 5))
        if flight:
            minutes = rng.randrange(90, 300, 5)
            price = float(rng.randrange(380, 2600, 10))
            seat = "经济舱" if rng.random() < 0.85 else rng.choice(["公务舱", "头等舱"])
            number = f"{rng.choice(AIRLINES)}{rng.randrange(1000, 9999)}"
        else:
            minutes = rng.randrange(150, 720, 1)
            price = rng.randrange(2000, 9000, 5) / 10  # 553.5 and the like
            seat = "二等座" if rng.random() < 0.75 else rng.choice(["一等座", "商务座"])
            number = f"G{rng.randrange(1, 9999)}"
        legs.append(
            Leg(
                id=f"{prefix}:{'FLIGHT' if flight else 'TRAIN'}:{number}:{n}",
                mode="FLIGHT" if flight else "TRAIN",
                number=number,
                depart=depart,
                arrive=depart + timedelta(minutes=minutes),
                price=price,
                seat_class=seat,
            )
        )
    return legs


def random_request(rng: random.Random, n_out: int, n_hotels: int, n_ret: int, *, policy: bool) -> PlanRequest:
    outbound = random_legs(rng, "out", n_out, DEPART_DATE, same_day_share=0.0)
    returns = random_legs(rng, "ret", n_ret, DEPART_DATE + timedelta(days=NIGHTS), same_day_share=0.08)
    hotels = []
    for n in range(n_hotels):
        star = rng.choice([2, 3, 3, 4, 4, 5])
        per_night = float(rng.randrange(80, 200) * star + rng.randrange(0, 300))
        hotels.append(HotelOption(id=f"hotel:H{n:04d}", name=f"酒店{n}", star=star, price_per_night=per_night))
    scores = {c.id: float(rng.randrange(0, 101)) for c in (*outbound, *hotels, *returns)}
    return PlanRequest(
        origin="上海",
        destination="三亚",
        depart_date=DEPART_DATE,
        return_date=DEPART_DATE + timedelta(days=NIGHTS),
        outbound=outbound,
        hotels=hotels,
        returns=returns,
        preference_scores=scores,
        policy=TravelPolicy(max_total_price=2000, max_hotel_star=4, allowed_seat_classes=("经济舱", "二等座"))
        if policy
        else None,
        preferences_text="便宜一点，坐高铁",
    )


def loop_plans(request: PlanRequest) -> dict[str, tuple[str, str, str]]:
    """The rules read plainly: every combination, twice, in float arithmetic, candidates in id order."""
    nights = (request.return_date - request.depart_date).days
    policy = request.policy
    score = request.preference_scores

    def leg_row(leg):
        bad = bool(policy and policy.allowed_seat_classes and leg.seat_class not in policy.allowed_seat_classes)
        minutes = (leg.arrive - leg.depart).total_seconds() / 60
        return leg.id, leg.price, minutes, score.get(leg.id, 50.0), bad, leg.depart, leg.arrive

    outbound = sorted(leg_row(o) for o in request.outbound)
    returns = sorted(leg_row(r) for r in request.returns)
    star_cap = policy.max_hotel_star if policy else None
    hotels = sorted(
        (h.id, h.price_per_night * nights, score.get(h.id, 50.0), star_cap is not None and h.star > star_cap)
        for h in request.hotels
    )
    cap = policy.max_total_price if policy else None
    penalty = policy.penalty if policy else 0.0

    p_lo = t_lo = float("inf")
    p_hi = t_hi = float("-inf")
    for _, o_price, o_min, _, _, _, o_arrive in outbound:
        for _, h_cost, _, _ in hotels:
            for _, r_price, r_min, _, _, r_depart, _ in returns:
                if r_depart > o_arrive:
                    total, transit = o_price + h_cost + r_price, o_min + r_min
                    p_lo, p_hi = min(p_lo, total), max(p_hi, total)
                    t_lo, t_hi = min(t_lo, transit), max(t_hi, transit)

    best = {name: None for name in PLAN_NAMES}
    keys = dict.fromkeys(PLAN_NAMES)
    for o_id, o_price, o_min, o_pref, o_bad, _, o_arrive in outbound:
        for h_id, h_cost, h_pref, h_bad in hotels:
            for r_id, r_price, r_min, r_pref, r_bad, r_depart, _ in returns:
                if not r_depart > o_arrive:
                    continue
                total, transit = o_price + h_cost + r_price, o_min + r_min
                price = 100 * (p_hi - total) / (p_hi - p_lo) if p_hi > p_lo else 50.0
                time_ = 100 * (t_hi - transit) / (t_hi - t_lo) if t_hi > t_lo else 50.0
                pref = (o_pref + h_pref + r_pref) / 3
                violations = o_bad + h_bad + r_bad + (cap is not None and total > cap)
                overall = 0.3 * time_ + 0.2 * price + 0.5 * pref - penalty * violations
                # In id order, the first of equals is the one to keep: replace only on strictly better.
                candidates = {
                    "best_overall": (overall,),
                    "cheapest": (-total, overall),
                    "fastest": (-transit, overall),
                    "best_preference": (pref, overall),
                }
                for name, key in candidates.items():
                    if keys[name] is None or key > keys[name]:
                        keys[name], best[name] = key, (o_id, h_id, r_id)
    return best


def engine_plans(request: PlanRequest) -> dict[str, tuple[str, str, str]]:
    result = plan_itinerary(request)
    return {name: (p["outbound"], p["hotel"], p["return"]) for name, p in result.plans.items()}


def run_case(label: str, request: PlanRequest, runs: int) -> bool:
    seconds = []
    for _ in range(runs):
        started = time.perf_counter()
        result = plan_itinerary(request)
        seconds.append(time.perf_counter() - started)
    started = time.perf_counter()
    expected = loop_plans(request)
    loop_seconds = time.perf_counter() - started
    same = engine_plans(request) == expected
    best, median = min(seconds), statistics.median(seconds)
    print(f"\n{label}: {result.counts['combinations']:,} combinations, {result.counts['legal']:,} legal")
    print(f"  engine       best {best * 1000:8.2f} ms   median {median * 1000:8.2f} ms   ({runs} runs)")
    print(f"  python loop       {loop_seconds * 1000:8.0f} ms   (once)")
    print(f"  ratio        {loop_seconds / best:,.0f}× (best)   {loop_seconds / median:,.0f}× (median)")
    print(f"  same four plans: {'yes' if same else 'NO'}")
    for name, plan in result.plans.items():
        violations = f"  violations: {len(plan['violations'])}" if plan["violations"] else ""
        print(
            f"    {name:<16} ¥{plan['total_price']:<9} {plan['transit_minutes']:>5} min  "
            f"overall {plan['scores']['overall']:6.2f}{violations}"
        )
    if not same:
        print(f"  engine: {engine_plans(request)}\n  loop:   {expected}")
    return same


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--outbound", type=int, default=100)
    parser.add_argument("--hotels", type=int, default=200)
    parser.add_argument("--returns", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=20261205)
    args = parser.parse_args()

    ok = True
    for label, policy in (("no policy", False), ("price cap + star + seat policy", True)):
        rng = random.Random(args.seed)
        request = random_request(rng, args.outbound, args.hotels, args.returns, policy=policy)
        ok &= run_case(label, request, args.runs)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
