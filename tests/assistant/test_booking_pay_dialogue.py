"""Paying a booking and asking how bookings stand, through the chat API in both channels, with the real sandbox
supplier: a payment is a confirmation card with the exact amount first, paid once after "确认"; "我的订单付款了吗"
answers from what the supplier says now (an order it let expire is said to be expired, and recorded so)."""

import pytest

from bookings.models import BookingEvent, BookingRecord, BookingStatus
from tests.assistant.conftest import Chat
from tests.bookings.test_booking_life import book_flight, payments, supplier

pytestmark = [pytest.mark.django_db]


@pytest.fixture
def chat(alice, channel, supplier_sandbox, settings):
    settings.BOOKING_REFRESH_SECONDS = 0  # every status question asks the supplier
    return Chat(alice)


def confirmation(answer: dict) -> dict:
    found = [c for c in answer["cards"] if c["type"] == "confirmation"]
    assert len(found) == 1, f"no confirmation card: {answer['reply']!r}"
    return found[0]


def test_paying_shows_the_amount_first_and_pays_once_after_the_yes(chat, alice, supplier_sandbox):
    booking = book_flight(alice)

    asked = chat.say("帮我把刚才订的机票付了")

    card = confirmation(asked)
    assert card["amount"] == str(booking.amount) and booking.booking_id in " ".join(v for _, v in card["rows"])
    booking.refresh_from_db()
    assert booking.status == BookingStatus.PENDING_PAYMENT and payments(supplier_sandbox) == 0

    done = chat.say("确认")

    booking.refresh_from_db()
    assert booking.status == BookingStatus.CONFIRMED and payments(supplier_sandbox) == 1
    assert "已支付" in done["reply"] and booking.booking_id in done["reply"]
    assert [c["status"] for c in done["cards"] if c["type"] == "booking"] == ["CONFIRMED"]
    assert chat.say("确认")["reply"]  # a second yes pays nothing more
    assert payments(supplier_sandbox) == 1


def test_with_two_bookings_waiting_the_assistant_asks_which_one_and_pays_nothing(chat, alice, supplier_sandbox):
    first, second = book_flight(alice), book_flight(alice, sort="CHEAPEST")

    answer = chat.say("pay for my booking")

    assert not [c for c in answer["cards"] if c["type"] == "confirmation"]
    assert first.booking_id in answer["reply"] and second.booking_id in answer["reply"]
    assert set(BookingRecord.objects.values_list("status", flat=True)) == {BookingStatus.PENDING_PAYMENT}
    assert payments(supplier_sandbox) == 0


def test_an_expired_booking_is_said_to_be_expired_and_recorded_so(chat, alice, supplier_sandbox):
    booking = book_flight(alice)
    supplier("event", "expire", booking.external_order_no)

    answer = chat.say("我的订单付款了吗")

    booking.refresh_from_db()
    assert booking.status == BookingStatus.EXPIRED
    assert BookingEvent.objects.filter(booking=booking, to_status="EXPIRED", source="SUPPLIER").count() == 1
    assert booking.booking_id in answer["reply"] and "已过期" in answer["reply"]
    assert [c["status"] for c in answer["cards"] if c["type"] == "booking"] == ["EXPIRED"]


def test_my_booking_status_says_what_waits_for_payment_until_when(chat, alice, supplier_sandbox):
    booking = book_flight(alice)

    answer = chat.say("my booking status")

    assert booking.booking_id in answer["reply"] and "waiting for payment" in answer["reply"]
    assert "pay by" in answer["reply"]
    booking.refresh_from_db()
    assert booking.status == BookingStatus.PENDING_PAYMENT
