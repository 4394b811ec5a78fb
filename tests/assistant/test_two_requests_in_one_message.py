"""Two things in one message, through the chat API in both channels with the sandbox supplier.

A journey and a hotel in one sentence ("帮我订12月10号北京到上海的机票和上海的酒店", "a train there and a hotel for 2
nights"): the journey is searched and shown now, the hotel is kept (the reply says so) and taken up once the journey
is booked, in the city it arrives in and from the day it arrives, for the nights said (or it asks how many); nothing
is booked before each card's yes. A question and a booking ("北京明天天气怎么样，顺便帮我订张去北京的火车票") are both
answered, and the booking goes on with the next message."""

import datetime as dt

import pytest

from assistant.models import PendingAction, PendingActionStatus
from bookings.models import BookingRecord
from tests.assistant.conftest import Chat

pytestmark = pytest.mark.django_db


@pytest.fixture
def chat(alice, channel, supplier_sandbox):
    return Chat(alice)


def options(answer: dict) -> list[dict]:
    return [c for c in answer["cards"] if c["type"] == "option"]


def confirmation(answer: dict) -> dict:
    [card] = [c for c in answer["cards"] if c["type"] == "confirmation"]
    return card


def booked() -> list[tuple[str, str]]:
    return list(BookingRecord.objects.order_by("created_at").values_list("biz_type", "status"))


@pytest.mark.parametrize(
    ("sentence", "journey", "contact", "yes", "noted", "nights", "arrives"),
    [
        (
            "book me a flight from Beijing to Shanghai on Dec 10 and a hotel for 2 nights",
            "FLIGHT", "Zhang San 13800000000", "yes", "hotel in Shanghai", 2, "Shanghai",
        ),
        (
            "帮我订12月10号北京到上海的高铁，再订一个酒店住两晚",
            "TRAIN", "张三 13800000000", "确认", "上海的酒店", 2, "上海",
        ),
        (
            "I need a train from Beijing to Tianjin on Dec 19 and a hotel there for 1 night",
            "TRAIN", "Zhang San 13800000000", "yes", "hotel in Tianjin", 1, "Tianjin",
        ),
    ],
)  # fmt: skip
def test_a_journey_and_a_hotel_are_both_booked_one_after_the_other(
    chat, alice, sentence, journey, contact, yes, noted, nights, arrives
):
    first = chat.say(sentence)

    shown = options(first)
    assert shown and {o["biz_type"] for o in shown} == {journey}
    assert noted in first["reply"]  # the hotel is kept, and the traveller is told
    assert booked() == [] and not PendingAction.objects.exists()

    card = confirmation(chat.say(contact))
    assert shown[0]["number"] in card["title"] and booked() == []

    after = chat.say(yes)

    [ride] = BookingRecord.objects.filter(user=alice)
    assert ride.biz_type == journey
    arrival = dt.date.fromisoformat(str(ride.details["arrive"])[:10])
    hotels = options(after)
    assert hotels and {o["biz_type"] for o in hotels} == {"HOTEL"}
    assert {o["check_in"] for o in hotels} == {arrival.isoformat()}
    assert {o["nights"] for o in hotels} == {nights}
    assert all(arrives in o["title"] or arrives in o.get("city", "") for o in hotels) or arrives in after["reply"]
    stay = confirmation(after)  # the travellers of the journey stay there too: a card, not yet a booking
    assert hotels[0]["name"] in stay["title"]
    assert booked() == [(journey, "PENDING_PAYMENT")]
    assert PendingAction.objects.filter(status=PendingActionStatus.PENDING).count() == 1

    chat.say(yes)

    hotel = BookingRecord.objects.get(user=alice, biz_type="HOTEL")
    assert hotel.details["checkInDate"] == arrival.isoformat()
    assert hotel.details["checkOutDate"] == (arrival + dt.timedelta(days=nights)).isoformat()
    assert sorted(booked()) == sorted([(journey, "PENDING_PAYMENT"), ("HOTEL", "PENDING_PAYMENT")])


@pytest.mark.parametrize(
    ("sentence", "yes", "asked", "nights_said"),
    [
        ("帮我订12月10号北京到上海的机票和上海的酒店", "确认", "住几晚", "住两晚"),
        ("book a flight from Beijing to Shanghai on Dec 10, and a hotel in Shanghai too", "yes", "nights", "2 nights"),
    ],
)
def test_a_hotel_with_no_length_asks_for_it_once_the_flight_is_booked(chat, alice, sentence, yes, asked, nights_said):
    first = chat.say(sentence)
    assert {o["biz_type"] for o in options(first)} == {"FLIGHT"}
    assert {"确认": "上海", "yes": "Shanghai"}[yes] in first["reply"].split("\n")[
        -1
    ]  # the kept hotel, named with its city

    chat.say("张三 13800000000")
    after = chat.say(yes)

    assert booked() == [("FLIGHT", "PENDING_PAYMENT")]
    assert asked in after["reply"] and not options(after)
    assert not PendingAction.objects.filter(status=PendingActionStatus.PENDING).exists()

    answered = chat.say(nights_said)

    hotels = options(answered)
    assert hotels and {(o["biz_type"], o["check_in"], o["nights"]) for o in hotels} == {("HOTEL", "2026-12-10", 2)}
    assert confirmation(answered) and booked() == [("FLIGHT", "PENDING_PAYMENT")]


def test_declining_the_journey_books_no_hotel(chat, alice):
    chat.say("帮我订12月10号北京到上海的机票和上海的酒店")
    chat.say("张三 13800000000")

    answer = chat.say("算了")

    assert booked() == [] and not options(answer)
    assert not PendingAction.objects.filter(status=PendingActionStatus.PENDING).exists()


@pytest.mark.parametrize(
    ("sentence", "origin", "weather_words", "route"),
    [
        ("北京明天天气怎么样，顺便帮我订张去北京的火车票", "从上海出发", "北京", "上海 → 北京"),
        (
            "what's the weather in Beijing tomorrow? also book me a train ticket to Beijing",
            "from Shanghai",
            "Beijing",
            "Shanghai → Beijing",
        ),
    ],
)
def test_a_weather_question_and_a_booking_are_both_answered_and_the_booking_goes_on(
    chat, sentence, origin, weather_words, route
):
    answer = chat.say(sentence)

    assert [c["type"] for c in answer["cards"]] == ["weather"] and weather_words in answer["reply"]
    assert booked() == [] and not PendingAction.objects.exists()

    answer = chat.say(origin)

    trains = options(answer)
    assert trains and {(o["biz_type"], o["route"]) for o in trains} == {("TRAIN", route)}
    assert booked() == [] and not PendingAction.objects.exists()
