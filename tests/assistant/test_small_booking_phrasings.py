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


# -- several travellers named in English ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "names"),
    [
        ("book a train from Beijing to Tianjin on Dec 2 for Zhang Wei and Li Na, 13800000000", ["Zhang Wei", "Li Na"]),
        (
            "train tickets Beijing to Tianjin Dec 2, passengers: Tom Smith, Anna Lee 13800000000",
            ["Tom Smith", "Anna Lee"],
        ),
        (
            "a train Beijing to Tianjin on Dec 2 for Zhang Wei, Li Na and Wang Fang, mobile 13800000000",
            ["Zhang Wei", "Li Na", "Wang Fang"],
        ),
        ("订12月2日北京到天津的高铁，乘客Tom Smith和Anna Lee，电话13800000000", ["Tom Smith", "Anna Lee"]),
    ],
)
def test_travellers_named_in_english_are_all_on_the_card_and_in_the_booking(chat, alice, sentence, names):
    card = confirmation(chat.say(sentence))
    assert not BookingRecord.objects.exists()
    assert all(name in rows(card) for name in names), rows(card)

    chat.say("confirm" if sentence.isascii() else "确认")

    assert BookingRecord.objects.get(user=alice).details["passengers"] == names
