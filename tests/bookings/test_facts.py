"""What a booking is for (`bookings.facts`): one vocabulary whichever words its details were written in (ours, or
the supplier's from a platform command or a recovered order), and one day for every "which booking" decision."""

import datetime as dt

import pytest

from bookings.facts import booking_day, details_facts

DEC_27 = dt.date(2026, 12, 27)


@pytest.mark.parametrize(
    ("details", "day"),
    [
        ({"date": "2026-12-27"}, DEC_27),
        ({"depart": "2026-12-27T07:10"}, DEC_27),
        ({"departTime": "2026-12-27T07:10"}, DEC_27),
        ({"check_in": "2026-12-27", "check_out": "2026-12-29"}, DEC_27),
        ({"checkInDate": "2026-12-27", "checkOutDate": "2026-12-29"}, DEC_27),
        ({"city": "杭州"}, None),
        ({"date": "not a day"}, None),
    ],
    ids=["date", "depart", "departTime", "check_in", "checkInDate", "no day", "garbage"],
)
def test_a_booking_s_day_is_the_same_whichever_words_its_details_use(details, day):
    assert details_facts(details).day == day
    assert booking_day({"details": details}) == day


def test_the_supplier_s_words_and_ours_give_the_same_facts():
    ours = details_facts({"number": "G7", "origin": "上海", "destination": "北京", "depart": "2026-12-27T07:10"})
    theirs = details_facts({"trainNo": "G7", "from": "上海", "to": "北京", "departTime": "2026-12-27T07:10"})

    assert ours == theirs
    assert (ours.number, ours.origin, ours.destination, ours.date) == ("G7", "上海", "北京", "2026-12-27")


def test_a_stay_s_nights_come_from_its_days_when_not_written():
    facts = details_facts({"checkInDate": "2026-12-27", "checkOutDate": "2026-12-30"})

    assert (facts.check_in, facts.check_out, facts.nights) == ("2026-12-27", "2026-12-30", 3)
