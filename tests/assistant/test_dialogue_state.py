"""The dialogue state: the conversation keeps its task apart from its slots.

First the rules of `assistant.conversation_state` on intents built by hand (no database), then whole conversations through
`POST /api/v1/assistant/chat` with the rules engine, asserting the cards and replies a traveller sees."""

import datetime as dt
from decimal import Decimal

import pytest

from assistant.conversation_state import next_state, remembered
from assistant.llm.schema import Intent
from assistant.llm.tool_calls import tool_call_for
from assistant.memory import Memory, memory_from, memory_load
from bookings.models import BookingRecord
from tests.assistant.conftest import TODAY, Chat
from tests.factories import ActivityFactory

OFFERED = ["FLIGHT|MU5101|2026-12-19|上海|成都|经济舱", "FLIGHT|CA4501|2026-12-19|上海|成都|经济舱"]


def said(memory: Memory, text: str, **understood):
    """One turn of the rules: the step for `text`, understood as `understood`."""
    return next_state(memory, Intent(**understood), text)


def after(step, *, awaiting=None, offered=()):
    return remembered(step, awaiting=awaiting, offered=list(offered))


def weather_in_dali() -> Memory:
    step = said(Memory(), "大理天气怎么样", intent="QUERY_WEATHER", destination_keywords=["大理"], city="大理")
    return after(step)


# --- follow-ups continue the task -----------------------------------------------------------------------------------


def test_a_place_alone_after_a_weather_answer_is_the_weather_of_that_place():
    step = said(
        weather_in_dali(),
        "那丽江呢",
        intent="SEARCH_ACTIVITIES",
        destination_keywords=["丽江"],
        city="丽江",
        follow_up=True,
    )

    assert step.intent.intent == "QUERY_WEATHER"
    assert (step.intent.city, step.intent.destination_keywords) == ("丽江", ["丽江"])
    assert tool_call_for(step.intent).arguments["place"] == "丽江"


def test_a_new_length_after_a_plan_replans_the_same_place_for_that_many_days():
    plan = after(
        said(Memory(), "帮我规划大理三天行程", intent="MAKE_TRAVEL_PLAN", destination_keywords=["大理"], days=3)
    )

    step = said(plan, "改成四天吧", intent="SEARCH_ACTIVITIES", days=4)

    assert (step.intent.intent, step.intent.days, step.intent.destination_keywords) == (
        "MAKE_TRAVEL_PLAN",
        4,
        ["大理"],
    )


@pytest.mark.parametrize(
    ("text", "understood"),
    [
        ("要便宜一点的", {"intent": "SEARCH_ACTIVITIES", "sort": "CHEAPEST"}),
        ("ok now the cheapest one", {"intent": "OUT_OF_SCOPE", "sort": "CHEAPEST", "follow_up": True}),
        ("cheaper please", {"intent": "SEARCH_ACTIVITIES", "follow_up": True}),  # no slot read: the flag continues
    ],
)
def test_cheaper_after_a_comparison_compares_the_same_trip_again_cheapest_first(text, understood):
    comparison = Memory(
        task="PLAN_ITINERARY",
        slots={"origin": "上海", "city": "杭州", "date_start": "2026-12-05", "date_end": "2026-12-07"},
        request="12月5号从上海去杭州，12月7号回来，帮我比较一下交通和酒店方案",
    )

    step = said(comparison, text, **understood)

    intent = step.intent
    assert (intent.intent, intent.origin, intent.city) == ("PLAN_ITINERARY", "上海", "杭州")
    assert (intent.date_start, intent.date_end) == (dt.date(2026, 12, 5), dt.date(2026, 12, 7))
    assert step.request_text.startswith("12月5号从上海去杭州") and step.request_text.endswith(text)


def test_a_preference_after_booking_options_books_the_same_trip_with_it():
    options = Memory(
        task="BOOK",
        slots={"biz_type": "FLIGHT", "origin": "上海", "city": "成都", "date_start": "2026-12-19"},
        offered=OFFERED,
    )

    step = said(options, "要早上的", intent="OUT_OF_SCOPE", time_band="MORNING")

    intent = step.intent
    assert (intent.intent, intent.biz_type, intent.origin, intent.city) == ("BOOK", "FLIGHT", "上海", "成都")
    assert (intent.time_band, intent.date_start) == ("MORNING", dt.date(2026, 12, 19))


