"""Checkpoint tickets: the `hitl:` gate for every state a key can be in, and the hook that pauses risky tool calls."""

import threading
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission
from django.db import connection
from django.utils import timezone

from aftersale.hooks import HOOKS, CheckpointHook
from aftersale.models import HitlTicket, TicketAction, TicketEvent, TicketKind, TicketStatus
from aftersale.services import checkpoints
from aftersale.services.checkpoints import checkpoint_gate, checkpoint_key
from assistant.agent.registry import ToolRegistry, build_registry
from bookings.models import BizType, BookingEvent, BookingRecord, BookingStatus
from bookings.tools import cancel_booking
from core.envelope import Code, ok
from core.tools import Risk, ToolContext, tool

pytestmark = pytest.mark.django_db

BOOKING_ID = "BK20261201001"
KEY = f"hitl:CANCEL_BOOKING:{BOOKING_ID}"


# -- building blocks ------------------------------------------------------------------------------------------------


@pytest.fixture
def approver(user_factory):
    user = user_factory("ada", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="decide_ticket", content_type__app_label="aftersale"))
    return user


def gate(user, *, entity: str = BOOKING_ID, amount="2500.00", summary: str = "Cancel hotel booking"):
    return checkpoint_gate(
        user=user,
        action=TicketAction.CANCEL_BOOKING,
        entity=entity,
        amount=Decimal(amount),
        arguments={"booking_id": entity},
        summary=summary,
    )


_numbers = iter(range(1, 10**6))


def existing_ticket(user, status: str, **fields) -> HitlTicket:
    """A checkpoint ticket on KEY in `status`, made directly (as earlier requests and decisions would have)."""
    values = {
        "ticket_no": f"TCHK{next(_numbers):08d}",
        "kind": TicketKind.CHECKPOINT,
        "idempotency_key": KEY,
        "action": TicketAction.CANCEL_BOOKING,
        "requested_by": user,
        "entity": BOOKING_ID,
        "amount": Decimal("2500.00"),
        "arguments": {"tool": "cancel_booking", "arguments": {"booking_id": BOOKING_ID}},
        "evidence": {"summary": "Cancel hotel booking"},
        "status": status,
        "deadline": timezone.now() + timedelta(hours=48),
    }
    values.update(fields)
    return HitlTicket.objects.create(**values)


def booking_for(user, *, booking_id: str = BOOKING_ID, amount: str = "2500.00", biz_type: str = BizType.HOTEL):
    return BookingRecord.objects.create(
        booking_id=booking_id,
        user=user,
        biz_type=biz_type,
        external_order_no=f"EXT-{booking_id}",
        status=BookingStatus.CONFIRMED,
        amount=Decimal(amount),
    )


@pytest.fixture
def registry():
    return ToolRegistry(tools=[cancel_booking], hooks=[CheckpointHook()])


def cancel(registry, user, booking_id: str = BOOKING_ID, language: str = "en") -> dict:
    return registry.call("cancel_booking", {"booking_id": booking_id}, ToolContext(user=user, language=language))


def tickets() -> list[tuple]:
    return list(HitlTicket.objects.order_by("pk").values_list("ticket_no", "status", "idempotency_key"))


# -- the gate, for each state of a hitl: key --------------------------------------------------------------------


def test_a_key_without_tickets_opens_a_pending_checkpoint_ticket(alice, settings):
    settings.AFTERSALE_TICKET_TTL_HOURS = 24

    decision = gate(alice, summary="Cancel hotel booking BK20261201001 (¥2500.00)")

    ticket = HitlTicket.objects.get()
    assert (decision.proceed, decision.code, decision.created, decision.ticket) == (
        False,
        "TICKET_PENDING",
        True,
        ticket,
    )
    assert ticket.ticket_no in decision.message and "waiting for an approver" in decision.message
    assert (ticket.kind, ticket.status, ticket.idempotency_key) == ("CHECKPOINT", "PENDING", KEY)
    assert (ticket.action, ticket.entity, ticket.amount, ticket.requested_by) == (
        "CANCEL_BOOKING",
        BOOKING_ID,
        Decimal("2500.00"),
        alice,
    )
    assert ticket.arguments == {"tool": "cancel_booking", "arguments": {"booking_id": BOOKING_ID}}
    assert ticket.evidence["summary"] == "Cancel hotel booking BK20261201001 (¥2500.00)"
    assert abs(ticket.deadline - (timezone.now() + timedelta(hours=24))) < timedelta(minutes=1)
    event = TicketEvent.objects.get(ticket=ticket)
    assert (event.from_status, event.to_status, event.actor) == ("", "PENDING", alice)
    assert decision.data["ticket_no"] == ticket.ticket_no and decision.data["status"] == "PENDING"


