"""What a request for a person reads as (the rules engine, no database): asking words with words for a person who
serves, a person asked to act, a refusal of the bot and complaint words read as HANDOVER (a complaint flagged), in
either language; words about people that ask for nobody, a person declined, and a complaint that asks for money back
read as what they ask."""

import pytest

from assistant.llm.port import UnderstandContext
from assistant.llm.rules import RulesLLM
from tests.assistant.conftest import TODAY


def read(text: str, pending: str | None = None):
    return RulesLLM().understand(text, context=UnderstandContext(today=TODAY, pending_intent=pending)).intent


@pytest.mark.parametrize(
    "sentence",
    [
        "麻烦转一下人工",
        "帮我叫客服",
        "我需要真人服务",
        "能让工作人员打电话给我吗",
        "人工服务在哪",
        "你们负责人来处理一下",
        "跟机器人说不清楚",
        "could you get me a human",
        "I'd prefer to speak to customer service",
        "please transfer me to a live agent",
        "put me through to a manager",
        "I need somebody from support staff",
    ],
)
def test_a_request_for_a_person_reads_as_a_hand_over(sentence):
    reading = read(sentence)

    assert reading.intent == "HANDOVER" and reading.complaint is False


@pytest.mark.parametrize(
    "sentence", ["我想投诉一下这家民宿", "我要举报你们的司机", "I want to complain about the guide"]
)
def test_a_complaint_reads_as_a_hand_over_flagged_as_a_complaint(sentence):
    reading = read(sentence)

    assert reading.intent == "HANDOVER" and reading.complaint is True


@pytest.mark.parametrize("pending", ["BOOK", "SEARCH_ACTIVITIES", "AFTERSALE"])
def test_asking_for_a_person_in_the_middle_of_a_task_is_no_follow_up_of_it(pending):
    reading = read("算了，转人工", pending)

    assert reading.intent == "HANDOVER" and reading.follow_up is False


@pytest.mark.parametrize(
    ("sentence", "intent"),
    [
        ("不需要人工客服", "OUT_OF_SCOPE"),
        ("三亚有适合一家人的活动吗", "SEARCH_ACTIVITIES"),
        ("book a hotel room for 3 people in Xi'an tomorrow", "BOOK"),
        ("投诉！酒店没热水，要求退一半房费 ORD-001", "AFTERSALE"),
    ],
)
def test_words_about_people_that_ask_for_no_person_read_as_what_they_ask(sentence, intent):
    assert read(sentence).intent == intent