def test_another_product_for_the_same_trip_keeps_the_route_and_drops_the_option_named():
    options = Memory(
        task="BOOK",
        slots={"biz_type": "FLIGHT", "origin": "北京", "city": "天津", "date_start": "2026-12-02", "number": "MU1"},
        offered=OFFERED,
    )

    step = said(options, "算了还是高铁吧", intent="BOOK", biz_type="TRAIN")

    assert (step.intent.biz_type, step.intent.origin, step.intent.city) == ("TRAIN", "北京", "天津")
    assert step.intent.number is None


# --- corrections and negations --------------------------------------------------------------------------------------


def test_a_correction_replaces_the_place_and_excludes_the_wrong_one():
    hangzhou = Memory(task="SEARCH_ACTIVITIES", slots={"destination_keywords": ["杭州"], "city": "杭州"})

    step = said(
        hangzhou,
        "不对，是苏州不是杭州",
        intent="SEARCH_ACTIVITIES",
        destination_keywords=["苏州", "杭州"],
        city="苏州",
        exclude_places=["杭州"],
        correction=True,
    )

    assert (step.intent.destination_keywords, step.intent.city) == (["苏州"], "苏州")
    assert step.intent.exclude_places == ["杭州"] and step.memory.excluded == ["杭州"]


def test_a_correction_that_names_only_the_right_place_still_excludes_the_replaced_one():
    hangzhou = Memory(task="QUERY_WEATHER", slots={"destination_keywords": ["杭州"], "city": "杭州"})

    step = said(hangzhou, "I meant Suzhou", intent="OUT_OF_SCOPE", destination_keywords=["苏州"], correction=True)

    assert (step.intent.intent, step.intent.destination_keywords) == ("QUERY_WEATHER", ["苏州"])
    assert step.memory.excluded == ["杭州"]


def test_a_negation_alone_searches_everywhere_but_the_excluded_place():
    step = said(
        Memory(),
        "不想去三亚",
        intent="SEARCH_ACTIVITIES",
        destination_keywords=["三亚"],
        city="三亚",
        exclude_places=["三亚"],
    )

    assert step.intent.intent == "SEARCH_ACTIVITIES"
    assert (step.intent.destination_keywords, step.intent.city, step.intent.exclude_places) == ([], None, ["三亚"])
    call = tool_call_for(step.intent)
    assert call.name == "search_activities" and call.arguments["exclude_places"] == ["三亚"]


def test_a_negation_after_a_province_search_keeps_the_province_and_remembers_the_exclusion():
    hainan = after(said(Memory(), "海南有什么活动", intent="SEARCH_ACTIVITIES", province="海南"))

    step = said(hainan, "NOT sanya", intent="OUT_OF_SCOPE", exclude_places=["三亚"])
    later = said(after(step), "下周末呢", intent="SEARCH_ACTIVITIES", date_start="2026-12-12", date_end="2026-12-13")

    assert (step.intent.province, step.intent.exclude_places) == ("海南", ["三亚"])
    assert (later.intent.province, later.intent.exclude_places) == ("海南", ["三亚"])


# --- new requests start fresh ---------------------------------------------------------------------------------------


def beijing_activities() -> Memory:
    step = said(
        Memory(),
        "北京下周末500以内有什么活动",
        intent="SEARCH_ACTIVITIES",
        destination_keywords=["北京"],
        city="北京",
        date_start="2026-12-12",
        date_end="2026-12-13",
        max_price=500,
    )
    return after(step)


def test_a_new_place_starts_fresh_without_the_earlier_dates_or_budget():
    step = said(beijing_activities(), "三亚 1块钱以内的活动", intent="SEARCH_ACTIVITIES", city="三亚", max_price=1)

    intent = step.intent
    assert (intent.city, intent.destination_keywords, intent.max_price) == ("三亚", [], 1)
    assert (intent.date_start, intent.date_end) == (None, None)


def test_a_keyword_of_its_own_never_shows_the_earlier_place():
    step = said(beijing_activities(), "火星上有什么活动", intent="SEARCH_ACTIVITIES", destination_keywords=["火星"])

    assert (step.intent.destination_keywords, step.intent.city, step.intent.max_price) == (["火星"], None, None)


def test_a_new_request_without_a_place_keeps_the_place_and_time_only():
    step = said(beijing_activities(), "天气怎么样", intent="QUERY_WEATHER")

    intent = step.intent
    assert (intent.intent, intent.city, intent.date_start) == ("QUERY_WEATHER", "北京", dt.date(2026, 12, 12))
    assert intent.max_price is None


