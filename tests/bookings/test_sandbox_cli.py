"""The sandbox supplier as a program: its grammar, inventory, orders, keys, answer shapes and faults.

Every test runs the real command line in a subprocess, on a store file of its own.
"""

import datetime as dt
import hashlib
import json
import os
import re
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
KEY = "sbx_test-key-alice-0123456789"
OTHER_KEY = "sbx_test-key-bob-9876543210"
CONTACT = {"name": "张三", "mobile": "13800000000"}


@pytest.fixture(autouse=True)
def store(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "supplier.sqlite3"
    monkeypatch.setenv("SANDBOX_SUPPLIER_STORE", str(path))
    monkeypatch.delenv("SANDBOX_SUPPLIER_FAULTS", raising=False)
    monkeypatch.delenv("SANDBOX_SUPPLIER_PAY_MINUTES", raising=False)
    return path


def sandbox(*argv: str, key: str | None = KEY, faults: str | None = None, timeout: float = 30):
    env = {k: v for k, v in os.environ.items() if k != "SUPPLIER_API_KEY"}
    if key is not None:
        env["SUPPLIER_API_KEY"] = key
    if faults is not None:
        env["SANDBOX_SUPPLIER_FAULTS"] = faults
    return subprocess.run(
        [sys.executable, "-m", "bookings.sandbox", *argv], cwd=ROOT, env=env, capture_output=True, timeout=timeout
    )


def call(product: str, action: str, arguments: dict, **options) -> tuple[int, dict]:
    done = sandbox("call", product, action, "-a", json.dumps(arguments, ensure_ascii=False), **options)
    return done.returncode, json.loads(done.stdout)


def event(*argv: str) -> tuple[int, dict]:
    """A supplier-side event: its exit code, and the order it answers (`{"order": …}`) or its error."""
    done = sandbox("event", *argv, key=None)
    payload = json.loads(done.stdout)
    if done.returncode != 0:
        return done.returncode, payload
    assert list(payload) == ["order"], payload
    return done.returncode, payload["order"]


def stats() -> dict:
    done = sandbox("stats", key=None)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def mcp_text(payload: dict) -> dict:
    assert payload["content"][0]["type"] == "text"
    return json.loads(payload["content"][0]["text"])


def search_flights(origin="上海", destination="杭州", date="2026-12-05") -> list[dict]:
    code, payload = call("flight", "search", {"from": origin, "to": destination, "date": date})
    assert code == 0
    return mcp_text(payload)["flights"]


def search_trains(origin="北京", destination="天津", date="2026-12-02") -> list[dict]:
    code, payload = call("train", "search", {"from": origin, "to": destination, "date": date})
    assert code == 0 and payload["success"] is True
    return payload["data"]["trains"]


def search_hotels(city="大理", check_in="2026-12-10", check_out="2026-12-12") -> list[dict]:
    code, payload = call("hotel", "search", {"city": city, "checkInDate": check_in, "checkOutDate": check_out})
    assert code == 0
    return payload["hotels"]


def book_flight(**options) -> str:
    flight = search_flights()[0]
    code, payload = call(
        "flight",
        "saveOrder",
        {"flightNo": flight["flightNo"], "date": "2026-12-05", "contactTourist": CONTACT},
        **options,
    )
    assert code == 0, payload
    return mcp_text(payload)["orderId"]


def book_train(**options) -> str:
    train = search_trains()[0]
    seat = train["seats"][0]
    arguments = {
        "trainNo": train["trainNo"],
        "date": "2026-12-02",
        "resources": [{"seatType": seat["seatType"], "adultPrice": seat["price"], "passengers": [CONTACT]}],
        "contact": CONTACT,
    }
    code, payload = call("train", "saveOrder", arguments, **options)
    assert code == 0, payload
    return payload["data"]["mainOrderNo"]


def book_hotel(**options) -> str:
    hotel = search_hotels()[0]
    arguments = {
        "hotelId": hotel["hotelId"],
        "checkInDate": "2026-12-10",
        "checkOutDate": "2026-12-12",
        "guests": [CONTACT],
    }
    code, payload = call("hotel", "saveOrder", arguments, **options)
    assert code == 0, payload
    return payload["orderNo"]


def order(number: str, **options) -> dict:
    code, payload = call("order", "queryOrder", {"orderId": number}, **options)
    assert code == 0, payload
    return payload["order"]


def pay(number: str, request_id: str, **options) -> tuple[int, dict]:
    return call("order", "pay", {"orderId": number, "requestId": request_id}, **options)


def moment(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


# --- search ------------------------------------------------------------------------------------------------------


def test_a_flight_search_gives_the_same_realistic_flights_every_time():
    first, again = search_flights("上海", "乌鲁木齐"), search_flights("上海", "乌鲁木齐")

    assert first == again
    assert 4 <= len(first) <= 8
    for flight in first:
        assert re.fullmatch(r"(MU|CA|CZ|HU|3U|MF)\d{4}", flight["flightNo"])
        assert 300 <= flight["price"] <= 2500
        assert flight["arriveTime"] > flight["departTime"]
        assert flight["durationMinutes"] > 180  # a long route takes hours
    departures = [f["departTime"] for f in first]
    assert departures == sorted(departures)
    assert len({f["price"] for f in first}) > 1


def test_a_short_route_is_quicker_than_a_long_one():
    short = search_flights("上海", "杭州")
    long = search_flights("上海", "乌鲁木齐")

    assert max(f["durationMinutes"] for f in short) < min(f["durationMinutes"] for f in long)


def test_a_flight_keeps_its_number_on_another_day_but_its_fare_may_change():
    monday, tuesday = search_flights(date="2026-12-07"), search_flights(date="2026-12-08")

    assert [f["flightNo"] for f in monday] == [f["flightNo"] for f in tuesday]
    assert [f["price"] for f in monday] != [f["price"] for f in tuesday]


def test_a_train_search_gives_the_same_g_and_d_trains_with_seat_prices_every_time():
    first, again = search_trains("上海", "杭州"), search_trains("上海", "杭州")

    assert first == again
    assert 2 <= len(first) <= 6
    for train in first:
        assert re.fullmatch(r"[GD]\d{1,4}", train["trainNo"])
        seats = {s["seatType"]: s["price"] for s in train["seats"]}
        assert {"二等座", "一等座"} <= set(seats) <= {"二等座", "一等座", "商务座"}
        assert seats["二等座"] < seats["一等座"]


def test_a_hotel_search_gives_the_same_hotels_of_the_city_with_totals_for_the_nights():
    first, again = search_hotels("博乐", "2026-12-10", "2026-12-13"), search_hotels("博乐", "2026-12-10", "2026-12-13")

    assert first == again
    assert 4 <= len(first) <= 8
    for hotel in first:
        assert hotel["name"].startswith("博乐")
        assert 2 <= hotel["star"] <= 5
        assert 150 <= hotel["pricePerNight"] <= 1500
        assert hotel["nights"] == 3
        assert hotel["totalPrice"] == hotel["pricePerNight"] * 3
    assert len({h["name"] for h in first}) == len(first)


# --- English names beside the Chinese ----------------------------------------------------------------------------

CJK = re.compile(r"[\u3400-\u9fff]")


def test_a_flight_search_names_the_airline_cabin_and_cities_in_english_too():
    flights = search_flights("北京", "上海", "2026-12-11")

    english = {"东方航空": "China Eastern", "中国国际航空": "Air China", "南方航空": "China Southern",
               "海南航空": "Hainan Airlines", "四川航空": "Sichuan Airlines", "厦门航空": "Xiamen Airlines"}  # fmt: skip
    for flight in flights:
        assert (flight["from"], flight["to"], flight["cabin"]) == ("北京", "上海", "经济舱")  # unchanged
        assert flight["airlineEn"] == english[flight["airline"]]
        assert (flight["fromEn"], flight["toEn"], flight["cabinEn"]) == ("Beijing", "Shanghai", "Economy")


def test_a_train_search_names_the_kind_of_train_and_every_seat_in_english_too():
    trains = search_trains("北京", "天津")

    for train in trains:
        kind = train["trainNo"][0]
        assert train["kind"] == kind
        assert (train["trainType"], train["trainTypeEn"]) == {
            "G": ("高铁", "High-speed train"),
            "D": ("动车", "Bullet train"),
        }[kind]
        assert (train["fromEn"], train["toEn"]) == ("Beijing", "Tianjin")
        english = {"二等座": "Second class", "一等座": "First class", "商务座": "Business class"}
        assert all(seat["seatTypeEn"] == english[seat["seatType"]] for seat in train["seats"])


def test_a_hotel_search_names_every_hotel_and_its_address_in_english_too():
    hotels = search_hotels("杭州", "2026-12-11", "2026-12-13")

    names = {h["name"]: h["nameEn"] for h in hotels}
    assert names["杭州山景公寓酒店"] == "Hangzhou Mountain View Serviced Apartments"
    for hotel in hotels:
        assert hotel["name"].startswith("杭州") and hotel["address"].startswith("杭州")  # unchanged
        assert hotel["cityEn"] == "Hangzhou"
        assert hotel["nameEn"].startswith("Hangzhou ") and hotel["addressEn"].endswith(" Road, Hangzhou")
        assert not CJK.search(hotel["nameEn"] + hotel["addressEn"])


def test_a_city_without_an_english_name_gets_no_half_english_names():
    hotels = search_hotels("婺源", "2026-12-11", "2026-12-13")
    flight = search_flights("北京", "婺源", "2026-12-11")[0]

    assert hotels and not any({"nameEn", "addressEn", "cityEn"} & set(h) for h in hotels)
    assert flight["fromEn"] == "Beijing" and "toEn" not in flight and flight["airlineEn"]


def test_an_order_keeps_the_english_names_of_what_it_books():
    flight, hotel, train = search_flights()[0], search_hotels()[0], search_trains()[0]
    seat = train["seats"][0]

    flight_order = mcp_text(
        call("flight", "saveOrder", {"flightNo": flight["flightNo"], "date": "2026-12-05", "contactTourist": CONTACT})[
            1
        ]
    )
    hotel_order = call(
        "hotel",
        "saveOrder",
        {"hotelId": hotel["hotelId"], "checkInDate": "2026-12-10", "checkOutDate": "2026-12-12", "guests": [CONTACT]},
    )[1]
    resources = [{"seatType": seat["seatType"], "adultPrice": seat["price"], "passengers": [CONTACT]}]
    train_order = call(
        "train", "saveOrder", {"trainNo": train["trainNo"], "date": "2026-12-02", "resources": resources}
    )[1]["data"]

    assert (flight_order["airline"], flight_order["airlineEn"]) == (flight["airline"], flight["airlineEn"])
    assert (flight_order["fromEn"], flight_order["toEn"], flight_order["cabinEn"]) == (
        "Shanghai",
        "Hangzhou",
        "Economy",
    )
    assert (hotel_order["name"], hotel_order["nameEn"]) == (hotel["name"], hotel["nameEn"])
    assert hotel_order["cityEn"] == "Dali"
    assert train_order["trainTypeEn"] == train["trainTypeEn"] and train_order["fromEn"] == "Beijing"
    assert train_order["resources"][0]["seatTypeEn"] == seat["seatTypeEn"]
    assert order(hotel_order["orderNo"])["nameEn"] == hotel["nameEn"]  # and a later query answers them again


@pytest.mark.parametrize(
    ("product", "arguments", "fragment"),
    [
        ("flight", {"from": "上海", "to": "杭州", "date": "2026/12/05"}, "date"),
        ("flight", {"from": "上海", "to": "杭州", "date": "2026-02-30"}, "not a real date"),
        ("flight", {"from": "上海", "to": "上海", "date": "2026-12-05"}, "different"),
        ("flight", {"to": "杭州", "date": "2026-12-05"}, "from is required"),
        ("train", {"from": "北京", "to": " ", "date": "2026-12-05"}, "to is required"),
        ("hotel", {"city": "大理", "checkInDate": "2026-12-12", "checkOutDate": "2026-12-10"}, "after"),
        ("hotel", {"checkInDate": "2026-12-10", "checkOutDate": "2026-12-12"}, "city is required"),
    ],
)
def test_a_search_with_bad_parameters_is_refused_as_invalid(product, arguments, fragment):
    code, payload = call(product, "search", arguments)

    assert code == 1
    assert payload["success"] is False and payload["errorCode"] == "INVALID_PARAM"
    assert fragment in payload["errorMessage"]


def test_arguments_that_are_not_one_json_object_are_refused():
    done = sandbox("call", "flight", "search", "-a", '["上海", "杭州"]')

    assert done.returncode == 1
    assert json.loads(done.stdout)["errorCode"] == "INVALID_PARAM"


def test_a_command_outside_the_grammar_is_a_usage_error():
    done = sandbox("call", "flight", "book", "-a", "{}")

    assert done.returncode == 2
    assert b"invalid choice" in done.stderr
    assert done.stdout == b""


# --- saveOrder ---------------------------------------------------------------------------------------------------


def test_a_flight_booking_answers_as_mcp_content_with_the_number_under_order_id():
    flight = search_flights()[2]

    code, payload = call(
        "flight", "saveOrder", {"flightNo": flight["flightNo"], "date": "2026-12-05", "contactTourist": CONTACT}
    )

    assert code == 0
    order = mcp_text(payload)
    assert re.fullmatch(r"FL\d{12}", order["orderId"])
    assert order["status"] == "PENDING_PAYMENT"
    assert order["totalPrice"] == flight["price"]
    assert stats()["orders"]["byStatus"] == {"PENDING_PAYMENT": 1}


def test_a_flight_not_searched_in_this_store_can_be_booked_with_its_route(store, monkeypatch):
    monkeypatch.setenv("SANDBOX_SUPPLIER_STORE", str(store.with_name("elsewhere.sqlite3")))
    flight = search_flights("广州", "三亚", "2026-12-20")[0]
    monkeypatch.setenv("SANDBOX_SUPPLIER_STORE", str(store))
    arguments = {"flightNo": flight["flightNo"], "date": "2026-12-20", "contactTourist": CONTACT}

    unknown = call("flight", "saveOrder", arguments)
    code, payload = call("flight", "saveOrder", {**arguments, "from": "广州", "to": "三亚"})

    assert unknown[1]["errorCode"] == "INVALID_PARAM"

    assert code == 0
    assert mcp_text(payload)["totalPrice"] == flight["price"]


def test_a_hotel_booking_answers_plain_with_the_number_under_order_no():
    hotel = search_hotels()[0]

    code, payload = call(
        "hotel",
        "saveOrder",
        {"hotelId": hotel["hotelId"], "checkInDate": "2026-12-10", "checkOutDate": "2026-12-12", "guests": [CONTACT]},
    )

    assert code == 0
    assert re.fullmatch(r"HT\d{12}", payload["orderNo"])
    assert payload["status"] == "PENDING_PAYMENT"
    assert payload["totalPrice"] == hotel["pricePerNight"] * 2


def test_a_train_booking_answers_inside_data_with_the_number_under_main_order_no():
    train = search_trains()[0]
    seat = train["seats"][1]
    two = [CONTACT, {"name": "李四"}]

    code, payload = call(
        "train",
        "saveOrder",
        {
            "trainNo": train["trainNo"],
            "date": "2026-12-02",
            "resources": [{"seatType": seat["seatType"], "adultPrice": seat["price"], "passengers": two}],
            "contact": CONTACT,
        },
    )

    assert code == 0 and payload["success"] is True
    assert re.fullmatch(r"TR\d{12}", payload["data"]["mainOrderNo"])
    assert payload["data"]["totalPrice"] == seat["price"] * 2


def test_a_train_booked_at_a_stale_price_is_refused_and_nothing_is_booked():
    train = search_trains()[0]
    seat = train["seats"][0]

    code, payload = call(
        "train",
        "saveOrder",
        {
            "trainNo": train["trainNo"],
            "date": "2026-12-02",
            "resources": [{"seatType": seat["seatType"], "adultPrice": seat["price"] - 5, "passengers": [CONTACT]}],
        },
    )

    assert (code, payload["errorCode"]) == (1, "PRICE_CHANGED")
    assert stats()["orders"]["total"] == 0


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"contactTourist": {"name": "张三", "mobile": "1380000000"}}, "mobile"),
        ({"contactTourist": {"name": "张三", "mobile": "23800000000"}}, "mobile"),
        ({"contactTourist": {"name": " ", "mobile": "13800000000"}}, "name"),
        ({"contactTourist": None}, "contactTourist"),
        ({"flightNo": "MU0000"}, "unknown flight"),
        ({"date": "2026-12-06"}, "unknown flight"),
    ],
)
def test_a_flight_booking_with_bad_parameters_is_refused_and_nothing_is_booked(change, fragment):
    flight = search_flights()[0]
    arguments = {"flightNo": flight["flightNo"], "date": "2026-12-05", "contactTourist": CONTACT} | change

    code, payload = call("flight", "saveOrder", arguments)

    assert (code, payload["errorCode"]) == (1, "INVALID_PARAM")
    assert fragment in payload["errorMessage"]
    assert stats()["orders"]["total"] == 0


