"""A booking told a piece at a time, through the chat API in both channels, with the real sandbox supplier CLI:
begun with no details ("订票", "book a train ticket") it asks for what is missing and every fragment that follows
fills the open booking; a weekday or a day corrected after the options is counted from the date said before; a
switch of product withdraws the open card; and each turn shows the options once (the cards), a pick said back in a
line. Nothing is booked, nor any card open, before the traveller's yes (the suite's day: Tuesday 2026-12-01)."""

import pytest

from assistant.models import PendingAction, PendingActionStatus
from bookings.models import BookingRecord
from tests.assistant.conftest import Chat

pytestmark = pytest.mark.django_db

UNSURE = ("不太确定", "not sure", "can't help", "无法")


@pytest.fixture
def chat(alice, channel, supplier_sandbox):
    return Chat(alice)


def of_type(answer: dict, kind: str) -> list[dict]:
    return [c for c in answer["cards"] if c["type"] == kind]


def confirmation(answer: dict) -> dict:
    [card] = of_type(answer, "confirmation")
    return card


def open_cards() -> int:
    return PendingAction.objects.filter(status=PendingActionStatus.PENDING).count()


def booked_day(booking: BookingRecord) -> str:
    return str(booking.details.get("depart") or booking.details.get("check_in"))[:10]


# -- a booking begun with no details ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("turns", "biz_type", "day"),
    [
        (["订票", "火车", "北京到上海", "下周五", "张三 13800000000"], "TRAIN", "2026-12-11"),
        (["订张票", "机票", "从北京去上海", "12月10日", "李四", "13900000000"], "FLIGHT", "2026-12-10"),
        (["买火车票", "上海到杭州", "后天", "王五 13700000000"], "TRAIN", "2026-12-03"),
        (["book a train ticket", "from Beijing to Shanghai", "next Friday", "Zhang San 13800000000"], "TRAIN",
         "2026-12-11"),
        (["I need a flight", "Beijing to Shanghai", "on Dec 10", "Li Si 13900000000"], "FLIGHT", "2026-12-10"),
        (["I want to book a hotel", "in Dali", "Dec 10 for 2 nights", "Wang Wu 13700000000"], "HOTEL", "2026-12-10"),
        (["book a ticket", "a flight", "from Shanghai to Chengdu", "Dec 19", "Zhang San 13800000000"], "FLIGHT",
         "2026-12-19"),
    ],
)  # fmt: skip
def test_a_booking_begun_with_no_details_is_filled_by_the_fragments_that_follow(chat, turns, biz_type, day):
    *fragments, contact = turns
    for said in fragments:
        answer = chat.say(said)
        # each fragment goes on with the booking: never an activity search, a "did you mean" or a refusal
        assert not any(word in answer["reply"] for word in UNSURE), (said, answer["reply"])
        assert not of_type(answer, "activity"), said
        assert not of_type(answer, "confirmation"), said
        assert not BookingRecord.objects.exists() and open_cards() == 0

    card = confirmation(chat.say(contact))

    assert not BookingRecord.objects.exists() and open_cards() == 1
    assert day in " ".join(str(value) for _label, value in card["rows"]) or day in str(card)
    chat.say("确认" if "\u4e00" <= turns[0][0] <= "\u9fff" else "confirm")
    [booking] = BookingRecord.objects.all()
    assert (booking.biz_type, booking_day := booked_day(booking)) == (biz_type, day), booking_day


def test_the_first_question_of_a_booking_with_no_details_asks_what_it_is_for(chat):
    answer = chat.say("订票")

    assert "机票" in answer["reply"] and "火车" in answer["reply"] and "日期" in answer["reply"]
    assert not answer["cards"] and not BookingRecord.objects.exists()


# -- a day corrected after the options --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "correction", "day"),
    [
        ("帮我订下周三北京到上海的火车", "不对，是周四", "2026-12-10"),
        ("帮我订下周三北京到上海的火车", "周二吧", "2026-12-08"),
        ("book a train from Beijing to Shanghai next Wednesday", "actually Thursday", "2026-12-10"),
        ("帮我订12月10日北京到上海的机票", "改成前一天", "2026-12-09"),
        ("book a flight from Beijing to Shanghai on Dec 10", "make it the day after", "2026-12-11"),
    ],
)
def test_a_day_corrected_after_the_options_is_counted_from_the_day_said_before(chat, first, correction, day):
    shown = chat.say(first)
    assert of_type(shown, "option")

    corrected = chat.say(correction)

    options = of_type(corrected, "option")
    assert options and {o["date"] for o in options} == {day}
    assert not BookingRecord.objects.exists() and open_cards() == 0
    card = confirmation(chat.say("选第1个 张三 13800000000"))
    assert options[0]["number"] in card["title"]
    chat.say("确认")
    [booking] = BookingRecord.objects.all()
    assert booked_day(booking) == day


