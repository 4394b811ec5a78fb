"""A phrase the catalogue does not know ("日照金山") is searched whole as a keyword, never cut down to the city that
happens to start it; an empty answer names the keyword and says how to widen the search (issue 13)."""

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from assistant.handlers.base import tool_context
from assistant.llm.schema import Intent
from assistant.presenters import present
from assistant.selectors import catalogue_places_forget
from assistant.turn import TurnContext
from itinerary.tools import search_activities
from tests.factories import ActivityFactory

pytestmark = pytest.mark.django_db

CHAT = "/api/v1/assistant/chat"


@pytest.fixture
def catalogue(db):
    """Activities in 日照 and 泰安 (山东) and in 北京: none of them is about 日照金山."""
    today = timezone.localdate()
    window = {"start_date": today - dt.timedelta(days=1), "end_date": today + dt.timedelta(days=60)}
    ActivityFactory(title="日照海滨骑行", city="日照", province="山东", tags=["骑行", "海岛"], **window)
    ActivityFactory(title="泰山夜爬看日出", city="泰安", province="山东", tags=["徒步"], **window)
    ActivityFactory(title="故宫深度游", city="北京", province="北京", tags=["文化"], price=Decimal("300"), **window)
    catalogue_places_forget()
    yield
    catalogue_places_forget()


@pytest.fixture
def api(alice):
    client = APIClient()
    client.force_authenticate(alice)
    return client


def test_an_unknown_phrase_is_searched_whole_and_the_empty_answer_says_how_to_widen(api, catalogue):
    response = api.post(CHAT, {"message": "日照金山有什么活动"}, format="json")

    body = response.json()
    assert response.status_code == 200
    assert body["intent"]["destination_keywords"] == ["日照金山"]
    assert body["cards"] == []  # no 日照 (nor any other city's) activity stands in for the phrase
    assert body["outcome"] == "EMPTY"
    assert "「日照金山」" in body["reply"] and "换个更常用的叫法" in body["reply"]
    labels = [s["label"] for s in body["suggestions"]]
    assert "推荐热门活动" in labels
    # The city that only starts the phrase is no way to widen it either: no 日照, no 山东 (日照's province).
    assert not any("日照" in label or "山东" in label for label in labels)
    assert "山东" not in body["reply"]


def _empty_reply(alice, language: str, **arguments):
    context = TurnContext(
        intent=Intent(intent="SEARCH_ACTIVITIES"),
        user=alice,
        today=timezone.localdate(),
        language=language,
        request_text="x",
    )
    envelope = search_activities.func(tool_context(context), **arguments)
    return envelope, present([envelope], context)


def test_an_empty_keyword_search_with_dates_and_budget_offers_to_drop_them(alice, catalogue):
    today = timezone.localdate()

    envelope, reply = _empty_reply(
        alice,
        "zh-hans",
        keywords=["日照金山"],
        date_start=today + dt.timedelta(days=3),
        date_end=today + dt.timedelta(days=5),
        max_price=100,
    )

    assert envelope["ok"] and envelope["data"]["activities"] == []
    assert reply.outcome == "EMPTY" and reply.cards == []
    assert "「日照金山」" in reply.text and "放宽或去掉预算" in reply.text and "换个日期" in reply.text
    widen = next(s for s in reply.suggestions if s["label"] == "不限日期和预算再搜")
    assert widen["message"] == "日照金山有什么活动" and widen["fresh"]


def test_a_phrase_naming_a_known_place_offers_that_place(alice, catalogue):
    _, reply = _empty_reply(alice, "zh-hans", keywords=["泰山金顶云海"])

    assert reply.cards == [] and "「泰山金顶云海」" in reply.text
    assert "泰安有什么活动" in [s["message"] for s in reply.suggestions]


def test_the_english_empty_answer_names_the_keyword_too(alice, catalogue):
    _, reply = _empty_reply(alice, "en", keywords=["日照金山"])

    assert reply.outcome == "EMPTY" and reply.cards == []
    assert 'No activity matches "日照金山"' in reply.text and "Recommend popular activities" in [
        s["label"] for s in reply.suggestions
    ]


def test_a_known_place_with_nothing_in_the_dates_is_not_called_an_unknown_phrase(alice, catalogue):
    today = timezone.localdate()

    _, reply = _empty_reply(alice, "zh-hans", keywords=["北京"], date_start=today + dt.timedelta(days=90))

    assert reply.outcome == "EMPTY" and reply.cards == []
    assert "换个更常用的叫法" not in reply.text and "换个日期" in reply.text
