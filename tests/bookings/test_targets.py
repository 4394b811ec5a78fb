"""Which booking a request means (`bookings.targets`), called with bookings' own types, no assistant: the one named
by id; else the open ones of the type and on the day named, the only one left; several → the candidates to pick
from; a day that matches none → nothing picked."""

import datetime as dt

import pytest

from bookings.models import BookingRecord
from bookings.requests import BookingWants
from bookings.targets import booking_target, payment_target

DEC_27, DEC_28 = dt.date(2026, 12, 27), dt.date(2026, 12, 28)


def listed(booking_id: str, biz_type: str, status: str = "CONFIRMED", **details) -> dict:
    """A booking as `list_my_bookings` lists it."""
    return {"booking_id": booking_id, "biz_type": biz_type, "status": status, "details": details}


TRAIN_27 = listed("BK20261201001", "TRAIN", date="2026-12-27", origin="上海", destination="北京")
TRAIN_28 = listed("BK20261201002", "TRAIN", depart="2026-12-28T08:00")
FLIGHT_27 = listed("BK20261201003", "FLIGHT", "PENDING_PAYMENT", departTime="2026-12-27T07:10", **{"from": "上海"})
HOTEL_28 = listed("BK20261201004", "HOTEL", "PENDING_PAYMENT", checkInDate="2026-12-28", checkOutDate="2026-12-30")
CANCELLED_TRAIN = listed("BK20261201005", "TRAIN", "CANCELLED", date="2026-12-27")
EXPIRED_HOTEL = listed("BK20261201006", "HOTEL", "EXPIRED", check_in="2026-12-27")
ALL = [TRAIN_27, TRAIN_28, FLIGHT_27, HOTEL_28, CANCELLED_TRAIN, EXPIRED_HOTEL]


@pytest.mark.parametrize(
    ("wants", "meant"),
    [
        (BookingWants(biz_type="FLIGHT"), FLIGHT_27),
        (BookingWants(biz_type="HOTEL"), HOTEL_28),
        (BookingWants(biz_type="TRAIN", date_start=DEC_28), TRAIN_28),
        (BookingWants(date_start=DEC_28, biz_type="HOTEL"), HOTEL_28),
        (BookingWants(booking_id=" bk20261201002 "), TRAIN_28),
        (BookingWants(rebook=True, biz_type="TRAIN", original_date=DEC_27, date_start=DEC_28), TRAIN_27),
    ],
    ids=["the only flight", "the only open hotel", "the train on the 28th", "type and day", "by id", "rebook's day"],
)
def test_exactly_one_open_booking_of_the_type_and_day_named_is_the_one_meant(wants, meant):
    booking, candidates = booking_target(ALL, wants)

    assert booking is meant
    assert candidates == [meant]


def test_several_open_bookings_of_the_type_named_are_candidates_and_none_is_picked():
    booking, candidates = booking_target(ALL, BookingWants(biz_type="TRAIN"))

    assert booking is None
    assert candidates == [TRAIN_27, TRAIN_28]  # never the cancelled one


def test_a_day_that_matches_no_booking_picks_nothing_and_shows_them_all():
    booking, candidates = booking_target(ALL, BookingWants(biz_type="TRAIN", date_start=dt.date(2026, 12, 29)))

    assert booking is None
    assert candidates == [TRAIN_27, TRAIN_28]


def test_a_request_that_names_nothing_of_the_booking_picks_none_unless_the_bookings_given_are_the_ones_meant():
    only = [FLIGHT_27]

    assert booking_target(only, BookingWants()) == (None, [FLIGHT_27])
    assert booking_target(only, BookingWants(), named=True) == (FLIGHT_27, [FLIGHT_27])


def test_a_cancelled_or_expired_booking_is_never_meant_not_even_by_its_id():
    assert booking_target(ALL, BookingWants(booking_id="BK20261201005")) == (None, [])
    assert booking_target(ALL, BookingWants(biz_type="HOTEL", date_start=DEC_27)) == (None, [HOTEL_28])


