"""Deciding tickets and executing them: ticket_decide, ticket_execute, ticket_retry and the execute_ticket task.

Tasks run in-process (eager); the supplier is the sandbox, with a store of each test's own.
"""

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone

from aftersale.models import BizOrder, HitlTicket, OrderStatus, TicketAction, TicketKind, TicketStatus
from aftersale.services import AftersaleError
from aftersale.services.decisions import ticket_decide, ticket_item_received, ticket_retry
from aftersale.services.execution import ticket_execute, tickets_resume_stalled
from aftersale.tasks import execute_ticket
from bookings.accounts import supplier_account_ensure
from bookings.models import BookingStatus
from bookings.platform import PlatformCommand, order_number, platform_call
from bookings.services.recording import booking_record_from_platform
from tests.support.live_events import work


def refunds(sandbox) -> dict:
    return sandbox.stats()["refunds"]["byOrderId"]


def order_row(order_id: str) -> tuple:
    order = BizOrder.objects.get(order_id=order_id)
    return order.status, order.amount, order.refunded_amount, order.user_id, order.refund_claim_id, order.events.count()


def order_money(order_id: str) -> tuple:
    """What a failure must leave as it was: the order's status, amounts and owner, and no claim on its money."""
    order = BizOrder.objects.get(order_id=order_id)
    return order.status, order.amount, order.refunded_amount, order.user_id, order.refund_claim_id


def ticket_row(ticket: HitlTicket) -> tuple:
    ticket.refresh_from_db()
    return ticket.status, ticket.decided_by_id, ticket.decision_reason, ticket.attempts, ticket.events.count()


def stale_time() -> dt.datetime:
    from django.conf import settings

    return timezone.now() - dt.timedelta(seconds=settings.AFTERSALE_EXECUTION_LEASE_SECONDS + 5)


def refund_on_supplier(order: BizOrder, request_id: str) -> dict:
    """A refund made on the supplier as an earlier, interrupted attempt would have made it (under `request_id`: the
    order's key, or the ticket number that tickets executed before the order's key carried)."""
    key = supplier_account_ensure(user=order.user).api_key
    arguments = {"orderId": order.order_id, "amount": float(order.amount), "total": float(order.amount)}
    return platform_call(PlatformCommand("order", "refund", {**arguments, "requestId": request_id}), api_key=key)


@pytest.fixture
def ord001(demo_seeded):
    return BizOrder.objects.get(order_id="ORD-001")


# --- approving ---------------------------------------------------------------------------------------------------


def test_an_approved_refund_is_executed_the_order_refunded_and_the_supplier_refunds_once(
    ord001, demo_approver, ticket_for, supplier_sandbox, django_capture_on_commit_callbacks
):
    ticket = ticket_for(ord001)

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        decided = ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="policy ok")

    assert decided.status == TicketStatus.APPROVED and len(work(callbacks)) == 1
    ticket.refresh_from_db()
    ord001.refresh_from_db()
    assert ticket.status == TicketStatus.EXECUTED
    assert ord001.status == OrderStatus.REFUNDED
    assert refunds(supplier_sandbox) == {"ORD-001": 1}
    assert (ticket.decided_by, ticket.decision_reason, ticket.attempts) == (demo_approver, "policy ok", 1)
    assert ticket.decided_at is not None and ticket.executed_at is not None
    result = ticket.execution_result
    assert result["ok"] is True and result["refundId"].startswith("RF") and result["recovered"] is False
    assert (result["amount"], result["orderId"], result["requestId"]) == ("380.00", "ORD-001", "refund:ORD-001")
    assert list(ticket.events.values_list("from_status", "to_status", "actor__username")) == [
        ("PENDING", "APPROVED", "approver"),
        ("APPROVED", "EXECUTING", None),
        ("EXECUTING", "EXECUTED", None),
    ]
    claimed, refunded = list(ord001.events.order_by("pk"))[-2:]
    assert (claimed.from_status, claimed.to_status) == ("PAID", "PAID")
    assert claimed.reason == f"refund claimed by ticket {ticket.ticket_no} (refund ¥380.00, attempt 1)"
    assert (refunded.from_status, refunded.to_status) == ("PAID", "REFUNDED")
    assert (ord001.refunded_amount, ord001.refund_claim_id) == (Decimal("380.00"), None)


