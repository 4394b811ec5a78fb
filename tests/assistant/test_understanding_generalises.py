"""The offline engine reads sentences it was not written for (issue 14): places from their slot in the sentence,
homophone typos of places, weather without the word, things we do not do, informal after-sale English, round trips,
conditions; every reading carries a confidence, and an unsure one is asked back ("did you mean …?") in both
channels instead of acted on or refused."""

import datetime as dt
from decimal import Decimal

import pytest

from assistant.llm.port import UnderstandContext
from bookings.models import BookingRecord
from tests.assistant.conftest import TODAY, Chat
from tests.factories import ActivityFactory

pytestmark = pytest.mark.django_db


def read(rules_port, text: str, pending: str | None = None):
    return rules_port.understand(text, context=UnderstandContext(today=TODAY, pending_intent=pending)).intent


def places(intent) -> list[str]:
    return [*intent.destination_keywords, *([intent.city] if intent.city else [])]


# --- homophones from a pinyin keyboard ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "place", "intent"),
    [
        ("杭洲有什么好玩的", "杭州", "SEARCH_ACTIVITIES"),
        ("去厦们玩三天", "厦门", "SEARCH_ACTIVITIES"),
        ("成度明天天气怎么样", "成都", "QUERY_WEATHER"),
        ("西按有什么景点", "西安", "SEARCH_ACTIVITIES"),
        ("苏洲园林有什么推荐", "苏州", "SEARCH_ACTIVITIES"),  # 宿州 sounds the same, but two characters differ
        ("北京到杭洲的高铁", "杭州", "BOOK"),
    ],
)
def test_a_place_typed_with_a_wrong_character_of_the_same_sound_is_that_place(rules_port, text, place, intent):
    got = read(rules_port, text)

    assert got.intent == intent
    assert place in places(got)
    assert not any(p != place and len(p) == len(place) and p[0] == place[0] for p in got.destination_keywords)


@pytest.mark.parametrize(
    "text",
    [
        "这个程度的徒步我能走吗",  # 程度 sounds like 成都 but is a word
        "这样会不会伤害膝盖",  # 伤害 sounds like 上海
        "第一次出国玩，去哪比较合适",  # 较合适 sounds like 蛟河市 but misses it by every character
        "哪里适合周末带狗狗去玩",  # 合周 sounds like 贺州
        "下周去伊宁的航班帮我订",  # 宁的 sounds like 宁德, but 的 is meant: a particle is never the slip
        "每天去哪给安排一下",  # 给安 sounds like 吉安
    ],
)
def test_words_that_sound_like_a_place_are_not_that_place(rules_port, text):
    got = read(rules_port, text)

    assert got.destination_keywords == [] and got.city is None


def test_a_typo_search_shows_the_real_places_activities(alice, settings):
    settings.ASSISTANT_LLM_PROVIDER = "rules"
    ActivityFactory(
        title="西湖夜游",
        city="杭州",
        province="浙江",
        price=Decimal(260),
        start_date=TODAY,
        end_date=TODAY + dt.timedelta(days=30),
    )

    answer = Chat(alice).say("杭洲有什么好玩的")

    assert [c["title"] for c in answer["cards"]] == ["西湖夜游"]
    assert "杭州" in answer["reply"]


# --- places from their slot in the sentence -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected", "intent"),
    [
        ("weather in reykjavik tomorrow", ["reykjavik", "Reykjavik"], "QUERY_WEATHER"),
        ("is it going to hail in Denver", ["Denver"], "QUERY_WEATHER"),
        ("any tornado warnings for Oklahoma City", ["Oklahoma City"], "QUERY_WEATHER"),
        ("is there anything to see near Waikiki beach", ["Waikiki beach"], "SEARCH_ACTIVITIES"),
        ("any walking tours in old town prague", ["old town prague", "Old Town Prague"], "SEARCH_ACTIVITIES"),
        ("I want to go hiking in the Alps", ["Alps"], "SEARCH_ACTIVITIES"),
        ("I need a hotel in Shinjuku for two nights from Dec 12", ["Shinjuku"], "BOOK"),
        ("南锣鼓巷附近有啥好玩的", ["南锣鼓巷"], "SEARCH_ACTIVITIES"),
    ],
)
def test_a_place_no_list_knows_is_taken_from_its_slot_as_written(rules_port, text, expected, intent):
    got = read(rules_port, text)

    assert got.intent == intent
    assert got.destination_keywords[: len(expected)] == expected
    assert got.passengers == []  # "warnings for Oklahoma City" names no traveller


