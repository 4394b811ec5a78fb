"""The conversation's state comes from the reading that served the turn.

What the dialogue needs to know of a sentence (does it only follow up, ask for activities of its own, point back at
the task's time, give a mobile, say yes or no to the card) is a field of the reading: the rules engine fills it in
(first half), and `assistant.conversation_state.next_state` decides from it alone (second half: readings built by hand, as a
model would return them, for sentences whose words say otherwise)."""

import datetime as dt

import pytest

from assistant.conversation_state import next_state, remembered
from assistant.llm.port import UnderstandContext
from assistant.llm.rules import RulesLLM
from assistant.llm.schema import Intent
from assistant.memory import Memory
from tests.assistant.test_dialogue_state import booking_waiting_for_the_contact

TODAY = dt.date(2026, 12, 1)


@pytest.fixture(scope="module")
def llm():
    return RulesLLM()


def read(llm, text, pending=None) -> Intent:
    return llm.understand(text, context=UnderstandContext(today=TODAY, pending_intent=pending)).intent


# --- the rules engine reads what the dialogue needs ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "weekday"),
    [("不对，是周四", 3), ("周五吧", 4), ("礼拜一", 0), ("actually Thursday", 3), ("no, Friday then", 4)],
)
def test_a_weekday_with_no_week_named_is_read_as_that_weekday(llm, text, weekday):
    intent = read(llm, text, pending="BOOK")

    assert intent.weekday == weekday and intent.date_start is not None and intent.date_start.weekday() == weekday
    assert not intent.passengers  # a day, not a name


@pytest.mark.parametrize("text", ["下周四", "next Thursday", "12月10日", "this Friday"])
def test_a_day_of_a_named_week_or_a_date_is_no_bare_weekday(llm, text):
    assert read(llm, text, pending="BOOK").weekday is None


@pytest.mark.parametrize(
    ("text", "offset"),
    [("不对，是前一天", -1), ("那就后一天吧", 1), ("第二天", 1), ("the day before", -1), ("make it the day after", 1),
     ("the next day", 1)],
)  # fmt: skip
def test_a_day_before_or_after_the_one_said_is_an_offset_not_a_date(llm, text, offset):
    intent = read(llm, text, pending="BOOK")

    assert (intent.intent, intent.day_offset, intent.date_start, intent.days) == ("BOOK", offset, None, None)
    assert not intent.rebook


@pytest.mark.parametrize("text", ["the day after tomorrow", "提前一天", "往后推一天", "后天"])
def test_a_date_or_a_move_of_a_booking_is_no_offset(llm, text):
    assert read(llm, text, pending="BOOK").day_offset is None


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


# --- the dialogue decides from the reading, not from the words ------------------------------------------------------


def said(memory: Memory, text: str, **understood):
    return next_state(memory, Intent(**understood), text)


def weather_in_dali() -> Memory:
    step = said(Memory(), "大理天气怎么样", intent="QUERY_WEATHER", destination_keywords=["大理"], city="大理")
    return remembered(step, awaiting=None, offered=[])


def test_a_reading_that_is_no_follow_up_starts_a_new_search_however_the_sentence_sounds():
    step = said(weather_in_dali(), "那丽江呢", intent="SEARCH_ACTIVITIES", city="丽江", destination_keywords=["丽江"])

    assert (step.intent.intent, step.intent.city) == ("SEARCH_ACTIVITIES", "丽江")
    assert step.memory.task == "SEARCH_ACTIVITIES"


def test_a_follow_up_reading_continues_the_task_though_a_word_of_the_sentence_is_about_sightseeing():
    step = said(
        weather_in_dali(),
        "what about Lijiang? I want to see if it rains",
        intent="SEARCH_ACTIVITIES",
        city="丽江",
        destination_keywords=["丽江"],
        follow_up=True,
    )

    assert (step.intent.intent, step.intent.city) == ("QUERY_WEATHER", "丽江")


def test_a_reading_that_asks_for_activities_of_a_new_place_is_a_request_of_its_own_in_any_words():
    step = said(
        weather_in_dali(),
        "丽江呢，有啥可逛的",
        intent="SEARCH_ACTIVITIES",
        city="丽江",
        destination_keywords=["丽江"],
        follow_up=True,
        asks_activities=True,
    )

    assert (step.intent.intent, step.intent.city) == ("SEARCH_ACTIVITIES", "丽江")


def test_a_side_question_keeps_the_tasks_day_when_the_reading_says_it_means_that_time():
    step = said(
        booking_waiting_for_the_contact(),
        "杭州那会儿天气怎么样",
        intent="QUERY_WEATHER",
        city="杭州",
        same_time=True,
    )

    assert (step.intent.intent, step.intent.date_start) == ("QUERY_WEATHER", dt.date(2026, 12, 10))
    assert step.memory.suspended["task"] == "BOOK"


def test_a_side_question_about_another_place_drops_the_tasks_day_when_the_reading_does_not_point_back():
    step = said(
        booking_waiting_for_the_contact(), "then what's the weather in Suzhou?", intent="QUERY_WEATHER", city="苏州"
    )

    assert (step.intent.intent, step.intent.city, step.intent.date_start) == ("QUERY_WEATHER", "苏州", None)


def test_a_mobile_the_reading_found_answers_the_bookings_question_whatever_its_digits_looked_like():
    step = said(
        booking_waiting_for_the_contact(), "电话一三八零零零零零零零零", intent="OUT_OF_SCOPE", mobile="13800000000"
    )

    assert step.keep is False
    assert (step.intent.intent, step.intent.city) == ("BOOK", "杭州")
    assert step.request_text.endswith("电话一三八零零零零零零零零")


def test_digits_the_reading_did_not_take_for_a_mobile_leave_the_booking_as_it_was():
    waiting = booking_waiting_for_the_contact()

    step = said(waiting, "13800000000", intent="OUT_OF_SCOPE")

    assert step.keep is True
    assert step.memory == waiting


def refund_asking_why() -> Memory:
    return Memory(
        task="AFTERSALE",
        slots={"order_id": "ORD-001", "aftersale_action": "REFUND"},
        awaiting="reason",
        request="ORD-001 我要退款",
    )


def test_a_yes_in_the_reading_is_no_reason_for_a_refund_though_no_word_list_knows_it():
    step = said(refund_asking_why(), "sounds about right to me", intent="OUT_OF_SCOPE", answer="YES")

    assert step.intent.aftersale_words is None


def test_words_the_reading_does_not_take_for_a_yes_are_the_travellers_reason():
    step = said(refund_asking_why(), "确认", intent="OUT_OF_SCOPE")

    assert step.intent.aftersale_words == "确认"


@pytest.mark.parametrize("text", ["那上海呢", "上海呢", "what about Shanghai?", "and Shanghai?"])
def test_another_place_said_as_a_follow_up_keeps_the_searchs_budget_in_every_wording(llm, text):
    search = remembered(
        said(Memory(), "北京300以内的活动", intent="SEARCH_ACTIVITIES", city="北京", max_price=300),
        awaiting=None,
        offered=[],
    )

    step = next_state(search, read(llm, text), text)

    assert (step.intent.intent, step.intent.city, step.intent.max_price) == ("SEARCH_ACTIVITIES", "上海", 300)