# --- side questions, greetings, picks -------------------------------------------------------------------------------


def booking_waiting_for_the_contact() -> Memory:
    return Memory(
        task="BOOK",
        slots={"biz_type": "HOTEL", "destination_keywords": ["杭州"], "city": "杭州", "date_start": "2026-12-10"}
        | {"date_end": "2026-12-12"},
        awaiting="booking",
        request="帮我订杭州的酒店，12月10日入住，12日退房",
        offered=["HOTEL|HZ001|2026-12-10|2026-12-12|杭州|"],
    )


def test_a_side_question_is_answered_with_the_task_s_day_and_the_task_waits_aside():
    step = said(
        booking_waiting_for_the_contact(),
        "杭州那天天气怎么样",
        intent="QUERY_WEATHER",
        destination_keywords=["杭州"],
        city="杭州",
        same_time=True,
    )

    assert (step.intent.intent, step.intent.city, step.intent.date_start) == (
        "QUERY_WEATHER",
        "杭州",
        dt.date(2026, 12, 10),
    )
    assert step.memory.suspended["task"] == "BOOK" and step.memory.suspended["awaiting"] == "booking"


@pytest.mark.parametrize(
    ("text", "understood"),
    [
        ("13800000000", {"intent": "OUT_OF_SCOPE", "mobile": "13800000000"}),
        ("张三 13800000000", {"intent": "OUT_OF_SCOPE", "passengers": [{"name": "张三", "mobile": "13800000000"}]}),
        ("就订第一个", {"intent": "BOOK", "pick": 1}),
    ],
)
def test_after_the_side_question_the_answer_resumes_the_task_with_all_its_slots(text, understood):
    aside = after(said(booking_waiting_for_the_contact(), "杭州那天天气怎么样", intent="QUERY_WEATHER", city="杭州"))
    assert aside.task == "QUERY_WEATHER" and aside.offered == []

    step = said(aside, text, **understood)

    intent = step.intent
    assert (intent.intent, intent.biz_type, intent.city) == ("BOOK", "HOTEL", "杭州")
    assert (intent.date_start, intent.date_end) == (dt.date(2026, 12, 10), dt.date(2026, 12, 12))
    assert step.memory.offered == ["HOTEL|HZ001|2026-12-10|2026-12-12|杭州|"] and step.memory.suspended is None
    assert step.request_text.startswith("帮我订杭州的酒店") and step.request_text.endswith(text)


def test_a_follow_up_of_the_side_question_is_still_on_the_side():
    aside = after(said(booking_waiting_for_the_contact(), "杭州那天天气怎么样", intent="QUERY_WEATHER", city="杭州"))

    step = said(aside, "那北京呢", intent="SEARCH_ACTIVITIES", city="北京", follow_up=True)

    assert (step.intent.intent, step.intent.city) == ("QUERY_WEATHER", "北京")
    assert step.memory.suspended["task"] == "BOOK"


@pytest.mark.parametrize("social", ["THANKS", "GREETING", "HELP", None])
def test_greetings_thanks_help_and_refusals_leave_the_task_as_it_was(social):
    waiting = booking_waiting_for_the_contact()

    step = said(waiting, "谢谢", intent="OUT_OF_SCOPE", social=social)

    assert step.intent.intent == "OUT_OF_SCOPE" and step.keep
    assert after(step, awaiting=None) == waiting


def test_progress_after_an_after_sale_request_is_about_the_same_order():
    request = after(
        said(Memory(), "ORD-002退款", intent="AFTERSALE", order_id="ORD-002", aftersale_action="REFUND"),
        awaiting=None,
    )

    step = said(request, "进度呢", intent="QUERY_PROGRESS")

    assert (step.intent.intent, step.intent.order_id) == ("QUERY_PROGRESS", "ORD-002")


def test_a_pick_among_the_offered_options_continues_the_booking_and_the_options_stay_pickable():
    options = Memory(
        task="BOOK",
        slots={"biz_type": "FLIGHT", "origin": "上海", "city": "成都", "date_start": "2026-12-19"},
        offered=OFFERED,
    )

    step = said(options, "第二个", intent="OUT_OF_SCOPE", pick=2)
    kept = after(step, awaiting="booking")  # the reply asked for the contact, offering nothing new

    assert (step.intent.intent, step.intent.pick, step.memory.offered) == ("BOOK", 2, OFFERED)
    assert kept.offered == OFFERED and kept.slots["pick"] == 2
    assert "pick" not in after(step, offered=["TRAIN|G1|2026-12-19|上海|成都|二等座"]).slots