def test_an_approved_return_leaves_the_order_returned_once_its_item_is_back(
    demo_seeded, demo_approver, ticket_for, supplier_sandbox, django_capture_on_commit_callbacks
):
    order = BizOrder.objects.get(order_id="ORD-004")
    ticket = ticket_for(order, action=TicketAction.RETURN)

    with django_capture_on_commit_callbacks(execute=True):
        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="")
        ticket_item_received(ticket_id=ticket.pk, actor=demo_approver)

    ticket.refresh_from_db()
    assert ticket.status == TicketStatus.EXECUTED
    assert BizOrder.objects.get(order_id="ORD-004").status == OrderStatus.RETURNED
    assert refunds(supplier_sandbox) == {"ORD-004": 1}


def test_approving_enqueues_nothing_until_the_transaction_commits(
    ord001, demo_approver, ticket_for, supplier_sandbox, django_capture_on_commit_callbacks
):
    ticket = ticket_for(ord001)

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="")
        ticket.refresh_from_db()
        assert ticket.status == TicketStatus.APPROVED

    assert len(work(callbacks)) == 1
    assert refunds(supplier_sandbox) == {}


# --- rejecting and who may decide --------------------------------------------------------------------------------


def test_a_rejection_with_a_reason_rejects_and_refunds_nothing(
    ord001, demo_approver, ticket_for, supplier_sandbox, django_capture_on_commit_callbacks
):
    ticket = ticket_for(ord001)

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=False, reason="outside the policy")

    ticket.refresh_from_db()
    assert (ticket.status, ticket.decision_reason, ticket.decided_by) == (
        TicketStatus.REJECTED,
        "outside the policy",
        demo_approver,
    )
    assert work(callbacks) == []
    assert refunds(supplier_sandbox) == {}
    assert BizOrder.objects.get(order_id="ORD-001").status == OrderStatus.PAID


def test_a_rejection_without_a_reason_is_refused_and_changes_nothing(ord001, demo_approver, ticket_for):
    ticket = ticket_for(ord001)
    before = ticket_row(ticket)

    with pytest.raises(AftersaleError) as raised:
        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=False, reason="   ")

    assert raised.value.code == "INVALID_PARAM"
    assert ticket_row(ticket) == before


@pytest.mark.parametrize("who", ["alice", "bob", "carol"])
def test_a_user_without_the_decide_permission_cannot_decide(ord001, ticket_for, django_user_model, who):
    ticket = ticket_for(ord001)
    before = ticket_row(ticket)

    with pytest.raises(AftersaleError) as raised:
        ticket_decide(
            ticket_id=ticket.pk, approver=django_user_model.objects.get(username=who), approve=True, reason=""
        )

    assert raised.value.code == "PERMISSION_DENIED"
    assert ticket_row(ticket) == before


def test_an_approver_cannot_decide_their_own_request(ord001, demo_approver, ticket_for, supplier_sandbox):
    ticket = ticket_for(ord001, requested_by=demo_approver)
    before = ticket_row(ticket)

    with pytest.raises(AftersaleError) as raised:
        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="")

    assert raised.value.code == "PERMISSION_DENIED"
    assert ticket_row(ticket) == before
    assert refunds(supplier_sandbox) == {}


@pytest.mark.parametrize("second", ["approver", "admin"])
def test_a_second_decision_is_refused_and_the_first_stands(
    ord001, demo_approver, ticket_for, django_user_model, second, english
):
    ticket = ticket_for(ord001)
    ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="first")
    before = ticket_row(ticket)

    with pytest.raises(AftersaleError) as raised:
        ticket_decide(
            ticket_id=ticket.pk, approver=django_user_model.objects.get(username=second), approve=False, reason="no"
        )

    assert raised.value.code == "TICKET_DECIDED"
    assert "already approved by approver at" in raised.value.message
    assert ticket_row(ticket) == before
    assert before[0] == TicketStatus.APPROVED


