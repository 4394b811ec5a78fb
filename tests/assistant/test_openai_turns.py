"""Chat turns through the openai adapter against a local OpenAI-compatible server: honest when it fails,
real token counts in the audit either way, and what a model sends that is not text neither runs nor breaks the
turn's record."""

import datetime as dt
import json
from decimal import Decimal

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from aftersale.models import HitlTicket
from assistant.models import AgentStep, LLMCall, PendingAction, Turn
from assistant.replies import compose
from assistant.services import chat_turn
from bookings.models import BookingRecord
from tests.assistant.conftest import TODAY
from tests.factories import ActivityFactory
from tests.support import fixtures
from tests.support.fake_openai import HANG, Reply
from tests.support.model import use_scripted_model

fake_openai = fixtures.fake_openai
pytestmark = pytest.mark.django_db

SECRET = "sk-test-never-shown-0123456789"


@pytest.fixture
def openai_settings(settings, fake_openai):
    # timeout: room for a good answer on a loaded machine; a slow one never comes
    return use_scripted_model(settings, fake_openai, key=SECRET, timeout=2.0)


def test_a_good_model_answer_is_dispatched_to_real_rows_with_its_token_counts(
    alice, openai_settings, fake_openai, dali
):
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
        (Reply(content={"intent": "SEARCH_ACTIVITIES", "destination_keywords": ["大理\ud800"]}), "INVALID", (11, 7)),
        (Reply(content={"intent": "SEARCH_ACTIVITIES", "city": "大理\x00"}), "INVALID", (11, 7)),
        (Reply(status=503, error_message="overloaded \ud800"), "ERROR", (0, 0)),
    ],
    ids=["invalid-json", "no-intent", "503", "timeout", "trickle", "lone-surrogate", "nul", "surrogate-in-error"],
)
def test_a_failing_model_is_replaced_by_the_offline_engine_and_both_calls_are_audited(
    alice, openai_settings, fake_openai, reply, kind, tokens, dali
):
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


# -- what a model sends that is not text ----------------------------------------------------------------------------

SURROGATE, NUL = "\ud800", "\x00"