def test_a_hotel_booking_without_guests_is_refused():
    hotel = search_hotels()[0]

    code, payload = call(
        "hotel",
        "saveOrder",
        {"hotelId": hotel["hotelId"], "checkInDate": "2026-12-10", "checkOutDate": "2026-12-12", "guests": []},
    )

    assert (code, payload["errorCode"]) == (1, "INVALID_PARAM")
    assert stats()["orders"]["total"] == 0


def test_concurrent_bookings_from_many_processes_all_land_with_distinct_numbers():
    flight = search_flights()[0]
    arguments = {"flightNo": flight["flightNo"], "date": "2026-12-05", "contactTourist": CONTACT}

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda _: call("flight", "saveOrder", arguments), range(16)))

    assert all(code == 0 for code, _ in results)
    assert len({mcp_text(payload)["orderId"] for _, payload in results}) == 16
    assert stats()["orders"]["total"] == 16


# --- keys --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", [None, "", "sk-live-not-a-sandbox-key", "sbx_"])
def test_a_call_without_a_valid_sandbox_key_fails_authentication(key):
    code, payload = call("flight", "search", {"from": "上海", "to": "杭州", "date": "2026-12-05"}, key=key)

    assert (code, payload["errorCode"]) == (1, "AUTH_FAILED")


