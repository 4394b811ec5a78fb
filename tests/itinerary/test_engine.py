"""plan_itinerary: the objective maths, checked by hand on a small case and against a plain exhaustive enumeration."""

import random
from datetime import date, datetime, timedelta
from fractions import Fraction

import pytest

from itinerary.round_trip import plan_types, search
from itinerary.round_trip.engine import plan_itinerary
from itinerary.round_trip.plan_types import (
    HotelOption,
    Leg,
    PlanInputError,
    PlanRequest,
    TravelPolicy,
)

DAY = datetime(2026, 12, 5)


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return DAY + timedelta(days=day, hours=hour, minutes=minute)


def leg(id, depart, minutes, price, mode="FLIGHT", seat_class="经济舱"):
    return Leg(
        id=id,
        mode=mode,
        number=id.split(":")[-1],
        depart=depart,
        arrive=depart + timedelta(minutes=minutes),
        price=price,
        seat_class=seat_class,
    )


def hotel(id, star, per_night):
    return HotelOption(id=id, name=id.split(":")[-1], star=star, price_per_night=per_night)


# The hand-computed case: 2 nights (12-05 → 12-07).
O1 = leg("out:MU5101", at(0, 8), 120, 800, seat_class="经济舱")  # arrives 10:00
O2 = leg("out:G7301", at(0, 9), 300, 300, mode="TRAIN", seat_class="二等座")  # arrives 14:00
H1 = hotel("hotel:A", 4, 400)  # 800 for 2 nights
H2 = hotel("hotel:B", 2, 200)  # 400 for 2 nights
R1 = leg("ret:MU5102", at(0, 12), 120, 700, seat_class="商务舱")  # leaves 12:00: before O2 arrives
R2 = leg("ret:G7302", at(2, 15), 240, 250, mode="TRAIN", seat_class="二等座")
SCORES = {"out:MU5101": 60, "out:G7301": 90, "hotel:A": 80, "hotel:B": 40, "ret:G7302": 70}  # R1 missing: 50


def small_request(**changes):
    fields = dict(
        origin="上海",
        destination="杭州",
        depart_date=date(2026, 12, 5),
        return_date=date(2026, 12, 7),
        outbound=[O1, O2],
        hotels=[H1, H2],
        returns=[R1, R2],
        preference_scores=dict(SCORES),
    )
    return PlanRequest(**{**fields, **changes})


def ids(plan):
    return plan["outbound"], plan["hotel"], plan["return"]


# Legal combinations (O2 + R1 is illegal: R1 leaves at 12:00, O2 arrives at 14:00), 6 of 8:
#   combo       total price                 transit        preference mean
#   O1 H1 R1    800 + 800 + 700 = 2300      120+120 = 240  (60+80+50)/3 = 63.333
#   O1 H2 R1    800 + 400 + 700 = 1900      240            (60+40+50)/3 = 50
#   O1 H1 R2    800 + 800 + 250 = 1850      120+240 = 360  (60+80+70)/3 = 70
#   O1 H2 R2    800 + 400 + 250 = 1450      360            (60+40+70)/3 = 56.667
#   O2 H1 R2    300 + 800 + 250 = 1350      300+240 = 540  (90+80+70)/3 = 80
#   O2 H2 R2    300 + 400 + 250 =  950      540            (90+40+70)/3 = 66.667
# price = 100·(2300 − P)/1350, time = 100·(540 − T)/300, overall = 0.3·time + 0.2·price + 0.5·preference:
#   O1 H1 R1    price 0        time 100   overall 30 + 0      + 31.667 = 61.67
#   O1 H2 R1    price 29.63    time 100   overall 30 + 5.926  + 25     = 60.93
#   O1 H1 R2    price 33.33    time 60    overall 18 + 6.667  + 35     = 59.67
#   O1 H2 R2    price 62.96    time 60    overall 18 + 12.593 + 28.333 = 58.93
#   O2 H1 R2    price 70.37    time 0     overall 0  + 14.074 + 40     = 54.07
#   O2 H2 R2    price 100      time 0     overall 0  + 20     + 33.333 = 53.33
EXPECTED_SCORES = {
    ("out:MU5101", "hotel:A", "ret:MU5102"): {"time": 100.0, "price": 0.0, "preference": 63.33, "overall": 61.67},
    ("out:MU5101", "hotel:B", "ret:MU5102"): {"time": 100.0, "price": 29.63, "preference": 50.0, "overall": 60.93},
    ("out:MU5101", "hotel:A", "ret:G7302"): {"time": 60.0, "price": 33.33, "preference": 70.0, "overall": 59.67},
    ("out:MU5101", "hotel:B", "ret:G7302"): {"time": 60.0, "price": 62.96, "preference": 56.67, "overall": 58.93},
    ("out:G7301", "hotel:A", "ret:G7302"): {"time": 0.0, "price": 70.37, "preference": 80.0, "overall": 54.07},
    ("out:G7301", "hotel:B", "ret:G7302"): {"time": 0.0, "price": 100.0, "preference": 66.67, "overall": 53.33},
}


