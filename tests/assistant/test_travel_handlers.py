"""QUERY_WEATHER and MAKE_TRAVEL_PLAN end to end: a sentence in, a reply from templates and cards from rows out."""

import datetime as dt
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone

from assistant.dispatcher import dispatch
from assistant.llm.schema import Intent
from assistant.services import chat_turn
from assistant.turn import TurnContext
from itinerary.models import Activity
from tests.assistant.conftest import TODAY
from tests.factories import ActivityFactory
from tests.itinerary.test_weather import Answer, answer_for_the_asked_days, start_fake_open_meteo

pytestmark = pytest.mark.django_db

TOMORROW = TODAY + dt.timedelta(days=1)
SATURDAY = dt.date(2026, 12, 5)


def activity(title, city, province, *, start=TODAY, days=40, tags=("文化",), popularity=10, **extra):
    return ActivityFactory(
        title=title,
        city=city,
        province=province,
        start_date=start,
        end_date=start + dt.timedelta(days=days),
        tags=list(tags),
        popularity=popularity,
        **extra,
    )


def plan_activity_ids(card) -> list[int]:
    return [a["id"] for d in card["days"] for a in d["activities"]]


@pytest.fixture
def open_meteo(settings):
    """Open-Meteo on loopback, configured as the weather provider."""
    fake, server = start_fake_open_meteo()
    settings.WEATHER_PROVIDER = "open_meteo"
    settings.WEATHER_API_URL = fake.url
    settings.WEATHER_TIMEOUT = 1.0
    yield fake
    server.shutdown()
    server.server_close()


# --- QUERY_WEATHER ------------------------------------------------------------------------------------------------


def test_will_it_rain_in_sanya_tomorrow_is_answered_with_labelled_climate_normals_from_tomorrow(alice):
    result = chat_turn(user=alice, message="明天三亚会下雨吗", today=TODAY)

    assert result.outcome == "ANSWERED"
    assert "气候常年值" in result.reply and "不是天气预报" in result.reply
    assert "不常下雨" in result.reply  # the question is answered: December is dry in Sanya
    (card,) = result.cards
    assert card["type"] == "weather" and card["kind"] == "climate_normals" and card["place"] == "三亚"
    assert "不是天气预报" in card["source_note"]
    assert [d["date"] for d in card["days"]] == [(TOMORROW + dt.timedelta(days=i)).isoformat() for i in range(7)]
    assert (card["days"][0]["min"], card["days"][0]["max"]) == (20, 26)


def test_the_weather_in_huangshan_this_weekend_is_answered_in_english(alice):
    result = chat_turn(user=alice, message="What's the weather like in Huangshan this weekend?", today=TODAY)

    assert result.outcome == "ANSWERED"
    assert "climate normals" in result.reply and "not a forecast" in result.reply
    assert "Dec 5 – Dec 6" in result.reply
    assert "Guangmingding" in result.reply  # the summit caveat of the station
    (card,) = result.cards
    assert card["days"][0]["date"] == SATURDAY.isoformat() and len(card["days"]) == 7
    assert card["language"] == "en" and "not a forecast" in card["source_note"]


def test_a_scenic_spot_is_answered_with_the_city_it_stands_for(alice):
    result = chat_turn(user=alice, message="西湖天气怎么样", today=TODAY)

    assert "按杭州的数据" in result.reply
    assert result.cards[0]["station"] == "杭州"


def test_a_weather_question_without_a_place_asks_which_place_with_chips(alice):
    result = chat_turn(user=alice, message="天气怎么样", today=TODAY)

    assert result.outcome == "CLARIFY"
    assert result.reply.startswith("哪里的天气？")
    assert [s["label"] for s in result.suggestions] == ["三亚", "大理", "哈尔滨"]
    assert result.cards == []


def test_the_answer_to_which_place_completes_the_weather_question(alice):
    first = chat_turn(user=alice, message="天气怎么样", today=TODAY)
    second = chat_turn(user=alice, message="大理", conversation_id=first.conversation_id, today=TODAY)

    assert second.intent["intent"] == "QUERY_WEATHER"
    assert second.cards[0]["type"] == "weather" and second.cards[0]["place"] == "大理"


@pytest.mark.parametrize(
    ("language", "expected"), [("zh-hans", "我这里没有火星基地的天气数据"), ("en", "I have no weather for 火星基地")]
)
def test_a_place_without_weather_gets_an_honest_answer_not_a_refusal(alice, language, expected):
    intent = Intent(intent="QUERY_WEATHER", destination_keywords=["火星基地"])

    reply = dispatch(TurnContext(intent=intent, user=alice, today=TODAY, language=language))

    assert reply.outcome == "EMPTY" and expected in reply.text
    assert reply.cards == [] and len(reply.suggestions) == 3


