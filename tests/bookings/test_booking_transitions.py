"""A paid booking never becomes expired: expiry is what happens to an unpaid booking at its deadline. A booking staff
marked paid in the admin stays CONFIRMED when the supplier later reports its order as expired (a cancel is refused
with INVALID_TRANSITION and our record, its events and the supplier's order are left as they were; the sync changes
nothing), and the one transition service refuses CONFIRMED → EXPIRED outright. Real sandbox supplier CLI."""

import pytest
from django.test import Client
from rest_framework.test import APIClient

from assistant.services import chat_turn
from bookings.accounts import supplier_account_ensure
from bookings.models import BookingEvent, BookingNotice, BookingRecord, BookingStatus
from bookings.services.errors import BookingError
from bookings.services.transitions import booking_transition
from bookings.sync import bookings_sync_for_user
from tests.assistant.conftest import TODAY
from tests.bookings.test_booking_life import book_flight, supplier

pytestmark = pytest.mark.django_db


def history(booking: BookingRecord) -> tuple:
    """The booking as a traveller and an auditor see it: its status, paid time, claim and every event."""
    booking.refresh_from_db()
    events = list(BookingEvent.objects.filter(booking=booking).order_by("pk").values_list("from_status", "to_status"))
    return booking.status, booking.paid_at, booking.cancel_claimed_until, events


def on_supplier(booking: BookingRecord) -> str:
    key = supplier_account_ensure(user=booking.user).api_key
    return supplier("call", "order", "queryOrder", "-a", f'{{"orderId": "{booking.external_order_no}"}}', key=key)[
        "order"
    ]["status"]


@pytest.fixture
def paid_in_the_admin(alice, user_factory, supplier_sandbox):
    """A real flight order of alice's that staff marked paid in the admin (payment received another way), and that
    the supplier, never paid, then let expire at its deadline."""
    booking = book_flight(alice)
    staff = Client()
    staff.force_login(user_factory("staff", is_staff=True, is_superuser=True))
    staff.post(
        "/admin/bookings/bookingrecord/", {"action": "mark_confirmed", "_selected_action": [booking.pk]}, follow=True
    )
    supplier("event", "expire", booking.external_order_no)
    assert history(booking)[0] == BookingStatus.CONFIRMED
    assert on_supplier(booking) == "EXPIRED"
    return booking


def test_the_transition_service_refuses_to_expire_a_confirmed_booking_and_writes_nothing(paid_in_the_admin):
    booking = paid_in_the_admin
    before = history(booking)

    with pytest.raises(BookingError) as refused:
        booking_transition(booking_id=booking.booking_id, to_status=BookingStatus.EXPIRED, reason="deadline passed")

    assert refused.value.code == "INVALID_TRANSITION"
    assert history(booking) == before


def test_cancelling_a_confirmed_booking_the_supplier_reports_expired_is_refused_and_it_stays_confirmed(
    paid_in_the_admin, alice, supplier_sandbox
):
    booking = paid_in_the_admin
    before = history(booking)
    api = APIClient()
    api.force_authenticate(alice)

    response = api.post(f"/api/v1/bookings/{booking.booking_id}/cancel", {"confirm": True}, format="json")

    assert response.status_code == 409
    assert (response.json()["ok"], response.json()["code"]) == (False, "INVALID_TRANSITION")
    assert history(booking) == before  # CONFIRMED, paid, no claim left behind, no event
    assert before[0] == BookingStatus.CONFIRMED and before[3][-1] == ("PENDING_PAYMENT", "CONFIRMED")
    assert on_supplier(booking) == "EXPIRED"
    assert supplier_sandbox.stats()["cancels"]["total"] == 0


def test_cancelling_it_in_the_chat_says_nothing_was_done_and_it_stays_confirmed(
    paid_in_the_admin, alice, supplier_sandbox
):
    booking = paid_in_the_admin
    before = history(booking)
    asked = chat_turn(user=alice, message=f"取消预订 {booking.booking_id}", today=TODAY)

    answer = chat_turn(user=alice, message="确认", conversation_id=asked.conversation_id, today=TODAY)

    assert history(booking) == before
    assert answer.outcome == "REJECTED"
    assert "取消没有完成" in answer.reply and "预订保持原状" in answer.reply  # not done; the booking is as it was
    assert "过期" not in answer.reply  # never told it expired
    assert on_supplier(booking) == "EXPIRED"


def test_the_sync_leaves_a_confirmed_booking_confirmed_when_the_supplier_reports_it_expired(paid_in_the_admin, alice):
    booking = paid_in_the_admin
    before = history(booking)

    report = bookings_sync_for_user(user=alice)

    assert report.ok and report.changed == []
    assert history(booking) == before
    assert not BookingNotice.objects.filter(booking=booking).exists()