def test_given_the_small_case_then_the_four_plans_and_their_scores_are_the_hand_computed_ones():
    result = plan_itinerary(small_request())

    plans = result.plans
    assert ids(plans["best_overall"]) == ("out:MU5101", "hotel:A", "ret:MU5102")
    assert ids(plans["cheapest"]) == ("out:G7301", "hotel:B", "ret:G7302")
    # Fastest: 240 minutes with either hotel; the tie goes to the better overall (61.67 over 60.93).
    assert ids(plans["fastest"]) == ("out:MU5101", "hotel:A", "ret:MU5102")
    assert ids(plans["best_preference"]) == ("out:G7301", "hotel:A", "ret:G7302")
    for plan in plans.values():
        assert plan["scores"] == EXPECTED_SCORES[ids(plan)]
        assert plan["violations"] == []
    assert plans["cheapest"]["total_price"] == 950
    assert plans["cheapest"]["transit_minutes"] == 540
    assert plans["best_overall"]["total_price"] == 2300
    assert plans["best_overall"]["transit_minutes"] == 240


def test_given_a_return_leaving_before_the_outbound_arrives_then_that_combination_is_dropped():
    result = plan_itinerary(small_request())

    assert result.counts == {"combinations": 8, "legal": 6}
    assert all((plan["outbound"], plan["return"]) != ("out:G7301", "ret:MU5102") for plan in result.plans.values())
    assert result.inputs["ranges"] == {
        "total_price": {"min": 950, "max": 2300},
        "transit_minutes": {"min": 240, "max": 540},
    }


def test_given_one_plan_wins_several_names_then_the_labels_say_so_once_per_distinct_plan():
    result = plan_itinerary(small_request())

    assert result.labels == [
        {
            "names": ["best_overall", "fastest"],
            "outbound": "out:MU5101",
            "hotel": "hotel:A",
            "return": "ret:MU5102",
        },
        {"names": ["cheapest"], "outbound": "out:G7301", "hotel": "hotel:B", "return": "ret:G7302"},
        {"names": ["best_preference"], "outbound": "out:G7301", "hotel": "hotel:A", "return": "ret:G7302"},
    ]
    assert result.plans["best_overall"]["labels"] == ["best_overall", "fastest"]


def test_given_a_plan_then_it_carries_the_candidates_facts_for_display():
    plan = plan_itinerary(small_request()).plans["cheapest"]

    details = plan["details"]
    assert details["outbound"]["number"] == "G7301"
    assert details["outbound"]["mode"] == "TRAIN"
    assert details["outbound"]["depart"] == "2026-12-05T09:00:00"
    assert details["outbound"]["duration_minutes"] == 300
    assert details["hotel"] == {
        "id": "hotel:B",
        "name": "B",
        "star": 2,
        "price_per_night": 200,
        "nights": 2,
        "cost": 400,
        "meta": {},
    }
    assert details["return"]["seat_class"] == "二等座"


