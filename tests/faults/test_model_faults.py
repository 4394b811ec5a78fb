"""The model (openai provider) down, slow, answering garbage or 503: honest replies, nothing booked, no ticket lost.

Complements tests/assistant/test_openai_turns.py and tests/aftersale/test_verdict.py: here the model is not
listening at all (connection refused), and the booking agent's model breaks mid-loop after a tool call succeeded.
"""

import pytest

from aftersale.models import HitlTicket
from aftersale.services.workflow import aftersale_request_submit
from assistant.llm.openai_adapter import OpenAILLM
from assistant.models import LLMCall, Turn
from assistant.services import chat_turn
from bookings.models import BookingRecord
from tests.assistant.conftest import TODAY
from tests.conftest import free_port
from tests.support import fixtures
from tests.support.fake_openai import HANG, Reply
from tests.support.model import use_scripted_model

fake_openai = fixtures.fake_openai
pytestmark = pytest.mark.django_db

BOOK_FLIGHT = "帮我订12月5日上海到杭州最便宜的航班，乘机人张三 13800000000"
SEARCH = """supplier call flight search -a '{"from": "上海", "to": "杭州", "date": "2026-12-05"}'"""
UNDERSTOOD = {
    "intent": "BOOK",
    "biz_type": "FLIGHT",
    "origin": "上海",
    "destination_keywords": ["杭州"],
    "date_start": "2026-12-05",
}


@pytest.fixture
def nothing_listening() -> str:
    """A base URL whose port has no server: every call is refused."""
    return f"http://127.0.0.1:{free_port()}/v1"


def use_openai(settings, base_url: str, timeout: float = 1.0) -> None:
    use_scripted_model(settings, base_url, key="sk-test-faults", model="fault-model", timeout=timeout, max_iterations=4)


# --- chat turns ----------------------------------------------------------------------------------------------------


def offline_answered(result, *, failed: set[str]) -> None:
    """The turn was answered by the offline engine after the model failed: both calls and the fallback on record."""
    assert result.outcome != "DEGRADED" and "没有产生任何操作" not in result.reply
    calls = list(LLMCall.objects.order_by("id"))
    assert [(c.provider, c.fallback) for c in calls] == [("openai", False), ("rules", True)]
    assert calls[0].outcome in failed and calls[1].outcome == "OK"
    turn = Turn.objects.get()
    assert turn.fallback is True and set(turn.llm_calls.all()) == set(calls)


@pytest.mark.parametrize("message", ["大理有什么活动", BOOK_FLIGHT])
def test_a_model_that_refuses_connections_is_replaced_by_the_offline_engine_and_books_nothing(
    alice, settings, nothing_listening, supplier_sandbox, message
):
    use_openai(settings, nothing_listening)

    result = chat_turn(user=alice, message=message, today=TODAY)

    offline_answered(result, failed={"ERROR", "TIMEOUT"})
    assert not BookingRecord.objects.exists()
    assert supplier_sandbox.stats()["orders"]["total"] == 0
    if message == BOOK_FLIGHT:  # the options and a card to confirm: nothing is booked on the offline reading alone
        assert [c["type"] for c in result.cards].count("confirmation") == 1


@pytest.mark.parametrize(
    "broken",
    [
        Reply(content="I booked it!! {not json"),
        Reply(content={"intent": 42, "destination_keywords": "杭州"}),
        Reply(status=503, error_message="overloaded"),
        Reply(delay=HANG, content={"intent": "BOOK"}),
    ],
    ids=["garbage", "wrong-types", "503", "slow"],
)
def test_a_broken_understanding_of_a_booking_request_books_nothing_on_the_supplier(
    alice, settings, fake_openai, supplier_sandbox, broken
):
    use_openai(settings, fake_openai.base_url, timeout=0.5)
    fake_openai.enqueue(broken)

    result = chat_turn(user=alice, message=BOOK_FLIGHT, today=TODAY)

    offline_answered(result, failed={"INVALID", "ERROR", "TIMEOUT"})
    assert [c["type"] for c in result.cards].count("confirmation") == 1  # waits for the traveller's yes
    assert not BookingRecord.objects.exists()
    assert supplier_sandbox.stats()["orders"]["total"] == 0
    assert len(fake_openai.requests) == 1  # the model was asked once; the offline engine did the rest


