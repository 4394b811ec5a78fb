"""Checkpoint tickets: the `hitl:` gate for every state a key can be in, and the hook that pauses risky tool calls."""

import threading
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import AnonymousUser, Permission
from django.db import connection
from django.utils import timezone

from aftersale.models import HitlTicket, TicketAction, TicketEvent, TicketKind, TicketStatus
from aftersale.services import checkpoints
from aftersale.services.checkpoints import approval_gate, checkpoint_gate, checkpoint_key
from aftersale.services.decisions import ticket_decide
from aftersale.services.execution import ticket_execute
from bookings.models import BizType, BookingEvent, BookingRecord, BookingStatus
from bookings.services.cancel import booking_cancel
from bookings.services.errors import BookingError
from core import approvals
from core.approvals import ApprovalDecision
from core.envelope import Code

# The wording asserted here is English; tests/aftersale/test_language.py reads the same in Chinese.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]

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
        tool="cancel_booking",
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


def ask(user, *, action="CANCEL_BOOKING", entity=BOOKING_ID, amount="2500.00", evidence=None) -> ApprovalDecision:
    """The project's approval gate, as a service that holds an approval rule asks it."""
    return approval_gate(
        user=user,
        action=action,
        entity=entity,
        amount=Decimal(amount),
        summary=f"Cancel hotel booking {entity}",
        arguments={"booking_id": entity},
        evidence={"tool": "cancel_booking", **(evidence or {})},
    )


def cancel(user, booking_id: str = BOOKING_ID):
    """The cancel service (bookings), which asks the approval gate above the checkpoint amount."""
    return booking_cancel(user=user, booking_id=booking_id)


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


# -- approval_gate: the project's gate (core.approvals) over checkpoint tickets ---------------------------------------


def test_the_configured_approval_gate_is_this_one(settings):
    assert settings.TRIPDESK_APPROVAL_GATE == "aftersale.services.checkpoints.approval_gate"
    assert approvals.approval_gate() is approval_gate


def test_the_gate_opens_a_pending_ticket_and_says_so(alice):
    decision = ask(alice, evidence={"booking": {"booking_id": BOOKING_ID}})

    ticket = HitlTicket.objects.get()
    assert isinstance(decision, ApprovalDecision)
    assert (decision.proceed, decision.code) == (False, Code.TICKET_PENDING)
    assert decision.data["ticket_no"] == ticket.ticket_no and decision.data["status"] == "PENDING"
    assert decision.data["amount"] == "2500.00" and decision.data["created"] is True
    assert ticket.ticket_no in decision.message
    assert (ticket.kind, ticket.idempotency_key, ticket.amount) == ("CHECKPOINT", KEY, Decimal("2500.00"))
    assert ticket.arguments == {"tool": "cancel_booking", "arguments": {"booking_id": BOOKING_ID}}
    assert ticket.evidence["booking"]["booking_id"] == BOOKING_ID
    assert ticket.evidence["summary"] == f"Cancel hotel booking {BOOKING_ID}"


def test_the_gate_reuses_the_pending_ticket(alice):
    first = ask(alice)

    again = ask(alice, entity=" bk20261201001 ")

    assert (again.proceed, again.code) == (False, Code.TICKET_PENDING)
    assert again.data["ticket_no"] == first.data["ticket_no"] and again.data["created"] is False
    assert HitlTicket.objects.count() == 1


def test_the_gate_lets_an_approved_call_proceed(alice):
    approved = existing_ticket(alice, TicketStatus.APPROVED)

    decision = ask(alice)

    assert (decision.proceed, decision.code, decision.data["ticket_no"]) == (True, "OK", approved.ticket_no)
    assert HitlTicket.objects.count() == 1


def test_the_gate_refuses_a_rejected_call_with_the_approvers_reason(alice, approver):
    existing_ticket(alice, TicketStatus.REJECTED, decided_by=approver, decision_reason="non-refundable rate")

    decision = ask(alice)

    assert (decision.proceed, decision.code) == (False, Code.PERMISSION_DENIED)
    assert decision.data["decision_reason"] == "non-refundable rate"
    assert HitlTicket.objects.count() == 1


def test_the_gate_refuses_a_caller_who_is_not_signed_in_and_opens_nothing(db):
    decision = ask(AnonymousUser())

    assert (decision.proceed, decision.code) == (False, Code.PERMISSION_DENIED)
    assert not HitlTicket.objects.exists()