def test_another_key_can_neither_see_nor_cancel_an_order():
    number = book_flight()

    seen = call("flight", "queryOrder", {"orderId": number}, key=OTHER_KEY)
    cancelled = call("flight", "cancelOrder", {"orderId": number}, key=OTHER_KEY)

    assert seen[1]["errorCode"] == cancelled[1]["errorCode"] == "ORDER_NOT_FOUND"
    assert call("flight", "queryOrder", {"orderId": number})[1]["data"]["status"] == "PENDING_PAYMENT"


def test_the_store_keeps_a_hash_of_the_key_never_the_key(store):
    book_flight()

    with sqlite3.connect(store) as conn:
        dump = "\n".join(conn.iterdump())
    assert KEY not in dump
    assert "test-key-alice" not in dump


def test_stats_need_no_key():
    done = sandbox("stats", key=None)

    assert done.returncode == 0
    assert json.loads(done.stdout)["orders"]["total"] == 0


# --- cancel, query, refund ---------------------------------------------------------------------------------------


def test_cancelling_a_flight_twice_cancels_it_once_and_answers_cancelled_both_times():
    number = book_flight()

    first = call("flight", "cancelOrder", {"orderId": number})
    second = call("flight", "cancelOrder", {"orderId": number.lower()})

    assert first[0] == second[0] == 0
    assert first[1]["data"]["status"] == second[1]["data"]["status"] == "CANCELLED"
    assert (first[1]["data"]["alreadyCancelled"], second[1]["data"]["alreadyCancelled"]) == (False, True)
    assert stats()["orders"]["byStatus"] == {"CANCELLED": 1}


