""" "What have I booked?" through the chat API in both channels, with the real sandbox supplier: the traveller's
bookings as cards, those still to travel on first, or, with none, that there are none and chips to book one; in
either language and in its short forms; nothing is written (no pending action, no booking row changed)."""

import pytest

from assistant.models import PendingAction
from bookings.models import BookingRecord, BookingStatus
from tests.assistant.conftest import Chat
from tests.bookings.test_booking_life import book_flight, supplier

pytestmark = [pytest.mark.django_db]


@pytest.fixture
def chat(alice, channel, supplier_sandbox, settings):
    settings.BOOKING_REFRESH_SECONDS = 0
    return Chat(alice)


def rows() -> list[tuple[str, str, str]]:
    return list(BookingRecord.objects.order_by("booking_id").values_list("booking_id", "status", "amount"))


def booking_cards(answer: dict) -> list[dict]:
    return [c for c in answer["cards"] if c["type"] == "booking"]


@pytest.mark.parametrize("sentence", ["我订了什么", "我都订了啥", "我的预订", "what have I booked", "list my trips"])
def test_what_i_booked_lists_my_bookings_those_to_travel_on_first(chat, alice, supplier_sandbox, sentence):
    waiting = book_flight(alice)
    ended = book_flight(alice, sort="CHEAPEST")  # the newer one, expired by the supplier
    supplier("event", "expire", ended.external_order_no)
    chat.say("my booking status")  # records the expiry
    before = rows()

    answer = chat.say(sentence)

    assert [(c["booking_id"], c["status"]) for c in booking_cards(answer)] == [
        (waiting.booking_id, "PENDING_PAYMENT"),
        (ended.booking_id, "EXPIRED"),
    ]
    assert waiting.booking_id in answer["reply"] and ended.booking_id in answer["reply"]
    assert not [c for c in answer["cards"] if c["type"] == "confirmation"]
    assert rows() == before and not PendingAction.objects.exists()


@pytest.mark.parametrize(
    ("sentence", "said", "chips"),
    [
        ("我都订了啥", "你还没有预订", ["订机票", "订酒店", "订火车票"]),
        ("看看我的订单", "你还没有预订", ["订机票", "订酒店", "订火车票"]),
        ("what did I book", "You have no bookings yet", ["Book a flight", "Book a hotel", "Book a train ticket"]),
        ("show my reservations", "You have no bookings yet", ["Book a flight", "Book a hotel", "Book a train ticket"]),
    ],
)
def test_with_nothing_booked_the_answer_says_so_with_chips_to_book(chat, sentence, said, chips):
    answer = chat.say(sentence)

    assert said in answer["reply"]
    assert [s["message"] for s in answer["suggestions"]] == chips
    assert answer["cards"] == []
    assert not BookingRecord.objects.exists() and not PendingAction.objects.exists()


def test_a_chip_to_book_starts_a_booking(chat):
    chip = chat.say("what have I booked")["suggestions"][0]

    answer = chat.say(chip["message"])

    assert "flight" in answer["reply"].lower() and not BookingRecord.objects.exists()


def test_my_booking_alone_is_no_yes_to_a_card_and_books_nothing(chat, alice, supplier_sandbox):
    booking = book_flight(alice)

    answer = chat.say("我的预订")

    assert "没有找到需要你确认的操作" not in answer["reply"] and booking.booking_id in answer["reply"]
    assert [c["booking_id"] for c in booking_cards(answer)] == [booking.booking_id]
    booking.refresh_from_db()
    assert booking.status == BookingStatus.PENDING_PAYMENT and BookingRecord.objects.count() == 1