def test_with_a_working_forecast_the_reply_is_the_forecast(alice, open_meteo):
    open_meteo.default = answer_for_the_asked_days()

    result = chat_turn(user=alice, message="明天三亚会下雨吗", today=TODAY)

    assert result.outcome == "ANSWERED"
    assert "天气预报" in result.reply and "Open-Meteo" in result.reply and "常年值" not in result.reply
    assert "可能下雨：12月2日 周三" in result.reply  # the recorded answer's first day: light rain, 85 %
    assert open_meteo.params()["start_date"] == TOMORROW.isoformat()
    card = result.cards[0]
    assert card["kind"] == "forecast" and card["fallback"] is None
    assert (card["days"][0]["condition"], card["days"][0]["probability"]) == ("小雨", 85)  # in the reply's language


@pytest.mark.parametrize(
    ("message", "said"),
    [
        ("明天三亚会下雨吗", "天气预报服务暂时没有响应"),
        ("Will it rain in Sanya tomorrow?", "The weather forecast service is not answering"),
    ],
)
def test_when_the_forecast_fails_the_reply_falls_back_to_normals_and_says_so(alice, open_meteo, message, said):
    open_meteo.default = Answer(status=500, body="oops")

    result = chat_turn(user=alice, message=message, today=TODAY)

    assert len(open_meteo.requests) == 1
    assert result.outcome == "DEGRADED"
    assert said in result.reply
    card = result.cards[0]
    assert card["kind"] == "climate_normals" and card["fallback"] == "unavailable"


def test_a_forecast_that_times_out_falls_back_to_normals_within_the_timeout(alice, open_meteo):
    open_meteo.default = Answer(body="{}", delay=3)

    started = timezone.now()
    result = chat_turn(user=alice, message="明天三亚会下雨吗", today=TODAY)

    assert (timezone.now() - started).total_seconds() < 2.5
    assert result.cards[0]["fallback"] == "unavailable"


# --- MAKE_TRAVEL_PLAN ---------------------------------------------------------------------------------------------


def test_a_three_day_dali_plan_uses_real_published_rows_inside_their_windows_with_weather(alice):
    activity("大理洱海骑行一日游", "大理", "云南", tags=["骑行", "一日游"], popularity=100)
    activity("大理周城扎染亲子体验", "大理", "云南", tags=["亲子", "手工"], popularity=90)
    activity("大理古城夜游", "大理", "云南", tags=["夜游", "文化"], popularity=80)
    activity("大理苍山徒步一日游", "大理", "云南", tags=["徒步", "一日游"], popularity=70)
    activity("大理周一限定茶会", "大理", "云南", start=dt.date(2026, 12, 7), days=0, tags=["茶文化"])
    activity("大理已下架的团", "大理", "云南", tags=["美食"], popularity=999, is_published=False)
    activity("大理过期的团", "大理", "云南", start=TODAY - dt.timedelta(days=30), days=10, popularity=999)
    activity("三亚冲浪课", "三亚", "海南", tags=["海岛"], popularity=999)

    result = chat_turn(user=alice, message="帮我做一个大理3天的行程", today=TODAY)

    assert result.outcome == "ANSWERED"
    (card,) = result.cards
    assert card["type"] == "travel_plan" and card["destination"] == "大理"
    assert (card["start"], card["end"]) == ("2026-12-05", "2026-12-07")
    assert [d["date"] for d in card["days"]] == ["2026-12-05", "2026-12-06", "2026-12-07"]
    ids = plan_activity_ids(card)
    assert len(ids) == len(set(ids)) == 5  # every published Dali row of the window, none twice
    rows = {a.pk: a for a in Activity.objects.filter(pk__in=ids)}
    assert all(rows[i].is_published and rows[i].city == "大理" for i in ids)
    for d in card["days"]:
        date = dt.date.fromisoformat(d["date"])
        assert 1 <= len(d["activities"]) <= 2
        for a in d["activities"]:
            assert rows[a["id"]].start_date <= date <= rows[a["id"]].end_date
            assert a["url"] == f"/activities/{a['id']}/" and a["title"] == rows[a["id"]].title
        assert d["weather"]["date"] == d["date"] and d["weather"]["max"] == 16  # Dali's December normals
    assert "大理周一限定茶会" in [a["title"] for a in card["days"][2]["activities"]]
    assert card["weather_kind"] == "climate_normals" and "不是天气预报" in card["weather_source_note"]
    assert "第1天 12月5日 周六：" in result.reply and "不是预报" in result.reply
    assert "已下架" not in result.reply and "过期" not in result.reply and "三亚" not in result.reply


