"""The agent's guards, against a scripted OpenAI-compatible server through the real openai SDK: a model that asks
for too many changes in one answer (a booking waits for the traveller's confirmation; one per turn), an oversized
argument, absurd usage numbers, and a presenter failing after a confirmed booking. What a traveller would notice is
asserted: bookings (ours and the supplier's), Turn rows, the answers the model got back."""

import json
from typing import Annotated

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from pydantic import Field
from rest_framework.test import APIClient

from assistant import presenters as presenters_module
from assistant.agent import ToolRegistry, default_registry, run_agent
from assistant.llm.messages import ChatResult, ToolCall
from assistant.llm.openai_adapter import OpenAILLM
from assistant.models import LLMCall, PendingAction, Turn
from assistant.services import chat_turn
from assistant.turn_record import MAX_COLUMN_INT
from bookings.accounts import supplier_account_ensure
from bookings.models import BookingRecord
from bookings.platform import PlatformCommand, platform_call
from core.envelope import ok
from core.tools import Needs, Risk, ToolContext, tool
from tests.assistant.conftest import TODAY
from tests.support import fixtures
from tests.support.fake_openai import Reply
from tests.support.model import use_scripted_model

fake_openai = fixtures.fake_openai
pytestmark = pytest.mark.django_db

BOOK = "帮我订12月5日上海到杭州的航班，乘机人张三 13800000000"
HUGE = "大理" * 100_000  # 200,000 characters


@pytest.fixture
def channel_two(settings, fake_openai):
    use_scripted_model(settings, fake_openai, key="sk-test-guards", agent=True, timeout=5, daily_turn_limit=1000)
    settings.ASSISTANT_AGENT_MAX_WRITES_PER_TURN = 2
    return settings


def flights(user) -> list[dict]:
    key = supplier_account_ensure(user=user).api_key
    found = platform_call(
        PlatformCommand("flight", "search", {"from": "上海", "to": "杭州", "date": "2026-12-05"}), api_key=key
    )
    return found["flights"]


def save_order(flight_no: str, name: str = "张三") -> str:
    args = {
        "flightNo": flight_no,
        "date": "2026-12-05",
        "from": "上海",
        "to": "杭州",
        "contactTourist": {"name": name, "mobile": "13800000000"},
    }
    return f"supplier call flight saveOrder -a '{json.dumps(args, ensure_ascii=False)}'"


def platform_call_of(call_id: str, command: str) -> dict:
    return {"id": call_id, "name": "execute_platform_command", "arguments": {"command": command}}


def tool_answers(fake_openai) -> list[dict]:
    return [json.loads(m["content"]) for m in fake_openai.requests[-1].messages if m.get("role") == "tool"]


# -- the cap on changes ---------------------------------------------------------------------------------------------

WRITES_RUN: list[str] = []


@tool(risk=Risk.WRITE, needs=Needs.NOTHING)
def note_write(context: ToolContext, text: Annotated[str, Field(max_length=40)]) -> dict:
    """Write a note at once (a test tool: a change that needs no confirmation, so only the cap holds it)."""
    WRITES_RUN.append(text)
    return ok({"noted": text})


def test_twenty_save_orders_in_one_model_answer_book_nothing_and_leave_one_confirmation(
    alice, supplier_sandbox, channel_two, fake_openai
):
    flight_no = flights(alice)[0]["flightNo"]
    twenty = [platform_call_of(f"save{i}", save_order(flight_no, name=f"张三{i}")) for i in range(20)]
    fake_openai.enqueue(Reply(tool_calls=twenty), Reply(content="都订好了"))

    result = chat_turn(user=alice, message=BOOK, today=TODAY)

    assert BookingRecord.objects.filter(user=alice).count() == 0  # nothing is booked before the traveller confirms
    assert supplier_sandbox.stats()["orders"]["total"] == 0
    codes = [answer["code"] for answer in tool_answers(fake_openai)]
    assert codes == ["CONFIRMATION_REQUIRED"] + ["WRITE_LIMIT"] * 19  # one change per turn waits; no more
    action = PendingAction.objects.get()
    assert (action.status, action.user) == ("PENDING", alice)
    [card] = [card for card in result.cards if card["type"] == "confirmation"]
    assert card["pending_id"] == str(action.pk) and flight_no in json.dumps(card, ensure_ascii=False)
    assert Turn.objects.get().reply == result.reply

    chat_turn(user=alice, message="确认", conversation_id=result.conversation_id, today=TODAY)

    assert BookingRecord.objects.filter(user=alice).count() == 1  # exactly the one confirmed
    assert supplier_sandbox.stats()["orders"]["total"] == 1


def test_a_change_after_a_pending_one_in_a_second_model_answer_is_refused_and_changes_nothing(
    alice, supplier_sandbox, channel_two, fake_openai
):
    flight_no = flights(alice)[0]["flightNo"]
    fake_openai.enqueue(
        Reply(tool_calls=[platform_call_of("first", save_order(flight_no, "李四"))]),
        Reply(tool_calls=[platform_call_of("second", save_order(flight_no, "王五"))]),
        Reply(content="ok"),
    )

    chat_turn(user=alice, message=BOOK, today=TODAY)

    assert BookingRecord.objects.filter(user=alice).count() == 0
    assert supplier_sandbox.stats()["orders"]["total"] == 0
    assert [a["code"] for a in tool_answers(fake_openai)] == ["CONFIRMATION_REQUIRED", "WRITE_LIMIT"]
    action = PendingAction.objects.get()
    assert "李四" in json.dumps(action.arguments, ensure_ascii=False)  # the first one waits, not the refused one