@pytest.mark.parametrize(
    ("broken", "outcome", "said"),
    [
        (Reply(content="<html>502 Bad Gateway</html>"), "CLARIFY", "还需要"),
        (  # invalid arguments are refused back to the model, which then fails (503): channel 1 answers the turn
            Reply(tool_calls=[{"id": "c2", "name": "execute_platform_command", "arguments": "{not json"}]),
            "ANSWERED",
            "请确认",
        ),
        (Reply(status=503, error_message="overloaded"), "ANSWERED", "请确认"),
        (Reply(delay=HANG, content="too late"), "ANSWERED", "请确认"),
    ],
    ids=["garbage-text", "garbage-arguments", "503", "slow"],
)
def test_the_booking_agent_s_model_breaking_after_a_successful_search_leaves_no_half_booking(
    alice, settings, fake_openai, supplier_sandbox, broken, outcome, said
):
    # Channel 2: the model drives the booking (channel 1 books through code: its model only understands). The first
    # answer must arrive in time on a loaded machine: the timeout is generous, the broken answer never comes.
    use_openai(settings, fake_openai.base_url, timeout=2.0)
    settings.ASSISTANT_AGENT_ENABLED = True
    fake_openai.enqueue(
        Reply(tool_calls=[{"id": "c1", "name": "execute_platform_command", "arguments": {"command": SEARCH}}]),
        broken,
    )
    fake_openai.set_default(Reply(status=503, error_message="still overloaded"))

    result = chat_turn(user=alice, message=BOOK_FLIGHT, today=TODAY)

    # the first tool call (a search) reached the supplier and succeeded: the search happened, nothing was ordered
    assert len(fake_openai.requests) >= 2
    assert not BookingRecord.objects.exists()
    assert supplier_sandbox.stats()["orders"]["total"] == 0
    assert result.outcome == outcome
    assert said in result.reply
    assert not any(c.get("booking_id") for c in result.cards)
    turn = Turn.objects.get()
    assert turn.outcome == result.outcome
    calls = list(LLMCall.objects.order_by("id").values_list("purpose", "outcome"))
    assert calls[0] == ("agent", "OK")
    if outcome != "CLARIFY":  # a garbage final text is an (unhelpful) answer; the others are audited failures
        assert any(kind != "OK" for _, kind in calls[1:])
        # channel 1 answered the turn from the offline reading: the booking waits for its card's yes
        assert turn.fallback is True
        assert [c["type"] for c in result.cards].count("confirmation") == 1


# --- the after-sale verdict ----------------------------------------------------------------------------------------


@pytest.fixture
def demo_alice(db, settings, django_user_model):
    from django.core.management import call_command

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("seed_demo", verbosity=0)
    return django_user_model.objects.get(username="alice")


@pytest.mark.parametrize(
    ("reply", "kind"),
    [(None, "ERROR"), (Reply(content={"verdict": ["PASS"], "reason": 7, "policy_ids": "all"}), "INVALID")],
    ids=["connection-refused", "wrong-types"],
)
def test_a_failed_verdict_still_files_the_request_as_an_uncertain_flagged_ticket(
    demo_alice, fake_openai, nothing_listening, reply, kind
):
    base_url = nothing_listening if reply is None else fake_openai.base_url
    if reply is not None:
        fake_openai.enqueue(reply)
    port = OpenAILLM(base_url=base_url, api_key="sk-test-faults", model="fault-model", timeout=1.0)

    outcome = aftersale_request_submit(user=demo_alice, order_id="ORD-001", action="REFUND", port=port)

    ticket = HitlTicket.objects.get()
    assert ticket.pk == outcome.ticket.pk
    assert (outcome.status, ticket.verdict, ticket.flagged, ticket.status) == (
        "SUBMITTED",
        "UNCERTAIN",
        True,
        "PENDING",
    )
    assert ticket.events.exists()
    call = LLMCall.objects.get()
    assert (call.purpose, call.outcome if kind == "INVALID" else call.outcome in {"ERROR", "TIMEOUT"}) == (
        "verdict",
        kind if kind == "INVALID" else True,
    )
    assert ticket.evidence["verdict"]["error"]