def test_a_pending_ticket_is_reused_not_duplicated(alice):
    first = gate(alice)

    again = gate(alice)

    assert (again.proceed, again.code, again.created) == (False, "TICKET_PENDING", False)
    assert again.ticket == first.ticket
    assert HitlTicket.objects.count() == 1 and TicketEvent.objects.count() == 1


@pytest.mark.parametrize(
    "status", [TicketStatus.APPROVED, TicketStatus.EXECUTING, TicketStatus.EXECUTED, TicketStatus.FAILED]
)
def test_an_approved_checkpoint_proceeds_and_never_asks_again(alice, status):
    approved = existing_ticket(alice, status)
    before = tickets()

    decision = gate(alice)

    assert (decision.proceed, decision.code, decision.ticket) == (True, "OK", approved)
    assert tickets() == before


def test_a_rejected_checkpoint_stays_rejected_and_opens_no_new_ticket(alice, approver):
    existing_ticket(alice, TicketStatus.REJECTED, decided_by=approver, decision_reason="too late to cancel")
    before = tickets()

    decision = gate(alice)

    assert (decision.proceed, decision.code) == (False, "PERMISSION_DENIED")
    assert "rejected by an approver" in decision.message and "too late to cancel" in decision.message
    assert tickets() == before


def test_a_rejection_after_a_timeout_is_still_final(alice):
    existing_ticket(alice, TicketStatus.TIMEOUT)
    existing_ticket(alice, TicketStatus.REJECTED)
    before = tickets()

    decision = gate(alice)

    assert decision.code == "PERMISSION_DENIED"
    assert tickets() == before


def test_a_timed_out_checkpoint_gets_a_new_ticket(alice):
    old = existing_ticket(alice, TicketStatus.TIMEOUT)

    decision = gate(alice)

    assert (decision.proceed, decision.code, decision.created) == (False, "TICKET_PENDING", True)
    assert decision.ticket != old and decision.ticket.status == "PENDING"
    old.refresh_from_db()
    assert old.status == "TIMEOUT"
    assert HitlTicket.objects.filter(idempotency_key=KEY).count() == 2


def test_a_pending_ticket_past_its_deadline_is_timed_out_and_replaced(alice):
    overdue = existing_ticket(alice, TicketStatus.PENDING, deadline=timezone.now() - timedelta(minutes=1))

    decision = gate(alice)

    overdue.refresh_from_db()
    assert overdue.status == "TIMEOUT"
    assert TicketEvent.objects.filter(ticket=overdue, to_status="TIMEOUT", reason="deadline passed").exists()
    assert decision.created and decision.ticket.status == "PENDING" and decision.ticket != overdue


def test_other_entities_and_actions_have_their_own_keys(alice):
    gate(alice, entity="BK20261201001")
    gate(alice, entity="BK20261201002")

    assert checkpoint_key(action="CANCEL_BOOKING", entity="X1") == "hitl:CANCEL_BOOKING:X1"
    assert sorted(HitlTicket.objects.values_list("idempotency_key", flat=True)) == [
        "hitl:CANCEL_BOOKING:BK20261201001",
        "hitl:CANCEL_BOOKING:BK20261201002",
    ]


def test_losing_the_race_to_open_a_ticket_answers_with_the_winners_ticket(alice, monkeypatch):
    """Both requests read "no ticket"; the second insert hits the one-live-per-key constraint and re-reads."""
    winner = existing_ticket(alice, TicketStatus.PENDING)
    real = checkpoints._decision_for_existing
    reads = []

    def stale_first_read(key):
        reads.append(key)
        return None if len(reads) == 1 else real(key)

    monkeypatch.setattr(checkpoints, "_decision_for_existing", stale_first_read)

    decision = gate(alice)

    assert (decision.code, decision.ticket, decision.created) == ("TICKET_PENDING", winner, False)
    assert HitlTicket.objects.count() == 1 and not TicketEvent.objects.exists()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_requests_open_exactly_one_ticket(user_factory):
    user = user_factory("racer")
    barrier = threading.Barrier(4)
    results, errors = [], []

    def request():
        try:
            barrier.wait(timeout=10)
            results.append(gate(user))
        except Exception as exc:  # reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=request) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert not errors
    ticket = HitlTicket.objects.get()
    assert {decision.ticket.pk for decision in results} == {ticket.pk}
    assert sum(decision.created for decision in results) == 1
    assert all(decision.code == "TICKET_PENDING" for decision in results)


# -- the hook, through a registry with the real cancel_booking tool ----------------------------------------------------


