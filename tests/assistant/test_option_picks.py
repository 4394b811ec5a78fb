"""A pick holds: "选第2个" among the options shown, then the traveller's name and mobile, prepares and books the
second option, not the first, for a train, a flight and a hotel, in both channels (channel 2: the rules adapter
standing in for the model, given the options on screen by the code)."""

import pytest

from bookings.models import BookingRecord
from tests.assistant.conftest import Chat

pytestmark = pytest.mark.django_db

ASKS = {
    "TRAIN": "订12月19号北京到上海的高铁",
    "FLIGHT": "订12月19号上海飞成都的机票",
    "HOTEL": "订大理的酒店，12月10日入住，12日退房",
}
# Where the option's number is in the booking row's details (the supplier's keys).
NUMBER_KEY = {"TRAIN": "trainNo", "FLIGHT": "flightNo", "HOTEL": "hotelId"}


def named(option: dict) -> str:
    """How a confirmation card names the option: a hotel by its name, a flight or a train by its number."""
    return option["name"] if option["biz_type"] == "HOTEL" else option["number"]


@pytest.fixture
def chat(alice, channel, supplier_sandbox):
    return Chat(alice)


def options(answer: dict) -> list[dict]:
    return [c for c in answer["cards"] if c["type"] == "option"]


def confirmation(answer: dict) -> dict:
    found = [c for c in answer["cards"] if c["type"] == "confirmation"]
    assert len(found) == 1, f"no confirmation card: {answer['reply']!r} {[c['type'] for c in answer['cards']]}"
    return found[0]


def rows(card: dict) -> str:
    return " ".join([card["title"], *(f"{label} {value}" for label, value in card["rows"])])


@pytest.mark.parametrize("biz_type", ["TRAIN", "FLIGHT", "HOTEL"])
def test_the_second_option_picked_before_the_contact_is_the_one_prepared_and_booked(chat, alice, biz_type):
    shown = options(chat.say(ASKS[biz_type]))
    assert len(shown) >= 2
    second = shown[1]

    chat.say("选第2个")
    card = confirmation(chat.say("张三 13800000000"))

    assert named(second) in rows(card) and named(shown[0]) not in rows(card)
    assert not BookingRecord.objects.exists()

    chat.say("确认")

    [booking] = BookingRecord.objects.filter(user=alice)
    assert booking.biz_type == biz_type
    assert str(booking.details[NUMBER_KEY[biz_type]]).upper() == str(second["number"]).upper()
