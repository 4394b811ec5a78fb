"""A cancel that waits for an approver waits 48 hours: the traveller is told the moment, the sweep leaves the ticket
pending at 47 h 59 min and times it out at 48 h 1 min, and a cancel asked again once it is overdue (before any sweep)
opens a new ticket with a new 48 hours instead of answering from the dead one. Through the API and the bookings page,
with the site's default settings; the clock is moved, the suite's day is 1 December 2026."""

import datetime as dt
import zoneinfo

import pytest
import time_machine
from django.test import Client
from rest_framework.test import APIClient

from aftersale.models import HitlTicket, TicketStatus
from aftersale.tasks import time_out_tickets
from bookings.models import BookingEvent, BookingRecord, BookingStatus
from bookings.services.recording import booking_record_from_platform

pytestmark = pytest.mark.django_db

SHANGHAI = zoneinfo.ZoneInfo("Asia/Shanghai")
ASKED = dt.datetime(2026, 12, 1, 10, 0, tzinfo=SHANGHAI)
DUE = dt.datetime(2026, 12, 3, 10, 0, tzinfo=SHANGHAI)  # 48 hours later
A_MINUTE_BEFORE_DUE = dt.datetime(2026, 12, 3, 9, 59, tzinfo=SHANGHAI)
A_MINUTE_AFTER_DUE = dt.datetime(2026, 12, 3, 10, 1, tzinfo=SHANGHAI)


@pytest.fixture
def booking(alice) -> BookingRecord:
    """A paid ¥2200 hotel booking of alice's: above ¥2000, so cancelling it needs an approver."""
    booking = booking_record_from_platform(
        user=alice,
        biz_type="HOTEL",
        external_order_no="HT2200D",
        arguments={"hotelId": "HDL001", "checkInDate": "2026-12-10", "checkOutDate": "2026-12-12"},
        response={"orderNo": "HT2200D", "totalPrice": 2200},
    )
    BookingRecord.objects.filter(pk=booking.pk).update(status=BookingStatus.CONFIRMED)
    booking.refresh_from_db()
    return booking


def cancel_through_the_api(user, booking: BookingRecord, at: dt.datetime):
    api = APIClient()
    api.force_authenticate(user)
    with time_machine.travel(at, tick=False):
        return api.post(f"/api/v1/bookings/{booking.booking_id}/cancel", {"confirm": True}, format="json")


def cancel_on_the_page(user, booking: BookingRecord, at: dt.datetime):
    page = Client()
    page.force_login(user)
    with time_machine.travel(at, tick=False):
        return page.post(f"/bookings/{booking.booking_id}/cancel", {"confirm": "1"}, HTTP_HX_REQUEST="true")


def booking_state(booking: BookingRecord) -> tuple:
    booking.refresh_from_db()
    return booking.status, BookingEvent.objects.filter(booking=booking).count()


def test_the_traveller_is_told_the_approver_has_until_48_hours_after_the_cancel_was_asked(alice, booking):
    response = cancel_through_the_api(alice, booking, ASKED)

    assert response.status_code == 202 and response.json()["code"] == "TICKET_PENDING"
    assert "2026-12-03 10:00 前决定" in response.json()["message"]
    ticket = HitlTicket.objects.get()
    assert (ticket.status, ticket.deadline) == (TicketStatus.PENDING, DUE)
    assert booking_state(booking) == (BookingStatus.CONFIRMED, 1)


def test_the_sweep_leaves_the_ticket_pending_at_47_hours_59_and_times_it_out_at_48_hours_1(alice, booking):
    cancel_through_the_api(alice, booking, ASKED)
    ticket = HitlTicket.objects.get()

    with time_machine.travel(A_MINUTE_BEFORE_DUE, tick=False):
        early = time_out_tickets.delay().get()
    ticket.refresh_from_db()
    assert (early, ticket.status) == (0, TicketStatus.PENDING)

    with time_machine.travel(A_MINUTE_AFTER_DUE, tick=False):
        due = time_out_tickets.delay().get()
    ticket.refresh_from_db()
    assert (due, ticket.status) == (1, TicketStatus.TIMEOUT)
    assert list(ticket.events.order_by("pk").values_list("to_status", flat=True)) == ["PENDING", "TIMEOUT"]
    assert booking_state(booking) == (BookingStatus.CONFIRMED, 1)  # nothing was cancelled


def test_asked_again_a_minute_before_the_deadline_the_cancel_answers_from_the_same_ticket(alice, booking):
    cancel_through_the_api(alice, booking, ASKED)
    first = HitlTicket.objects.get()

    row = cancel_on_the_page(alice, booking, A_MINUTE_BEFORE_DUE)

    assert list(HitlTicket.objects.values_list("pk", "status")) == [(first.pk, TicketStatus.PENDING)]
    assert 'data-cancel="AWAITING_APPROVAL"' in row.content.decode() and first.ticket_no in row.content.decode()
    assert booking_state(booking) == (BookingStatus.CONFIRMED, 1)


def test_asked_again_once_the_ticket_is_overdue_the_cancel_opens_a_new_ticket_with_a_new_48_hours(alice, booking):
    cancel_through_the_api(alice, booking, ASKED)
    overdue = HitlTicket.objects.get()  # no sweep has run: it is still PENDING, past its deadline

    row = cancel_on_the_page(alice, booking, A_MINUTE_AFTER_DUE)

    overdue.refresh_from_db()
    fresh = HitlTicket.objects.exclude(pk=overdue.pk).get()
    assert overdue.status == TicketStatus.TIMEOUT
    assert list(overdue.events.order_by("pk").values_list("to_status", flat=True)) == ["PENDING", "TIMEOUT"]
    assert overdue.events.get(to_status="TIMEOUT").reason == "deadline passed"
    assert (fresh.status, fresh.idempotency_key) == (TicketStatus.PENDING, overdue.idempotency_key)
    assert fresh.deadline == dt.datetime(2026, 12, 5, 10, 1, tzinfo=SHANGHAI)
    html = row.content.decode()
    assert fresh.ticket_no in html and overdue.ticket_no not in html
    assert booking_state(booking) == (BookingStatus.CONFIRMED, 1)