# -- another product -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "switch", "yes"),
    [
        ("帮我订下周三北京到上海的火车，张三 13800000000", "还是坐飞机吧", "确认"),
        ("book a train from Beijing to Shanghai next Wednesday for Zhang San 13800000000", "let's fly instead", "yes"),
    ],
)
def test_switching_the_product_withdraws_the_open_card_and_a_yes_books_nothing(chat, first, switch, yes):
    train_card = confirmation(chat.say(first))
    assert open_cards() == 1 and {"确认": "北京→上海", "yes": "Beijing→Shanghai"}[yes] in train_card["title"]

    flights = chat.say(switch)

    assert of_type(flights, "option") and {o["biz_type"] for o in of_type(flights, "option")} == {"FLIGHT"}
    assert not of_type(flights, "confirmation")
    assert open_cards() == 0  # the train's card is withdrawn
    nothing = chat.say(yes)
    assert not BookingRecord.objects.exists() and open_cards() == 0
    assert not of_type(nothing, "confirmation")
    assert "选第1个" in nothing["reply"] or "pick 1" in nothing["reply"]  # asked to pick one first, a chip each
    assert len(nothing["suggestions"]) == len(of_type(flights, "option"))

    picked = confirmation(chat.say("选第2个"))
    assert of_type(flights, "option")[1]["number"] in picked["title"]
    chat.say(yes)
    [booking] = BookingRecord.objects.all()
    assert (booking.biz_type, booked_day(booking)) == ("FLIGHT", "2026-12-09")


# -- concise turns -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ask", "pick", "contact", "need"),
    [
        ("帮我订12月10日北京到上海的机票", "选第2个", "张三 13800000000", "还需要"),
        ("book a flight from Beijing to Shanghai on Dec 10", "pick 2", "Zhang San 13800000000", "I still need"),
    ],
)
def test_options_are_shown_once_and_a_pick_is_said_back_in_a_line(chat, ask, pick, contact, need):
    shown = chat.say(ask)

    options = of_type(shown, "option")
    assert len(options) >= 2
    # one line leads the cards: the cards carry each option's details, the text lists none of them
    assert not any(o["number"] in shown["reply"] for o in options)
    assert len(shown["reply"].splitlines()) <= 3 and need in shown["reply"]

    picked = chat.say(pick)

    second = options[1]
    assert [c["number"] for c in of_type(picked, "option")] == [second["number"]]
    assert second["number"] in picked["reply"] and second["depart_time"] in picked["reply"] and need in picked["reply"]
    assert not any(o["number"] in picked["reply"] for o in options if o is not second)
    assert not BookingRecord.objects.exists() and open_cards() == 0

    given = chat.say(contact)

    card = confirmation(given)
    assert not of_type(given, "option")  # the options are not shown again: the card alone
    assert second["number"] in card["title"] and open_cards() == 1
    assert not BookingRecord.objects.exists()
    chat.say("确认" if need == "还需要" else "confirm")
    [booking] = BookingRecord.objects.all()
    assert booking.details["flightNo"] == second["number"]


@pytest.mark.parametrize(
    ("first", "switch", "need", "contact"),
    [
        ("帮我订下周三北京到上海的机票", "换高铁吧", "还需要", "张三 13800000000"),
        ("book a flight from Beijing to Shanghai next Wednesday", "actually a train", "I still need", "Zhang San 13800000000"),
    ],
)  # fmt: skip
def test_switching_the_product_before_who_travels_is_known_asks_for_them_with_the_new_options(
    chat, first, switch, need, contact
):
    assert of_type(chat.say(first), "option")

    trains = chat.say(switch)

    options = of_type(trains, "option")
    assert options and {o["biz_type"] for o in options} == {"TRAIN"} and need in trains["reply"]
    card = confirmation(chat.say(contact))
    assert options[0]["number"] in card["title"] and not BookingRecord.objects.exists()
    chat.say("确认" if need == "还需要" else "confirm")
    [booking] = BookingRecord.objects.all()
    assert (booking.biz_type, booked_day(booking)) == ("TRAIN", "2026-12-09")