def test_a_memory_cached_by_the_older_version_or_damaged_still_loads():
    old = memory_from({"intent": "QUERY_WEATHER", "slots": {"city": "大理"}, "awaiting": None, "request": ""})
    damaged = memory_from({"task": 3, "slots": [], "offered": "x", "suspended": {"task": None}, "excluded": [1]})

    assert (old.task, old.slots, old.offered, old.suspended) == ("QUERY_WEATHER", {"city": "大理"}, [], None)
    assert damaged == Memory()
    assert memory_from(None) == Memory()


# --- whole conversations through the chat API -----------------------------------------------------------------------


@pytest.fixture
def chat(db, alice, settings):
    settings.ASSISTANT_AGENT_ENABLED = False
    settings.ASSISTANT_LLM_PROVIDER = "rules"
    return Chat(alice)


def activity(title, city, province, price=200, **extra):
    return ActivityFactory(
        title=title,
        city=city,
        province=province,
        price=Decimal(price),
        start_date=TODAY,
        end_date=TODAY + dt.timedelta(days=60),
        **extra,
    )


def cards_of(answer: dict, kind: str) -> list[dict]:
    return [c for c in answer["cards"] if c["type"] == kind]


def cities(answer: dict) -> set[str]:
    return {c["city"] for c in cards_of(answer, "activity")}


def test_chat_the_weather_of_another_place_after_a_weather_answer(chat):
    chat.say("大理天气怎么样")

    answer = chat.say("那丽江呢")

    (card,) = cards_of(answer, "weather")
    assert card["place"] == "丽江", answer["reply"]
    assert "丽江" in answer["reply"] and not cards_of(answer, "activity")


def test_chat_a_three_day_plan_made_four_days_long(chat):
    activity("大理古城漫游", "大理", "云南")
    activity("洱海骑行", "大理", "云南")
    first = chat.say("帮我规划大理三天行程")
    assert len(cards_of(first, "travel_plan")[0]["days"]) == 3

    answer = chat.say("改成四天吧")

    (plan,) = cards_of(answer, "travel_plan")
    assert len(plan["days"]) == 4 and plan["destination"] == "大理", answer["reply"]


def test_chat_a_correction_shows_the_right_place_only(chat):
    activity("西湖夜游", "杭州", "浙江")
    activity("拙政园导览", "苏州", "江苏")
    assert cities(chat.say("杭州有什么活动")) == {"杭州"}

    answer = chat.say("不对，是苏州不是杭州")

    assert cities(answer) == {"苏州"}, answer["reply"]


def test_chat_a_negation_shows_everywhere_else(chat):
    activity("三亚潜水", "三亚", "海南")
    activity("大理古城漫游", "大理", "云南")
    activity("西湖夜游", "杭州", "浙江")

    answer = chat.say("不想去三亚")

    assert cities(answer) and "三亚" not in cities(answer), answer["reply"]


def test_chat_an_unknown_place_never_shows_the_previous_place(chat):
    activity("故宫讲解", "北京", "北京")
    assert cities(chat.say("北京有什么活动")) == {"北京"}

    answer = chat.say("火星上有什么活动")

    assert not cards_of(answer, "activity"), answer["reply"]
    assert "北京" not in answer["reply"]


def test_chat_a_new_place_with_a_budget_forgets_the_earlier_dates(chat):
    activity("三亚潜水", "三亚", "海南", price=220)
    activity("天涯海角门票", "三亚", "海南", price=1)
    chat.say("北京12月12号有什么活动")

    answer = chat.say("三亚 1块钱以内的活动")

    assert [c["title"] for c in cards_of(answer, "activity")] == ["天涯海角门票"], answer["reply"]
    assert answer["intent"]["date_start"] is None


def test_chat_thanks_in_the_middle_of_a_weather_question_keeps_it(chat):
    asked = chat.say("天气怎么样")
    assert asked["outcome"] == "CLARIFY"

    chat.say("谢谢")
    answer = chat.say("大理")

    assert cards_of(answer, "weather")[0]["place"] == "大理", answer["reply"]