def test_a_ticket_past_its_deadline_cannot_be_decided(ord001, demo_approver, ticket_for):
    ticket = ticket_for(ord001, deadline=timezone.now() - dt.timedelta(minutes=1))
    before = ticket_row(ticket)

    with pytest.raises(AftersaleError) as raised:
        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="")

    assert raised.value.code == "TICKET_EXPIRED"
    assert ticket_row(ticket) == before


# --- reconciliation ----------------------------------------------------------------------------------------------


def _amount_edited(order, ticket):
    BizOrder.objects.filter(pk=order.pk).update(amount=order.amount + Decimal("1.00"))
    return "amounts differ"


def _already_refunded(order, ticket):
    BizOrder.objects.filter(pk=order.pk).update(status=OrderStatus.REFUNDED)
    return "cannot become REFUNDED"


def _owner_changed(order, ticket):
    from django.contrib.auth import get_user_model

    BizOrder.objects.filter(pk=order.pk).update(user=get_user_model().objects.get(username="bob"))
    return "no longer belongs to the requester"


def _order_gone(order, ticket):
    HitlTicket.objects.filter(pk=ticket.pk).update(order=None, entity="ORD-404")
    return "order ORD-404 no longer exists"


@pytest.mark.parametrize("change", [_amount_edited, _already_refunded, _owner_changed, _order_gone])
def test_an_order_that_changed_since_the_ticket_fails_reconciliation_without_a_supplier_call(
    ord001, ticket_for, supplier_sandbox, change
):
    ticket = ticket_for(ord001, status=TicketStatus.APPROVED)
    expected = change(ord001, ticket)
    order_before = order_row("ORD-001")

    ticket = ticket_execute(ticket_id=ticket.pk)

    assert ticket.status == TicketStatus.FAILED
    result = ticket.execution_result
    assert (result["ok"], result["stage"], result["code"]) == (False, "reconcile", "RECONCILIATION_FAILED")
    assert any(expected in reason for reason in result["reasons"])
    assert order_row("ORD-001") == order_before
    assert refunds(supplier_sandbox) == {}
    assert ticket.events.last().to_status == TicketStatus.FAILED


# --- the supplier failing ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fault", "code"),
    [("order.refund=fail", "REJECTED"), ("order.refund=timeout", "TIMEOUT"), ("*=garbage", "INVALID_RESPONSE")],
)
def test_a_supplier_failure_fails_the_ticket_and_leaves_the_order_unchanged(
    ord001, ticket_for, supplier_sandbox, settings, fault, code
):
    settings.PLATFORM_TIMEOUT = 1.0
    ticket = ticket_for(ord001, status=TicketStatus.APPROVED)
    order_before = order_money("ORD-001")
    supplier_sandbox.fault(fault)

    ticket = ticket_execute(ticket_id=ticket.pk)

    assert ticket.status == TicketStatus.FAILED
    assert (ticket.execution_result["stage"], ticket.execution_result["code"]) == ("supplier", code)
    assert ticket.executed_at is None
    assert order_money("ORD-001") == order_before
    # The order's money was claimed before the call and released with the ticket's FAILED: two events, no move.
    assert list(ord001.events.order_by("pk").values_list("from_status", "to_status", "reason"))[-2:] == [
        ("PAID", "PAID", f"refund claimed by ticket {ticket.ticket_no} (refund ¥380.00, attempt 1)"),
        ("PAID", "PAID", f"refund claim released: ticket {ticket.ticket_no} failed: {code}"),
    ]
    assert refunds(supplier_sandbox) == {}