def test_writes_that_need_no_confirmation_are_capped_per_turn(alice):
    WRITES_RUN.clear()
    registry = ToolRegistry([note_write])
    calls = [{"id": f"n{i}", "name": "note_write", "arguments": {"text": f"note {i}"}} for i in range(5)]

    class Port:
        answers = [
            ChatResult(content=None, tool_calls=[ToolCall(**c) for c in calls]),
            ChatResult(content="done", tool_calls=[]),
        ]

        def chat(self, messages, tools, *, state=None):
            return self.answers.pop(0)

    result = run_agent(
        port=Port(),
        registry=registry,
        context=ToolContext(user=alice, today=TODAY, request_text="记下来"),
        messages=[{"role": "user", "content": "记下来"}],
        max_iterations=3,
        max_writes=2,
    )

    assert WRITES_RUN == ["note 0", "note 1"]
    assert [step.envelope["code"] for step in result.steps] == ["OK", "OK"] + ["WRITE_LIMIT"] * 3
    assert result.writes == 2


# -- bounded arguments ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, arguments",
    [
        ("search_activities", {"keywords": [HUGE]}),
        ("weather_report", {"place": HUGE}),
        ("execute_platform_command", {"command": HUGE}),
    ],
)
def test_a_200000_character_argument_is_refused_before_any_query(alice, supplier_sandbox, name, arguments):
    context = ToolContext(user=alice, today=TODAY, request_text="大理")
    registry = default_registry()
    assert name in registry

    with CaptureQueriesContext(connection) as queries:
        envelope = registry.call(name, arguments, context, call_id="huge")

    assert (envelope["ok"], envelope["code"]) == (False, "INVALID_PARAM")
    assert len(queries) == 0
    assert supplier_sandbox.stats()["orders"]["total"] == 0


def test_a_200000_character_argument_from_the_model_is_refused_unparsed_and_runs_no_query(
    alice, fake_openai, supplier_sandbox
):
    port = OpenAILLM(base_url=fake_openai.base_url, api_key="sk-test", model="scripted", timeout=5)
    raw = json.dumps({"keywords": [HUGE]}, ensure_ascii=False)
    fake_openai.enqueue(
        Reply(tool_calls=[{"id": "huge", "name": "search_activities", "arguments": raw}]), Reply(content="sorry")
    )
    context = ToolContext(user=alice, today=TODAY, request_text="大理有什么活动")
    registry = default_registry()

    with CaptureQueriesContext(connection) as queries:
        result = run_agent(
            port=port,
            registry=registry,
            context=context,
            messages=[{"role": "user", "content": "大理有什么活动"}],
            max_iterations=3,
        )

    [step] = result.steps
    assert (step.envelope["code"], step.arguments) == ("INVALID_PARAM", {})
    assert len(queries) == 0  # the call never reached the tool, its service or the database
    assert tool_answers(fake_openai) == [step.envelope]


# -- usage numbers never fail a turn ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "tokens, per_call, clamped",
    [(3_000_000_000, (200_000, 32_768), True), (-5, (0, 0), False)],
    ids=["three billion", "negative"],
)
def test_absurd_usage_numbers_in_a_turn_that_asks_to_confirm_still_answer_and_record_the_turn(
    alice, supplier_sandbox, channel_two, fake_openai, tokens, per_call, clamped
):
    flight_no = flights(alice)[0]["flightNo"]
    fake_openai.enqueue(
        Reply(
            tool_calls=[platform_call_of("save", save_order(flight_no))],
            prompt_tokens=tokens,
            completion_tokens=tokens,
        ),
        Reply(content="订好了", prompt_tokens=tokens, completion_tokens=tokens),
    )
    api = APIClient()
    api.force_authenticate(alice)

    response = api.post("/api/v1/assistant/chat", {"message": BOOK}, format="json")

    assert response.status_code == 200, response.content
    assert not BookingRecord.objects.filter(user=alice).exists()  # it waits for the traveller's yes
    action = PendingAction.objects.get(user=alice)
    turn = Turn.objects.get()
    # Each call is recorded at most at what one call can use (the prompt and the completion it asks for), flagged.
    assert (turn.prompt_tokens, turn.completion_tokens) == (2 * per_call[0], 2 * per_call[1])
    assert 0 <= turn.prompt_tokens <= MAX_COLUMN_INT
    calls = turn.llm_calls.values_list("prompt_tokens", "completion_tokens", "tokens_clamped")
    assert sorted(calls) == [(*per_call, clamped)] * 2
    assert LLMCall.objects.filter(turn__isnull=True).count() == 0
    assert [c["pending_id"] for c in response.json()["cards"] if c["type"] == "confirmation"] == [str(action.pk)]


def test_a_reply_that_cannot_be_presented_after_a_confirmed_booking_still_answers_and_records_the_turn(
    alice, supplier_sandbox, channel_two, fake_openai, monkeypatch
):
    flight_no = flights(alice)[0]["flightNo"]
    fake_openai.enqueue(Reply(tool_calls=[platform_call_of("save", save_order(flight_no))]), Reply(content="ok"))
    asked = chat_turn(user=alice, message=BOOK, today=TODAY)

    def broken_presenter(envelopes, context):
        raise RuntimeError("a presenter bug")

    monkeypatch.setattr(presenters_module, "present", broken_presenter)

    result = chat_turn(user=alice, message="确认", conversation_id=asked.conversation_id, today=TODAY)

    assert BookingRecord.objects.filter(user=alice).count() == 1
    assert result.outcome == "DEGRADED" and "不要重复提交" in result.reply
    assert Turn.objects.order_by("created_at").last().outcome == "DEGRADED"