def test_cancelling_a_train_answers_inside_data():
    number = book_train()

    code, payload = call("train", "cancelOrder", {"orderId": number})

    assert code == 0
    assert payload["data"]["mainOrderNo"] == number and payload["data"]["status"] == "CANCELLED"


def test_a_hotel_cannot_be_cancelled_online():
    hotel = search_hotels()[0]
    booked = call(
        "hotel",
        "saveOrder",
        {"hotelId": hotel["hotelId"], "checkInDate": "2026-12-10", "checkOutDate": "2026-12-12", "guests": [CONTACT]},
    )[1]

    code, payload = call("hotel", "cancelOrder", {"orderId": booked["orderNo"]})

    assert (code, payload["errorCode"]) == (1, "HOTEL_NO_ONLINE_CANCEL")
    assert stats()["orders"]["byStatus"] == {"PENDING_PAYMENT": 1}


def test_cancelling_an_unknown_order_says_not_found():
    code, payload = call("flight", "cancelOrder", {"orderId": "FL000000000000"})

    assert (code, payload["errorCode"]) == (1, "ORDER_NOT_FOUND")


def test_an_order_is_found_by_the_order_product_whatever_its_own_product():
    number = book_train()

    code, payload = call("order", "queryOrder", {"orderId": number})

    assert code == 0
    assert payload["order"]["mainOrderNo"] == number and payload["order"]["product"] == "train"


def test_every_refund_with_a_new_request_id_records_a_refund():
    first = call("order", "refund", {"orderId": "ORD-001", "amount": 1280.0, "total": 2560.0, "requestId": "T42"})
    second = call("order", "refund", {"orderId": "ORD-001", "amount": 1280.0, "total": 2560.0, "requestId": "T43"})

    assert first[1]["status"] == second[1]["status"] == "REFUNDED"
    assert first[1]["refundId"] != second[1]["refundId"]
    assert first[1]["amount"] == 1280
    assert stats()["refunds"] == {"total": 2, "byOrderId": {"ORD-001": 2}}


def test_a_refund_of_nothing_is_refused():
    code, payload = call("order", "refund", {"orderId": "ORD-001", "amount": 0, "requestId": "T1"})

    assert (code, payload["errorCode"]) == (1, "INVALID_PARAM")
    assert stats()["refunds"]["total"] == 0


# --- a business order is never refunded above what it was paid --------------------------------------------------


def refund(amount: float, total: float | None = 258.0, request_id: str = "refund:ORD-004", **options):
    arguments = {"orderId": "ORD-004", "amount": amount, "requestId": request_id}
    if total is not None:
        arguments["total"] = total
    return call("order", "refund", arguments, **options)


def refunds_of_ord004() -> dict:
    code, payload = call("order", "queryOrder", {"orderId": "ORD-004"})
    assert code == 0, payload
    return payload


def test_a_business_order_is_refunded_up_to_its_total_and_its_first_refund_records_the_total():
    code, payload = refund(258.0)

    assert code == 0
    assert (payload["amount"], payload["total"], payload["requestId"]) == (258, 258, "refund:ORD-004")
    listed = refunds_of_ord004()
    assert listed["total"] == 258
    assert [(r["refundId"], r["amount"]) for r in listed["refunds"]] == [(payload["refundId"], 258)]


def test_a_second_refund_under_another_key_that_would_pass_the_paid_total_is_refused_and_changes_nothing():
    first = refund(258.0, request_id="T1")
    before = stats()

    code, payload = refund(258.0, request_id="T2")

    assert first[0] == 0
    assert (code, payload["errorCode"]) == (1, "REFUND_EXCEEDS_PAID")
    assert payload["errorMessage"] == (
        "refunding 258.00 on order ORD-004 would bring its refunds to 516.00, above the 258.00 paid "
        "(258.00 refunded already)"
    )
    assert stats() == before
    assert stats()["refunds"] == {"total": 1, "byOrderId": {"ORD-004": 1}}


def test_partial_refunds_add_up_to_the_total_and_not_a_cent_more():
    assert refund(100.0, request_id="T1")[0] == 0
    assert refund(158.0, request_id="T2")[0] == 0

    code, payload = refund(0.01, request_id="T3")

    assert (code, payload["errorCode"]) == (1, "REFUND_EXCEEDS_PAID")
    assert [r["amount"] for r in refunds_of_ord004()["refunds"]] == [100, 158]


def test_a_refund_above_the_total_it_gives_is_refused():
    code, payload = refund(258.01)

    assert (code, payload["errorCode"]) == (1, "REFUND_EXCEEDS_PAID")
    assert refunds_of_ord004() == {"orderId": "ORD-004", "total": None, "refunds": []}


def test_a_total_other_than_the_first_refunds_is_refused():
    refund(100.0, request_id="T1")
    before = stats()

    code, payload = refund(100.0, total=1000.0, request_id="T2")

    assert (code, payload["errorCode"]) == (1, "REFUND_TOTAL_MISMATCH")
    assert payload["errorMessage"] == "order ORD-004 was paid 258.00 (its first refund said so), not 1000.00"
    assert stats() == before


