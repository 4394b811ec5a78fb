"""Cancelling a booking that is cancelled already is a success that does nothing more: no second supplier cancel, no
second event, no approval asked (even above ¥2000, where a first cancel would wait for an approver). On the bookings
page, and in the chat from two conversations confirming the same cancel. Real sandbox supplier CLI."""

import pytest
from django.test import Client

from aftersale.models import HitlTicket
from assistant.services import chat_turn
from bookings.models import BookingEvent, BookingRecord, BookingStatus
from bookings.services.recording import booking_record_from_platform
from bookings.services.transitions import supplier_moved
from tests.assistant.conftest import TODAY
from tests.assistant.test_pending_actions import flight_booking

pytestmark = pytest.mark.django_db


def history(booking: BookingRecord) -> tuple:
    booking.refresh_from_db()
    events = list(BookingEvent.objects.filter(booking=booking).order_by("pk").values_list("to_status", "source"))
    return booking.status, booking.cancel_claimed_until, events


def test_cancelling_again_on_the_page_a_2200_yuan_booking_the_supplier_cancelled_says_so_and_asks_no_approver(
    alice,
):
    booking = booking_record_from_platform(
        user=alice,
        biz_type="HOTEL",
        external_order_no="HT2200X",
        arguments={"hotelId": "HDL001", "checkInDate": "2026-12-10", "checkOutDate": "2026-12-12"},
        response={"orderNo": "HT2200X", "totalPrice": 2200},
    )
    supplier_moved(booking, to_status=BookingStatus.CANCELLED, reason="Cancelled by the supplier.")  # as the sync does
    before = history(booking)
    page = Client()
    page.force_login(alice)

    response = page.post(f"/bookings/{booking.booking_id}/cancel", {"confirm": "1"}, follow=True)

    assert response.status_code == 200
    assert f"{booking.booking_id}：早已取消。" in response.content.decode()
    assert (
        history(booking)
        == before
        == (
            BookingStatus.CANCELLED,
            None,
            [("PENDING_PAYMENT", "TRIPDESK"), ("CANCELLED", "SUPPLIER")],
        )
    )
    assert not HitlTicket.objects.exists()


def test_two_conversations_confirming_the_same_cancel_cancel_it_once_and_the_second_is_told_it_is_done(
    alice, supplier_sandbox, settings
):
    settings.ASSISTANT_AGENT_ENABLED = False
    booking = flight_booking(alice)
    first = chat_turn(user=alice, message=f"取消预订 {booking.booking_id}", today=TODAY)
    second = chat_turn(user=alice, message=f"取消预订 {booking.booking_id}", today=TODAY)  # another tab
    assert first.conversation_id != second.conversation_id

    done = chat_turn(user=alice, message="确认", conversation_id=first.conversation_id, today=TODAY)
    again = chat_turn(user=alice, message="确认", conversation_id=second.conversation_id, today=TODAY)

    status, claim, events = history(booking)
    assert (status, claim) == (BookingStatus.CANCELLED, None)
    assert [to for to, _ in events].count("CANCELLED") == 1
    assert supplier_sandbox.stats()["cancels"]["total"] == 1
    assert booking.booking_id in done.reply and booking.booking_id in again.reply
    assert f"预订 {booking.booking_id} 早已取消，无需再操作" in again.reply
