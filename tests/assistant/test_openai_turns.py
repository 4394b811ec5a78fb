"""Chat turns through the openai adapter against a local OpenAI-compatible server: honest when it fails,
real token counts in the audit either way."""

import datetime as dt
from decimal import Decimal

import pytest

from assistant.models import LLMCall, Turn
from assistant.services import chat_turn
from tests.assistant.conftest import TODAY
from tests.factories import ActivityFactory
from tests.support import fixtures
from tests.support.fake_openai import HANG, Reply

fake_openai = fixtures.fake_openai
pytestmark = pytest.mark.django_db

SECRET = "sk-test-never-shown-0123456789"


@pytest.fixture
def openai_settings(settings, fake_openai):
    settings.ASSISTANT_LLM_PROVIDER = "openai"
    settings.ASSISTANT_LLM_BASE_URL = fake_openai.base_url
    settings.ASSISTANT_LLM_API_KEY = SECRET
    settings.ASSISTANT_LLM_MODEL = "scripted-model"
    settings.ASSISTANT_LLM_TIMEOUT = 2.0  # room for a good answer on a loaded machine; a slow one never comes
    return settings


def test_a_good_model_answer_is_dispatched_to_real_rows_with_its_token_counts(alice, openai_settings, fake_openai):
    ActivityFactory(
        title="大理古城漫游",
        city="大理",
        province="云南",
        price=Decimal("199"),
        start_date=TODAY,
        end_date=TODAY + dt.timedelta(days=20),
    )
    fake_openai.enqueue(
        Reply(
            content={"intent": "SEARCH_ACTIVITIES", "destination_keywords": ["大理"], "max_price": 500},
            prompt_tokens=321,
            completion_tokens=45,
        )
    )

    result = chat_turn(user=alice, message="大理有啥好玩的，500以内", today=TODAY)

    assert result.outcome == "ANSWERED"
    assert [c["title"] for c in result.cards] == ["大理古城漫游"]
    turn = Turn.objects.get()
    assert (turn.provider, turn.model, turn.prompt_tokens, turn.completion_tokens) == (
        "openai",
        "scripted-model",
        321,
        45,
    )
    assert fake_openai.requests[0].json["response_format"] == {"type": "json_object"}


def test_a_model_that_invents_an_activity_cannot_show_it(alice, openai_settings, fake_openai):
    fake_openai.enqueue(
        Reply(
            content={
                "intent": "SEARCH_ACTIVITIES",
                "destination_keywords": ["大理"],
                "cards": [{"title": "Fake tour"}],
                "reply": "Book Fake tour now!",
            }
        )
    )

    result = chat_turn(user=alice, message="大理有什么活动", today=TODAY)

    assert result.cards == []
    assert "Fake tour" not in result.reply
    assert result.outcome == "EMPTY"


@pytest.mark.parametrize(
    ("reply", "kind", "tokens"),
    [
        (Reply(content="this is not json {", prompt_tokens=77, completion_tokens=9), "INVALID", (77, 9)),
        (Reply(content={"destination_keywords": ["大理"]}, prompt_tokens=50, completion_tokens=5), "INVALID", (50, 5)),
        (Reply(status=503, error_message="overloaded"), "ERROR", (0, 0)),
        (Reply(delay=HANG, content={"intent": "RECOMMEND"}), "TIMEOUT", (0, 0)),
        (Reply(trickle=1.0, headers_first=True, content={"intent": "RECOMMEND"}), "TIMEOUT", (0, 0)),
    ],
    ids=["invalid-json", "no-intent", "503", "timeout", "trickle"],
)
def test_a_failing_model_is_replaced_by_the_offline_engine_and_both_calls_are_audited(
    alice, openai_settings, fake_openai, reply, kind, tokens
):
    ActivityFactory(
        title="大理古城漫游",
        city="大理",
        province="云南",
        price=Decimal("199"),
        start_date=TODAY,
        end_date=TODAY + dt.timedelta(days=20),
    )
    fake_openai.enqueue(reply)

    result = chat_turn(user=alice, message="大理有什么活动", today=TODAY)

    # The traveller gets the answer the offline engine could give, from real rows.
    assert result.outcome == "ANSWERED" and "没有产生任何操作" not in result.reply
    assert [card["title"] for card in result.cards] == ["大理古城漫游"]
    failed, offline = LLMCall.objects.order_by("id")
    assert (failed.provider, failed.outcome, failed.fallback) == ("openai", kind, False)
    assert (failed.prompt_tokens, failed.completion_tokens) == tokens
    assert (offline.provider, offline.purpose, offline.outcome, offline.fallback) == ("rules", "understand", "OK", True)
    turn = Turn.objects.get()
    assert turn.fallback is True and turn.intent == "SEARCH_ACTIVITIES"
    assert set(turn.llm_calls.all()) == {failed, offline}
    assert (turn.prompt_tokens, turn.completion_tokens) == tokens
    assert SECRET not in failed.error and SECRET not in result.reply


def test_the_api_key_is_sent_to_the_model_but_never_stored_or_logged(alice, openai_settings, fake_openai, caplog):
    fake_openai.enqueue(Reply(status=401, error_message=f"bad key {SECRET}"))

    chat_turn(user=alice, message="大理有什么活动", today=TODAY)

    assert fake_openai.requests[0].authorization == f"Bearer {SECRET}"
    assert SECRET not in caplog.text
    for row in LLMCall.objects.values():
        assert SECRET not in str(row)
    for row in Turn.objects.values():
        assert SECRET not in str(row)
