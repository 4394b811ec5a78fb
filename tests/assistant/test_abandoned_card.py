"""A booking's card the traveller walked away from is never carried out by a later yes: a change of mind to another
product ("算了，火车太慢，改坐飞机") shows that product's options to pick, and a cancel said while the card waits
("算了，不订了，取消吧") withdraws it. Both channels, with the real sandbox supplier; the database holds no booking
until a card of what they want now is confirmed."""

import pytest

from assistant.models import PendingAction, PendingActionStatus
from bookings.facts import details_facts
from bookings.models import BookingRecord
from tests.assistant.conftest import Chat

pytestmark = pytest.mark.django_db


@pytest.fixture
def chat(alice, channel, supplier_sandbox):
    return Chat(alice)


def kinds(answer: dict) -> list[str]:
    return [c["type"] for c in answer["cards"]]


def open_train_card(chat: Chat, sentence: str) -> None:
    answer = chat.say(sentence)
    assert "confirmation" in kinds(answer), answer["reply"]
    assert PendingAction.objects.filter(status=PendingActionStatus.PENDING).count() == 1


@pytest.mark.parametrize(
    ("booking", "switch", "pick", "yes"),
    [
        ("订一张12月18日广州到成都的火车票 张三 13800000000", "算了，火车太慢，改坐飞机", "第一个吧", "确认"),
        ("订12月18日广州去成都的高铁，李四 13900000000", "算了吧，坐火车太久了，还是换成飞机", "选第1个", "好的"),
        (
            "book a train from Guangzhou to Chengdu on Dec 18 for Tom Smith 13911112222",
            "never mind the train, let's fly instead",
            "the first one",
            "yes",
        ),
    ],
)
def test_a_switch_of_product_shows_its_options_and_books_only_the_one_picked(chat, booking, switch, pick, yes):
    open_train_card(chat, booking)

    switched = chat.say(switch)
    assert [c["biz_type"] for c in switched["cards"] if c["type"] == "option"], switched["reply"]
    assert {c["biz_type"] for c in switched["cards"] if c["type"] == "option"} == {"FLIGHT"}
    assert not PendingAction.objects.filter(status=PendingActionStatus.PENDING).exists()
    chat.say(yes)  # a yes with nothing to confirm books nothing
    assert not BookingRecord.objects.exists()

    assert "confirmation" in kinds(chat.say(pick))
    chat.say(yes)

    booked = BookingRecord.objects.get()
    facts = details_facts(booked.details)
    assert (booked.biz_type, facts.origin, facts.destination, str(facts.day)) == (
        "FLIGHT",
        "广州",
        "成都",
        "2026-12-18",
    )


@pytest.mark.parametrize(
    ("booking", "cancel", "yes"),
    [
        ("订一张12月18日广州到成都的火车票 张三 13800000000", "算了，不订了，取消吧", "确认"),
        (
            "book a train from Guangzhou to Chengdu on Dec 18 for Tom Smith 13911112222",
            "cancel it, I don't want it any more",
            "yes",
        ),
    ],
)
def test_a_cancel_said_while_the_card_waits_withdraws_it(chat, booking, cancel, yes):
    open_train_card(chat, booking)

    answer = chat.say(cancel)
    assert answer["reply"].strip() and "confirmation" not in kinds(answer)
    chat.say(yes)

    assert not BookingRecord.objects.exists()
    assert not PendingAction.objects.filter(status=PendingActionStatus.PENDING).exists()
