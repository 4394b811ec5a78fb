"""Cancelling a paid booking of up to ¥2000 happens at once; from ¥2000.01 it waits for an approver, with the booking
untouched. Pinned by amount on the bookings page and in the chat, with the site's default settings (a test that set
the amount itself would pass whatever the default became)."""

from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone

from aftersale.models import HitlTicket
from assistant.services import chat_turn
from bookings.models import BookingEvent, BookingRecord, BookingStatus
from bookings.services.recording import booking_record_from_platform
from tests.assistant.conftest import TODAY

pytestmark = pytest.mark.django_db

AT_THE_AMOUNT = "2000.00"
A_FEN_ABOVE = "2000.01"


def hotel_booking(user, amount: str) -> BookingRecord:
    """A paid hotel booking (no online cancel on the supplier: cancelling it is ours alone) of `amount` yuan."""
    booking = booking_record_from_platform(
        user=user,
        biz_type="HOTEL",
        external_order_no=f"HT{amount.replace('.', '')}",
        arguments={"hotelId": "HDL001", "checkInDate": "2026-12-10", "checkOutDate": "2026-12-12"},
        response={"orderNo": f"HT{amount.replace('.', '')}", "totalPrice": amount},
    )
    BookingRecord.objects.filter(pk=booking.pk).update(status=BookingStatus.CONFIRMED, paid_at=timezone.now())
    booking.refresh_from_db()
    return booking


def state(booking: BookingRecord) -> tuple:
    booking.refresh_from_db()
    return booking.status, list(BookingEvent.objects.filter(booking=booking).values_list("to_status", flat=True))


def cancel_in_the_chat(user, booking: BookingRecord):
    asked = chat_turn(user=user, message=f"取消预订 {booking.booking_id}", today=TODAY)
    assert [c["type"] for c in asked.cards] == ["confirmation"]
    return chat_turn(user=user, message="确认", conversation_id=asked.conversation_id, today=TODAY)


@pytest.fixture(autouse=True)
def _channel_one(settings):
    settings.ASSISTANT_AGENT_ENABLED = False


def test_a_2000_yuan_booking_is_cancelled_from_the_chat_at_once_with_no_approver(alice, supplier_sandbox):
    booking = hotel_booking(alice, AT_THE_AMOUNT)
    assert booking.amount == Decimal("2000.00")

    answer = cancel_in_the_chat(alice, booking)

    assert state(booking) == (BookingStatus.CANCELLED, ["PENDING_PAYMENT", "CANCELLED"])
    assert not HitlTicket.objects.exists()
    assert "审批" not in answer.reply


def test_a_2000_yuan_01_booking_cancelled_from_the_chat_waits_for_an_approver_and_stays_booked(alice, supplier_sandbox):
    booking = hotel_booking(alice, A_FEN_ABOVE)
    before = state(booking)

    answer = cancel_in_the_chat(alice, booking)

    ticket = HitlTicket.objects.get()
    assert (ticket.status, ticket.amount, ticket.idempotency_key) == (
        "PENDING",
        Decimal("2000.01"),
        f"hitl:CANCEL_BOOKING:{booking.booking_id}",
    )
    assert state(booking) == before == (BookingStatus.CONFIRMED, ["PENDING_PAYMENT"])
    assert ticket.ticket_no in answer.reply and "等待审批人" in answer.reply


@pytest.mark.parametrize(
    ("amount", "status", "tickets"),
    [(AT_THE_AMOUNT, BookingStatus.CANCELLED, 0), (A_FEN_ABOVE, BookingStatus.CONFIRMED, 1)],
    ids=["2000.00", "2000.01"],
)
def test_the_bookings_page_cancels_up_to_2000_yuan_and_sends_a_fen_more_to_an_approver(alice, amount, status, tickets):
    booking = hotel_booking(alice, amount)
    page = Client()
    page.force_login(alice)

    row = page.post(f"/bookings/{booking.booking_id}/cancel", {"confirm": "1"}, HTTP_HX_REQUEST="true")

    html = row.content.decode()
    assert state(booking)[0] == status and HitlTicket.objects.count() == tickets
    assert f'data-status="{status}"' in html
    assert ('data-cancel="AWAITING_APPROVAL"' in html) is (tickets == 1)


def test_moving_the_approval_amount_to_1000_sends_a_1500_yuan_cancel_to_an_approver_and_says_so_on_the_card(
    alice, supplier_sandbox, settings
):
    settings.BOOKINGS_CANCEL_APPROVAL_ABOVE = 1000
    booking = hotel_booking(alice, "1500.00")
    before = state(booking)

    asked = chat_turn(user=alice, message=f"取消预订 {booking.booking_id}", today=TODAY)
    answer = chat_turn(user=alice, message="确认", conversation_id=asked.conversation_id, today=TODAY)

    assert "¥1000" in asked.cards[0]["terms"]
    ticket = HitlTicket.objects.get()
    assert (ticket.status, ticket.amount) == ("PENDING", Decimal("1500.00"))
    assert state(booking) == before == (BookingStatus.CONFIRMED, ["PENDING_PAYMENT"])
    assert ticket.ticket_no in answer.reply
