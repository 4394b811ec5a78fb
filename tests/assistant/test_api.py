"""The assistant's JSON API."""

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from assistant.models import LLMCall, Turn
from tests.factories import ActivityFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(alice):
    client = APIClient()
    client.force_authenticate(alice)
    return client


def test_chat_answers_with_reply_intent_cards_and_a_session_id(api):
    today = timezone.localdate()
    ActivityFactory(
        title="大理古城漫游",
        city="大理",
        province="云南",
        price=Decimal("199"),
        start_date=today,
        end_date=today + dt.timedelta(days=20),
    )

    response = api.post("/api/v1/assistant/chat", {"message": "大理有什么活动"}, format="json")

    assert response.status_code == 200
    body = response.json()
    assert set(body) >= {"reply", "intent", "cards", "session_id", "meta"}
    assert body["intent"]["intent"] == "SEARCH_ACTIVITIES"
    assert body["intent"]["destination_keywords"] == ["大理"]
    assert [c["title"] for c in body["cards"]] == ["大理古城漫游"]
    assert body["cards"][0]["type"] == "activity"


def test_chat_continues_a_conversation_by_session_id(api):
    first = api.post("/api/v1/assistant/chat", {"message": "本周末，预算2000"}, format="json").json()

    second = api.post(
        "/api/v1/assistant/chat", {"message": "大理", "session_id": first["session_id"]}, format="json"
    ).json()

    assert second["session_id"] == first["session_id"]
    assert second["intent"]["max_price"] == 2000


@pytest.mark.parametrize(
    "payload",
    [
        {},
        {"message": ""},
        {"message": "   "},
        {"message": "x" * 2001},
        {"message": ["a"]},
        {"message": "hi", "fresh": "maybe"},
    ],
)
def test_bad_chat_input_is_a_400_with_a_clear_error_and_records_nothing(api, payload):
    response = api.post("/api/v1/assistant/chat", payload, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_PARAM"
    assert response.json()["message"]
    assert not Turn.objects.exists() and not LLMCall.objects.exists()


def test_the_api_needs_a_logged_in_user():
    response = APIClient().post("/api/v1/assistant/chat", {"message": "大理有什么活动"}, format="json")

    assert response.status_code == 401
    assert not Turn.objects.exists()


def test_understand_returns_the_intent_json_against_the_given_day(api):
    response = api.post(
        "/api/v1/assistant/understand", {"message": "下周去黄山徒步，两千以内", "today": "2026-12-01"}, format="json"
    )

    assert response.status_code == 200
    body = response.json()
    assert body["intent"] == "SEARCH_ACTIVITIES"
    assert body["destination_keywords"] == ["黄山"]
    assert (body["date_start"], body["date_end"], body["max_price"]) == ("2026-12-07", "2026-12-13", 2000)
    design_fields = {
        "intent",
        "destination_keywords",
        "province",
        "city",
        "origin",
        "date_start",
        "date_end",
        "days",
        "max_price",
        "biz_type",
        "order_id",
        "booking_id",
        "aftersale_action",
        "need_clarification",
        "clarify_question",
    }
    # DESIGN.md's intent JSON, plus what the dialogue needs (preferences, passengers, picks, corrections…).
    assert design_fields <= set(body)
    assert {"also", "time_band", "passengers", "pick", "exclude_places", "follow_up", "rebook"} <= set(body)
    assert not Turn.objects.exists()  # understanding alone does nothing


def test_understand_rejects_a_bad_date(api):
    response = api.post("/api/v1/assistant/understand", {"message": "大理", "today": "2026-13-45"}, format="json")

    assert response.status_code == 400
    assert response.json()["message"].startswith("today")


def test_understand_is_rate_limited_like_chat(api, settings):
    settings.ASSISTANT_DAILY_TURN_LIMIT = 1
    api.post("/api/v1/assistant/understand", {"message": "大理"}, format="json")

    response = api.post("/api/v1/assistant/understand", {"message": "大理"}, format="json")

    assert response.status_code == 429
    assert response.json()["code"] == "RATE_LIMITED"


def test_the_openapi_schema_and_docs_page_are_served(api):
    schema = api.get("/api/v1/schema/", HTTP_ACCEPT="application/json")
    assert schema.status_code == 200
    assert "/api/v1/assistant/chat" in schema.json()["paths"]
    assert api.get("/api/v1/docs/").status_code == 200
