"""The traveller's own words for why they want a refund or a return, read by code from their message: the clauses
that do more than ask, the order number taken out; a request gives a reason only when it says why, an answer to
"why?" whatever it says."""

import pytest

from assistant.reason_words import reason_words


@pytest.mark.parametrize(
    ("text", "recognised", "words"),
    [
        ("订单ORD-001我要退款，行程有变", True, "行程有变"),
        ("ORD-002收到的东西是坏的，质量问题，我要退货", True, "收到的东西是坏的，质量问题"),
        ("ORD-002的冲锋衣尺码不合适，我要退货", True, "冲锋衣尺码不合适"),
        ("ORD-004不想要了", True, "不想要了"),
        ("订单ORD-001我要退款，因为家里老人住院了", False, "因为家里老人住院了"),
        ("Refund ORD-001 please, my plans changed", True, "my plans changed"),
        ("refund order ORD-001, it arrived broken", True, "it arrived broken"),
        ("I'd like a refund for order ORD-001 because I got sick", False, "I'd like a refund because I got sick"),
    ],
)
def test_a_request_that_says_why_gives_the_travellers_words_without_the_asking(text, recognised, words):
    assert reason_words(text, asked=False, recognised=recognised) == words


@pytest.mark.parametrize(
    "text",
    [
        "订单ORD-001我要退款",
        "ORD-001 能退款吗",
        "I'd like a refund for order ord-001",
        "我买的冲锋衣想退了，订单号 ORD-003",
    ],
)
def test_a_request_that_does_not_say_why_gives_no_reason(text):
    assert reason_words(text, asked=False, recognised=False) is None


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("行程有变", "行程有变"),
        ("家里有事", "家里有事"),
        ("I'm moving abroad", "I'm moving abroad"),
        ("。。行程有变！", "行程有变"),
    ],
)
def test_an_answer_to_why_is_the_reason_whatever_it_says(text, words):
    assert reason_words(text, asked=True, recognised=False) == words


@pytest.mark.parametrize("text", ["嗯", "ORD-004", "我要退款", "please", ""])
def test_an_answer_with_nothing_but_asking_words_is_no_reason(text):
    assert reason_words(text, asked=True, recognised=False) is None
