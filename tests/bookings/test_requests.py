"""What a booking request asks bookings for (`bookings.requests`), called with `BookingWants`, no assistant: the
search and the facts it still misses, a rebooking's search from the booking's own facts, the option picked, and who
travels."""

import datetime as dt

import pytest

from bookings.requests import (
    BookingWants,
    booking_passengers,
    booking_search,
    option_choice,
    passengers_complete,
    rebook_search,
)

TODAY = dt.date(2026, 12, 1)
DEC_10 = dt.date(2026, 12, 10)


@pytest.mark.parametrize(
    ("wants", "missing"),
    [
        (BookingWants(), ("biz_type", "date")),
        (BookingWants(biz_type="TRAIN", places=("北京",), date_start=DEC_10), ("origin",)),
        (BookingWants(biz_type="TRAIN", origin="上海", date_start=DEC_10), ("destination",)),
        (BookingWants(biz_type="FLIGHT", date_start=DEC_10), ("route",)),
        (BookingWants(biz_type="FLIGHT", origin="上海", city="上海", date_start=DEC_10), ("route",)),
        (BookingWants(biz_type="FLIGHT", origin="上海", city="北京"), ("date",)),
        (BookingWants(biz_type="FLIGHT", origin="上海", city="北京", date_start=dt.date(2026, 11, 30)), ("date",)),
        (BookingWants(biz_type="HOTEL", date_start=DEC_10, nights=2), ("hotel_city",)),
        (BookingWants(biz_type="HOTEL", city="杭州", date_start=DEC_10), ("check_out",)),
        (BookingWants(biz_type="HOTEL", city="杭州", date_start=DEC_10, nights=2), ()),
    ],
    ids=[
        "nothing",
        "where from",
        "where to",
        "no route",
        "same city twice",
        "no date",
        "a past date",
        "no hotel city",
        "no stay",
        "a full stay",
    ],
)
def test_a_search_names_only_the_facts_it_still_misses(wants, missing):
    assert booking_search(wants, today=TODAY).missing == missing


def test_a_full_train_search_carries_the_route_the_date_the_preferences_and_the_party():
    wants = BookingWants(
        biz_type="TRAIN",
        origin="北京",
        places=("北京", "上海"),
        date_start=DEC_10,
        preferences={"time_band": "MORNING", "direct": False, "max_price": 800, "sort": None},
        passengers=({"name": "张三"}, {"name": "李四"}),
    )

    search = booking_search(wants, today=TODAY)

    assert search.missing == ()
    assert search.arguments == {
        "biz_type": "TRAIN",
        "origin": "北京",
        "destination": "上海",
        "date": "2026-12-10",
        "time_band": "MORNING",
        "max_price": 800,
        "passengers": 2,
    }


def test_a_hotel_stay_ends_on_the_end_day_said_else_after_the_nights_said():
    by_day = booking_search(
        BookingWants(biz_type="HOTEL", city="杭州", date_start=DEC_10, date_end=dt.date(2026, 12, 13))
    )
    by_nights = booking_search(BookingWants(biz_type="HOTEL", places=("杭州",), date_start=DEC_10, nights=2))

    assert (by_day.arguments["check_out"], by_day.nights) == ("2026-12-13", 3)
    assert (by_nights.arguments["city"], by_nights.arguments["check_out"], by_nights.nights) == (
        "杭州",
        "2026-12-12",
        2,
    )


def test_a_rebooking_searches_the_booking_s_own_route_on_the_new_day_whichever_words_its_details_use():
    booking = {"booking_id": "BK20261201001", "biz_type": "FLIGHT", "details": {"from": "上海", "to": "成都"}}

    search = rebook_search(booking, BookingWants(rebook=True, date_start=dt.date(2026, 12, 20)))

    assert search.missing == ()
    assert search.arguments == {"biz_type": "FLIGHT", "origin": "上海", "destination": "成都", "date": "2026-12-20"}


def test_a_rebooked_stay_keeps_its_city_and_its_length():
    booking = {
        "biz_type": "HOTEL",
        "details": {"city": "杭州", "checkInDate": "2026-12-10", "checkOutDate": "2026-12-12"},
    }

    search = rebook_search(booking, BookingWants(rebook=True, date_start=dt.date(2026, 12, 20)))

    assert search.arguments["city"] == "杭州" and search.arguments["check_out"] == "2026-12-22"


def test_a_rebooking_without_a_new_day_misses_the_date():
    booking = {"biz_type": "TRAIN", "details": {"origin": "上海", "destination": "北京"}}

    assert rebook_search(booking, BookingWants(rebook=True)).missing == ("date",)


OPTIONS = {"options": [{"ref": "a"}, {"ref": "b"}, {"ref": "c"}], "matched": True}


@pytest.mark.parametrize(
    ("data", "pick", "nearest", "ref"),
    [
        (OPTIONS, None, False, "a"),
        (OPTIONS, 2, False, "b"),
        (OPTIONS, 4, False, None),
        ({**OPTIONS, "matched": False}, None, False, None),
        ({**OPTIONS, "matched": False}, None, True, "a"),
        ({**OPTIONS, "matched": False}, 3, False, "c"),
        ({"options": []}, 1, False, None),
    ],
    ids=["the best", "the second", "no fourth", "none matched", "the nearest accepted", "a pick", "nothing found"],
)
def test_the_option_prepared_is_the_one_picked_else_the_best_that_matched(data, pick, nearest, ref):
    option, why = option_choice(data, pick, nearest)

    assert (option["ref"] if option else None) == ref
    assert bool(why) is (ref is None)


def test_who_travels_is_the_passengers_named_with_the_contact_s_mobile_else_the_contact():
    named = booking_passengers([{"name": "张三"}, {"name": "李四", "mobile": None}], contact_mobile="13800000000")
    contact = booking_passengers([], contact_name="王五", contact_mobile="13900000000")

    assert named == [{"name": "张三", "mobile": "13800000000"}, {"name": "李四", "mobile": None}]
    assert contact == [{"name": "王五", "mobile": "13900000000"}]
    assert booking_passengers([]) == []
    assert [passengers_complete(p) for p in (named, contact, [], [{"name": "", "mobile": "1"}])] == [
        True,
        True,
        False,
        False,
    ]