@pytest.mark.parametrize("total", [None, 0, -258, "258", True])
def test_a_business_order_refund_without_a_positive_total_is_refused(total):
    arguments = {"orderId": "ORD-004", "amount": 258.0, "requestId": "refund:ORD-004"}
    if total is not None:
        arguments["total"] = total

    code, payload = call("order", "refund", arguments)

    assert (code, payload["errorCode"]) == (1, "INVALID_PARAM")
    assert "total" in payload["errorMessage"]
    assert stats()["refunds"]["total"] == 0


def test_a_repeat_of_the_orders_key_answers_the_first_refund_however_full_the_order_is():
    first = refund(258.0)

    again = refund(258.0)

    assert again == first
    assert stats()["refunds"] == {"total": 1, "byOrderId": {"ORD-004": 1}}
    assert stats()["idempotency"] == {"keys": 1, "replays": 1}


def test_a_refused_refund_does_not_use_up_its_key():
    refused = refund(300.0)  # more than the 258.00 paid

    done = refund(258.0)  # the same key, right this time

    assert refused[1]["errorCode"] == "REFUND_EXCEEDS_PAID"
    assert done[0] == 0 and done[1]["requestId"] == "refund:ORD-004"
    assert stats()["idempotency"] == {"keys": 1, "replays": 0}


def test_the_cap_is_the_callers_own_another_keys_refunds_of_the_same_number_do_not_count():
    assert refund(258.0)[0] == 0

    code, payload = refund(258.0, key=OTHER_KEY)

    assert code == 0 and payload["total"] == 258
    assert stats()["refunds"] == {"total": 2, "byOrderId": {"ORD-004": 2}}


# The refunds table as version 5 of the store made it, before it recorded a business order's total.
V5_REFUNDS = """CREATE TABLE refunds (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    refund_no TEXT NOT NULL UNIQUE,
    order_id TEXT NOT NULL,
    amount REAL NOT NULL,
    request_id TEXT,
    key_hash TEXT NOT NULL,
    created_at TEXT NOT NULL
)"""


def test_refunds_recorded_before_totals_existed_count_against_the_total_after_the_upgrade(store):
    with sqlite3.connect(store) as conn:
        conn.execute(V5_REFUNDS)
        conn.execute(
            "INSERT INTO refunds (refund_no, order_id, amount, request_id, key_hash, created_at) "
            "VALUES ('RF261130000001', 'ORD-004', 200, 'T-OLD', ?, '2026-11-30T10:00:00+08:00')",
            (hashlib.sha256(KEY.encode()).hexdigest(),),
        )
        conn.execute("PRAGMA user_version = 5")

    too_much = refund(100.0, request_id="T1")
    the_rest = refund(58.0, request_id="T2")

    assert (too_much[0], too_much[1]["errorCode"]) == (1, "REFUND_EXCEEDS_PAID")
    assert "(200.00 refunded already)" in too_much[1]["errorMessage"]
    assert the_rest[0] == 0
    listed = refunds_of_ord004()
    assert (listed["total"], [r["requestId"] for r in listed["refunds"]]) == (258, ["T-OLD", "T2"])
    with sqlite3.connect(store) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 6


# --- idempotency keys --------------------------------------------------------------------------------------------


def test_a_repeated_refund_request_answers_the_first_refund_and_refunds_once():
    arguments = {"orderId": "ORD-001", "amount": 1280.0, "total": 1280.0, "requestId": "T42"}

    first, second = call("order", "refund", arguments), call("order", "refund", arguments)

    assert first == second
    assert first[1]["refundId"].startswith("RF") and first[1]["requestId"] == "T42"
    assert stats()["refunds"] == {"total": 1, "byOrderId": {"ORD-001": 1}}
    assert stats()["idempotency"] == {"keys": 1, "replays": 1}


def test_a_request_id_reused_with_other_arguments_is_refused_and_changes_nothing():
    call("order", "refund", {"orderId": "ORD-001", "amount": 1280.0, "total": 1280.0, "requestId": "T42"})
    before = stats()

    code, payload = call("order", "refund", {"orderId": "ORD-001", "amount": 99.0, "total": 1280.0, "requestId": "T42"})

    assert (code, payload["errorCode"]) == (1, "IDEMPOTENCY_KEY_REUSED")
    assert stats() == before


def test_a_repeated_cancel_request_is_answered_from_the_first_and_records_one_cancel():
    number = book_flight()
    arguments = {"orderId": number, "requestId": "cancel:BK20261201001"}

    first, second = call("flight", "cancelOrder", arguments), call("flight", "cancelOrder", arguments)

    assert first == second and first[1]["data"]["alreadyCancelled"] is False
    assert stats()["cancels"] == {"total": 1, "byOrderNo": {number: 1}}


def test_a_repeated_booking_request_answers_the_first_order_and_books_once():
    first = book_flight_with_key("saveOrder:abc")
    second = book_flight_with_key("saveOrder:abc")
    other = book_flight_with_key("saveOrder:def")

    assert first == second != other
    assert stats()["orders"]["total"] == 2


def book_flight_with_key(request_id: str) -> str:
    flight = search_flights()[0]
    arguments = {"flightNo": flight["flightNo"], "date": "2026-12-05", "contactTourist": CONTACT}
    code, payload = call("flight", "saveOrder", {**arguments, "requestId": request_id})
    assert code == 0, payload
    return mcp_text(payload)["orderId"]


def test_a_request_that_failed_is_not_remembered_and_a_repeat_is_processed_afresh():
    number = book_flight()
    arguments = {"orderId": number, "requestId": "cancel:1"}

    failed = call("flight", "cancelOrder", arguments, faults="flight.cancelOrder=fail")
    refused = call("flight", "cancelOrder", {"orderId": "FL000000000000", "requestId": "cancel:2"})
    done = call("flight", "cancelOrder", arguments)

    assert (failed[1]["errorCode"], refused[1]["errorCode"]) == ("PLATFORM_ERROR", "ORDER_NOT_FOUND")
    assert done[0] == 0 and done[1]["data"]["status"] == "CANCELLED"
    assert stats()["idempotency"] == {"keys": 1, "replays": 0}


def test_many_processes_sending_one_request_id_at_once_make_one_refund_and_all_get_it():
    arguments = {"orderId": "ORD-001", "amount": 202.0, "total": 202.0, "requestId": "T-RACE"}

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda _: call("order", "refund", arguments), range(12)))

    assert {code for code, _ in results} == {0}
    assert len({payload["refundId"] for _, payload in results}) == 1
    assert stats()["refunds"] == {"total": 1, "byOrderId": {"ORD-001": 1}}
    assert stats()["idempotency"] == {"keys": 1, "replays": 11}