def test_given_a_policy_then_violations_are_kept_penalised_and_explained():
    policy = TravelPolicy(max_total_price=1500, max_hotel_star=3, allowed_seat_classes=("经济舱", "二等座"))

    result = plan_itinerary(small_request(policy=policy))

    # Penalty 20 per violation; normalisation ranges are unchanged by the policy:
    #   O1 H1 R1  over the cap, 4-star, R1 商务舱   61.67 − 60 =  1.67
    #   O1 H2 R1  over the cap, R1 商务舱           60.93 − 40 = 20.93
    #   O1 H1 R2  over the cap, 4-star              59.67 − 40 = 19.67
    #   O1 H2 R2  none (1450 ≤ 1500)                58.93
    #   O2 H1 R2  4-star                            54.07 − 20 = 34.07
    #   O2 H2 R2  none                              53.33
    plans = result.plans
    assert result.counts == {"combinations": 8, "legal": 6}
    assert ids(plans["best_overall"]) == ("out:MU5101", "hotel:B", "ret:G7302")
    assert plans["best_overall"]["scores"]["overall"] == 58.93
    assert plans["best_overall"]["violations"] == []
    assert ids(plans["fastest"]) == ("out:MU5101", "hotel:B", "ret:MU5102")
    assert plans["fastest"]["scores"] == {"time": 100.0, "price": 29.63, "preference": 50.0, "overall": 20.93}
    assert plans["fastest"]["violations"] == [
        "total price ¥1900 is over the policy cap of ¥1500",
        "return MU5102 seat class 商务舱 is not allowed by the policy (经济舱、二等座)",
    ]
    assert ids(plans["best_preference"]) == ("out:G7301", "hotel:A", "ret:G7302")
    assert plans["best_preference"]["scores"]["overall"] == 34.07
    assert plans["best_preference"]["violations"] == ["hotel A is 4-star, above the policy's 3-star"]
    assert ids(plans["cheapest"]) == ("out:G7301", "hotel:B", "ret:G7302")
    assert result.inputs["policy"] == {
        "max_total_price": 1500,
        "max_hotel_star": 3,
        "allowed_seat_classes": ["经济舱", "二等座"],
        "penalty": 20.0,
    }


def test_given_every_candidate_equal_then_every_score_is_50_and_the_smallest_ids_win():
    outbound = [leg(f"out:F{n}", at(0, 8), 120, 500) for n in (2, 1)]
    returns = [leg(f"ret:F{n}", at(2, 18), 120, 500) for n in (2, 1)]
    hotels = [hotel(f"hotel:{n}", 3, 300) for n in ("B", "A")]

    result = plan_itinerary(small_request(outbound=outbound, hotels=hotels, returns=returns, preference_scores={}))

    for plan in result.plans.values():
        assert plan["scores"] == {"time": 50.0, "price": 50.0, "preference": 50.0, "overall": 50.0}
        assert ids(plan) == ("out:F1", "hotel:A", "ret:F1")
    assert result.labels == [
        {
            "names": ["best_overall", "cheapest", "fastest", "best_preference"],
            "outbound": "out:F1",
            "hotel": "hotel:A",
            "return": "ret:F1",
        }
    ]