def test_the_hook_is_declared_first_in_line():
    assert [type(hook) for hook in HOOKS] == [CheckpointHook]
    assert (HOOKS[0].name, HOOKS[0].priority) == ("hitl_checkpoint", 10)
    registry = ToolRegistry(hooks=[CheckpointHook()])
    assert registry.hooks[0].name == "hitl_checkpoint"


def test_a_registry_built_from_the_app_modules_pauses_cancellations(alice):
    registry = build_registry(("bookings.tools", "aftersale.hooks"))
    booking_for(alice)

    result = cancel(registry, alice)

    assert [hook.name for hook in registry.hooks] == ["hitl_checkpoint", "booking_persistence"]
    assert result["code"] == Code.TICKET_PENDING


def test_cancelling_an_expensive_booking_waits_for_an_approver(registry, alice):
    booking = booking_for(alice, amount="2500.00")

    result = cancel(registry, alice)

    ticket = HitlTicket.objects.get()
    assert (result["ok"], result["code"]) == (False, Code.TICKET_PENDING)
    assert result["data"]["ticket_no"] == ticket.ticket_no and result["data"]["status"] == "PENDING"
    assert ticket.ticket_no in result["message"] and "approver" in result["message"]
    assert (ticket.kind, ticket.idempotency_key, ticket.amount) == ("CHECKPOINT", KEY, Decimal("2500.00"))
    assert ticket.arguments == {"tool": "cancel_booking", "arguments": {"booking_id": BOOKING_ID}}
    assert ticket.evidence["booking"]["booking_id"] == BOOKING_ID
    booking.refresh_from_db()
    assert booking.status == BookingStatus.CONFIRMED
    assert not BookingEvent.objects.filter(booking=booking).exists()


def test_a_chinese_conversation_is_told_in_chinese(registry, alice, approver):
    booking_for(alice)

    waiting = cancel(registry, alice, language="zh-hans")
    HitlTicket.objects.update(status=TicketStatus.REJECTED, decision_reason="不可退的房价")
    refused = cancel(registry, alice, language="zh-hans")

    ticket = HitlTicket.objects.get()
    assert waiting["code"] == Code.TICKET_PENDING
    assert f"工单 {ticket.ticket_no}" in waiting["message"] and "等待审批人" in waiting["message"]
    assert refused["code"] == Code.PERMISSION_DENIED
    assert "驳回" in refused["message"] and "不可退的房价" in refused["message"]
    assert refused["data"]["status"] == "REJECTED"


def test_asking_again_reuses_the_same_checkpoint(registry, alice):
    booking_for(alice)
    first = cancel(registry, alice)

    again = cancel(registry, alice, booking_id=" bk20261201001 ")

    assert again["code"] == Code.TICKET_PENDING
    assert again["data"]["ticket_no"] == first["data"]["ticket_no"]
    assert HitlTicket.objects.count() == 1


@pytest.mark.parametrize("amount", ["300.00", "2000.00"])
def test_a_booking_at_or_below_the_amount_is_cancelled_at_once(registry, alice, amount):
    booking = booking_for(alice, amount=amount)

    result = cancel(registry, alice)

    assert (result["ok"], result["data"]["status"], result["data"]["call_the_hotel"]) == (True, "CANCELLED", True)
    booking.refresh_from_db()
    assert booking.status == BookingStatus.CANCELLED
    assert not HitlTicket.objects.exists()


def test_the_amount_comes_from_settings(registry, alice, settings):
    settings.AFTERSALE_CHECKPOINT_AMOUNT = 100
    booking_for(alice, amount="300.00")

    result = cancel(registry, alice)

    assert result["code"] == Code.TICKET_PENDING


def test_someone_elses_booking_gets_the_tools_own_refusal_and_no_ticket(registry, alice, user_factory):
    carol = user_factory("carol")
    booking = booking_for(carol, amount="5000.00")

    result = cancel(registry, alice)

    assert (result["ok"], result["code"]) == (False, Code.PERMISSION_DENIED)
    assert "not yours" in result["message"]
    assert not HitlTicket.objects.exists()
    booking.refresh_from_db()
    assert booking.status == BookingStatus.CONFIRMED


def test_an_unknown_booking_gets_the_tools_own_answer_and_no_ticket(registry, alice):
    result = cancel(registry, alice, booking_id="BK19990101001")

    assert result["code"] == Code.BOOKING_NOT_FOUND
    assert not HitlTicket.objects.exists()