@pytest.mark.parametrize("request_id", [42, "", " ", "x" * 129])
def test_a_request_id_that_is_not_a_short_string_is_refused(request_id):
    code, payload = call("order", "refund", {"orderId": "ORD-001", "amount": 1.0, "requestId": request_id})

    assert (code, payload["errorCode"]) == (1, "INVALID_PARAM")
    assert stats()["refunds"]["total"] == 0


# --- faults ------------------------------------------------------------------------------------------------------


def test_a_hanging_command_goes_on_once_its_release_file_exists(tmp_path):
    release = tmp_path / "release"
    env = {
        **os.environ,
        "SUPPLIER_API_KEY": KEY,
        "SANDBOX_SUPPLIER_FAULTS": "order.refund=timeout",
        "SANDBOX_SUPPLIER_FAULT_RELEASE": str(release),
    }
    arguments = json.dumps({"orderId": "ORD-001", "amount": 5.0, "total": 5.0, "requestId": "T-HANG"})
    hung = subprocess.Popen(
        [sys.executable, "-m", "bookings.sandbox", "call", "order", "refund", "-a", arguments],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
    )
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            hung.wait(timeout=1)  # still hanging: it waits for the file, not for a clock
        assert stats()["refunds"]["total"] == 0

        release.touch()
        out, _ = hung.communicate(timeout=30)
    finally:
        hung.kill()

    assert hung.returncode == 0 and json.loads(out)["requestId"] == "T-HANG"
    assert stats()["refunds"]["total"] == 1


def test_a_failing_command_answers_a_platform_error_and_changes_nothing():
    number = book_flight()
    before = stats()

    code, payload = call("flight", "cancelOrder", {"orderId": number}, faults="flight.cancelOrder=fail")

    assert (code, payload["errorCode"]) == (1, "PLATFORM_ERROR")
    assert stats() == before


def test_a_garbage_answer_is_not_json_and_changes_nothing():
    before = stats()

    done = sandbox("call", "order", "refund", "-a", '{"orderId": "ORD-001", "amount": 10}', faults="*=garbage")

    assert done.returncode == 0
    with pytest.raises(ValueError):
        json.loads(done.stdout)
    assert stats() == before


def test_a_timing_out_command_waits_longer_than_any_caller():
    with pytest.raises(subprocess.TimeoutExpired):
        sandbox("call", "flight", "search", "-a", "{}", faults="flight.*=timeout", timeout=1.5)

    assert stats()["orders"]["total"] == 0


def test_the_most_specific_fault_rule_wins():
    faults = "*=garbage,flight.*=fail,flight.search=garbage"

    exact = sandbox("call", "flight", "search", "-a", "{}", faults=faults)
    product_wide = sandbox("call", "flight", "cancelOrder", "-a", "{}", faults=faults)
    everything = sandbox("call", "hotel", "search", "-a", "{}", faults=faults)

    assert exact.stdout.startswith(b"<html>")
    assert json.loads(product_wide.stdout)["errorCode"] == "PLATFORM_ERROR"
    assert everything.stdout.startswith(b"<html>")


def test_a_bad_fault_rule_is_a_usage_error():
    done = sandbox("call", "flight", "search", "-a", "{}", faults="flight.search=explode")

    assert done.returncode == 2
    assert b"SANDBOX_SUPPLIER_FAULTS" in done.stderr


def test_processes_opening_a_new_store_at_once_all_get_it(tmp_path):
    """Two workers' first supplier calls create the store together: none of them may fail for the WAL switch."""
    import multiprocessing

    from tests.support.store_race import open_store

    spawn = multiprocessing.get_context("spawn")  # fresh interpreters: nothing inherited from this process
    processes = 6
    for round_ in range(5):
        store_file = str(tmp_path / f"store-{round_}.sqlite3")
        barrier, answers = spawn.Barrier(processes), spawn.Queue()
        started = [spawn.Process(target=open_store, args=(store_file, barrier, answers)) for _ in range(processes)]
        for process in started:
            process.start()
        found = [answers.get(timeout=120) for _ in range(processes)]
        for process in started:
            process.join(timeout=60)
        assert found == ["ok"] * processes


# --- payment deadline, paying, the order list ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("setting", "window"),
    [(None, dt.timedelta(minutes=30)), ("5", dt.timedelta(minutes=5)), ("0.5", dt.timedelta(seconds=30))],
)
def test_a_new_order_is_payable_until_the_configured_minutes_after_it_was_made(monkeypatch, setting, window):
    if setting is not None:
        monkeypatch.setenv("SANDBOX_SUPPLIER_PAY_MINUTES", setting)
    before = dt.datetime.now().astimezone().replace(microsecond=0)

    booked = order(book_flight())

    after = dt.datetime.now().astimezone()
    deadline = moment(booked["payDeadline"])
    assert deadline - moment(booked["createdAt"]) == window
    assert before + window <= deadline <= after + window
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", booked["payDeadline"])
    assert (booked["paidAt"], booked["cancelledBy"], booked["scheduleChange"]) == (None, None, None)


@pytest.mark.parametrize("setting", ["half an hour", "0", "-5", "nan", "inf"])
def test_a_pay_minutes_setting_that_is_not_a_positive_number_is_a_usage_error(monkeypatch, setting):
    monkeypatch.setenv("SANDBOX_SUPPLIER_PAY_MINUTES", setting)

    done = sandbox("call", "flight", "search", "-a", json.dumps({"from": "上海", "to": "杭州", "date": "2026-12-05"}))

    assert done.returncode == 2
    assert b"SANDBOX_SUPPLIER_PAY_MINUTES" in done.stderr
    assert done.stdout == b""


@pytest.mark.parametrize("book", [book_flight, book_hotel, book_train])
def test_paying_an_unpaid_order_makes_it_paid_with_one_payment(book):
    number = book()
    total = order(number)["totalPrice"]

    code, payment = pay(number, "pay:BK1")

    assert code == 0
    assert re.fullmatch(r"PY\d{12}", payment["paymentId"])
    assert payment | {"paymentId": "", "paidAt": ""} == {
        "paymentId": "",
        "orderId": number,
        "product": book.__name__.removeprefix("book_"),
        "status": "PAID",
        "amount": total,
        "paidAt": "",
        "requestId": "pay:BK1",
    }
    paid = order(number)
    assert paid["status"] == "PAID" and paid["paidAt"] == payment["paidAt"]
    assert stats()["payments"] == {"total": 1, "byOrderNo": {number: 1}}
    assert stats()["orders"]["byStatus"] == {"PAID": 1}


