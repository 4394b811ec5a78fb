"""One order is refunded at most once, whatever tickets it has (a RETURN beside a REFUND, both approved): the
execution claims the order's money under the order's row lock, committed before the supplier is asked; the refund's
idempotency key is the order's (`refund:<order id>`); and the supplier never refunds more than the order's total.

The service tests run executions in-process against the sandbox supplier (a store of each test's own). The race
runs with real processes: two Celery workers on PostgreSQL, two approvers deciding the order's two tickets at the
same moment from two threads, and the sandbox holding every refund call until the test releases it, which it does
only once the second ticket has been refused (the tests wait for states, never for a clock).
"""

import datetime as dt
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest
from django.conf import settings as django_settings
from django.db import connection
from django.utils import timezone

from aftersale.models import AftersaleNotice, BizOrder, HitlTicket, NoticeKind, OrderStatus, TicketAction, TicketStatus
from aftersale.services.decisions import ticket_decide, ticket_item_received, ticket_retry
from aftersale.services.execution import ticket_execute
from bookings.accounts import supplier_account_ensure
from bookings.platform import PlatformCommand, platform_call
from tests.conftest import _start_worker, _stop_worker, _wait_for_workers
from tests.faults.test_worker_killed import cmdline, descendants
from tests.waiting import wait_for

PAID = Decimal("258.00")  # ORD-004: two trekking poles at ¥129, delivered three days ago (alice's)


@pytest.fixture
def ord004(demo_seeded):
    return BizOrder.objects.get(order_id="ORD-004")


def order_state(order_id: str = "ORD-004") -> tuple:
    """What a refused execution must leave as it was: status, amounts, the claim, and the order's history."""
    order = BizOrder.objects.get(order_id=order_id)
    return order.status, order.amount, order.refunded_amount, order.refund_claim_id, order.events.count()


def supplier_refunds(order: BizOrder) -> list[dict]:
    key = supplier_account_ensure(user=order.user).api_key
    return platform_call(PlatformCommand("order", "queryOrder", {"orderId": order.order_id}), api_key=key)["refunds"]


def refund_on_supplier(order: BizOrder, *, amount: Decimal, request_id: str) -> dict:
    """A refund on the supplier that TripDesk did not record (a call that landed after its ticket gave up on it, or
    one made outside TripDesk), under the order's user's key."""
    key = supplier_account_ensure(user=order.user).api_key
    arguments = {"orderId": order.order_id, "amount": float(amount), "total": float(order.amount)}
    return platform_call(PlatformCommand("order", "refund", {**arguments, "requestId": request_id}), api_key=key)


def commands_run(sandbox) -> list[str]:
    """Every command the supplier ran, whatever trace it came with."""
    traced = sandbox.stats("traces")
    return [call["command"] for calls in traced["byTraceId"].values() for call in calls] + (
        ["(untraced)"] * traced["untraced"]
    )


def stale() -> dt.datetime:
    return timezone.now() - dt.timedelta(seconds=django_settings.AFTERSALE_EXECUTION_LEASE_SECONDS + 5)


# --- a claim held by another ticket ------------------------------------------------------------------------------


def test_a_second_ticket_of_an_order_whose_money_is_claimed_fails_naming_the_holder_and_asks_the_supplier_nothing(
    ord004, ticket_for, supplier_sandbox
):
    holder = ticket_for(
        ord004,
        action=TicketAction.RETURN,
        status=TicketStatus.EXECUTING,
        attempts=1,
        execution_started_at=timezone.now(),
    )
    BizOrder.objects.filter(pk=ord004.pk).update(refund_claim=holder)  # its refund call is under way
    second = ticket_for(ord004, action=TicketAction.REFUND, status=TicketStatus.APPROVED)
    before = order_state()

    second = ticket_execute(ticket_id=second.pk)

    assert second.status == TicketStatus.FAILED and not second.flagged
    result = second.execution_result
    assert (result["ok"], result["stage"], result["code"]) == (False, "reconcile", "RECONCILIATION_FAILED")
    assert result["reasons"] == [f"ORD-004 is being refunded by ticket {holder.ticket_no}"]
    assert order_state() == before
    assert order_state()[3] == holder.ticket_no  # the claim is still the holder's
    assert HitlTicket.objects.get(pk=holder.pk).status == TicketStatus.EXECUTING
    assert commands_run(supplier_sandbox) == []
    assert supplier_sandbox.stats()["refunds"]["total"] == 0
    assert AftersaleNotice.objects.filter(ticket=second, kind=NoticeKind.FAILED).count() == 1


