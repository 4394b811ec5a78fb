"""How the offline engine reads a question about the options on screen while a booking waits: what is asked, of
which option or of the first in which order, and whether the sentence also takes it. A want of the booking ("要直飞的",
"最便宜的") and a new search ("北京到上海的机票多少钱") are no such question, and nothing is one without a booking
waiting."""

import pytest

from assistant.llm.port import UnderstandContext
from tests.assistant.conftest import TODAY


def read(port, text, pending="BOOK"):
    return port.understand(text, context=UnderstandContext(today=TODAY, pending_intent=pending)).intent


@pytest.mark.parametrize(
    ("text", "facts", "option", "order"),
    [
        ("第一个多少钱？多久？", ["PRICE", "DURATION"], 1, None),
        ("第3个几点到", ["ARRIVAL"], 3, None),
        ("第二班是哪家航空的", ["VENDOR"], 2, None),
        ("第二个要不要经停", ["DIRECT"], 2, None),
        ("第一家几星", ["STAR"], 1, None),
        ("哪个最便宜", ["PRICE"], None, "CHEAPEST"),
        ("最快的是哪班", ["DURATION"], None, "FASTEST"),
        ("how much is the second one?", ["PRICE"], 2, None),
        ("what time does the third one leave", ["DEPARTURE"], 3, None),
        ("is the second one direct?", ["DIRECT"], 2, None),
        ("which one is the cheapest?", ["PRICE"], None, "CHEAPEST"),
    ],
)
def test_a_question_about_the_options_names_what_and_which_and_picks_nothing(rules_port, text, facts, option, order):
    intent = read(rules_port, text)

    assert intent.asks_option == facts
    assert (intent.asked_option, intent.asked_order) == (option, order)
    assert intent.pick is None and intent.sort is None and intent.direct is None


@pytest.mark.parametrize(
    ("text", "pick"), [("第二个多少钱？那就订它吧", 2), ("how much is the first one? ok, book it", 1)]
)
def test_a_question_that_also_takes_the_option_picks_it(rules_port, text, pick):
    intent = read(rules_port, text)

    assert intent.asks_option == ["PRICE"] and intent.asked_option == pick and intent.pick == pick


@pytest.mark.parametrize(
    ("text", "want"),
    [("要直飞的", {"direct": True}), ("最便宜的那个", {"sort": "CHEAPEST"}), ("1000以内的", {"max_price": 1000}),
     ("第二个", {"pick": 2}), ("the cheapest one", {"sort": "CHEAPEST"})],
)  # fmt: skip
def test_a_want_or_a_pick_is_no_question(rules_port, text, want):
    intent = read(rules_port, text)

    assert intent.asks_option == []
    assert {key: getattr(intent, key) for key in want} == want


@pytest.mark.parametrize("text", ["北京到上海的机票多少钱", "how much is a flight from Beijing to Shanghai on Dec 10?"])
def test_a_new_search_with_a_price_question_is_no_question_about_the_options(rules_port, text):
    intent = read(rules_port, text)

    assert intent.intent == "BOOK" and intent.asks_option == [] and intent.origin == "北京"


def test_without_a_booking_waiting_nothing_is_a_question_about_options(rules_port):
    assert read(rules_port, "第一个多少钱？", pending=None).asks_option == []