def test_a_failed_ticket_is_not_executed_again_by_a_repeated_task(ord001, ticket_for, supplier_sandbox):
    ticket = ticket_for(ord001, status=TicketStatus.APPROVED)
    supplier_sandbox.fault("order.refund=fail")
    execute_ticket.delay(ticket.pk)
    supplier_sandbox.heal()
    before = ticket_row(ticket)

    execute_ticket.delay(ticket.pk)

    assert ticket_row(ticket) == before and before[0] == TicketStatus.FAILED
    assert refunds(supplier_sandbox) == {}


def test_a_retry_after_the_supplier_is_back_executes_with_exactly_one_refund(
    ord001, demo_approver, ticket_for, supplier_sandbox, django_capture_on_commit_callbacks
):
    ticket = ticket_for(ord001, status=TicketStatus.APPROVED)
    supplier_sandbox.fault("order.refund=fail")
    assert ticket_execute(ticket_id=ticket.pk).status == TicketStatus.FAILED
    supplier_sandbox.heal()

    with django_capture_on_commit_callbacks(execute=True):
        ticket_retry(ticket_id=ticket.pk, actor=demo_approver)

    ticket.refresh_from_db()
    assert ticket.status == TicketStatus.EXECUTED and ticket.attempts == 2
    assert ticket.execution_result["recovered"] is False
    assert BizOrder.objects.get(order_id="ORD-001").status == OrderStatus.REFUNDED
    assert refunds(supplier_sandbox) == {"ORD-001": 1}
    assert list(ticket.events.values_list("from_status", "to_status", "actor__username"))[-4:] == [
        ("EXECUTING", "FAILED", None),
        ("FAILED", "FAILED", "approver"),
        ("FAILED", "EXECUTING", None),
        ("EXECUTING", "EXECUTED", None),
    ]


def test_a_retry_whose_earlier_attempt_did_refund_finishes_with_that_refund(
    ord001, demo_approver, ticket_for, supplier_sandbox, django_capture_on_commit_callbacks
):
    # The first attempt refunded, but its answer was lost (a timeout after the supplier had done it).
    ticket = ticket_for(ord001, status=TicketStatus.FAILED, attempts=1)
    earlier = refund_on_supplier(ord001, "refund:ORD-001")

    with django_capture_on_commit_callbacks(execute=True):
        ticket_retry(ticket_id=ticket.pk, actor=demo_approver)

    ticket.refresh_from_db()
    assert ticket.status == TicketStatus.EXECUTED
    assert (ticket.execution_result["refundId"], ticket.execution_result["recovered"]) == (earlier["refundId"], True)
    assert BizOrder.objects.get(order_id="ORD-001").status == OrderStatus.REFUNDED
    assert refunds(supplier_sandbox) == {"ORD-001": 1}


def test_only_a_failed_ticket_can_be_retried_and_only_by_an_approver(
    ord001, demo_approver, ticket_for, django_user_model
):
    pending, failed = (
        ticket_for(ord001),
        ticket_for(BizOrder.objects.get(order_id="ORD-004"), status=TicketStatus.FAILED),
    )
    before = ticket_row(pending), ticket_row(failed)

    with pytest.raises(AftersaleError) as not_failed:
        ticket_retry(ticket_id=pending.pk, actor=demo_approver)
    with pytest.raises(AftersaleError) as not_an_approver:
        ticket_retry(ticket_id=failed.pk, actor=django_user_model.objects.get(username="bob"))

    assert (not_failed.value.code, not_an_approver.value.code) == ("INVALID_TRANSITION", "PERMISSION_DENIED")
    assert (ticket_row(pending), ticket_row(failed)) == before


