"""Booking numbers: `BK` + the local date + random digits. They never run out in a day, never collide, and one
number tells nothing about another (a sequence let anyone guess their neighbours' bookings)."""

import itertools
from datetime import date
from decimal import Decimal

import pytest
from django.utils import timezone

from assistant.llm.port import UnderstandContext
from assistant.llm.rules import RulesLLM
from bookings.models import BookingEvent, BookingRecord
from bookings.services import numbering
from bookings.services.cancel import booking_cancel
from bookings.services.errors import BookingError
from bookings.services.recording import booking_record_from_platform
from core.ids import BOOKING_ID_RE, normalise_booking_id

pytestmark = pytest.mark.django_db

PER_DAY = 1050  # past the 1000th booking of the day, where the old "string maximum + 1" numbering got stuck


def record(user, number: int) -> BookingRecord:
    order_no = f"HT{number:06d}"
    return booking_record_from_platform(
        user=user,
        biz_type="HOTEL",
        external_order_no=order_no,
        arguments={"hotelId": "HDL001", "checkInDate": "2026-12-10", "checkOutDate": "2026-12-12"},
        response={"orderNo": order_no, "totalPrice": 640},
    )


def random_part(booking_id: str) -> int:
    return int(booking_id[len(f"BK{timezone.localdate():%Y%m%d}") :])


def snapshot() -> list[dict]:
    return list(BookingRecord.objects.order_by("pk").values()) + list(BookingEvent.objects.order_by("pk").values())


def test_more_than_a_thousand_bookings_in_one_day_all_get_a_unique_well_formed_number(alice):
    bookings = [record(alice, n) for n in range(PER_DAY)]

    numbers = [b.booking_id for b in bookings]
    assert BookingRecord.objects.count() == PER_DAY
    assert len(set(numbers)) == PER_DAY
    assert all(BOOKING_ID_RE.fullmatch(n) for n in numbers)
    assert all(n.startswith(f"BK{timezone.localdate():%Y%m%d}") for n in numbers)
    assert BookingEvent.objects.filter(to_status="PENDING_PAYMENT").count() == PER_DAY  # each one fully recorded
    consecutive = [(a, b) for a, b in itertools.pairwise(numbers) if abs(random_part(b) - random_part(a)) == 1]
    assert consecutive == []


def test_a_day_that_already_holds_old_sequential_numbers_keeps_numbering(alice):
    day = f"BK{timezone.localdate():%Y%m%d}"
    for old in (f"{day}001", f"{day}999", f"{day}1000"):  # the old generator's last numbers, "1000" < "999" as text
        BookingRecord.objects.create(
            booking_id=old, user=alice, biz_type="HOTEL", external_order_no=f"OLD{old}", amount=Decimal("1")
        )

    booking = record(alice, 1)

    assert BOOKING_ID_RE.fullmatch(booking.booking_id)
    assert BookingRecord.objects.count() == 4
    assert normalise_booking_id(f" {day.lower()}1000 ") == f"{day}1000"  # old numbers are still understood


def test_two_bookings_in_a_row_are_not_predictable_from_each_other(alice):
    first, second = record(alice, 1), record(alice, 2)

    assert first.booking_id != second.booking_id
    assert abs(random_part(second.booking_id) - random_part(first.booking_id)) > 1
    # Across many bookings the random part spreads over its whole range: no common prefix, no fixed step.
    parts = [random_part(record(alice, n).booking_id) for n in range(3, 203)]
    assert len({str(p).zfill(numbering.BOOKING_NUMBER_DIGITS)[0] for p in parts}) >= 5
    assert len({b - a for a, b in itertools.pairwise(parts)}) > 100


def test_a_number_that_clashes_is_retried_with_new_digits(alice, monkeypatch):
    digits = iter(["0000000001", "0000000001", "0000000002"])
    monkeypatch.setattr(numbering, "_random_digits", lambda: next(digits))
    first = record(alice, 1)

    second = record(alice, 2)

    assert (first.booking_id[-2:], second.booking_id[-2:]) == ("01", "02")
    assert BookingEvent.objects.count() == 2


def test_when_every_try_clashes_the_booking_is_refused_and_nothing_is_half_recorded(alice, monkeypatch):
    monkeypatch.setattr(numbering, "_random_digits", lambda: "0000000001")
    record(alice, 1)
    before = snapshot()

    with pytest.raises(BookingError) as refused:
        record(alice, 2)

    assert refused.value.code == "INTERNAL_ERROR"
    assert snapshot() == before


def test_a_new_number_is_understood_in_chat_and_cancels_the_booking(alice):
    booking = record(alice, 1)
    intent = (
        RulesLLM()
        .understand(f"取消预订 {booking.booking_id.lower()}", context=UnderstandContext(today=date(2026, 12, 1)))
        .intent
    )

    assert (intent.intent, intent.booking_id) == ("CANCEL_BOOKING", booking.booking_id)
    assert booking_cancel(user=alice, booking_id=intent.booking_id).booking.status == "CANCELLED"


@pytest.mark.parametrize("text", ["取消预订 BK2026120112345678", "cancel booking bk202612011234567890 please"])
def test_ids_of_any_length_from_eleven_digits_are_understood(text):
    intent = RulesLLM().understand(text, context=UnderstandContext(today=date(2026, 12, 1))).intent

    assert intent.intent == "CANCEL_BOOKING"
    assert intent.booking_id == text.split()[-1 if "取消" in text else 2].upper()
    assert intent.max_price is None  # the digits are not read as a budget
