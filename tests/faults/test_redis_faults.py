"""Redis (the cache: conversation memory, rate-limit counters) stopped mid-conversation, then back.

The test's own redis-server (`redis_process`) is the cache; killing it must not break a page, an API call or a
turn: turns go single-turn, the rate limit admits, /healthz says 503 naming the cache; a new Redis on the same
port brings memory back for new turns.
"""

import datetime as dt
from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from assistant.models import Turn
from assistant.services import chat_turn
from tests.assistant.conftest import TODAY
from tests.conftest import RedisProcess
from tests.factories import ActivityFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_activities():
    for title, price in (("赛里木湖环湖骑行", "1500"), ("赛里木湖豪华团", "3500")):
        ActivityFactory(title=title, price=Decimal(price), start_date=TODAY, end_date=TODAY + dt.timedelta(days=30))


def titles(result) -> list[str]:
    return sorted(c["title"] for c in result.cards)


def test_with_redis_killed_pages_api_and_turns_keep_working_and_healthz_names_the_cache(
    alice, client, redis_process, two_activities, settings
):
    settings.ASSISTANT_DAILY_TURN_LIMIT = 2  # would refuse the 3rd turn if the counter were reachable
    client.force_login(alice)
    api = APIClient()
    api.force_authenticate(alice)
    first = chat_turn(user=alice, message="本周末，预算2000", today=TODAY)
    assert client.get("/healthz").status_code == 200

    redis_process.kill()

    assert client.get("/").status_code == 200
    for _ in range(3):  # past the daily limit: the unreachable counter admits every turn
        response = client.post("/chat/send", {"message": "大理有什么活动"})
        assert response.status_code in (200, 302)
    assert client.get("/").status_code == 200
    response = api.post("/api/v1/assistant/chat", {"message": "赛里木湖"}, format="json")
    assert response.status_code == 200
    assert sorted(c["title"] for c in response.json()["cards"]) == ["赛里木湖环湖骑行", "赛里木湖豪华团"]
    second = chat_turn(user=alice, message="赛里木湖", conversation_id=first.conversation_id, today=TODAY)
    assert second.outcome == "ANSWERED"
    assert titles(second) == ["赛里木湖环湖骑行", "赛里木湖豪华团"]  # single-turn: the budget was forgotten
    assert not Turn.objects.filter(outcome__in=["RATE_LIMITED", "ERROR"]).exists()
    assert Turn.objects.filter(user=alice).count() == 6  # every turn recorded once
    health = client.get("/healthz")
    assert health.status_code == 503
    body = health.json()
    assert body["parts"]["cache"].startswith("error")
    assert body["parts"]["database"] == "ok"


def test_a_new_redis_on_the_same_port_brings_memory_back_for_new_turns(alice, client, redis_process, two_activities):
    redis_process.kill()
    chat_turn(user=alice, message="本周末，预算2000", today=TODAY)  # remembered nowhere

    restarted = RedisProcess(redis_process.port)
    restarted.start()
    try:
        first = chat_turn(user=alice, message="本周末，预算2000", today=TODAY)
        second = chat_turn(user=alice, message="赛里木湖", conversation_id=first.conversation_id, today=TODAY)
        assert titles(second) == ["赛里木湖环湖骑行"]  # the budget was remembered again
        assert client.get("/healthz").status_code == 200
    finally:
        restarted.kill()
