"""Greetings, thanks and "help" get a friendly answer saying what the assistant can do, with examples to tap
(issue 13); a request that really is out of scope keeps the refusal. Through the chat API, channel 1."""

import pytest
from rest_framework.test import APIClient

from assistant.models import Turn
from bookings.models import BookingRecord

pytestmark = pytest.mark.django_db

CHAT = "/api/v1/assistant/chat"
REFUSAL = "抱歉，这个我帮不上忙"


@pytest.fixture
def api(alice):
    client = APIClient()
    client.force_authenticate(alice)
    return client


def ask(api, message: str) -> dict:
    response = api.post(CHAT, {"message": message}, format="json")
    assert response.status_code == 200
    return response.json()


@pytest.mark.parametrize("message", ["你好", "你好呀", "在吗，你能做什么"])
def test_a_greeting_in_chinese_gets_a_friendly_answer_with_examples(api, message):
    body = ask(api, message)

    assert body["outcome"] != "REFUSED" and REFUSAL not in body["reply"]
    assert "TripDesk" in body["reply"]
    for skill in ("活动", "天气", "规划行程", "机票", "酒店", "火车票", "退款"):
        assert skill in body["reply"]
    assert len(body["suggestions"]) >= 3 and all(s["fresh"] for s in body["suggestions"])
    assert body["cards"] == []


def test_thanks_is_answered_kindly(api):
    body = ask(api, "谢谢你")

    assert body["outcome"] != "REFUSED" and REFUSAL not in body["reply"]
    assert "不客气" in body["reply"] and body["suggestions"]


@pytest.mark.parametrize("message", ["help", "hello", "what can you do?"])
def test_help_in_english_says_what_the_assistant_can_do(api, message):
    body = ask(api, message)

    assert body["outcome"] != "REFUSED" and "Sorry, I can't help" not in body["reply"]
    for skill in ("activities", "weather", "plan a trip", "flights", "refunds"):
        assert skill in body["reply"]
    assert len(body["suggestions"]) >= 3


def test_a_real_out_of_scope_request_keeps_the_refusal_and_changes_nothing(api):
    body = ask(api, "帮我订个闹钟")

    assert body["outcome"] == "REFUSED" and REFUSAL in body["reply"]
    assert body["cards"] == [] and body["suggestions"]
    assert not BookingRecord.objects.exists()
    assert Turn.objects.get().outcome == "REFUSED"


def test_after_a_greeting_the_examples_work(api):
    greeting = ask(api, "你好")
    example = next(s for s in greeting["suggestions"] if "活动" in s["message"])

    body = ask(api, example["message"])

    assert body["intent"]["intent"] == "SEARCH_ACTIVITIES" and REFUSAL not in body["reply"]