def test_given_the_inputs_then_the_result_summarises_them():
    result = plan_itinerary(small_request(preferences_text="坐高铁"))

    assert result.inputs["origin"] == "上海"
    assert result.inputs["nights"] == 2
    assert result.inputs["depart_date"] == "2026-12-05"
    assert result.inputs["preferences_text"] == "坐高铁"
    assert result.inputs["candidates"] == {"outbound": 2, "hotels": 2, "returns": 2}
    assert result.inputs["policy"] is None
    assert set(result.to_dict()) == {"plans", "labels", "counts", "inputs"}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"outbound": []}, "no outbound candidates"),
        ({"hotels": []}, "no hotel candidates"),
        ({"returns": []}, "no return candidates"),
        ({"preference_scores": {"out:NOPE": 50}}, "unknown candidates: 'out:NOPE'"),
        ({"preference_scores": {"out:MU5101": 101}}, "must be between 0 and 100"),
        ({"preference_scores": {"out:MU5101": -1}}, "must be between 0 and 100"),
        ({"preference_scores": {"out:MU5101": float("nan")}}, "must be a finite number"),
        ({"preference_scores": {"out:MU5101": "high"}}, "must be a number"),
        ({"hotels": [H1, hotel("out:MU5101", 3, 100)]}, "duplicate candidate id 'out:MU5101'"),
        ({"outbound": [O2], "returns": [R1], "preference_scores": {}}, "no legal combination"),
        ({"return_date": date(2026, 12, 4)}, "dates reversed"),
        ({"return_date": date(2026, 12, 5)}, "same day"),
        ({"outbound": [leg("out:X", at(0, 8), 0, 100)]}, "must arrive after it departs"),
        ({"outbound": [leg("out:X", at(0, 8), 60, -5)]}, "price must be between 0"),
        ({"outbound": [leg("out:X", at(0, 8), 60, 100, mode="BUS")]}, "mode must be FLIGHT or TRAIN"),
        ({"hotels": [hotel("hotel:X", 9, 100)]}, "star must be a whole number from 0 to 7"),
        ({"policy": TravelPolicy(penalty=-1)}, "policy.penalty must be between 0"),
        ({"outbound": [O1] * (plan_types.MAX_CANDIDATES + 1)}, "too many outbound candidates"),
        (
            {"outbound": [Leg("out:Z", "FLIGHT", "Z", at(0, 8).astimezone(), at(0, 9).astimezone(), 100)]},
            "mixing times with and without a time zone",
        ),
    ],
)
def test_given_bad_input_then_a_clear_plan_input_error(changes, message):
    with pytest.raises(PlanInputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        plan_itinerary(small_request(**changes))


def test_a_plan_input_error_is_a_value_error():
    assert issubclass(PlanInputError, ValueError)


def test_given_aware_times_then_they_plan_like_naive_ones():
    def aware(leg_):
        return Leg(**{**leg_.__dict__, "depart": leg_.depart.astimezone(), "arrive": leg_.arrive.astimezone()})

    result = plan_itinerary(small_request(outbound=[aware(O1), aware(O2)], returns=[aware(R1), aware(R2)]))

    assert {name: ids(plan) for name, plan in result.plans.items()} == {
        name: ids(plan) for name, plan in plan_itinerary(small_request()).plans.items()
    }


def one_night_request(outbound, hotels, returns, scores, policy):
    return PlanRequest("上海", "杭州", date(2026, 12, 5), date(2026, 12, 6), outbound, hotels, returns, scores, policy)


def test_given_two_plans_tie_then_the_smaller_outbound_then_hotel_then_return_id_wins():
    # One night, all transit 60+60 (time 50 for all), cap 450 with penalty 20, outbound score 50:
    #   hotel:1 + ret:2  total 400  price 50  overall 15 + 10 + (50+0+70)/6  = 45
    #   hotel:2 + ret:1  total 400  price 50  overall 15 + 10 + (50+70+0)/6  = 45   (a tie)
    #   hotel:1 + ret:1  total 300  price 100 overall 15 + 20 + 50/6         = 43.33
    #   hotel:2 + ret:2  total 500  over cap  overall 15 + 0 + 190/6 − 20    = 26.67
    outbound = [leg("out:1", at(0, 8), 60, 100)]
    hotels = [hotel("hotel:2", 3, 200), hotel("hotel:1", 3, 100)]
    returns = [leg("ret:2", at(1, 18), 60, 200), leg("ret:1", at(1, 18), 60, 100)]
    scores = {"out:1": 50, "hotel:1": 0, "hotel:2": 70, "ret:1": 0, "ret:2": 70}

    result = plan_itinerary(one_night_request(outbound, hotels, returns, scores, TravelPolicy(max_total_price=450)))

    assert ids(result.plans["best_overall"]) == ("out:1", "hotel:1", "ret:2")
    assert result.plans["best_overall"]["scores"]["overall"] == 45.0


@pytest.mark.parametrize(("over_cap", "under_cap"), [("hotel:A", "hotel:B"), ("hotel:B", "hotel:A")])
def test_given_a_hotel_over_the_cap_ties_one_under_it_then_the_smaller_id_wins(over_cap, under_cap):
    # One night, time 50 for all; totals 300 (under), 310 (over the 305 cap), 400 (over): price 100, 90, 0.
    #   under  15 + 20 + (50+50+50)/6     = 60
    #   over   15 + 18 + (50+74+50)/6 − 2 = 60   (a tie across the cap)
    hotels = [hotel(under_cap, 3, 100), hotel(over_cap, 3, 110), hotel("hotel:C", 3, 200)]
    scores = {under_cap: 50, over_cap: 74, "hotel:C": 0}
    policy = TravelPolicy(max_total_price=305, penalty=2)

    result = plan_itinerary(
        one_night_request([leg("out:1", at(0, 8), 60, 100)], hotels, [leg("ret:1", at(1, 18), 60, 100)], scores, policy)
    )

    assert result.plans["best_overall"]["hotel"] == "hotel:A"
    assert result.plans["best_overall"]["scores"]["overall"] == 60.0


# ---------------------------------------------------------------------------------------------------------------
# The reference: a plain exhaustive enumeration in exact arithmetic (Fraction), written from the rules alone.


def reference_plans(request: PlanRequest) -> dict:
    nights = (request.return_date - request.depart_date).days
    policy = request.policy

    def pref(candidate):
        return Fraction(request.preference_scores.get(candidate.id, 50))

    def minutes(one):
        return Fraction(int((one.arrive - one.depart).total_seconds()), 60)

    rows = []
    for o in request.outbound:
        for h in request.hotels:
            for r in request.returns:
                if not r.depart > o.arrive:
                    continue
                total = Fraction(o.price) + Fraction(h.price_per_night) * nights + Fraction(r.price)
                violations = 0
                if policy is not None:
                    violations += policy.max_total_price is not None and total > Fraction(policy.max_total_price)
                    violations += policy.max_hotel_star is not None and h.star > policy.max_hotel_star
                    for one in (o, r):
                        violations += bool(policy.allowed_seat_classes) and (
                            one.seat_class not in policy.allowed_seat_classes
                        )
                rows.append(
                    {
                        "ids": (o.id, h.id, r.id),
                        "total": total,
                        "transit": minutes(o) + minutes(r),
                        "preference": (pref(o) + pref(h) + pref(r)) / 3,
                        "violations": violations,
                    }
                )
    if not rows:
        return {}
    p_lo, p_hi = min(x["total"] for x in rows), max(x["total"] for x in rows)
    t_lo, t_hi = min(x["transit"] for x in rows), max(x["transit"] for x in rows)
    penalty = Fraction(policy.penalty) if policy else 0
    for x in rows:
        x["price"] = 100 * (p_hi - x["total"]) / (p_hi - p_lo) if p_hi > p_lo else Fraction(50)
        x["time"] = 100 * (t_hi - x["transit"]) / (t_hi - t_lo) if t_hi > t_lo else Fraction(50)
        x["overall"] = (
            Fraction(3, 10) * x["time"]
            + Fraction(1, 5) * x["price"]
            + Fraction(1, 2) * x["preference"]
            - penalty * x["violations"]
        )
    chosen = {
        "best_overall": min(rows, key=lambda x: (-x["overall"], x["ids"])),
        "cheapest": min(rows, key=lambda x: (x["total"], -x["overall"], x["ids"])),
        "fastest": min(rows, key=lambda x: (x["transit"], -x["overall"], x["ids"])),
        "best_preference": min(rows, key=lambda x: (-x["preference"], -x["overall"], x["ids"])),
    }
    return {
        name: {
            "ids": x["ids"],
            "total_price": float(x["total"]),
            "scores": {key: float(round(x[key], 2)) for key in ("time", "price", "preference", "overall")},
            "legal": len(rows),
        }
        for name, x in chosen.items()
    }


def random_request(rng: random.Random) -> PlanRequest:
    """A small instance with ties (few distinct prices, times, scores; sometimes only one) and illegal combinations."""
    nights = rng.choice([1, 2, 3])
    variety = rng.choice([1, 2, 3, 5])  # how many distinct values each attribute draws from

    def pick(values):
        return rng.choice(values[:variety])

    def legs(prefix, count, day_range):
        return [
            Leg(
                id=f"{prefix}:{n}",
                mode=rng.choice(["FLIGHT", "TRAIN"]),
                number=f"N{n}",
                depart=(depart := at(rng.choice(day_range), pick([9, 12, 6, 15]), pick([0, 30]))),
                arrive=depart + timedelta(minutes=pick([120, 90, 60, 150, 300])),
                price=pick([500.5, 300, 450, 800, 1200]),
                seat_class=pick(["经济舱", "商务舱", "二等座", ""]),
            )
            for n in rng.sample(range(20), count)
        ]

    outbound = legs("out", rng.randint(1, 5), [0, 0, 1])
    returns = legs("ret", rng.randint(1, 5), [0, 1, nights])
    hotels = [
        HotelOption(
            id=f"hotel:{n}", name=f"H{n}", star=pick([3, 4, 2, 5]), price_per_night=pick([200, 150, 350.5, 500])
        )
        for n in rng.sample(range(20), rng.randint(1, 5))
    ]
    candidates = [c.id for c in (*outbound, *hotels, *returns)]
    scores = {cid: pick([72.5, 50, 0, 25, 100, 33]) for cid in candidates if rng.random() < 0.7}
    policy = None
    if rng.random() < 0.6:
        policy = TravelPolicy(
            max_total_price=rng.choice([None, 1500, 2000, 2400.5, 3000]),
            max_hotel_star=rng.choice([None, 3, 4]),
            allowed_seat_classes=rng.choice([(), ("经济舱", "二等座")]),
            penalty=rng.choice([20.0, 15.5, 0.0, 100.0]),
        )
    if rng.random() < 0.4:  # a price cap is the policy that couples all three choices: test it on its own too
        policy = TravelPolicy(max_total_price=rng.choice([1200, 1800, 2000, 2500]), penalty=rng.choice([20.0, 7.5]))
    return PlanRequest(
        origin="上海",
        destination="杭州",
        depart_date=date(2026, 12, 5),
        return_date=date(2026, 12, 5) + timedelta(days=nights),
        outbound=outbound,
        hotels=hotels,
        returns=returns,
        preference_scores=scores,
        policy=policy,
    )


def capped_tie_request(rng: random.Random) -> PlanRequest:
    """Tiny one-night instances under a price cap, with prices, scores and penalties on a grid that makes a hotel
    over the cap tie exactly with one under it: the tie-breaks across the cap."""

    def legs(prefix, count, day):
        found = []
        for n in rng.sample(range(9), count):
            depart = at(day, 9)
            minutes, price = rng.choice([60, 120]), rng.choice([100, 110, 120, 200])
            found.append(Leg(f"{prefix}:{n}", "TRAIN", f"G{n}", depart, depart + timedelta(minutes=minutes), price))
        return found

    outbound, returns = legs("out", rng.randint(1, 3), 0), legs("ret", rng.randint(1, 4), 1)
    hotels = [
        HotelOption(id=f"hotel:{n}", name=f"H{n}", star=3, price_per_night=rng.choice([100, 110, 120, 200]))
        for n in rng.sample(range(9), rng.randint(2, 4))
    ]
    scores = {c.id: rng.choice([50, 56, 62, 68, 74, 44, 38]) for c in (*outbound, *hotels, *returns)}
    return PlanRequest(
        origin="上海",
        destination="杭州",
        depart_date=date(2026, 12, 5),
        return_date=date(2026, 12, 6),
        outbound=outbound,
        hotels=hotels,
        returns=returns,
        preference_scores=scores,
        policy=TravelPolicy(max_total_price=rng.choice([300, 310, 320, 330, 400]), penalty=rng.choice([0, 1, 2, 4])),
    )


def engine_plans(request: PlanRequest) -> dict:
    result = plan_itinerary(request)
    return {
        name: {
            "ids": ids(plan),
            "total_price": float(plan["total_price"]),
            "scores": plan["scores"],
            "legal": result.counts["legal"],
        }
        for name, plan in result.plans.items()
    }


@pytest.mark.parametrize(
    ("generator", "search_path", "seed", "instances"),
    [
        (random_request, "int64 keys", 20261205, 200),
        (random_request, "exact Python integers", 7, 60),
        (random_request, "one outbound per chunk", 11, 60),
        (capped_tie_request, "int64 keys", 3, 300),
        (capped_tie_request, "one outbound per chunk", 5, 100),
    ],
)
def test_on_random_instances_the_engine_equals_the_exhaustive_enumeration(
    monkeypatch, generator, search_path, seed, instances
):
    if search_path == "exact Python integers":
        monkeypatch.setattr(search, "_INT64_SAFE", 0)
    if search_path == "one outbound per chunk":
        monkeypatch.setattr(search, "_CHUNK_PAIRS", 1)
    rng = random.Random(seed)
    planned = capped = 0

    for _ in range(instances):
        request = generator(rng)
        expected = reference_plans(request)
        if not expected:
            with pytest.raises(PlanInputError, match="no legal combination"):
                plan_itinerary(request)
            continue
        assert engine_plans(request) == expected, request
        planned += 1
        capped += request.policy is not None and request.policy.max_total_price is not None

    assert planned >= instances * 0.7
    assert capped >= instances * 0.3