def test_chat_a_side_question_during_a_booking_then_the_contact_continues_the_booking(chat, supplier_sandbox):
    first = chat.say("帮我订12月19号上海飞成都的机票")
    assert first["intent"]["intent"] == "BOOK"

    side = chat.say("成都那天天气怎么样")

    (weather,) = cards_of(side, "weather")
    assert weather["place"] == "成都" and weather["days"][0]["date"] == "2026-12-19", side["reply"]
    assert memory_load(chat.session).suspended["task"] == "BOOK"

    answer = chat.say("张三 13800000000")

    intent = answer["intent"]
    assert (intent["intent"], intent["biz_type"], intent["origin"]) == ("BOOK", "FLIGHT", "上海"), answer["reply"]
    assert intent["date_start"] == "2026-12-19" and "成都" in (intent["city"], *intent["destination_keywords"])
    assert not cards_of(answer, "weather")
    assert not BookingRecord.objects.exists()  # nothing is booked before the traveller confirms


COMPARISON = "12月5号从上海去杭州，12月7号回来，帮我比较一下交通和酒店方案"


def comparison_plans(answer: dict) -> dict[str, dict]:
    (card,) = cards_of(answer, "plan_comparison")
    return {plan["name"]: plan for plan in card["plans"]}


@pytest.mark.parametrize("cheaper", ["要便宜一点的", "ok now the cheapest one"])
def test_chat_cheaper_after_a_comparison_compares_the_same_trip_cheapest_first(chat, supplier_sandbox, cheaper):
    neutral = comparison_plans(chat.say(COMPARISON))

    answer = chat.say(cheaper)

    assert answer["intent"]["intent"] == "PLAN_ITINERARY", answer["reply"]
    (card,) = cards_of(answer, "plan_comparison")
    assert (card["origin"], card["destination"], card["depart_date"]) == ("上海", "杭州", "2026-12-05")
    plans = comparison_plans(answer)
    assert plans["best_preference"]["total_price"] == plans["cheapest"]["total_price"]
    assert plans["best_preference"]["total_price"] <= neutral["best_preference"]["total_price"]
    assert not cards_of(answer, "activity")


def test_chat_progress_after_a_refund_request_is_about_that_order(db, settings):
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    settings.ASSISTANT_AGENT_ENABLED = False
    call_command("seed_demo", verbosity=0)
    chat = Chat(get_user_model().objects.get(username="alice"))
    chat.say("订单ORD-001我要退款，行程有变")
    chat.say("确认")

    answer = chat.say("进度呢")

    assert (answer["intent"]["intent"], answer["intent"]["order_id"]) == ("QUERY_PROGRESS", "ORD-001")
    assert [c["entity"] for c in cards_of(answer, "ticket")] == ["ORD-001"], answer["reply"]


@pytest.mark.parametrize(
    ("first", "then", "intent", "place"),
    [
        ("What's the weather in Dali?", "what about Lijiang?", "QUERY_WEATHER", "丽江"),
        ("大理有什么活动", "那边天气怎么样", "QUERY_WEATHER", "大理"),
        ("Plan 3 days in Dali", "make it 4 days", "MAKE_TRAVEL_PLAN", "大理"),
        ("杭州有什么活动", "要便宜一点的", "SEARCH_ACTIVITIES", "杭州"),
        ("Activities in Hangzhou", "I meant Suzhou", "SEARCH_ACTIVITIES", "苏州"),
    ],
)
def test_chat_a_follow_up_keeps_the_task_in_either_language(chat, first, then, intent, place):
    activity("西湖夜游", "杭州", "浙江", price=300)
    activity("西湖游船", "杭州", "浙江", price=80)
    activity("拙政园导览", "苏州", "江苏")
    chat.say(first)

    answer = chat.say(then)

    assert answer["intent"]["intent"] == intent, answer["reply"]
    assert place in (answer["intent"]["city"], *answer["intent"]["destination_keywords"]), answer["intent"]


def test_chat_cheaper_activities_are_shown_cheapest_first(chat):
    activity("西湖夜游", "杭州", "浙江", price=300, popularity=90)
    activity("西湖游船", "杭州", "浙江", price=80, popularity=10)
    activity("灵隐寺导览", "杭州", "浙江", price=150, popularity=50)
    assert [c["title"] for c in cards_of(chat.say("杭州有什么活动"), "activity")][0] == "西湖夜游"

    answer = chat.say("要便宜一点的")

    # cheapest first, under the dearest price shown (¥300): cheaper than what was on screen
    assert [c["title"] for c in cards_of(answer, "activity")] == ["西湖游船", "灵隐寺导览"]


