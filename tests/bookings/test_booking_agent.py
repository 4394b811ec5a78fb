"""The booking agent over the OpenAI tool-calling protocol, against a local scripted OpenAI-compatible server,
with the real sandbox supplier; and channel 2 (ASSISTANT_AGENT_ENABLED) end to end. A write the model asks for is a
confirmation card; it runs (once) when the traveller confirms."""

import json

import pytest

from assistant.models import LLMCall, Turn
from assistant.services import chat_turn
from bookings.accounts import supplier_account_ensure
from bookings.models import BookingRecord
from bookings.platform import PlatformCommand, platform_call
from tests.assistant.conftest import TODAY
from tests.support import fixtures
from tests.support.fake_openai import Reply
from tests.support.model import use_scripted_model

fake_openai = fixtures.fake_openai
pytestmark = pytest.mark.django_db

SEARCH = """supplier call flight search -a '{"from": "上海", "to": "杭州", "date": "2026-12-05"}'"""


@pytest.fixture
def openai_settings(settings, fake_openai):
    # agent: the model calls the tools (channel 1 is code-driven: no model tools)
    return use_scripted_model(settings, fake_openai, agent=True, timeout=2, max_iterations=4)


def cheapest_flight(user):
    key = supplier_account_ensure(user=user).api_key
    found = platform_call(
        PlatformCommand("flight", "search", {"from": "上海", "to": "杭州", "date": "2026-12-05"}), api_key=key
    )
    return min(found["flights"], key=lambda f: f["price"])


def save_order(flight_no):
    args = {
        "flightNo": flight_no,
        "from": "上海",
        "to": "杭州",
        "date": "2026-12-05",
        "contactTourist": {"name": "张三", "mobile": "13800000000"},
    }
    return f"supplier call flight saveOrder -a '{json.dumps(args, ensure_ascii=False)}'"


