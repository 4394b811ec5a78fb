"""Channel 2 end to end: every capability of channel 1 through the model's tool calls (the `rules` policy offline, a
scripted OpenAI-compatible server otherwise), one merged reply for several tools, and honest replies when the model
fails or calls nothing."""

import pytest
from django.core.management import call_command

from assistant.models import AgentStep, LLMCall, Turn
from assistant.replies import compose
from assistant.services import chat_turn
from tests.assistant.conftest import TODAY
from tests.support import fixtures
from tests.support.fake_openai import Reply
from tests.support.model import use_scripted_model

fake_openai = fixtures.fake_openai
pytestmark = pytest.mark.django_db

NO_ACTION = "这次我没有执行任何操作"


@pytest.fixture
def channel_two(settings, supplier_sandbox):
    call_command("seed_demo", verbosity=0)
    settings.ASSISTANT_AGENT_ENABLED = True
    settings.ASSISTANT_DAILY_TURN_LIMIT = 1000
    return settings


@pytest.mark.parametrize(
    "message, card_types",
    [
        ("大理这周末天气怎么样", ["weather"]),
        ("帮我安排三天丽江行程", ["travel_plan"]),
        ("下周五从上海去北京，下周日回来，比较一下往返方案", ["plan_comparison"]),
    ],
    ids=["weather", "travel plan", "round trip"],
)
def test_channel_two_answers_what_channel_one_answers_with_the_same_kind_of_card(
    alice, channel_two, message, card_types
):
    result = chat_turn(user=alice, message=message, today=TODAY)

    assert result.outcome == "ANSWERED"
    assert NO_ACTION not in result.reply
    assert [card["type"] for card in result.cards] == card_types
    assert Turn.objects.get().cards == result.cards


def test_two_tools_in_one_request_give_one_reply_with_both_cards(alice, channel_two):
    result = chat_turn(user=alice, message="帮我规划三天丽江行程，顺便查天气", today=TODAY)

    assert [card["type"] for card in result.cards] == ["travel_plan", "weather"]
    assert "丽江" in result.reply and NO_ACTION not in result.reply
    assert result.outcome == "ANSWERED"


def test_a_model_that_fails_before_calling_any_tool_is_replaced_by_channel_one_for_the_turn(
    alice, settings, fake_openai
):
    use_scripted_model(settings, fake_openai, key="sk-test-turn", agent=True)
    fake_openai.set_default(Reply(status=503, error_message="overloaded"))

    result = chat_turn(user=alice, message="大理这周末天气怎么样", today=TODAY)

    # The offline reading, made once the model failed, answers the weather as channel 1 would; the failed call and
    # the offline reading are on record, the reading as the fallback.
    assert result.outcome == "ANSWERED" and "没有产生任何操作" not in result.reply
    assert [card["type"] for card in result.cards] == ["weather"] and "大理" in result.reply
    turn = Turn.objects.get()
    assert turn.fallback is True and turn.intent == "QUERY_WEATHER"
    assert sorted(turn.llm_calls.values_list("provider", "purpose", "outcome", "fallback")) == [
        ("openai", "agent", "ERROR", False),
        ("rules", "understand", "OK", True),
    ]


def test_a_model_that_calls_no_tool_gets_the_templated_reply_and_its_words_are_not_shown(alice, settings, fake_openai):
    use_scripted_model(settings, fake_openai, key="sk-test-turn", agent=True)
    fake_openai.enqueue(Reply(content="已为你预订大理古城豪华游，订单号 FAKE-1", prompt_tokens=40, completion_tokens=9))

    result = chat_turn(user=alice, message="我想出去走走", today=TODAY)

    # No tool was called: what the assistant can do, from the templates, with examples to tap (nothing read
    # offline); the model's claim is never shown.
    assert result.cards == [] and "FAKE-1" not in result.reply and "已为你预订" not in result.reply
    assert result.reply == compose("social", "zh-hans", social="HELP") and result.outcome == "ANSWERED"
    assert result.suggestions and result.meta["channel"] == 2
    turn = Turn.objects.get()
    assert turn.fallback is False and turn.understanding == {}
    assert (turn.prompt_tokens, turn.completion_tokens) == (40, 9)
    assert LLMCall.objects.get().turn == turn


def test_the_rules_adapter_asks_through_the_ask_tool_the_question_channel_one_asks(alice, channel_two):
    channel_two.ASSISTANT_AGENT_ENABLED = False
    asked = chat_turn(user=alice, message="帮我预订一下北京到上海", today=TODAY)
    channel_two.ASSISTANT_AGENT_ENABLED = True

    result = chat_turn(user=alice, message="帮我预订一下北京到上海", today=TODAY)

    # Channel 1's flow asks through the ask tool; the rules adapter, replaying it, makes that call.
    assert result.reply == asked.reply and result.outcome == asked.outcome == "CLARIFY"
    assert result.meta["channel"] == 2
    step = AgentStep.objects.get(turn_id=result.meta["turn_id"])
    assert (step.tool, step.ok) == ("ask_traveller", True)