def test_a_plan_asked_for_more_days_than_a_plan_holds_is_capped_and_says_so(alice):
    activity("大理洱海骑行一日游", "大理", "云南", tags=["骑行", "一日游"], popularity=100)

    result = chat_turn(user=alice, message="帮我做一个大理30天的行程", today=TODAY)

    assert result.outcome == "ANSWERED"
    (card,) = result.cards
    assert card["type"] == "travel_plan" and len(card["days"]) == 14
    assert "行程最长排14天，这次按14天安排" in result.reply


def test_a_plan_with_no_activities_is_not_made_and_says_so_with_chips_to_widen(alice):
    activity("三亚冲浪课", "三亚", "海南", tags=["海岛"])
    activity("大理已下架的团", "大理", "云南", is_published=False)

    result = chat_turn(user=alice, message="帮我规划大理5天行程，预算2000", today=TODAY)

    assert result.outcome == "EMPTY" and result.cards == []
    assert "排不出行程" in result.reply and "2000" in result.reply
    labels = [s["label"] for s in result.suggestions]
    assert labels[:2] == ["不限预算", "大理有什么活动"]
    assert all(s["fresh"] for s in result.suggestions)


def test_unpublished_rows_never_appear_in_a_plan(alice):
    activity("大理已下架的团", "大理", "云南", popularity=999, is_published=False)
    kept = activity("大理扎染体验", "大理", "云南", tags=["手工"])

    result = chat_turn(user=alice, message="帮我做一个大理3天的行程", today=TODAY)

    assert plan_activity_ids(result.cards[0]) == [kept.pk]
    assert "已下架" not in result.reply
    assert [d["flags"][:1] for d in result.cards[0]["days"]] == [[], ["free_day"], ["free_day"]]
    assert "自由活动" in result.reply


def test_an_english_request_gets_an_english_plan(alice):
    activity("三亚后海冲浪入门课", "三亚", "海南", tags=["海岛", "户外"], price=Decimal("380"), popularity=50)
    activity("三亚蜈支洲岛潜水一日游", "三亚", "海南", tags=["海岛", "潜水", "一日游"], popularity=40)

    result = chat_turn(user=alice, message="Plan a 4-day trip to Sanya for me", today=TODAY)

    assert result.outcome == "ANSWERED"
    assert result.reply.startswith("Here is a 4-day plan for Sanya (三亚), Dec 5 – Dec 8")
    assert "Day 1, Sat, Dec 5: " in result.reply and "(¥380)" in result.reply
    assert "climate normals" in result.reply and "not a forecast" in result.reply
    card = result.cards[0]
    assert card["language"] == "en" and card["title"] == "4 days in Sanya (三亚)" and len(card["days"]) == 4
    assert card["days"][2]["note"].startswith("Nothing in the catalogue fits this day")


def test_with_a_forecast_each_rainy_day_of_a_plan_gets_its_note_and_indoor_options_first(alice, open_meteo):
    open_meteo.default = answer_for_the_asked_days()  # the first day asked is light rain, 85 %
    hike = activity("大理苍山徒步一日游", "大理", "云南", tags=["徒步", "一日游"], popularity=100)
    cooking = activity("大理白族菜烹饪课", "大理", "云南", tags=["美食"], popularity=50)

    result = chat_turn(user=alice, message="帮我做一个大理2天的行程", today=TODAY)

    assert open_meteo.params()["start_date"] == SATURDAY.isoformat()
    card = result.cards[0]
    assert card["weather_kind"] == "forecast"
    first, second = card["days"]
    assert first["weather"]["rain_likely"] and first["activities"][0]["id"] == cooking.pk
    assert "indoor_first" in first["flags"] and first["note"] == "可能下雨：室内活动排在前面。"
    assert second["activities"][0]["id"] == hike.pk and second["note"] == ""
    assert "第1天 12月5日 周六：大理白族菜烹饪课（¥1200）；小雨 20～26°C。可能下雨：室内活动排在前面。" in result.reply
    assert "Open-Meteo" in result.reply


def test_a_plan_without_a_destination_asks_where_to_go(alice):
    reply = dispatch(
        TurnContext(intent=Intent(intent="MAKE_TRAVEL_PLAN", days=3), user=alice, today=TODAY, language="zh-hans")
    )

    assert reply.outcome == "CLARIFY" and reply.awaiting == "destination"
    assert "想去哪里" in reply.text and reply.suggestions


# --- the page -----------------------------------------------------------------------------------------------------


def test_the_chat_page_shows_the_weather_and_plan_cards_as_finished_cards(alice):
    today = timezone.localdate()
    ActivityFactory(
        title="大理扎染体验", city="大理", province="云南", start_date=today, end_date=today + dt.timedelta(days=60)
    )
    client = Client()
    client.force_login(alice)

    weather = client.post("/chat/send", {"message": "大理天气怎么样"}, HTTP_HX_REQUEST="true").content.decode()
    plan = client.post("/chat/send", {"message": "帮我做一个大理3天的行程"}, HTTP_HX_REQUEST="true").content.decode()

    assert 'data-card="weather"' in weather and "气候常年值 · 非预报" in weather
    assert weather.count('<li class="weather-day') == 7
    assert 'data-card="travel_plan"' in plan and "第1天" in plan and "第3天" in plan
    assert "/activities/" in plan and "大理扎染体验" in plan
    assert "天气为气候常年值" in plan