def test_the_claim_holder_taken_over_after_its_lease_refunds_once_and_the_refused_ticket_retried_stays_refused(
    ord004, ticket_for, supplier_sandbox, demo_approver, django_capture_on_commit_callbacks
):
    holder = ticket_for(
        ord004, action=TicketAction.RETURN, status=TicketStatus.EXECUTING, attempts=1, execution_started_at=stale()
    )
    BizOrder.objects.filter(pk=ord004.pk).update(refund_claim=holder)  # its executor died holding the claim
    second = ticket_execute(ticket_id=ticket_for(ord004, status=TicketStatus.APPROVED).pk)

    holder = ticket_execute(ticket_id=holder.pk)  # the takeover keeps its own claim
    with django_capture_on_commit_callbacks(execute=True):
        ticket_retry(ticket_id=second.pk, actor=demo_approver)

    second.refresh_from_db()
    assert (holder.status, holder.attempts, holder.execution_result["recovered"]) == (TicketStatus.EXECUTED, 2, False)
    assert order_state()[:4] == (OrderStatus.RETURNED, PAID, PAID, None)
    [refund] = supplier_refunds(ord004)
    assert (refund["refundId"], refund["amount"], refund["requestId"]) == (
        holder.execution_result["refundId"],
        258,
        "refund:ORD-004",
    )
    assert second.status == TicketStatus.FAILED and second.attempts == 2
    assert "order ORD-004 already got ¥258.00 back" in second.execution_result["reasons"]
    assert supplier_sandbox.stats()["refunds"] == {"total": 1, "byOrderId": {"ORD-004": 1}}
    assert list(ord004.events.order_by("pk").values_list("from_status", "to_status", "reason"))[1:] == [
        ("DELIVERED", "RETURNED", f"return {refund['refundId']} for ticket {holder.ticket_no}"),
    ]


def test_a_ticket_executed_after_the_order_was_refunded_is_refused_as_before(
    ord004, ticket_for, supplier_sandbox, demo_approver, django_capture_on_commit_callbacks
):
    first, second = ticket_for(ord004, action=TicketAction.RETURN), ticket_for(ord004)
    with django_capture_on_commit_callbacks(execute=True):
        ticket_decide(ticket_id=first.pk, approver=demo_approver, approve=True, reason="")
        ticket_item_received(ticket_id=first.pk, actor=demo_approver)  # the return's item is back: refunded
    before = order_state()

    with django_capture_on_commit_callbacks(execute=True):
        ticket_decide(ticket_id=second.pk, approver=demo_approver, approve=True, reason="")

    second.refresh_from_db()
    assert HitlTicket.objects.get(pk=first.pk).status == TicketStatus.EXECUTED
    assert second.status == TicketStatus.FAILED
    assert second.execution_result["reasons"] == [
        "order ORD-004 is RETURNED, it cannot become REFUNDED",
        "order ORD-004 already got ¥258.00 back",
    ]
    assert order_state() == before and before[:4] == (OrderStatus.RETURNED, PAID, PAID, None)
    assert supplier_sandbox.stats()["refunds"] == {"total": 1, "byOrderId": {"ORD-004": 1}}


# --- the order's key and the supplier's cap ----------------------------------------------------------------------


def test_a_refund_that_landed_after_its_ticket_failed_is_what_a_second_ticket_of_the_order_gets_back(
    ord004, ticket_for, supplier_sandbox
):
    ticket_for(ord004, action=TicketAction.RETURN, status=TicketStatus.FAILED, attempts=1)  # its call timed out…
    landed = refund_on_supplier(ord004, amount=PAID, request_id="refund:ORD-004")  # …and reached the supplier after
    second = ticket_for(ord004, status=TicketStatus.APPROVED)

    second = ticket_execute(ticket_id=second.pk)

    assert second.status == TicketStatus.EXECUTED and not second.flagged
    assert (second.execution_result["refundId"], second.execution_result["requestId"]) == (
        landed["refundId"],
        "refund:ORD-004",
    )
    assert order_state()[:4] == (OrderStatus.REFUNDED, PAID, PAID, None)
    assert supplier_sandbox.stats()["refunds"] == {"total": 1, "byOrderId": {"ORD-004": 1}}
    assert supplier_sandbox.stats()["idempotency"] == {"keys": 1, "replays": 1}