@pytest.mark.parametrize(
    ("text", "chinese", "spelled"),
    [("things to do in paris", "巴黎", "paris"), ("weather in London on friday", "伦敦", "London")],
)
def test_a_known_place_abroad_keeps_the_travellers_spelling_beside_its_chinese_name(rules_port, text, chinese, spelled):
    got = read(rules_port, text)

    assert got.destination_keywords[:2] == [chinese, spelled]


def test_a_phrase_about_who_travels_is_no_place(rules_port):
    got = read(rules_port, "有什么适合带孩子的活动推荐")

    assert got.intent == "RECOMMEND" and got.destination_keywords == []


# --- intents said in other words ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("how humid is it in Guangzhou today", "QUERY_WEATHER"),
        ("will there be a storm in Xiamen this weekend", "QUERY_WEATHER"),
        ("do I need a jacket in Kunming this week", "QUERY_WEATHER"),
        ("深圳今天湿度多少", "QUERY_WEATHER"),
        ("今天有雨吗", "QUERY_WEATHER"),
        ("明天青岛什么天", "QUERY_WEATHER"),
        ("乌镇明天要穿羽绒服吗", "QUERY_WEATHER"),
        ("cancel my 7am alarm", "OUT_OF_SCOPE"),
        ("please cancel the meeting with John tomorrow", "OUT_OF_SCOPE"),
        ("cancel my netflix subscription", "OUT_OF_SCOPE"),
        ("recommend me a good novel", "OUT_OF_SCOPE"),
        ("how do I get a tax refund", "OUT_OF_SCOPE"),
        ("取消明天早上的闹钟", "OUT_OF_SCOPE"),
        ("个税退税怎么申请", "OUT_OF_SCOPE"),
        ("what time is it in tokyo", "OUT_OF_SCOPE"),
        ("I want to return my last order", "AFTERSALE"),
        ("need to return this", "AFTERSALE"),
        ("I want my money back", "AFTERSALE"),
        ("i'd like a refund, the tour was cancelled", "AFTERSALE"),
        ("行程取消了，门票能退吗", "AFTERSALE"),
        ("still no refund for the room I cancelled", "QUERY_PROGRESS"),
        ("roundtrip flights from Shanghai to Chengdu Thursday to Monday", "PLAN_ITINERARY"),
        ("compare prices for flying Beijing to Sanya on Dec 10 returning Dec 14", "PLAN_ITINERARY"),
        ("推荐一个门票20元以下的景点", "SEARCH_ACTIVITIES"),
        ("plan 3 days in Shanghai for a first-timer", "MAKE_TRAVEL_PLAN"),
        ("预算三千，有什么推荐的", "RECOMMEND"),  # a trip's budget, not a condition on one thing
    ],
)
def test_intents_said_in_words_the_engine_was_not_written_for(rules_port, text, intent):
    assert read(rules_port, text).intent == intent


# --- confidence and "did you mean" ------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["大理有什么活动", "三亚下周天气", "帮我写首诗", "大理", "订单ORD-001的退款进度"])
def test_a_clear_reading_is_sure(rules_port, text):
    assert read(rules_port, text).confidence >= 0.5


def test_a_bare_route_is_unsure_and_names_what_else_it_may_be(rules_port):
    got = read(rules_port, "北京到上海")

    assert got.confidence < 0.5
    assert got.alternatives == ["BOOK", "PLAN_ITINERARY"]


def test_the_same_words_continuing_a_task_are_sure(rules_port):
    assert read(rules_port, "北京到上海", pending="BOOK").confidence >= 0.5


def test_an_unsure_request_is_asked_back_with_chips_and_nothing_runs(alice, channel, supplier_sandbox):
    chat = Chat(alice)

    asked = chat.say("北京到上海")

    assert asked["outcome"] == "CLARIFY" and asked["cards"] == []
    assert "不太确定" in asked["reply"] and "抱歉" not in asked["reply"]
    chips = [s["message"] for s in asked["suggestions"]]
    assert chips[:2] == ["预订北京到上海的票", "比较北京到上海的往返交通和酒店方案"]
    assert supplier_sandbox.stats()["orders"]["total"] == 0 and not BookingRecord.objects.exists()

    tapped = chat.say(chips[0])  # the chip reads back with certainty: the booking asks what it still needs

    assert tapped["outcome"] == "CLARIFY" and "不太确定" not in tapped["reply"]
    assert "火车票" in tapped["reply"] and "日期" in tapped["reply"]
