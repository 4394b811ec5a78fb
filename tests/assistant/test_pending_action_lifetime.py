"""A confirmation card is valid for 15 minutes from the moment it is shown, and the card says until when: confirmed
14 min 59 s after it was shown it is carried out; 15 min 1 s after, it is refused as expired and nothing is done.
Asked in the chat and confirmed by a typed yes, by the API's confirm endpoint, or on the chat page. Real sandbox
supplier CLI; the app's clock is moved (the supplier's is not: it has nothing to do with the card)."""

import datetime as dt

import pytest
import time_machine
from django.test import Client
from rest_framework.test import APIClient

from assistant.models import PendingAction
from assistant.services import chat_turn
from bookings.models import BookingStatus
from tests.assistant.conftest import TODAY
from tests.assistant.test_pending_actions import cancellations, flight_booking, status_of
from tests.conftest import TEST_NOW

pytestmark = pytest.mark.django_db

SHOWN = TEST_NOW.replace(hour=10)  # the card is shown at 10:00:00 on the suite's day (Shanghai)
JUST_IN_TIME = SHOWN + dt.timedelta(minutes=14, seconds=59)
JUST_TOO_LATE = SHOWN + dt.timedelta(minutes=15, seconds=1)


@pytest.fixture(autouse=True)
def _channel_one(settings):
    settings.ASSISTANT_AGENT_ENABLED = False


@pytest.fixture
def card(alice, supplier_sandbox):
    """Alice asked at 10:00:00 to cancel a real flight booking: the card is shown, nothing is cancelled yet."""
    booking = flight_booking(alice)
    with time_machine.travel(SHOWN, tick=False):
        asked = chat_turn(user=alice, message=f"取消预订 {booking.booking_id}", today=TODAY)
    assert [c["type"] for c in asked.cards] == ["confirmation"]
    return booking, asked


def test_a_card_confirmed_14_minutes_59_seconds_after_it_was_shown_cancels_the_booking(card, alice, supplier_sandbox):
    booking, asked = card

    with time_machine.travel(JUST_IN_TIME, tick=False):
        done = chat_turn(user=alice, message="确认", conversation_id=asked.conversation_id, today=TODAY)

    assert status_of(booking) == BookingStatus.CANCELLED and cancellations(booking) == 1
    assert supplier_sandbox.stats()["cancels"]["total"] == 1
    assert PendingAction.objects.get().status == "EXECUTED"
    assert booking.booking_id in done.reply


def test_a_card_confirmed_15_minutes_1_second_after_it_was_shown_is_expired_and_nothing_is_cancelled(
    card, alice, supplier_sandbox
):
    booking, asked = card

    with time_machine.travel(JUST_TOO_LATE, tick=False):
        late = chat_turn(user=alice, message="确认", conversation_id=asked.conversation_id, today=TODAY)

    assert "过期" in late.reply
    assert PendingAction.objects.get().status == "EXPIRED"
    assert status_of(booking) == BookingStatus.PENDING_PAYMENT and cancellations(booking) == 0
    assert supplier_sandbox.stats()["cancels"]["total"] == 0


@pytest.mark.parametrize(
    ("moment", "action_status", "booking_status", "supplier_cancels"),
    [(JUST_IN_TIME, "EXECUTED", "CANCELLED", 1), (JUST_TOO_LATE, "EXPIRED", "PENDING_PAYMENT", 0)],
    ids=["14m59s", "15m01s"],
)
def test_the_confirm_endpoint_carries_a_card_out_for_15_minutes_after_it_was_shown_and_not_after(
    card, alice, supplier_sandbox, moment, action_status, booking_status, supplier_cancels
):
    booking, _ = card
    action = PendingAction.objects.get()
    api = APIClient()
    api.force_authenticate(alice)

    with time_machine.travel(moment, tick=False):
        response = api.post(f"/api/v1/assistant/actions/{action.pk}/confirm")

    assert response.status_code == 200
    action.refresh_from_db()
    assert action.status == action_status
    assert status_of(booking) == booking_status
    assert supplier_sandbox.stats()["cancels"]["total"] == supplier_cancels


def test_the_card_on_the_chat_page_says_it_is_valid_until_a_quarter_of_an_hour_after_it_was_shown(
    alice, supplier_sandbox
):
    booking = flight_booking(alice)
    page = Client()
    page.force_login(alice)

    with time_machine.travel(SHOWN, tick=False):
        response = page.post("/chat/send", {"message": f"取消预订 {booking.booking_id}"}, HTTP_HX_REQUEST="true")

    html = response.content.decode()
    assert response.status_code == 200 and 'class="muted expiry"' in html
    assert "12月1日 10:15" in html
    assert status_of(booking) == BookingStatus.PENDING_PAYMENT