@pytest.mark.parametrize(("action", "entity"), [("WIPE_EVERYTHING", BOOKING_ID), ("REFUND", "  ")])
def test_the_gate_refuses_what_it_cannot_put_to_an_approver(alice, action, entity):
    decision = ask(alice, action=action, entity=entity)

    assert (decision.proceed, decision.code) == (False, Code.PERMISSION_DENIED)
    assert not HitlTicket.objects.exists()


def test_a_refund_of_an_order_gets_its_own_key(alice):
    decision = ask(alice, action="REFUND", entity="ord-042", amount="99.00")

    ticket = HitlTicket.objects.get()
    assert decision.code == Code.TICKET_PENDING
    assert (ticket.idempotency_key, ticket.action, ticket.entity) == ("hitl:REFUND:ORD-042", "REFUND", "ORD-042")


# -- the cancel service asks the gate above the checkpoint amount ---------------------------------------------------


def test_cancelling_an_expensive_booking_waits_for_an_approver_and_changes_nothing(alice):
    booking = booking_for(alice, amount="2500.00")

    with pytest.raises(BookingError) as caught:
        cancel(alice)

    ticket = HitlTicket.objects.get()
    assert caught.value.code == Code.TICKET_PENDING
    assert caught.value.data["ticket_no"] == ticket.ticket_no
    assert (ticket.kind, ticket.idempotency_key, ticket.amount) == ("CHECKPOINT", KEY, Decimal("2500.00"))
    assert ticket.evidence["booking"]["booking_id"] == BOOKING_ID
    booking.refresh_from_db()
    assert booking.status == BookingStatus.CONFIRMED
    assert not BookingEvent.objects.filter(booking=booking).exists()


@pytest.mark.parametrize("amount", ["300.00", "2000.00"])
def test_a_booking_at_or_below_the_amount_is_cancelled_at_once_without_a_ticket(alice, amount):
    booking = booking_for(alice, amount=amount)

    outcome = cancel(alice)

    assert (outcome.booking.status, outcome.call_the_hotel) == (BookingStatus.CANCELLED, True)
    booking.refresh_from_db()
    assert booking.status == BookingStatus.CANCELLED
    assert not HitlTicket.objects.exists()


def test_someone_elses_booking_is_refused_and_opens_no_ticket(alice, user_factory):
    booking = booking_for(user_factory("carol"), amount="5000.00")

    with pytest.raises(BookingError) as caught:
        cancel(alice)

    assert caught.value.code == Code.BOOKING_NOT_FOUND  # answered as an unknown number: nothing said of carol's
    assert not HitlTicket.objects.exists()
    booking.refresh_from_db()
    assert booking.status == BookingStatus.CONFIRMED


def test_a_rejected_cancellation_is_refused_and_the_booking_kept(alice, approver):
    booking = booking_for(alice)
    existing_ticket(alice, TicketStatus.REJECTED, decided_by=approver, decision_reason="non-refundable rate")

    with pytest.raises(BookingError) as caught:
        cancel(alice)

    assert caught.value.code == Code.PERMISSION_DENIED
    booking.refresh_from_db()
    assert booking.status == BookingStatus.CONFIRMED
    assert HitlTicket.objects.count() == 1


def test_approving_the_checkpoint_resumes_the_cancel_on_the_worker(alice, approver, django_capture_on_commit_callbacks):
    booking = booking_for(alice)
    with pytest.raises(BookingError):
        cancel(alice)
    ticket = HitlTicket.objects.get()

    with django_capture_on_commit_callbacks(execute=True):
        ticket_decide(ticket_id=ticket.pk, approver=approver, approve=True, reason="customer called")

    ticket.refresh_from_db()
    booking.refresh_from_db()
    assert booking.status == BookingStatus.CANCELLED
    assert ticket.status == TicketStatus.EXECUTED and ticket.attempts == 1
    assert ticket.execution_result["booking_id"] == BOOKING_ID
    assert list(ticket.events.values_list("to_status", flat=True)) == ["PENDING", "APPROVED", "EXECUTING", "EXECUTED"]

    again = cancel(alice)

    assert again.already_cancelled
    assert HitlTicket.objects.count() == 1


def test_a_resumed_ticket_whose_saved_call_names_another_booking_fails_and_cancels_nothing(alice):
    booking = booking_for(alice)
    ticket = existing_ticket(
        alice, TicketStatus.APPROVED, arguments={"tool": "cancel_booking", "arguments": {"booking_id": "BK20261201999"}}
    )

    ticket = ticket_execute(ticket_id=ticket.pk)

    assert ticket.status == TicketStatus.FAILED and ticket.execution_result["code"] == "INVALID_PARAM"
    booking.refresh_from_db()
    assert booking.status == BookingStatus.CONFIRMED