def test_an_already_cancelled_booking_needs_no_approval(registry, alice):
    booking = booking_for(alice, amount="5000.00")
    BookingRecord.objects.filter(pk=booking.pk).update(status=BookingStatus.CANCELLED)

    result = cancel(registry, alice)

    assert result["ok"] and result["data"]["already_cancelled"]
    assert not HitlTicket.objects.exists()


def test_a_rejected_cancellation_is_refused_and_the_booking_kept(registry, alice, approver):
    booking = booking_for(alice)
    existing_ticket(alice, TicketStatus.REJECTED, decided_by=approver, decision_reason="non-refundable rate")

    result = cancel(registry, alice)

    assert (result["ok"], result["code"]) == (False, Code.PERMISSION_DENIED)
    assert "rejected by an approver" in result["message"]
    booking.refresh_from_db()
    assert booking.status == BookingStatus.CONFIRMED
    assert HitlTicket.objects.count() == 1


def test_an_approved_cancellation_runs_the_tool(registry, alice):
    booking = booking_for(alice)
    existing_ticket(alice, TicketStatus.APPROVED)

    result = cancel(registry, alice)

    assert result["ok"] and result["data"]["status"] == "CANCELLED"
    booking.refresh_from_db()
    assert booking.status == BookingStatus.CANCELLED
    assert HitlTicket.objects.count() == 1


def test_approving_the_checkpoint_resumes_the_call_on_the_worker(
    registry, alice, approver, django_capture_on_commit_callbacks
):
    from aftersale.services.execution import ticket_decide

    booking = booking_for(alice)
    paused = cancel(registry, alice)
    ticket = HitlTicket.objects.get(ticket_no=paused["data"]["ticket_no"])

    with django_capture_on_commit_callbacks(execute=True):
        ticket_decide(ticket_id=ticket.pk, approver=approver, approve=True, reason="customer called")

    ticket.refresh_from_db()
    booking.refresh_from_db()
    assert booking.status == BookingStatus.CANCELLED
    assert ticket.status == TicketStatus.EXECUTED and ticket.attempts == 1
    assert ticket.execution_result["booking_id"] == BOOKING_ID
    assert list(ticket.events.values_list("to_status", flat=True)) == ["PENDING", "APPROVED", "EXECUTING", "EXECUTED"]

    again = cancel(registry, alice)

    assert again["ok"] and again["data"]["already_cancelled"]
    assert HitlTicket.objects.count() == 1


# -- HIGH-risk tools ------------------------------------------------------------------------------------------------


@tool(
    name="refund",
    risk=Risk.HIGH,
    parameters={
        "type": "object",
        "properties": {"order_id": {"type": "string"}},
        "required": ["order_id"],
        "additionalProperties": False,
    },
)
def refund_tool(context, order_id: str) -> dict:
    """Refund an order (a test tool)."""
    RAN.append(order_id)
    return ok({"order_id": order_id})


@tool(
    name="wipe_everything",
    risk=Risk.HIGH,
    parameters={"type": "object", "properties": {}, "additionalProperties": False},
)
def wipe_tool(context) -> dict:
    """A HIGH-risk tool about nothing the approval console knows (a test tool)."""
    RAN.append("wipe")
    return ok()


RAN: list[str] = []


@pytest.fixture
def high_registry():
    RAN.clear()
    return ToolRegistry(tools=[refund_tool, wipe_tool], hooks=[CheckpointHook()])


def test_a_high_risk_tool_is_paused_whatever_the_amount(high_registry, alice):
    result = high_registry.call("refund", {"order_id": " ord-042 "}, ToolContext(user=alice))

    ticket = HitlTicket.objects.get()
    assert result["code"] == Code.TICKET_PENDING and result["data"]["ticket_no"] == ticket.ticket_no
    assert (ticket.idempotency_key, ticket.action, ticket.entity) == ("hitl:REFUND:ORD-042", "REFUND", "ORD-042")
    assert ticket.arguments == {"tool": "refund", "arguments": {"order_id": " ord-042 "}}
    assert RAN == []


def test_an_approved_high_risk_call_runs(high_registry, alice):
    high_registry.call("refund", {"order_id": "ORD-042"}, ToolContext(user=alice))
    HitlTicket.objects.update(status=TicketStatus.APPROVED)

    result = high_registry.call("refund", {"order_id": "ORD-042"}, ToolContext(user=alice))

    assert result["ok"] and RAN == ["ORD-042"]


def test_a_high_risk_tool_that_cannot_be_put_to_an_approver_is_refused(high_registry, alice):
    result = high_registry.call("wipe_everything", {}, ToolContext(user=alice))

    assert (result["ok"], result["code"]) == (False, Code.PERMISSION_DENIED)
    assert RAN == [] and not HitlTicket.objects.exists()