def test_records_are_chosen_by_the_same_rule_and_come_back_as_records():
    train = BookingRecord(
        booking_id="BK20261201007", biz_type="TRAIN", status="CONFIRMED", details={"date": "2026-12-27"}
    )
    hotel = BookingRecord(booking_id="BK20261201008", biz_type="HOTEL", status="CONFIRMED", details={})

    assert booking_target([train, hotel], BookingWants(date_start=DEC_27)) == (train, [train])


def test_a_payment_means_the_only_booking_waiting_for_payment_of_the_type_and_day_named():
    assert payment_target(ALL, BookingWants()) == (None, [FLIGHT_27, HOTEL_28])
    assert payment_target(ALL, BookingWants(biz_type="HOTEL")) == (HOTEL_28, [HOTEL_28])
    assert payment_target(ALL, BookingWants(date_start=DEC_27)) == (FLIGHT_27, [FLIGHT_27])
    assert payment_target(ALL, BookingWants(biz_type="TRAIN")) == (None, [])  # trains here are paid already


# -- places, a span of days, and which one by when it was made ---------------------------------------------------

TO_BEIJING = listed("BK20261201011", "FLIGHT", date="2026-12-08", origin="上海", destination="北京")
TO_SHANGHAI = listed("BK20261201012", "FLIGHT", date="2026-12-10", origin="北京", destination="上海")
SANYA_HOTEL = listed("BK20261201013", "HOTEL", "PENDING_PAYMENT", city="三亚", check_in="2026-12-20")
DALI_HOTEL = listed("BK20261201014", "HOTEL", "PENDING_PAYMENT", city="大理", check_in="2026-12-21")
TWO_FLIGHTS = [TO_BEIJING, TO_SHANGHAI]


@pytest.mark.parametrize(
    ("wants", "meant"),
    [
        (BookingWants(biz_type="FLIGHT", city="北京", places=("北京",)), TO_BEIJING),
        (BookingWants(places=("上海",)), TO_SHANGHAI),
        (BookingWants(origin="北京"), TO_SHANGHAI),
        (BookingWants(origin="上海", city="北京"), TO_BEIJING),
    ],
    ids=["where to", "where to, no type", "where from", "the route"],
)
def test_the_only_booking_going_to_the_place_named_is_the_one_meant(wants, meant):
    assert booking_target(TWO_FLIGHTS, wants) == (meant, [meant])


def test_a_place_a_booking_only_leaves_from_is_it_when_none_goes_there():
    home = listed("BK20261201015", "FLIGHT", date="2026-12-10", origin="北京", destination="上海")
    hotel = listed("BK20261201016", "HOTEL", city="成都")

    assert booking_target([home, hotel], BookingWants(city="北京")) == (home, [home])


def test_a_place_that_fits_no_booking_picks_nothing_and_shows_them_all():
    assert booking_target(TWO_FLIGHTS, BookingWants(biz_type="FLIGHT", city="广州")) == (None, TWO_FLIGHTS)


def test_a_span_of_days_means_the_booking_inside_it():
    next_week = BookingWants(date_start=dt.date(2026, 12, 7), date_end=dt.date(2026, 12, 9))

    assert booking_target(TWO_FLIGHTS, next_week) == (TO_BEIJING, [TO_BEIJING])


def test_the_newest_or_the_oldest_booking_made_is_the_one_meant_among_those_that_fit():
    older = {**TO_SHANGHAI, "created_at": "2026-12-01T09:00:00+08:00"}
    newer = {**TO_BEIJING, "created_at": "2026-12-01T10:00:00+08:00"}

    assert booking_target([newer, older], BookingWants(ordinal="NEWEST")) == (newer, [newer])
    assert booking_target([newer, older], BookingWants(ordinal="OLDEST")) == (older, [older])


def test_a_payment_is_narrowed_by_the_place_and_by_which_one_was_made_last():
    assert payment_target([DALI_HOTEL, SANYA_HOTEL], BookingWants(city="三亚")) == (SANYA_HOTEL, [SANYA_HOTEL])
    assert payment_target([DALI_HOTEL, SANYA_HOTEL], BookingWants(ordinal="NEWEST")) == (DALI_HOTEL, [DALI_HOTEL])
