"""Options that honour what was asked, read from the real sandbox supplier (its CLI, a subprocess): time of day,
cheapest, star level, the nearest ones when nothing matches, and a hotel stay's nights."""

import datetime as dt
from decimal import Decimal

import pytest

from bookings.models import BookingRecord
from bookings.options import (
    BookingWants,
    band_distance,
    in_band,
    option_ref,
    parse_option_ref,
    rank_options,
    vendor_names,
)
from bookings.sandbox import inventory
from bookings.services.errors import BookingError
from bookings.services.search import booking_options
from bookings.tools import find_booking_options
from core.tools import ToolContext
from core.vendors import airline_by_code

pytestmark = pytest.mark.django_db

DAY = dt.date(2026, 12, 19)


def flights(user, **wants):
    return booking_options(
        user=user, biz_type="FLIGHT", origin="上海", destination="成都", date=DAY, wants=BookingWants(**wants)
    )


def test_a_morning_flight_is_offered_first_although_evening_ones_are_cheaper(alice, supplier_sandbox):
    found = flights(alice, time_band="MORNING")

    assert found["matched"] is True and found["unmet"] == []
    departures = [o["depart"][11:] for o in found["options"]]
    assert departures and all("05:00" <= t <= "10:59" for t in departures)
    assert "07:10" in departures
    everything = flights(alice)["options"]
    assert Decimal(everything[0]["total"]) < min(Decimal(o["total"]) for o in found["options"])
    assert BookingRecord.objects.count() == 0  # a search books nothing


def test_without_a_time_the_cheapest_comes_first_and_each_option_has_its_facts(alice, supplier_sandbox):
    found = flights(alice, sort="CHEAPEST")

    prices = [Decimal(o["unit_price"]) for o in found["options"]]
    assert prices == sorted(prices) and len(prices) == 3
    first = found["options"][0]
    assert first["arrive"] > first["depart"] and first["duration_minutes"] > 0
    assert first["overnight_days"] == 0 and first["seat_class"] == "经济舱"
    assert parse_option_ref(first["ref"]).number == first["number"]


def test_a_vendor_short_name_finds_its_airline(alice, supplier_sandbox):
    found = flights(alice, vendor="东航")

    assert found["matched"] and {o["name"] for o in found["options"]} == {"东方航空"}


def test_star_or_above_offers_only_those_stars(alice, supplier_sandbox):
    found = booking_options(
        user=alice,
        biz_type="HOTEL",
        city="大理",
        date=dt.date(2026, 12, 10),
        check_out=dt.date(2026, 12, 12),
        wants=BookingWants(star=3, star_or_above=True),
    )

    assert found["matched"] and all(o["star"] >= 3 for o in found["options"])


def test_when_no_hotel_has_the_star_the_nearest_are_offered_and_the_star_is_unmet(alice, supplier_sandbox):
    found = booking_options(
        user=alice,
        biz_type="HOTEL",
        city="大理",
        date=dt.date(2026, 12, 10),
        check_out=dt.date(2026, 12, 12),
        wants=BookingWants(star=4),
    )

    assert found["matched"] is False and found["unmet"] == ["star"]
    assert found["options"] and {o["star"] for o in found["options"]} <= {3, 5}


def test_when_nothing_matches_the_least_important_want_is_given_up_first(alice, supplier_sandbox):
    # A morning flight of 南方航空 does not exist: the morning flights are offered, the airline is unmet.
    found = flights(alice, time_band="MORNING", vendor="南航")

    assert found["matched"] is False and found["unmet"] == ["vendor"]
    departures = [o["depart"][11:] for o in found["options"]]
    # Every morning flight comes first; what follows them misses more (here: the 南航 flights, not in the morning).
    assert departures[:2] == ["07:10", "10:35"], departures


def test_a_price_cap_nobody_meets_offers_the_cheapest_nearest(alice, supplier_sandbox):
    found = flights(alice, max_price=1)

    assert found["matched"] is False and found["unmet"] == ["max_price"]
    cheapest = min(Decimal(o["unit_price"]) for o in flights(alice)["options"])
    assert Decimal(found["options"][0]["unit_price"]) == cheapest


def test_a_hotel_from_the_10th_to_the_12th_is_two_nights_at_twice_the_price(alice, supplier_sandbox):
    found = booking_options(
        user=alice, biz_type="HOTEL", city="大理", date=dt.date(2026, 12, 10), check_out=dt.date(2026, 12, 12)
    )

    assert found["query"]["nights"] == 2
    for option in found["options"]:
        assert option["nights"] == 2
        assert (option["check_in"], option["check_out"]) == ("2026-12-10", "2026-12-12")
        assert Decimal(option["total"]) == 2 * Decimal(option["unit_price"])


def test_a_train_gets_the_seat_class_asked_for(alice, supplier_sandbox):
    found = booking_options(
        user=alice,
        biz_type="TRAIN",
        origin="北京",
        destination="天津",
        date=dt.date(2026, 12, 22),
        wants=BookingWants(seat_class="FIRST", time_band="MORNING"),
    )

    assert found["matched"] and {o["seat_class"] for o in found["options"]} == {"一等座"}


def test_a_supplier_failure_is_platform_unavailable_and_nothing_is_offered(alice, supplier_sandbox):
    supplier_sandbox.fault("flight.search=fail")

    with pytest.raises(BookingError) as failed:
        flights(alice)

    assert failed.value.code == "PLATFORM_UNAVAILABLE"


def test_the_tool_names_what_is_missing_without_asking_the_supplier(alice, supplier_sandbox):
    supplier_sandbox.fault("*=fail")  # a supplier call would fail: the answer below proves none was made

    answer = find_booking_options.run(
        ToolContext(user=alice), find_booking_options.validate({"biz_type": "HOTEL", "city": "大理"})
    )

    assert answer["ok"] is False and answer["code"] == "INVALID_PARAM"
    assert answer["data"]["kind"] == "booking_options" and answer["data"]["missing"] == ["check_in", "check_out"]