def test_chat_a_negation_after_a_province_keeps_the_province_without_that_place(chat):
    activity("三亚潜水", "三亚", "海南")
    activity("骑楼老街", "海口", "海南")
    activity("大理古城漫游", "大理", "云南")
    assert cities(chat.say("海南有什么活动")) == {"三亚", "海口"}

    answer = chat.say("不想去三亚")

    assert cities(answer) == {"海口"}, answer["reply"]


def test_the_search_tool_leaves_out_excluded_places_and_bounds_them(db, alice):
    from assistant.agent import default_registry
    from core.tools import ToolContext

    activity("三亚潜水", "三亚", "海南", price=300)
    kept = activity("骑楼老街", "海口", "海南", price=100)
    context = ToolContext(user=alice, conversation_id="c1", language="zh-hans", today=TODAY)

    found = default_registry().call("search_activities", {"exclude_places": [" 三亚 "], "sort": "CHEAPEST"}, context)
    refused = default_registry().call("search_activities", {"exclude_places": ["x" * 51]}, context)
    not_text = default_registry().call("search_activities", {"exclude_places": ["三亚\x00"]}, context)

    assert found["ok"] and found["data"]["activity_ids"] == [kept.pk]
    assert (found["data"]["query"]["exclude_places"], found["data"]["query"]["sort"]) == (["三亚"], "CHEAPEST")
    assert refused["ok"] is False and refused["code"] == "INVALID_PARAM"
    assert not_text["ok"] is False and not_text["code"] == "INVALID_PARAM" and "NUL" in not_text["message"]


# --- a day said from the date the conversation has --------------------------------------------------------------------

TRAIN_ON_WEDNESDAY = dict(intent="BOOK", biz_type="TRAIN", origin="北京", destination_keywords=["上海"], city="上海")


def booking_on(day: dt.date) -> Memory:
    step = said(Memory(), "帮我订北京到上海的火车", **TRAIN_ON_WEDNESDAY, date_start=day)
    return after(step, awaiting="booking", offered=OFFERED)


@pytest.mark.parametrize(
    ("said_before", "reading", "day"),
    [
        (dt.date(2026, 12, 9), {"weekday": 3, "date_start": dt.date(2026, 12, 3), "correction": True}, (2026, 12, 10)),
        (dt.date(2026, 12, 9), {"weekday": 0, "date_start": dt.date(2026, 12, 7)}, (2026, 12, 7)),
        (dt.date(2026, 12, 13), {"weekday": 4, "date_start": dt.date(2026, 12, 4)}, (2026, 12, 11)),
        (dt.date(2026, 12, 10), {"day_offset": -1}, (2026, 12, 9)),
        (dt.date(2026, 12, 31), {"day_offset": 1}, (2027, 1, 1)),
    ],
)
def test_a_day_said_from_the_conversations_date_is_counted_from_it(said_before, reading, day):
    step = said(booking_on(said_before), "不对，是那天", intent="BOOK", follow_up=True, **reading)

    assert step.intent.intent == "BOOK" and step.intent.date_start == dt.date(*day)
    assert step.intent.origin == "北京" and step.intent.city == "上海"  # the rest of the booking stays


def test_a_weekday_of_another_trip_is_counted_from_today():
    step = said(
        booking_on(dt.date(2026, 12, 9)),
        "帮我订周四去成都的机票",
        intent="BOOK",
        biz_type="FLIGHT",
        destination_keywords=["成都"],
        city="成都",
        weekday=3,
        date_start=dt.date(2026, 12, 3),
    )

    assert step.intent.date_start == dt.date(2026, 12, 3)


def test_a_weekday_with_no_date_in_the_conversation_is_the_readers():
    step = said(Memory(), "周四北京到上海的火车", **TRAIN_ON_WEDNESDAY, weekday=3, date_start=dt.date(2026, 12, 3))

    assert step.intent.date_start == dt.date(2026, 12, 3)


def test_a_pick_or_who_travels_keeps_the_options_on_screen_and_a_new_want_does_not():
    waiting = booking_on(dt.date(2026, 12, 9))

    assert said(waiting, "选第2个", intent="BOOK", pick=2).intent.same_options
    assert said(waiting, "张三", intent="BOOK", passengers=[{"name": "张三"}], follow_up=True).intent.same_options
    assert not said(waiting, "要早上的", intent="BOOK", time_band="MORNING", follow_up=True).intent.same_options