def test_a_repeated_payment_request_answers_the_first_payment_and_pays_once():
    number = book_flight()

    first, second = pay(number, "pay:BK1"), pay(number, "pay:BK1")

    assert first == second and first[0] == 0
    assert stats()["payments"] == {"total": 1, "byOrderNo": {number: 1}}
    assert stats()["idempotency"] == {"keys": 1, "replays": 1}


def test_paying_a_paid_order_again_with_a_new_request_id_is_refused_and_pays_nothing_more():
    number = book_flight()
    pay(number, "pay:BK1")
    before, paid = stats(), order(number)

    code, payload = pay(number, "pay:BK2")

    assert (code, payload["errorCode"]) == (1, "ALREADY_PAID")
    assert paid["paidAt"] in payload["errorMessage"]
    assert stats() == before
    assert stats()["payments"]["total"] == 1
    assert order(number) == paid


def test_another_key_cannot_pay_an_order_and_an_unknown_order_cannot_be_paid():
    number = book_flight()

    other = pay(number, "pay:1", key=OTHER_KEY)
    business = pay("ORD-001", "pay:2")

    assert other[1]["errorCode"] == business[1]["errorCode"] == "ORDER_NOT_FOUND"
    assert order(number)["status"] == "PENDING_PAYMENT"
    assert stats()["payments"]["total"] == 0


def test_a_payment_without_an_order_id_is_refused():
    code, payload = call("order", "pay", {"requestId": "pay:1"})

    assert (code, payload["errorCode"]) == (1, "INVALID_PARAM")
    assert stats()["payments"]["total"] == 0


def test_many_processes_paying_one_order_with_different_request_ids_pay_it_once():
    number = book_flight()

    with ThreadPoolExecutor(max_workers=10) as pool:
        results = list(pool.map(lambda i: pay(number, f"pay:{i}"), range(10)))

    assert sorted(code for code, _ in results) == [0] + [1] * 9
    assert {payload["errorCode"] for code, payload in results if code == 1} == {"ALREADY_PAID"}
    assert stats()["payments"] == {"total": 1, "byOrderNo": {number: 1}}
    assert stats()["orders"]["byStatus"] == {"PAID": 1}


def test_a_paid_flight_can_still_be_cancelled_by_the_customer():
    number = book_flight()
    pay(number, "pay:1")

    code, payload = call("flight", "cancelOrder", {"orderId": number})

    assert code == 0
    cancelled = payload["data"]
    assert (cancelled["status"], cancelled["cancelledBy"], cancelled["alreadyCancelled"]) == (
        "CANCELLED",
        "customer",
        False,
    )
    assert cancelled["paidAt"] is not None


def test_the_order_list_shows_only_the_callers_orders_newest_first():
    flight, train = book_flight(), book_train()
    others = book_flight(key=OTHER_KEY)

    code, payload = call("order", "queryOrder", {})
    theirs = call("order", "queryOrder", {}, key=OTHER_KEY)[1]

    assert code == 0
    assert [(o["product"], o.get("orderId") or o.get("mainOrderNo")) for o in payload["orders"]] == [
        ("train", train),
        ("flight", flight),
    ]
    assert payload["orders"][0] == order(train)
    assert [o["orderId"] for o in theirs["orders"]] == [others]


def test_the_order_list_shows_each_order_as_it_stands_now():
    flight, hotel, train = book_flight(), book_hotel(), book_train()
    pay(train, "pay:1")
    event("cancel", hotel)
    event("expire", flight)

    code, payload = call("order", "queryOrder", {})

    assert code == 0
    listed = payload["orders"]
    assert [(o["product"], o["status"]) for o in listed] == [
        ("train", "PAID"),
        ("hotel", "CANCELLED"),
        ("flight", "EXPIRED"),
    ]
    assert listed == [order(train), order(hotel), order(flight)]


def test_an_empty_order_list_is_an_empty_list():
    assert call("order", "queryOrder", {}) == (0, {"orders": []})


# --- supplier events ---------------------------------------------------------------------------------------------


def test_an_order_whose_deadline_passed_is_expired_and_can_no_longer_be_paid():
    number = book_flight()

    code, answered = event("expire", number)
    expired = order(number)
    refused = pay(number, "pay:1")

    assert code == 0 and answered["status"] == "PENDING_PAYMENT"  # it expires when next loaded
    assert moment(answered["payDeadline"]) < dt.datetime.now().astimezone()
    assert expired["status"] == "EXPIRED" and expired["paidAt"] is None
    assert (refused[0], refused[1]["errorCode"]) == (1, "ORDER_EXPIRED")
    assert stats()["payments"]["total"] == 0
    assert stats()["orders"]["byStatus"] == {"EXPIRED": 1}


def test_a_refused_payment_of_an_overdue_order_still_leaves_it_expired():
    number = book_flight()
    event("expire", number)

    code, payload = pay(number, "pay:1")

    assert (code, payload["errorCode"]) == (1, "ORDER_EXPIRED")
    assert stats()["orders"]["byStatus"] == {"EXPIRED": 1}
    assert stats()["payments"]["total"] == 0
    assert stats()["idempotency"]["keys"] == 0


def test_the_order_list_expires_the_overdue_orders_it_shows():
    number = book_flight()
    event("expire", number)

    listed = call("order", "queryOrder", {})[1]["orders"]

    assert [o["status"] for o in listed] == ["EXPIRED"]
    assert stats()["orders"]["byStatus"] == {"EXPIRED": 1}


def test_an_expired_order_cannot_be_cancelled_and_nothing_changes():
    number = book_flight()
    event("expire", number)
    expired, before = order(number), stats()

    code, payload = call("flight", "cancelOrder", {"orderId": number, "requestId": "cancel:1"})

    assert (code, payload["errorCode"]) == (1, "ORDER_EXPIRED")
    assert order(number) == expired
    assert stats() == before
    assert stats()["cancels"]["total"] == 0


def test_a_paid_order_has_no_deadline_to_expire():
    number = book_flight()
    pay(number, "pay:1")
    paid = order(number)

    code, payload = event("expire", number)

    assert (code, payload["errorCode"]) == (1, "ALREADY_PAID")
    assert order(number) == paid


