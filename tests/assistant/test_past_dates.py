"""A booking or a rebooking for a day already over ("昨天", "yesterday", "上周五", "last Friday", "11月20号", "Nov 20"
on the pinned 2026-12-01) is answered that the day has passed, asking for another date: nothing is searched or
booked for it, the rest of the booking (route, product) is kept, and the next date said goes on with it. Through the
chat API in both channels, in both languages."""

import json

import pytest

from assistant.models import PendingAction
from bookings.models import BookingRecord, SupplierCall
from tests.assistant.conftest import Chat
from tests.bookings.test_booking_life import book_flight

pytestmark = [pytest.mark.django_db]


@pytest.fixture
def chat(alice, channel, supplier_sandbox):
    return Chat(alice)


def searches() -> int:
    return SupplierCall.objects.filter(action="search").count()


def confirmation_cards(answer: dict) -> list[dict]:
    return [c for c in answer["cards"] if c["type"] == "confirmation"]


@pytest.mark.parametrize(
    ("sentence", "said"),
    [
        ("帮我订一张昨天上海飞成都的机票", "11月30日已经过去了"),
        ("订上周五北京到上海的高铁", "11月27日已经过去了"),
        ("我要订11月20号上海到成都的航班", "11月20日已经过去了"),
        ("book a flight from Shanghai to Chengdu for yesterday", "Nov 30 has already passed"),
        ("book a train from Beijing to Shanghai last Friday", "Nov 27 has already passed"),
        ("I need a flight Shanghai to Chengdu on Nov 20", "Nov 20 has already passed"),
    ],
)
def test_a_booking_for_a_day_gone_says_it_has_passed_and_asks_for_a_date(chat, sentence, said):
    before = searches()

    answer = chat.say(sentence)

    assert said in answer["reply"], answer["reply"]
    assert answer["outcome"] == "CLARIFY" and not confirmation_cards(answer)
    assert searches() == before  # nothing searched for a day that is over
    assert not BookingRecord.objects.exists() and not PendingAction.objects.exists()


@pytest.mark.parametrize(
    ("first", "past", "said", "then"),
    [
        ("订一张上海飞成都的机票", "昨天", "11月30日已经过去了", "12月20号"),
        ("book a flight from Shanghai to Chengdu", "yesterday", "Nov 30 has already passed", "Dec 20"),
    ],
)
def test_a_day_gone_given_as_the_date_keeps_the_route_and_the_next_date_goes_on(chat, first, past, said, then):
    chat.say(first)

    answer = chat.say(past)

    assert said in answer["reply"], answer["reply"]
    assert not confirmation_cards(answer) and not BookingRecord.objects.exists()
    found = chat.say(then)
    assert "2026-12-20" in json.dumps(found["cards"]), found["reply"]  # the route kept, searched on the new day
    assert not BookingRecord.objects.exists()


@pytest.mark.parametrize(
    ("sentence", "said"),
    [("把我的机票改签到昨天", "11月30日已经过去了"), ("move my flight to yesterday", "Nov 30 has already passed")],
)
def test_a_rebooking_to_a_day_gone_says_it_has_passed_and_changes_nothing(chat, alice, sentence, said):
    booking = book_flight(alice)
    before = list(BookingRecord.objects.values_list("booking_id", "status", "amount"))

    answer = chat.say(sentence)

    assert said in answer["reply"] and booking.booking_id in answer["reply"], answer["reply"]
    assert not confirmation_cards(answer) and not PendingAction.objects.exists()
    assert list(BookingRecord.objects.values_list("booking_id", "status", "amount")) == before