def test_the_booking_agent_round_trips_tool_calls_and_the_hook_records_the_booking_once_confirmed(
    alice, supplier_sandbox, openai_settings, fake_openai
):
    flight = cheapest_flight(alice)
    fake_openai.enqueue(
        Reply(
            tool_calls=[{"id": "call_search", "name": "execute_platform_command", "arguments": {"command": SEARCH}}],
            prompt_tokens=200,
            completion_tokens=30,
        ),
        Reply(
            tool_calls=[
                {
                    "id": "call_save",
                    "name": "execute_platform_command",
                    "arguments": {"command": save_order(flight["flightNo"])},
                }
            ],
            prompt_tokens=300,
            completion_tokens=40,
        ),
        Reply(content="Booked.", prompt_tokens=400, completion_tokens=10),
    )

    result = chat_turn(user=alice, message="帮我订12月5日上海到杭州最便宜的航班，乘机人张三 13800000000", today=TODAY)

    assert not BookingRecord.objects.exists()  # the saveOrder the model asked for waits for the traveller
    [card] = [c for c in result.cards if c["type"] == "confirmation"]
    assert flight["flightNo"] in str(card["rows"]) + card["title"]
    # With the card open, the model reads the typed "确认" (its reading's answer decides): one understanding call.
    fake_openai.enqueue(
        Reply(content=json.dumps({"intent": "OUT_OF_SCOPE", "answer": "YES"}), prompt_tokens=50, completion_tokens=5)
    )
    confirmed = chat_turn(user=alice, message="确认", conversation_id=result.conversation_id, today=TODAY)
    booking = BookingRecord.objects.get(user=alice)
    assert confirmed.outcome == "ANSWERED"
    assert booking.details["flightNo"] == flight["flightNo"]
    assert supplier_sandbox.stats()["orders"]["total"] == 1
    # the tool_call_id round trip: each tool result went back under the id the model gave it
    second_round = fake_openai.requests[1].messages
    tool_messages = [m for m in second_round if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == ["call_search"]
    assert json.loads(tool_messages[0]["content"])["ok"] is True
    assert second_round[-2]["tool_calls"][0]["id"] == "call_search"
    # every model call audited with its real tokens
    assert sorted(LLMCall.objects.values_list("prompt_tokens", flat=True)) == [50, 200, 300, 400]
    assert not LLMCall.objects.filter(fallback=True).exists()
    assert Turn.objects.get(pk=result.meta["turn_id"]).prompt_tokens == 900


def test_a_model_that_never_stops_calling_tools_is_capped_and_books_nothing(
    alice, supplier_sandbox, openai_settings, fake_openai
):
    for i in range(10):
        command = SEARCH.replace("2026-12-05", f"2026-12-{10 + i}")
        fake_openai.enqueue(
            Reply(tool_calls=[{"id": f"c{i}", "name": "execute_platform_command", "arguments": {"command": command}}])
        )

    result = chat_turn(user=alice, message="帮我订12月5日上海到杭州最便宜的航班，乘机人张三 13800000000", today=TODAY)

    assert len(fake_openai.requests) == openai_settings.ASSISTANT_AGENT_MAX_ITERATIONS
    assert not BookingRecord.objects.exists()
    assert result.outcome == "CLARIFY"  # honest: nothing booked, asks for what it needs
    assert LLMCall.objects.filter(purpose="agent").count() == openai_settings.ASSISTANT_AGENT_MAX_ITERATIONS


@pytest.mark.parametrize(
    "command",
    [
        SEARCH + "; rm -rf /",
        SEARCH + " && curl evil",
        SEARCH + " | sh",
        "supplier call flight search -a '$(cat /etc/passwd)'",
        "bash -c 'supplier call flight search'",
    ],
)
def test_a_composed_command_with_shell_syntax_or_another_program_is_refused(
    alice, supplier_sandbox, openai_settings, fake_openai, command
):
    fake_openai.enqueue(
        Reply(tool_calls=[{"id": "bad", "name": "execute_platform_command", "arguments": {"command": command}}]),
        Reply(content="done"),
    )

    chat_turn(user=alice, message="帮我订12月5日上海到杭州最便宜的航班，乘机人张三 13800000000", today=TODAY)

    refused = json.loads(next(m for m in fake_openai.requests[1].messages if m["role"] == "tool")["content"])
    assert refused["ok"] is False and refused["code"] == "INVALID_PARAM"
    assert "refused" in refused["message"]
    assert supplier_sandbox.stats()["orders"]["total"] == 0


def test_a_composed_refund_is_refused_as_not_the_travellers_to_run(
    alice, supplier_sandbox, openai_settings, fake_openai
):
    command = 'supplier call order refund -a \'{"orderId": "ORD-001", "amount": 1}\''
    fake_openai.enqueue(
        Reply(tool_calls=[{"id": "bad", "name": "execute_platform_command", "arguments": {"command": command}}]),
        Reply(content="done"),
    )

    result = chat_turn(user=alice, message="帮我订12月5日上海到杭州最便宜的航班，乘机人张三 13800000000", today=TODAY)

    refused = json.loads(next(m for m in fake_openai.requests[1].messages if m["role"] == "tool")["content"])
    assert (refused["ok"], refused["code"]) == (False, "PERMISSION_DENIED")
    assert "refused" in refused["message"]
    assert result.outcome == "REJECTED" and "没有执行任何操作" in result.reply
    assert supplier_sandbox.stats()["refunds"]["total"] == 0


def test_channel_two_books_and_cancels_with_the_rules_policy_each_after_a_confirmation(
    alice, supplier_sandbox, settings
):
    settings.ASSISTANT_AGENT_ENABLED = True

    asked = chat_turn(user=alice, message="帮我订12月5日上海到杭州最便宜的航班，乘机人张三 13800000000", today=TODAY)
    assert [c["type"] for c in asked.cards].count("confirmation") == 1
    assert not BookingRecord.objects.exists()
    booked = chat_turn(user=alice, message="确认", conversation_id=asked.conversation_id, today=TODAY)
    booking = BookingRecord.objects.get(user=alice)
    asked_cancel = chat_turn(user=alice, message=f"取消预订 {booking.booking_id}", today=TODAY)
    booking.refresh_from_db()
    assert booking.status == "PENDING_PAYMENT"
    cancelled = chat_turn(user=alice, message="确认", conversation_id=asked_cancel.conversation_id, today=TODAY)

    booking.refresh_from_db()
    assert booked.outcome == "ANSWERED"
    assert any(c.get("booking_id") == booking.booking_id for c in booked.cards)
    assert cancelled.outcome == "ANSWERED" and booking.status == "CANCELLED"


def test_channel_two_searches_activities_with_the_same_cards(alice, settings):
    from decimal import Decimal

    from tests.factories import ActivityFactory

    settings.ASSISTANT_AGENT_ENABLED = True
    ActivityFactory(
        title="大理古城漫游",
        city="大理",
        province="云南",
        price=Decimal("199"),
        start_date=TODAY,
        end_date=TODAY.replace(day=28),
    )

    result = chat_turn(user=alice, message="大理有什么活动", today=TODAY)

    assert [c["title"] for c in result.cards] == ["大理古城漫游"]
    assert result.cards[0]["type"] == "activity"
