"""A question about the options on screen ("第一个多少钱？多久？", "is the second one direct?", "哪个最便宜") is answered
from those options, read again from the sandbox supplier by code, and the booking goes on as it was: no new search
shown, the same options to pick from, an open confirmation card still open, nothing booked. A pick said with the
question ("第二个多少钱？那就订它吧") both answers and picks. Both channels, both languages."""

import pytest

from assistant.models import PendingAction, PendingActionStatus
from bookings.models import BookingRecord
from tests.assistant.conftest import Chat

pytestmark = pytest.mark.django_db

FLIGHT = {"zh": "帮我订12月10号北京到上海的机票", "en": "book a flight from Beijing to Shanghai on Dec 10"}


@pytest.fixture
def chat(alice, channel, supplier_sandbox):
    return Chat(alice)


def options(answer: dict) -> list[dict]:
    return [c for c in answer["cards"] if c["type"] == "option"]


def confirmation(answer: dict) -> dict:
    [card] = [c for c in answer["cards"] if c["type"] == "confirmation"]
    return card


def nothing_written() -> bool:
    return not BookingRecord.objects.exists() and not PendingAction.objects.exists()


def price(option: dict) -> str:
    return f"¥{option['total']}"


@pytest.mark.parametrize(
    ("language", "question", "duration_words"),
    [
        ("zh", "第一个多少钱？多久？", "小时"),
        ("zh", "第1个的价格是多少，要飞多长时间", "小时"),
        ("en", "how much is the first one, and how long does it take?", " h "),
        ("en", "the first one: what's the price? how long is the flight?", " h "),
    ],
)
def test_the_price_and_duration_of_an_option_are_answered_from_it_and_the_booking_goes_on(
    chat, language, question, duration_words
):
    shown = options(chat.say(FLIGHT[language]))
    first = shown[0]

    answer = chat.say(question)

    assert price(first) in answer["reply"] and first["number"] in answer["reply"]
    assert first["duration"] and first["duration"] in answer["reply"] and duration_words in answer["reply"]
    assert not [s for s in shown[1:] if s["number"] in answer["reply"]]  # only the one asked about
    assert not options(answer) and not [c for c in answer["cards"] if c["type"] == "confirmation"]
    assert nothing_written()
    # The booking goes on with the same options: the second one is still the second one.
    chat.say("选第2个" if language == "zh" else "pick 2")
    card = confirmation(chat.say("张三 13800000000"))
    assert shown[1]["number"] in card["title"]
    assert not BookingRecord.objects.exists()


@pytest.mark.parametrize(
    ("language", "question", "order"),
    [
        ("zh", "哪个最便宜？", "CHEAPEST"),
        ("zh", "最晚出发的是哪班", "LATEST"),
        ("en", "which one is the cheapest?", "CHEAPEST"),
        ("en", "which flight leaves the latest?", "LATEST"),
    ],
)
def test_which_option_comes_first_in_an_order_is_named_by_its_number_on_screen(chat, language, question, order):
    shown = options(chat.say(FLIGHT[language]))
    if order == "CHEAPEST":
        best = min(shown, key=lambda o: float(o["total"]))
    else:
        best = max(shown, key=lambda o: o["depart_time"])
    others = [o for o in shown if o["number"] != best["number"]]

    answer = chat.say(question)

    assert best["number"] in answer["reply"] and not [o for o in others if o["number"] in answer["reply"]]
    number_said = f"第{best['index']}个" if language == "zh" else f"No. {best['index']}"
    assert number_said in answer["reply"]
    assert not options(answer) and nothing_written()


@pytest.mark.parametrize(
    ("language", "question"),
    [
        ("zh", "第二班是直飞吗？"),
        ("zh", "第二个要不要经停"),
        ("en", "is the second one direct?"),
        ("en", "does option 2 have a stopover?"),
    ],
)
def test_whether_an_option_is_direct_is_answered_for_that_option(chat, language, question):
    shown = options(chat.say(FLIGHT[language]))

    answer = chat.say(question)

    assert shown[1]["number"] in answer["reply"]
    words = ("直飞", "经停") if language == "zh" else ("direct", "with a stop")
    assert any(w in answer["reply"] for w in words)
    assert not options(answer) and nothing_written()


@pytest.mark.parametrize(
    ("language", "question", "contact"),
    [
        ("zh", "第二个多少钱？那就订它吧", "张三 13800000000"),
        ("en", "how much is the second one? ok, book it", "Zhang San 13800000000"),
    ],
)
def test_a_question_with_a_pick_answers_and_picks(chat, alice, language, question, contact):
    shown = options(chat.say(FLIGHT[language]))
    second = shown[1]

    answer = chat.say(question)

    assert price(second) in answer["reply"]
    assert nothing_written()
    card = confirmation(chat.say(contact))
    assert second["number"] in card["title"] and shown[0]["number"] not in card["title"]
    assert not BookingRecord.objects.exists()

    chat.say("确认" if language == "zh" else "yes")

    [booking] = BookingRecord.objects.filter(user=alice)
    assert booking.details["flightNo"].upper() == second["number"].upper()


@pytest.mark.parametrize(
    ("language", "question", "confirm"),
    [("zh", "第三个几点到？", "确认"), ("en", "what time does the third one land?", "yes")],
)
def test_a_question_while_the_card_is_open_leaves_the_card_open(chat, alice, language, question, confirm):
    shown = options(chat.say(FLIGHT[language]))
    card = confirmation(chat.say("张三 13800000000"))
    assert shown[0]["number"] in card["title"]
    [action] = PendingAction.objects.all()

    answer = chat.say(question)

    assert shown[2]["arrive_time"] in answer["reply"] and shown[2]["number"] in answer["reply"]
    action.refresh_from_db()
    assert action.status == PendingActionStatus.PENDING and not BookingRecord.objects.exists()

    chat.say(confirm)

    [booking] = BookingRecord.objects.filter(user=alice)
    assert booking.details["flightNo"].upper() == shown[0]["number"].upper()


@pytest.mark.parametrize(
    ("ask", "question", "fact"),
    [
        ("订大理的酒店，12月10日入住，12日退房", "第一家几星的？每晚多少钱", "star"),
        ("book a hotel in Dali, check in Dec 10, check out Dec 12", "how many stars is the first one?", "star"),
        ("订12月19号北京到上海的高铁", "第二趟几点到？", "arrive_time"),
        ("book a train from Beijing to Shanghai on Dec 19", "when does the second one arrive?", "arrive_time"),
    ],
)
def test_hotels_and_trains_answer_from_their_own_facts(chat, ask, question, fact):
    shown = options(chat.say(ask))
    asked = shown[0] if fact == "star" else shown[1]

    answer = chat.say(question)

    assert str(asked[fact]) in answer["reply"] and asked["title"].split()[0] in answer["reply"]
    assert not options(answer) and nothing_written()
