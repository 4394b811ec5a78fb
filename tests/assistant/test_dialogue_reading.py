"""What the dialogue needs to know of a sentence is a field of the reading.

Does it only follow up, ask for activities of its own, point back at the task's time, give a mobile, say yes or no
to the card: the rules engine fills these fields in, as a model does."""

import datetime as dt

import pytest

from assistant.llm.port import UnderstandContext
from assistant.llm.rules import RulesLLM
from assistant.llm.schema import Intent

TODAY = dt.date(2026, 12, 1)


@pytest.fixture(scope="module")
def llm():
    return RulesLLM()


def read(llm, text, pending=None) -> Intent:
    return llm.understand(text, context=UnderstandContext(today=TODAY, pending_intent=pending)).intent


# --- the rules engine reads what the dialogue needs ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "那丽江呢",
        "what about Lijiang?",
        "还是大理",
        "北京呢",
        "换个早一点的",
        "cheaper ones?",
        "ok now the cheapest one",
    ],
)
def test_the_rules_engine_reads_a_sentence_that_only_changes_the_task_as_a_follow_up(llm, text):
    assert read(llm, text).follow_up is True


@pytest.mark.parametrize(
    "text", ["三亚 1块钱以内的活动", "丽江有什么好玩的", "things to do in Xiamen", "带我去北京看看景点"]
)
def test_the_rules_engine_reads_a_request_for_activities_of_its_own(llm, text):
    understood = read(llm, text)

    assert understood.asks_activities is True
    assert understood.follow_up is False


@pytest.mark.parametrize("text", ["那丽江呢", "改成四天吧", "Lijiang weather", "帮我订明天去上海的机票"])
def test_a_sentence_that_asks_for_nothing_to_do_is_no_request_for_activities(llm, text):
    assert read(llm, text).asks_activities is False


@pytest.mark.parametrize(
    ("text", "same_time"),
    [
        ("杭州那天天气怎么样", True),
        ("到时候杭州冷不冷", True),
        ("what's the weather in Hangzhou that day", True),
        ("and those days in Suzhou?", True),
        ("杭州天气怎么样", False),
        ("weather in Hangzhou next Monday", False),
    ],
)
def test_the_rules_engine_reads_whether_a_sentence_points_back_at_the_tasks_time(llm, text, same_time):
    assert read(llm, text).same_time is same_time


@pytest.mark.parametrize(
    ("text", "mobile"),
    [
        ("13800000000", "13800000000"),
        ("１３８００００００００", "13800000000"),  # full-width digits
        ("+86 138-0000-0000", "13800000000"),
        ("手机 13912345678，联系人张三", "13912345678"),
        ("my number is 139 1234 5678", "13912345678"),
        ("订单 ORD-001 怎么样了", None),
        ("BK20261201001 帮我取消", None),
    ],
)
def test_the_rules_engine_reads_a_mobile_with_or_without_a_name(llm, text, mobile):
    assert read(llm, text).mobile == mobile


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("确认", "YES"),
        ("好的，就订这个吧", "YES"),
        ("go ahead please", "YES"),
        ("👍", "YES"),
        ("算了，不要了", "NO"),
        ("never mind", "NO"),
        ("可以吗？", None),
        ("第二个", None),
        ("换个早一点的", None),
        ("帮我订明天去上海的机票", None),
    ],
)
def test_the_rules_engine_reads_a_yes_or_a_no_to_the_card(llm, text, answer):
    assert read(llm, text).answer == answer