# --- the same tool, the same presenter, without the intent (as channel 2 calls them) ------------------------------


def bare_context(user, language="zh-hans") -> TurnContext:
    """The context channel 2 gives a presenter: no understood slots."""
    return TurnContext(intent=Intent(intent="OUT_OF_SCOPE"), user=user, today=TODAY, language=language)


@pytest.mark.parametrize(
    ("intent", "tool", "arguments"),
    [
        (
            Intent(intent="SEARCH_ACTIVITIES", destination_keywords=["大理"], max_price=3000),
            "search_activities",
            {"keywords": ["大理"], "max_price": 3000},
        ),
        (
            Intent(intent="SEARCH_ACTIVITIES", city="丽江", province="云南"),
            "search_activities",
            {"city": "丽江", "province": "云南"},
        ),
        (Intent(intent="RECOMMEND", date_start=SATURDAY), "recommend_activities", {"date_start": SATURDAY}),
        (Intent(intent="QUERY_WEATHER", destination_keywords=["西湖"]), "weather_report", {"place": "西湖"}),
        (
            Intent(intent="MAKE_TRAVEL_PLAN", destination_keywords=["大理"], days=2),
            "make_travel_plan",
            {"destination": "大理", "keywords": ["大理"], "days": 2},
        ),
        (
            Intent(intent="MAKE_TRAVEL_PLAN", city="大理", province="云南", days=3, max_price=10),
            "make_travel_plan",
            {"destination": "大理", "city": "大理", "province": "云南", "days": 3, "max_price": 10},
        ),
    ],
    ids=["search", "search-empty", "recommend", "weather", "plan", "plan-empty"],
)
def test_a_tool_called_without_the_intent_gets_the_same_reply_and_cards_as_channel_one(alice, intent, tool, arguments):
    from assistant.handlers.base import run_tool
    from assistant.presenters import present

    activity("大理扎染体验", "大理", "云南", tags=["手工"], price=Decimal("380"))
    activity("大理洱海骑行一日游", "大理", "云南", tags=["骑行", "一日游"], popularity=50)
    for language in ("zh-hans", "en"):
        channel_one = dispatch(TurnContext(intent=intent, user=alice, today=TODAY, language=language))
        bare = bare_context(alice, language)

        channel_two = present([run_tool(bare, tool, **arguments)], bare)

        assert channel_two.text == channel_one.text and channel_two.cards == channel_one.cards
        assert (channel_two.outcome, channel_two.suggestions) == (channel_one.outcome, channel_one.suggestions)


def test_an_activity_detail_is_answered_with_its_facts_and_a_detail_card(alice):
    from assistant.handlers.base import run_tool
    from assistant.presenters import present

    row = activity("大理扎染体验", "大理", "云南", tags=["手工"], price=Decimal("380"), description="白族扎染，半天。")
    context = bare_context(alice)

    reply = present([run_tool(context, "activity_detail", activity_id=row.pk)], context)

    assert reply.outcome == "ANSWERED"
    assert reply.text.startswith("大理扎染体验：云南·大理，12月1日至1月10日可参加，¥380。")
    assert "白族扎染，半天。" in reply.text
    (card,) = reply.cards
    assert card["type"] == "activity_detail" and card["id"] == row.pk and card["url"] == f"/activities/{row.pk}/"
    assert card["description"] == "白族扎染，半天。"


def test_an_unpublished_activity_detail_says_it_is_not_there(alice):
    from assistant.handlers.base import run_tool
    from assistant.presenters import present

    row = activity("大理下架的团", "大理", "云南", is_published=False)
    context = bare_context(alice, "en")

    reply = present([run_tool(context, "activity_detail", activity_id=row.pk)], context)

    assert reply.outcome == "EMPTY" and reply.cards == []
    assert f"I found no activity number {row.pk}" in reply.text and "大理下架的团" not in reply.text


def test_a_search_without_a_place_from_the_model_asks_where_like_channel_one(alice):
    from assistant.handlers.base import run_tool
    from assistant.presenters import present

    context = bare_context(alice)

    reply = present([run_tool(context, "search_activities", max_price=2000)], context)

    assert reply.outcome == "CLARIFY" and reply.text.startswith("想去哪里呢？") and reply.awaiting == "destination"
    assert [s["label"] for s in reply.suggestions] == ["赛里木湖", "大理", "三亚"]
