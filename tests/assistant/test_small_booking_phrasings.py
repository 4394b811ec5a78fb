"""Short ways travellers say a booking's details, through the chat API in both channels. Each checks the card and the
database rows."""

import pytest

from bookings.models import BookingRecord
from tests.assistant.conftest import Chat
from tests.assistant.test_booking_dialogue import confirmation, rows

pytestmark = pytest.mark.django_db


@pytest.fixture
def chat(alice, channel, supplier_sandbox):
    return Chat(alice)


# -- a hotel for a night --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "check_in", "check_out"),
    [
        ("帮我订大理的酒店，明晚入住，张三 13800000000", "2026-12-02", "2026-12-03"),
        ("今晚在大理订个酒店 张三 13800000000", "2026-12-01", "2026-12-02"),
        ("大理的酒店 周五晚上 张三 13800000000", "2026-12-04", "2026-12-05"),
        ("book a hotel in Dali for tomorrow night, Zhang San 13800000000", "2026-12-02", "2026-12-03"),
        ("I need a hotel in Dali tonight, Zhang San 13800000000", "2026-12-01", "2026-12-02"),
    ],
)
def test_a_hotel_for_a_night_checks_in_that_day_and_out_the_next(chat, alice, sentence, check_in, check_out):
    card = confirmation(chat.say(sentence))
    assert not BookingRecord.objects.exists()
    assert check_in in rows(card) and check_out in rows(card), rows(card)

    chat.say("确认")

    booking = BookingRecord.objects.get(user=alice)
    assert (booking.details["check_in"], booking.details["check_out"], booking.details["nights"]) == (
        check_in,
        check_out,
        1,
    )