@pytest.fixture
def demo_alice(db, settings, django_user_model):
    """The demo site: alice owns ORD-001 (paid, refundable)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("seed_demo", verbosity=0)
    return django_user_model.objects.get(username="alice")


def _written() -> dict:
    return {
        "tickets": sorted(HitlTicket.objects.values_list("pk", "status")),
        "pending actions": PendingAction.objects.count(),
        "bookings": BookingRecord.objects.count(),
    }


@pytest.mark.parametrize("bad", [SURROGATE, NUL], ids=["lone surrogate", "NUL"])
def test_a_refund_and_a_booking_whose_arguments_are_not_text_are_refused_and_the_turn_is_recorded(
    demo_alice, openai_settings, fake_openai, supplier_sandbox, bad
):
    openai_settings.ASSISTANT_AGENT_ENABLED = True
    refund = {"order_id": "ORD-001", "action": "REFUND", "reason": f"门票用不了{bad}"}
    # The SDK decodes the answer's JSON: an escaped surrogate arrives in the argument text as the code point itself.
    save = f"""supplier call flight saveOrder -a '{{"flightNo": "MU5101", "contactName": "张三{bad}"}}'"""
    fake_openai.enqueue(
        Reply(
            tool_calls=[
                {"id": "c1", "name": "request_aftersale", "arguments": json.dumps(refund, ensure_ascii=False)},
                {
                    "id": "c2",
                    "name": "execute_platform_command",
                    "arguments": json.dumps({"command": save}, ensure_ascii=False),
                },
            ]
        ),
        Reply(content=f"都办好了{bad}"),
    )
    before = _written()
    api = APIClient()
    api.force_authenticate(demo_alice)

    response = api.post("/api/v1/assistant/chat", {"message": "ORD-001 退款，再帮我订 MU5101"}, format="json")

    assert response.status_code == 200, response.content
    assert _written() == before  # no ticket, no pending action, no booking
    assert supplier_sandbox.stats()["orders"]["total"] == 0
    # The model was told why, in the tool messages of its next request (which could be sent: it is text).
    told = [m["content"] for m in fake_openai.requests[1].messages if m["role"] == "tool"]
    assert len(told) == 2 and all("is not text" in content for content in told)
    assert "reason is not text" in told[0] and "command is not text" in told[1]
    # The turn's record is whole: the turn, its two model calls and its two refused steps, the arguments storable.
    turn = Turn.objects.get()
    assert response.json()["meta"]["turn_id"] == turn.pk
    assert turn.reply == response.json()["reply"]
    assert list(turn.llm_calls.values_list("purpose", "outcome")) == [("agent", "OK")] * 2
    steps = list(AgentStep.objects.filter(turn=turn).order_by("id"))
    assert [(s.tool, s.code, s.ok) for s in steps] == [
        ("request_aftersale", "INVALID_PARAM", False),
        ("execute_platform_command", "INVALID_PARAM", False),
    ]
    assert steps[0].arguments["reason"] == ("门票用不了\ufffd" if bad == SURROGATE else "门票用不了")


@pytest.mark.parametrize(
    "reply",
    [Reply(content=f"你好{SURROGATE}，我不调用工具"), Reply(content=f"你好{NUL}")],
    ids=["lone surrogate", "NUL"],
)
def test_a_model_reply_text_that_is_not_text_is_never_shown_and_the_turn_recorded(
    alice, openai_settings, fake_openai, reply, dali
):
    openai_settings.ASSISTANT_AGENT_ENABLED = True
    fake_openai.enqueue(reply)
    api = APIClient()
    api.force_authenticate(alice)

    response = api.post("/api/v1/assistant/chat", {"message": "大理有什么活动"}, format="json")

    assert response.status_code == 200, response.content
    # No tool was called: the help template, never the model's words, nor an offline reading's answer.
    body = response.json()
    assert body["cards"] == [] and body["reply"] == compose("social", "zh-hans", social="HELP")
    assert "我不调用工具" not in body["reply"] and SURROGATE not in body["reply"] and NUL not in body["reply"]
    turn = Turn.objects.get()
    assert list(turn.llm_calls.values_list("purpose", "outcome")) == [("agent", "OK")]
    assert turn.reply == response.json()["reply"]


@pytest.mark.parametrize(
    ("follow_up", "kinds"),
    [(False, {"activity"}), (True, {"weather"})],
    ids=["a-new-search", "the-weather-there"],
)
def test_the_models_reading_decides_whether_a_sentence_follows_up(
    alice, settings, openai_settings, fake_openai, follow_up, kinds
):
    # "那丽江呢" after the weather of Dali: the offline engine would read a follow-up; the model's reading decides.
    settings.ASSISTANT_AGENT_ENABLED = False
    ActivityFactory(
        title="丽江古城漫游",
        city="丽江",
        province="云南",
        price=Decimal("99"),
        start_date=TODAY,
        end_date=TODAY + dt.timedelta(days=20),
    )
    fake_openai.enqueue(Reply(content={"intent": "QUERY_WEATHER", "destination_keywords": ["大理"], "city": "大理"}))
    lijiang = {"intent": "SEARCH_ACTIVITIES", "destination_keywords": ["丽江"], "city": "丽江", "follow_up": follow_up}
    fake_openai.enqueue(Reply(content=lijiang))
    first = chat_turn(user=alice, message="大理天气怎么样", today=TODAY)

    result = chat_turn(user=alice, message="那丽江呢", conversation_id=first.conversation_id, today=TODAY)

    assert {card["type"] for card in result.cards} == kinds
    assert all(card.get("city", card.get("place")) == "丽江" for card in result.cards), result.cards
