"""What the conversation remembers around confirmations, through the chat API in both channels: a cancel that
names no booking means the one this conversation made; a card the traveller moved on from cannot be confirmed any
more; a bare yes with nothing to confirm does nothing; channel 2 keeps the task of the conversation as channel 1."""

import datetime as dt
from decimal import Decimal

import pytest

from bookings.models import BookingRecord
from tests.assistant.conftest import TODAY, Chat
from tests.factories import ActivityFactory

pytestmark = pytest.mark.django_db

CONTACT = "张三 13800000000"


def cards(answer: dict, kind: str) -> list[dict]:
    return [c for c in answer["cards"] if c["type"] == kind]


def booked_train(user, day: int) -> BookingRecord:
    chat = Chat(user)
    asked = chat.say(f"帮我订12月{day}号北京到天津的火车票，{CONTACT}")
    assert len(cards(asked, "confirmation")) == 1, asked["reply"]
    chat.say("确认")
    return BookingRecord.objects.filter(user=user).latest("created_at"), chat


def test_a_cancel_naming_no_booking_means_the_one_this_conversation_made(alice, channel, supplier_sandbox):
    other, _ = booked_train(alice, 10)  # booked in another conversation
    mine, chat = booked_train(alice, 11)
    assert mine.pk != other.pk

    asked = chat.say("取消我的火车票")

    [card] = cards(asked, "confirmation")
    shown = " ".join([card["title"], *(str(value) for _, value in card["rows"])])
    assert mine.booking_id in shown and other.booking_id not in shown
    assert set(BookingRecord.objects.values_list("status", flat=True)) == {"PENDING_PAYMENT"}

    done = chat.say("确认")

    mine.refresh_from_db()
    other.refresh_from_db()
    assert (mine.status, other.status) == ("CANCELLED", "PENDING_PAYMENT")
    assert mine.booking_id in done["reply"]


def test_a_card_the_traveller_moved_on_from_cannot_be_confirmed(alice, channel, supplier_sandbox):
    chat = Chat(alice)
    asked = chat.say(f"帮我订大理的酒店，12月10日入住，12日退房，{CONTACT}")
    assert len(cards(asked, "confirmation")) == 1

    # The sandbox has no 4-star hotel in Dali: the nearest are offered, nothing is prepared, the 2-star card is gone.
    moved_on = chat.say("要四星的")

    assert not cards(moved_on, "confirmation")
    assert cards(moved_on, "option") and "4" in moved_on["reply"]
    # A yes now takes the nearest option shown first: a new card for it, waiting for its own yes; nothing is booked.
    answer = chat.say("确认")
    assert not BookingRecord.objects.exists()
    assert supplier_sandbox.stats()["orders"]["total"] == 0
    [card] = cards(answer, "confirmation")
    assert "3★" in card["title"] and card["title"] != cards(asked, "confirmation")[0]["title"]
    assert "确认前不会执行任何操作" in answer["reply"]

    chat.say("确认")

    [booked] = BookingRecord.objects.all()
    assert booked.amount == Decimal(card["amount"])


def test_a_bare_yes_with_nothing_to_confirm_says_so_and_changes_nothing(alice, channel, supplier_sandbox):
    answer = Chat(alice).say("确认")

    assert "没有找到需要你确认的操作" in answer["reply"]
    assert answer["cards"] == []
    assert not BookingRecord.objects.exists()


def test_a_follow_up_continues_the_task_in_both_channels(alice, channel):
    for title in ("大理古城漫游", "洱海骑行"):
        ActivityFactory(
            title=title,
            city="大理",
            province="云南",
            price=Decimal(200),
            start_date=TODAY,
            end_date=TODAY + dt.timedelta(days=60),
        )
    chat = Chat(alice)
    first = chat.say("帮我规划三天大理行程")
    assert len(cards(first, "travel_plan")[0]["days"]) == 3

    longer = chat.say("改成四天吧")

    [plan] = cards(longer, "travel_plan")
    assert len(plan["days"]) == 4 and "大理" in longer["reply"]


def test_a_greeting_is_answered_kindly_in_both_channels(alice, channel):
    answer = Chat(alice).say("你好")

    assert answer["outcome"] == "ANSWERED"
    assert "TripDesk" in answer["reply"] and "抱歉" not in answer["reply"]