def test_a_refund_the_supplier_refuses_as_above_what_was_paid_fails_the_ticket_and_releases_the_claim(
    ord004, ticket_for, supplier_sandbox
):
    outside = refund_on_supplier(ord004, amount=Decimal("100.00"), request_id="T-OUTSIDE")  # not TripDesk's doing
    ticket = ticket_for(ord004, status=TicketStatus.APPROVED)
    before = order_state()

    ticket = ticket_execute(ticket_id=ticket.pk)

    assert ticket.status == TicketStatus.FAILED
    result = ticket.execution_result
    assert (result["stage"], result["code"]) == ("supplier", "REJECTED")
    assert result["message"] == (
        "REFUND_EXCEEDS_PAID: refunding 258.00 on order ORD-004 would bring its refunds to 358.00, above the 258.00 "
        "paid (100.00 refunded already)"
    )
    assert order_state()[:4] == before[:4] == (OrderStatus.DELIVERED, PAID, Decimal("0.00"), None)
    assert list(ord004.events.order_by("pk").values_list("from_status", "to_status", "reason"))[-2:] == [
        ("DELIVERED", "DELIVERED", f"refund claimed by ticket {ticket.ticket_no} (refund ¥258.00, attempt 1)"),
        ("DELIVERED", "DELIVERED", f"refund claim released: ticket {ticket.ticket_no} failed: REJECTED"),
    ]
    assert [r["refundId"] for r in supplier_refunds(ord004)] == [outside["refundId"]]


# --- the claim is committed before the supplier is asked (two sessions at once) ----------------------------------


@pytest.fixture
def held_refunds(supplier_sandbox, monkeypatch, tmp_path):
    """Every `order refund` call hangs until the returned release file exists (bounded by a sleep never reached)."""
    release = tmp_path / "release"
    monkeypatch.setenv("SANDBOX_SUPPLIER_FAULT_RELEASE", str(release))
    monkeypatch.setenv("SANDBOX_SUPPLIER_FAULT_SLEEP", "600")
    supplier_sandbox.fault("order.refund=timeout")
    return release


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_while_one_tickets_refund_call_is_under_way_another_ticket_of_the_order_is_refused_at_once(
    ord004, ticket_for, supplier_sandbox, held_refunds, settings
):
    settings.PLATFORM_TIMEOUT = 60.0  # the held call must outlive the wait below on a loaded machine
    # (a return of goods whose item is back: its refund may start)
    holder = ticket_for(
        ord004, action=TicketAction.RETURN, status=TicketStatus.APPROVED, item_received_at=timezone.now()
    )
    second = ticket_for(ord004, status=TicketStatus.APPROVED)

    def execute_holder():
        try:
            return ticket_execute(ticket_id=holder.pk)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        running = pool.submit(execute_holder)
        try:
            wait_for(lambda: order_state()[3] == holder.ticket_no, "the holder's claim to be committed")
            refused = ticket_execute(ticket_id=second.pk)  # another session, the holder's call still held
        finally:
            held_refunds.touch()
        done = running.result(timeout=60)

    assert refused.status == TicketStatus.FAILED
    assert refused.execution_result["reasons"] == [f"ORD-004 is being refunded by ticket {holder.ticket_no}"]
    assert done.status == TicketStatus.EXECUTED
    assert order_state()[:4] == (OrderStatus.RETURNED, PAID, PAID, None)
    assert supplier_sandbox.stats()["refunds"] == {"total": 1, "byOrderId": {"ORD-004": 1}}


# --- the race, with real processes -------------------------------------------------------------------------------


def refund_calls(workers) -> int:
    """How many `order refund` commands are running (held) under the workers: the sandbox as a process of its own
    shows its command in its argv."""
    return sum(
        1
        for worker in workers
        for pid in descendants(worker.pid)
        if "bookings.sandbox" in (argv := cmdline(pid)) and argv[-4:-2] == ["order", "refund"]
    )


@pytest.fixture
def two_workers_holding_refunds(held_refunds, monkeypatch, tmp_path, transactional_db):
    """Two real Celery worker processes whose refund calls hang until the release file exists; the sandbox runs as a
    process of its own per call (PLATFORM_WARM=0), so a held call can be seen; the platform timeout outlasts any
    wait of the test (the lease still outlasts two calls: aftersale.checks)."""
    monkeypatch.setenv("PLATFORM_WARM", "0")
    monkeypatch.setenv("PLATFORM_TIMEOUT", "60")
    workers = [
        _start_worker(f"claim-a-{os.getpid()}", tmp_path / "worker-a.log"),
        _start_worker(f"claim-b-{os.getpid()}", tmp_path / "worker-b.log"),
    ]
    try:
        _wait_for_workers(workers, 2)
        yield workers
    finally:
        held_refunds.touch()  # nothing stays held past the test
        for worker in workers:
            _stop_worker(worker)


