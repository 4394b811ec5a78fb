"""A booking is payable until its payment deadline by our own clock, even while the supplier, whose clock may lag or
whose expiry may not have run yet, still has the order unpaid: past the deadline there is nothing to pay on the API,
the bookings page and in the chat, and nothing is paid. One second before it, the payment is offered.

Only this process's clock is moved: the sandbox supplier keeps the suite's clock, so it still answers that the order
is waiting for payment (checked in every test), as a supplier that has not expired it yet would."""

import datetime as dt
import json
import re

import pytest
import time_machine
from django.test import Client
from rest_framework.test import APIClient

from assistant.services import chat_turn
from bookings.accounts import supplier_account_ensure
from bookings.models import BookingEvent, BookingRecord
from tests.assistant.conftest import TODAY
from tests.bookings.test_booking_life import book_flight, payments, supplier

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def on_supplier(booking: BookingRecord) -> str:
    key = supplier_account_ensure(user=booking.user).api_key
    answer = supplier("call", "order", "queryOrder", "-a", json.dumps({"orderId": booking.external_order_no}), key=key)
    return answer["order"]["status"]


def state(booking: BookingRecord) -> tuple:
    booking.refresh_from_db()
    events = list(BookingEvent.objects.filter(booking=booking).values_list("to_status", flat=True))
    return booking.status, booking.paid_at, events


@pytest.fixture
def booking(alice, supplier_sandbox, settings):
    """A real flight order of alice's, unpaid, due 30 minutes after it was made (the supplier's deadline)."""
    settings.BOOKING_REFRESH_SECONDS = 0
    settings.ASSISTANT_AGENT_ENABLED = False
    made = book_flight(alice)
    assert made.pay_deadline is not None
    return made


def past_deadline(booking: BookingRecord):
    return time_machine.travel(booking.pay_deadline + dt.timedelta(seconds=1), tick=False)


@pytest.fixture
def api(alice):
    client = APIClient()
    client.force_authenticate(alice)
    return client


def test_one_second_before_the_deadline_the_api_offers_the_payment(booking, api, supplier_sandbox):
    with time_machine.travel(booking.pay_deadline - dt.timedelta(seconds=1), tick=False):
        response = api.post(f"/api/v1/bookings/{booking.booking_id}/pay", {}, format="json")

    assert response.status_code == 409 and response.json()["code"] == "CONFIRMATION_REQUIRED"
    assert response.json()["data"]["preview"]["amount"] == str(booking.amount)


def test_one_second_past_the_deadline_the_api_has_nothing_to_pay_though_the_supplier_still_says_unpaid(
    booking, api, supplier_sandbox
):
    before = state(booking)

    with past_deadline(booking):
        response = api.post(f"/api/v1/bookings/{booking.booking_id}/pay", {}, format="json")

    assert response.status_code == 409
    assert (response.json()["code"], response.json()["data"]["status"]) == ("BOOKING_EXPIRED", "EXPIRED")
    assert "preview" not in response.json()["data"]
    assert state(booking) == before and payments(supplier_sandbox) == 0
    assert on_supplier(booking) == "PENDING_PAYMENT"


def test_past_the_deadline_the_pay_button_on_the_bookings_page_says_expired_and_offers_no_confirmation(
    booking, alice, supplier_sandbox
):
    page = Client()
    page.force_login(alice)
    before = state(booking)

    with past_deadline(booking):
        row = page.post(f"/bookings/{booking.booking_id}/pay", **HTMX)

    html = row.content.decode()
    assert row.status_code == 200
    assert 'data-step="confirm-pay"' not in html and 'name="confirm" value="1"' not in html
    [alert] = re.findall(r'<span class="error" role="alert">([^<]*)</span>', html)
    assert "expired" in alert or "过期" in alert  # the service's words, as the row shows them
    assert state(booking) == before and payments(supplier_sandbox) == 0
    assert on_supplier(booking) == "PENDING_PAYMENT"


def test_past_the_deadline_asking_to_pay_in_the_chat_shows_no_card_and_says_it_expired(
    booking, alice, supplier_sandbox
):
    before = state(booking)

    with past_deadline(booking):
        answer = chat_turn(user=alice, message=f"帮我支付 {booking.booking_id}", today=TODAY)

    assert not [c for c in answer.cards if c["type"] == "confirmation"]
    assert booking.booking_id in answer.reply and "过期" in answer.reply
    assert state(booking)[1:] == before[1:] and payments(supplier_sandbox) == 0
    assert on_supplier(booking) == "PENDING_PAYMENT"


def test_one_second_past_the_deadline_a_confirmed_payment_through_the_api_pays_nothing(booking, api, supplier_sandbox):
    before = state(booking)

    with past_deadline(booking):
        response = api.post(f"/api/v1/bookings/{booking.booking_id}/pay", {"confirm": True}, format="json")

    assert response.status_code == 409 and response.json()["code"] == "BOOKING_EXPIRED"
    assert state(booking)[1] == before[1] is None and payments(supplier_sandbox) == 0
    assert on_supplier(booking) == "PENDING_PAYMENT"


def test_a_pay_card_shown_before_the_deadline_and_confirmed_after_it_pays_nothing(booking, alice, supplier_sandbox):
    with time_machine.travel(booking.pay_deadline - dt.timedelta(minutes=1), tick=False):
        asked = chat_turn(user=alice, message=f"帮我支付 {booking.booking_id}", today=TODAY)
    assert [c["type"] for c in asked.cards] == ["confirmation"]  # the card lives 15 minutes, past the deadline

    with past_deadline(booking):
        answer = chat_turn(user=alice, message="确认", conversation_id=asked.conversation_id, today=TODAY)

    assert "过期" in answer.reply
    assert state(booking)[1] is None and payments(supplier_sandbox) == 0
    assert on_supplier(booking) == "PENDING_PAYMENT"