# --- leases ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["order", "ticket"], ids=["the-orders-key", "a-ticket-number-of-before"])
def test_a_stale_lease_whose_refund_already_happened_is_taken_over_without_a_second_refund(
    ord001, ticket_for, supplier_sandbox, key
):
    ticket = ticket_for(ord001, status=TicketStatus.EXECUTING, attempts=1, execution_started_at=stale_time())
    if key == "order":  # the dead executor claimed the order's money and refunded under the order's key
        BizOrder.objects.filter(pk=ord001.pk).update(refund_claim=ticket)
        earlier = refund_on_supplier(ord001, "refund:ORD-001")
    else:  # an executor of before the order's key and its claim existed: the ticket number was the key
        earlier = refund_on_supplier(ord001, ticket.ticket_no)

    ticket = ticket_execute(ticket_id=ticket.pk)

    assert ticket.status == TicketStatus.EXECUTED and ticket.attempts == 2
    assert (ticket.execution_result["refundId"], ticket.execution_result["recovered"]) == (earlier["refundId"], True)
    assert order_money("ORD-001")[:3] == (OrderStatus.REFUNDED, Decimal("380.00"), Decimal("380.00"))
    assert order_money("ORD-001")[4] is None  # the claim went with the order's move
    assert refunds(supplier_sandbox) == {"ORD-001": 1}
    assert list(ticket.events.values_list("from_status", "to_status")) == [
        ("EXECUTING", "EXECUTING"),
        ("EXECUTING", "EXECUTED"),
    ]


def test_a_stale_lease_without_a_refund_is_taken_over_and_refunded_once(ord001, ticket_for, supplier_sandbox):
    ticket = ticket_for(ord001, status=TicketStatus.EXECUTING, attempts=1, execution_started_at=stale_time())

    ticket = ticket_execute(ticket_id=ticket.pk)

    assert ticket.status == TicketStatus.EXECUTED and ticket.execution_result["recovered"] is False
    assert refunds(supplier_sandbox) == {"ORD-001": 1}


def test_a_fresh_lease_is_not_taken_over(ord001, ticket_for, supplier_sandbox):
    ticket = ticket_for(ord001, status=TicketStatus.EXECUTING, attempts=1, execution_started_at=timezone.now())
    before = ticket_row(ticket), order_row("ORD-001")

    returned = ticket_execute(ticket_id=ticket.pk)

    assert returned.status == TicketStatus.EXECUTING
    assert (ticket_row(ticket), order_row("ORD-001")) == before
    assert refunds(supplier_sandbox) == {}


def test_a_pending_ticket_is_not_executed(ord001, ticket_for, supplier_sandbox):
    ticket = ticket_for(ord001)
    before = ticket_row(ticket)

    execute_ticket.delay(ticket.pk)
    ticket_execute(ticket_id=ticket.pk)

    assert ticket_row(ticket) == before
    assert refunds(supplier_sandbox) == {}


def test_the_execution_task_delivered_twice_refunds_once(ord001, ticket_for, supplier_sandbox):
    ticket = ticket_for(ord001, status=TicketStatus.APPROVED)

    execute_ticket.delay(ticket.pk)
    execute_ticket.delay(ticket.pk)
    execute_ticket.delay(ticket.pk, retry=True)

    ticket.refresh_from_db()
    assert (ticket.status, ticket.attempts) == (TicketStatus.EXECUTED, 1)
    assert refunds(supplier_sandbox) == {"ORD-001": 1}


def test_the_stalled_sweep_resumes_an_approved_ticket_whose_task_was_lost_and_leaves_fresh_ones(
    ord001, ticket_for, supplier_sandbox, django_capture_on_commit_callbacks
):
    lost = ticket_for(ord001, status=TicketStatus.APPROVED)
    HitlTicket.objects.filter(pk=lost.pk).update(updated_at=stale_time())
    fresh = ticket_for(BizOrder.objects.get(order_id="ORD-004"), status=TicketStatus.APPROVED)

    with django_capture_on_commit_callbacks(execute=True):
        resumed = tickets_resume_stalled()

    lost.refresh_from_db()
    fresh.refresh_from_db()
    assert resumed == 1
    assert (lost.status, fresh.status) == (TicketStatus.EXECUTED, TicketStatus.APPROVED)
    assert refunds(supplier_sandbox) == {"ORD-001": 1}