def decide_at_once(decisions: list[tuple[int, int]]) -> list[str]:
    """Each (ticket id, approver id) approved by a thread of its own (a session of its own), all released at once."""
    from django.contrib.auth import get_user_model

    barrier = threading.Barrier(len(decisions))

    def decide(decision: tuple[int, int]) -> str:
        ticket_id, approver_id = decision
        try:
            approver = get_user_model().objects.get(pk=approver_id)
            barrier.wait(timeout=30)
            return ticket_decide(ticket_id=ticket_id, approver=approver, approve=True, reason="ok").status
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=len(decisions)) as pool:
        return list(pool.map(decide, decisions))


@pytest.mark.postgres
@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_return_and_a_refund_of_one_order_approved_at_the_same_moment_refund_it_once(
    ord004, ticket_for, supplier_sandbox, held_refunds, two_workers_holding_refunds, django_user_model
):
    # the item came back before the decision: the return is refunded on its approval, racing the other ticket
    returned = ticket_for(
        ord004, action=TicketAction.RETURN, request_reason="不想要了", item_received_at=timezone.now()
    )
    refunded = ticket_for(ord004, action=TicketAction.REFUND, request_reason="质量问题", flagged=True)
    approvers = [django_user_model.objects.get(username=name).pk for name in ("approver", "admin")]
    workers = two_workers_holding_refunds

    outcomes = decide_at_once([(returned.pk, approvers[0]), (refunded.pk, approvers[1])])

    assert outcomes == [TicketStatus.APPROVED, TicketStatus.APPROVED]
    tickets = [returned, refunded]

    def statuses() -> list[str]:
        return [HitlTicket.objects.values_list("status", flat=True).get(pk=t.pk) for t in tickets]

    # Both executions overlap: the first refund call is held while the other ticket runs. Without the claim the
    # second would reach the supplier too (two held calls); with it, it is refused without a call.
    wait_for(
        lambda: (
            (statuses().count(TicketStatus.FAILED) == 1 and refund_calls(workers) == 1) or refund_calls(workers) == 2
        ),
        "one ticket refused while the other's refund call is held (or two refund calls held)",
        seconds=60,
    )
    held_by = order_state()[3]
    held_refunds.touch()
    wait_for(
        lambda: set(statuses()) <= {TicketStatus.EXECUTED, TicketStatus.FAILED}, "both tickets to settle", seconds=60
    )

    assert supplier_sandbox.stats()["refunds"] == {"total": 1, "byOrderId": {"ORD-004": 1}}
    [refund] = supplier_refunds(ord004)
    for ticket in tickets:
        ticket.refresh_from_db()
    [winner] = [t for t in tickets if t.status == TicketStatus.EXECUTED]
    [loser] = [t for t in tickets if t.status == TicketStatus.FAILED]
    assert held_by == winner.ticket_no  # the refused ticket ran while the winner held the order's money
    assert (refund["refundId"], refund["amount"], refund["requestId"]) == (
        winner.execution_result["refundId"],
        258,
        "refund:ORD-004",
    )
    assert winner.execution_result["recovered"] is False and "order_not_updated" not in winner.execution_result
    assert (loser.execution_result["stage"], loser.execution_result["code"]) == ("reconcile", "RECONCILIATION_FAILED")
    assert loser.execution_result["reasons"] == [f"ORD-004 is being refunded by ticket {winner.ticket_no}"]
    target = OrderStatus.RETURNED if winner.action == TicketAction.RETURN else OrderStatus.REFUNDED
    assert order_state()[:4] == (target, PAID, PAID, None)
    assert list(ord004.events.order_by("pk").values_list("from_status", "to_status", "reason"))[1:] == [
        (
            "DELIVERED",
            "DELIVERED",
            f"refund claimed by ticket {winner.ticket_no} ({winner.action.lower()} ¥258.00, attempt 1)",
        ),
        ("DELIVERED", target, f"{winner.action.lower()} {refund['refundId']} for ticket {winner.ticket_no}"),
    ]
    assert list(loser.events.values_list("from_status", "to_status")) == [
        ("PENDING", "APPROVED"),
        ("APPROVED", "EXECUTING"),
        ("EXECUTING", "FAILED"),
    ]
