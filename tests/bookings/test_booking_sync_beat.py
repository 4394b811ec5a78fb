"""The beat task keeps bookings in step with the supplier on its own: a real Celery worker running the beat (every
second here) picks up a cancel and a schedule change the supplier made on its side, each with an event row naming
the supplier, and a notice for the traveller. Waits for the state, never for a number of seconds."""

import pytest

from bookings.models import BookingEvent, BookingNotice, BookingRecord, BookingStatus, NoticeKind
from tests.aftersale.test_exactly_once import wait_for
from tests.bookings.test_booking_life import book_flight, supplier

pytestmark = pytest.mark.postgres
WAIT_SECONDS = 120  # an upper bound on a loaded machine; the test goes on as soon as the state is there


def status(booking) -> str:
    return BookingRecord.objects.get(pk=booking.pk).status


def depart(booking) -> str:
    return BookingRecord.objects.get(pk=booking.pk).details["depart"]


def test_the_beat_task_picks_up_a_supplier_cancel_and_a_schedule_change(alice, celery_worker_with_beat):
    cancelled = book_flight(alice, sort="EARLIEST")
    moved = book_flight(alice, sort="LATEST")
    untouched = book_flight(alice, sort="CHEAPEST")
    before = moved.details["depart"]

    supplier("event", "cancel", cancelled.external_order_no)
    supplier("event", "change", moved.external_order_no, "--delay-minutes", "45")

    wait_for(lambda: status(cancelled) == BookingStatus.CANCELLED, seconds=WAIT_SECONDS, what="the supplier's cancel")
    wait_for(lambda: depart(moved) != before, seconds=WAIT_SECONDS, what="the supplier's new times")
    cancelled.refresh_from_db()
    moved.refresh_from_db()
    untouched.refresh_from_db()
    cancel_event = BookingEvent.objects.get(booking=cancelled, to_status="CANCELLED")
    assert (cancel_event.source, cancel_event.actor, cancel_event.from_status) == ("SUPPLIER", None, "PENDING_PAYMENT")
    change_event = BookingEvent.objects.filter(booking=moved).order_by("-id").first()
    assert (change_event.source, change_event.from_status, change_event.to_status) == (
        "SUPPLIER",
        "PENDING_PAYMENT",
        "PENDING_PAYMENT",
    )
    assert moved.details["schedule_change"]["previous_depart"] == before
    assert moved.status == BookingStatus.PENDING_PAYMENT
    assert untouched.status == BookingStatus.PENDING_PAYMENT
    assert BookingEvent.objects.filter(booking=untouched).count() == 1
    notices = set(BookingNotice.objects.filter(user=alice).values_list("booking_id", "kind"))
    assert notices == {(cancelled.pk, NoticeKind.CANCELLED_BY_SUPPLIER), (moved.pk, NoticeKind.SCHEDULE_CHANGED)}