@pytest.mark.parametrize("pay_first", [False, True])
def test_the_supplier_cancelling_an_order_leaves_it_cancelled_by_the_supplier(pay_first):
    number = book_flight()
    if pay_first:
        pay(number, "pay:1")

    code, cancelled = event("cancel", number)

    assert code == 0
    assert (cancelled["status"], cancelled["cancelledBy"]) == ("CANCELLED", "supplier")
    assert order(number) == cancelled
    assert stats()["cancels"]["total"] == 0  # not a customer's cancelOrder
    assert stats()["payments"]["total"] == int(pay_first)


def test_an_order_the_supplier_cancelled_cannot_be_paid():
    number = book_hotel()
    event("cancel", number)
    before = stats()

    code, payload = pay(number, "pay:1")

    assert (code, payload["errorCode"]) == (1, "ORDER_CANCELLED")
    assert stats() == before


def test_an_order_the_customer_cancelled_cannot_be_paid():
    number = book_train()
    call("train", "cancelOrder", {"orderId": number})

    code, payload = pay(number, "pay:1")

    assert (code, payload["errorCode"]) == (1, "ORDER_CANCELLED")
    assert "customer" in payload["errorMessage"]
    assert stats()["payments"]["total"] == 0


def test_cancelling_an_order_the_supplier_cancelled_answers_already_cancelled():
    number = book_flight()
    event("cancel", number)

    code, payload = call("flight", "cancelOrder", {"orderId": number})

    assert code == 0
    assert (payload["data"]["alreadyCancelled"], payload["data"]["cancelledBy"]) == (True, "supplier")


@pytest.mark.parametrize(("book", "delay", "minutes"), [(book_flight, None, 90), (book_train, "-45", -45)])
def test_a_schedule_change_moves_the_times_and_records_the_previous_ones(book, delay, minutes):
    number = book()
    booked = order(number)

    code, changed = event("change", number, *(["--delay-minutes", delay] if delay else []))

    assert code == 0
    shift = dt.timedelta(minutes=minutes)
    for name in ("departTime", "arriveTime"):
        assert moment(changed[name]) == moment(booked[name]) + shift
    assert changed["scheduleChange"]["previousDepartTime"] == booked["departTime"]
    assert changed["scheduleChange"]["previousArriveTime"] == booked["arriveTime"]
    assert moment(changed["scheduleChange"]["changedAt"]) >= moment(booked["createdAt"])
    assert changed["status"] == "PENDING_PAYMENT" and changed["date"] == booked["date"]
    assert order(number) == changed


def test_a_hotel_has_no_schedule_to_change():
    number = book_hotel()
    booked = order(number)

    code, payload = event("change", number)

    assert (code, payload["errorCode"]) == (1, "INVALID_PARAM")
    assert order(number) == booked


@pytest.mark.parametrize(("closing", "error"), [("cancel", "ORDER_CANCELLED"), ("expire", "ORDER_EXPIRED")])
def test_a_closed_order_gets_no_schedule_change(closing, error):
    number = book_flight()
    event(closing, number)
    closed = order(number)

    code, payload = event("change", number)

    assert (code, payload["errorCode"]) == (1, error)
    assert order(number) == closed


def test_an_event_on_an_unknown_order_says_not_found():
    assert event("cancel", "FL000000000000")[1]["errorCode"] == "ORDER_NOT_FOUND"


def test_a_delay_for_an_event_other_than_a_change_is_a_usage_error():
    number = book_flight()
    booked = order(number)

    done = sandbox("event", "expire", number, "--delay-minutes", "5", key=None)

    assert done.returncode == 2
    assert order(number) == booked


# --- an older store ----------------------------------------------------------------------------------------------

# The orders table as version 3 of the store made it, before payment deadlines (the other tables are unchanged).
V3_ORDERS = """CREATE TABLE orders (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    order_no TEXT NOT NULL UNIQUE,
    product TEXT NOT NULL,
    key_hash TEXT NOT NULL,
    status TEXT NOT NULL,
    total_price REAL NOT NULL,
    details TEXT NOT NULL,
    contact TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
)"""


def test_a_store_of_the_previous_version_gets_payment_deadlines_for_its_orders(store, monkeypatch):
    monkeypatch.setenv("SANDBOX_SUPPLIER_PAY_MINUTES", "5")  # new orders' window: the upgrade keeps the default 30
    now = dt.datetime.now().astimezone().replace(microsecond=0)
    made = {
        "FL261201000001": ("PENDING_PAYMENT", now - dt.timedelta(hours=2)),
        "FL261201000002": ("PENDING_PAYMENT", now - dt.timedelta(minutes=5)),
        "FL261201000003": ("CANCELLED", now - dt.timedelta(minutes=10)),
    }
    details = json.dumps({"flightNo": "MU5101", "departTime": "2026-12-05T09:00", "arriveTime": "2026-12-05T10:05"})
    with sqlite3.connect(store) as conn:
        conn.execute(V3_ORDERS)
        conn.executemany(
            "INSERT INTO orders (order_no, product, key_hash, status, total_price, details, contact, created_at, "
            "updated_at) VALUES (?, 'flight', ?, ?, 500, ?, '{}', ?, ?)",
            [
                (number, hashlib.sha256(KEY.encode()).hexdigest(), status, details, at.isoformat(), at.isoformat())
                for number, (status, at) in made.items()
            ],
        )
        conn.execute("PRAGMA user_version = 3")

    listed = {o["orderId"]: o for o in call("order", "queryOrder", {})[1]["orders"]}

    for number, (_, at) in made.items():
        assert moment(listed[number]["payDeadline"]) == at + dt.timedelta(minutes=30)
        assert (listed[number]["paidAt"], listed[number]["scheduleChange"]) == (None, None)
    assert listed["FL261201000001"]["status"] == "EXPIRED"  # made two hours ago: its deadline passed
    assert listed["FL261201000002"]["status"] == "PENDING_PAYMENT"
    assert (listed["FL261201000003"]["status"], listed["FL261201000003"]["cancelledBy"]) == ("CANCELLED", "customer")
    with sqlite3.connect(store) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 6
    assert pay("FL261201000002", "pay:1")[1]["status"] == "PAID"
    assert stats()["payments"] == {"total": 1, "byOrderNo": {"FL261201000002": 1}}