def test_the_tool_answers_the_options_envelope(alice, supplier_sandbox):
    arguments = {
        "biz_type": "FLIGHT",
        "origin": "上海",
        "destination": "成都",
        "date": "2026-12-19",
        "time_band": "EVENING",
    }

    answer = find_booking_options.run(ToolContext(user=alice), find_booking_options.validate(arguments))

    assert answer["ok"] and answer["data"]["kind"] == "booking_options"
    assert answer["data"]["query"]["time_band"] == "EVENING"
    assert all(o["depart"][11:] >= "18:00" for o in answer["data"]["options"])


# --- the rules themselves ---------------------------------------------------------------------------------------


def test_the_red_eye_band_wraps_past_midnight():
    assert in_band(23 * 60, "RED_EYE") and in_band(2 * 60, "RED_EYE") and not in_band(12 * 60, "RED_EYE")
    assert band_distance(20 * 60, "RED_EYE") == 60 and band_distance(6 * 60 + 30, "RED_EYE") == 31


def test_an_option_ref_reads_back_what_it_names():
    ref = option_ref(
        biz_type="HOTEL", number="hdl001", date=dt.date(2026, 12, 10), check_out=dt.date(2026, 12, 12), city="大理"
    )

    assert ref == "HOTEL|HDL001|2026-12-10|2026-12-12|大理|"
    assert parse_option_ref(ref).nights == 2
    with pytest.raises(ValueError):
        parse_option_ref("FLIGHT|MU5101|2026-13-40|上海|成都|")


def test_bad_wants_are_dropped_and_vendor_aliases_expand():
    wants = BookingWants(time_band="DAWN", star=9, max_price="-5", number=" mu 5101 ")

    assert (wants.time_band, wants.star, wants.max_price, wants.number) == (None, None, None, "MU5101")
    assert "中国国际航空" in vendor_names("国航") and "东方航空" in vendor_names("China Eastern")


def _flight(name: str, number: str, total: str = "800") -> dict:
    return {"biz_type": "FLIGHT", "name": name, "number": number, "total": total, "unit_price": total}


@pytest.mark.parametrize(("vendor", "number"), [("海南航空", "HU7777"), ("上海航空", "FM9001"), ("山东航空", "SC4444")])
def test_an_airline_named_in_full_is_that_airline_not_the_one_whose_short_name_its_name_holds(vendor, number):
    # 海南航空 holds 南航, 上海航空 海航, 山东航空 东航
    offered = [
        _flight("南方航空", "CZ5927", "500"),
        _flight("海南航空", "HU7777"),
        _flight("上海航空", "FM9001"),
        _flight("东方航空", "MU5101", "500"),
        _flight("山东航空", "SC4444"),
    ]

    ranked = rank_options("FLIGHT", offered, BookingWants(vendor=vendor))

    assert ranked.matched and [option["number"] for option in ranked.options] == [number]


@pytest.mark.parametrize(
    ("vendor", "number"), [("东方大酒店", "H001"), ("海航大酒店", "H002"), ("Hainan Resort", "H003")]
)
def test_a_hotel_named_with_an_airlines_word_is_that_hotel(vendor, number):
    offered = [
        {"biz_type": "HOTEL", "name": name, "number": hotel, "total": "600", "unit_price": "300"}
        for hotel, name in (
            ("H001", "东方大酒店"),
            ("H002", "海航大酒店"),
            ("H003", "Hainan Resort"),
            ("H004", "东方航空酒店"),
        )
    ]

    ranked = rank_options("HOTEL", offered, BookingWants(vendor=vendor))

    assert ranked.matched and [option["number"] for option in ranked.options] == [number]


@pytest.mark.parametrize(("code", "name"), inventory.AIRLINES)
def test_every_word_the_lexicon_has_for_an_airline_the_supplier_sells_finds_it(code, name):
    airline = airline_by_code(code)
    offered = [_flight(other, f"{other_code}1234") for other_code, other in inventory.AIRLINES]

    assert airline.name == name
    for word in (*airline.words, code, code.lower()):
        ranked = rank_options("FLIGHT", offered, BookingWants(vendor=word.title() if word.isascii() else word))
        assert [option["name"] for option in ranked.options] == [name], word


def test_the_options_reply_says_what_could_not_be_met_and_offers_the_refs_in_order(alice, supplier_sandbox):
    from assistant.llm.schema import Intent
    from assistant.presenters import present
    from assistant.turn import TurnContext

    arguments = {"biz_type": "HOTEL", "city": "大理", "date": "2026-12-10", "check_out": "2026-12-12", "star": 4}
    envelope = find_booking_options.run(ToolContext(user=alice), find_booking_options.validate(arguments))
    context = TurnContext(intent=Intent(intent="BOOK"), user=alice, today=dt.date(2026, 12, 1), language="zh-hans")

    reply = present([envelope], context)

    count = len(envelope["data"]["options"])
    assert reply.text == f"大理 12月10日至12月12日（2晚）的酒店没有完全符合「4星」的，这是最接近的 {count} 个，选一个。"
    assert reply.awaiting == "nearest"  # a bare yes accepts the first of them
    assert [c["type"] for c in reply.cards] == ["option"] * len(envelope["data"]["options"])
    assert reply.offered == [o["ref"] for o in envelope["data"]["options"]]
    assert [s["message"] for s in reply.suggestions][:2] == ["选第1个", "选第2个"]
    assert reply.cards[0]["nights"] == 2 and reply.cards[0]["check_out"] == "2026-12-12"