# --- checkpoints -------------------------------------------------------------------------------------------------


def checkpoint_ticket(booking, **fields) -> HitlTicket:
    return HitlTicket.objects.create(
        ticket_no=f"TC{booking.booking_id}",
        kind=TicketKind.CHECKPOINT,
        idempotency_key=f"hitl:CANCEL_BOOKING:{booking.booking_id}",
        action=TicketAction.CANCEL_BOOKING,
        requested_by=booking.user,
        entity=booking.booking_id,
        amount=booking.amount,
        arguments={"tool": "cancel_booking", "arguments": {"booking_id": booking.booking_id}},
        deadline=timezone.now() + dt.timedelta(hours=48),
        **fields,
    )


def test_an_approved_checkpoint_resumes_the_paused_cancel_and_the_hotel_booking_is_cancelled(
    demo_seeded, demo_approver, django_user_model, supplier_sandbox, django_capture_on_commit_callbacks
):
    alice = django_user_model.objects.get(username="alice")
    booking = booking_record_from_platform(
        user=alice,
        biz_type="HOTEL",
        external_order_no="HT261201000001",
        arguments={"hotelId": "H1", "guests": [{"name": "Alice"}]},
        response={"orderNo": "HT261201000001", "totalPrice": 2400},
    )
    ticket = checkpoint_ticket(booking)

    with django_capture_on_commit_callbacks(execute=True):
        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="")

    ticket.refresh_from_db()
    booking.refresh_from_db()
    assert ticket.status == TicketStatus.EXECUTED
    assert booking.status == BookingStatus.CANCELLED
    assert ticket.execution_result["booking_id"] == booking.booking_id
    assert ticket.execution_result["call_the_hotel"] is True
    assert refunds(supplier_sandbox) == {}


def _book_flight(user) -> object:
    key = supplier_account_ensure(user=user).api_key
    date = (timezone.localdate() + dt.timedelta(days=20)).isoformat()
    found = platform_call(
        PlatformCommand("flight", "search", {"from": "上海", "to": "北京", "date": date}), api_key=key
    )
    arguments = {
        "flightNo": found["flights"][0]["flightNo"],
        "date": date,
        "contactTourist": {"name": "Alice", "mobile": "13800000000"},
    }
    answer = platform_call(PlatformCommand("flight", "saveOrder", arguments), api_key=key)
    return booking_record_from_platform(
        user=user, biz_type="FLIGHT", external_order_no=order_number(answer), arguments=arguments, response=answer
    )


def test_a_checkpoint_whose_cancel_the_platform_refuses_fails_and_the_booking_stays(
    demo_seeded, django_user_model, supplier_sandbox
):
    booking = _book_flight(django_user_model.objects.get(username="alice"))
    ticket = checkpoint_ticket(booking, status=TicketStatus.APPROVED)
    supplier_sandbox.fault("flight.cancelOrder=fail")

    ticket = ticket_execute(ticket_id=ticket.pk)

    booking.refresh_from_db()
    assert ticket.status == TicketStatus.FAILED
    assert ticket.execution_result["code"] == "PLATFORM_CANCEL_FAILED"
    assert booking.status == BookingStatus.PENDING_PAYMENT
    assert supplier_sandbox.stats()["orders"]["byStatus"] == {"PENDING_PAYMENT": 1}


def test_an_approved_flight_checkpoint_cancels_on_the_platform(demo_seeded, django_user_model, supplier_sandbox):
    booking = _book_flight(django_user_model.objects.get(username="alice"))
    ticket = checkpoint_ticket(booking, status=TicketStatus.APPROVED)

    ticket = ticket_execute(ticket_id=ticket.pk)

    booking.refresh_from_db()
    assert (ticket.status, booking.status) == (TicketStatus.EXECUTED, BookingStatus.CANCELLED)
    assert ticket.execution_result["call_the_hotel"] is False
    assert supplier_sandbox.stats()["orders"]["byStatus"] == {"CANCELLED": 1}
