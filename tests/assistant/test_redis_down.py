"""When Redis goes away mid-conversation the assistant keeps answering, single-turn, and says nothing of it."""

import datetime as dt
from decimal import Decimal

import pytest

from assistant.services import chat_turn
from tests.assistant.conftest import TODAY
from tests.factories import ActivityFactory

pytestmark = pytest.mark.django_db


def test_with_redis_killed_the_turn_still_answers_single_turn(alice, redis_process):
    ActivityFactory(
        title="赛里木湖环湖骑行", price=Decimal("1500"), start_date=TODAY, end_date=TODAY + dt.timedelta(days=30)
    )
    ActivityFactory(
        title="赛里木湖豪华团", price=Decimal("3500"), start_date=TODAY, end_date=TODAY + dt.timedelta(days=30)
    )
    first = chat_turn(user=alice, message="本周末，预算2000", today=TODAY)
    assert first.outcome == "CLARIFY"

    redis_process.kill()
    second = chat_turn(user=alice, message="赛里木湖", conversation_id=first.conversation_id, today=TODAY)

    assert second.outcome == "ANSWERED"
    # Single-turn: the remembered budget is gone, so both activities show; nothing failed for the user.
    assert sorted(c["title"] for c in second.cards) == ["赛里木湖环湖骑行", "赛里木湖豪华团"]
    assert "max_price" not in {k for k, v in second.intent.items() if v}


def test_while_redis_is_up_the_same_conversation_remembers(alice, redis_process):
    ActivityFactory(
        title="赛里木湖环湖骑行", price=Decimal("1500"), start_date=TODAY, end_date=TODAY + dt.timedelta(days=30)
    )
    ActivityFactory(
        title="赛里木湖豪华团", price=Decimal("3500"), start_date=TODAY, end_date=TODAY + dt.timedelta(days=30)
    )
    first = chat_turn(user=alice, message="本周末，预算2000", today=TODAY)

    second = chat_turn(user=alice, message="赛里木湖", conversation_id=first.conversation_id, today=TODAY)

    assert [c["title"] for c in second.cards] == ["赛里木湖环湖骑行"]
