import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from tests.conftest import TEST_NOW
from tests.factories import ActivityFactory

# The suite's pinned day, 2026-12-01, a Tuesday: this weekend is Dec 5–6, next week Dec 7–13.
TODAY = TEST_NOW.date()


@pytest.fixture
def rules_port():
    from assistant.llm.factory import get_llm_port

    return get_llm_port("rules")


@pytest.fixture(params=[1, 2], ids=["channel-1", "channel-2"])
def channel(request, settings):
    """Each test twice: channel 1 (the rules understanding and the handlers) and channel 2 (the agent loop with the
    rules adapter replaying channel 1's flow)."""
    settings.ASSISTANT_AGENT_ENABLED = request.param == 2
    settings.ASSISTANT_LLM_PROVIDER = "rules"
    return request.param


@pytest.fixture
def dali():
    """One activity in 大理, open from today for 20 days."""
    today = timezone.localdate()
    return ActivityFactory(
        title="大理古城漫游",
        city="大理",
        province="云南",
        price=Decimal("199"),
        start_date=today,
        end_date=today + dt.timedelta(days=20),
    )


class Chat:
    """One conversation of one traveller through `POST /api/v1/assistant/chat`."""

    def __init__(self, user) -> None:
        self.client = APIClient()
        self.client.force_authenticate(user)
        self.session = None

    def say(self, message: str) -> dict:
        body = {"message": message, **({"session_id": self.session} if self.session else {})}
        response = self.client.post("/api/v1/assistant/chat", body, format="json")
        assert response.status_code == 200, response.content
        answer = response.json()
        self.session = answer["session_id"]
        return answer
