"""Exactly once, under real concurrency on PostgreSQL: parallel approvals, duplicated tasks on a real worker,
parallel executors. The supplier's own store counts the refunds."""

import datetime as dt
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest
from django.conf import settings
from django.contrib.auth.models import Group, Permission
from django.db import connection
from django.utils import timezone

from aftersale.models import BizOrder, HitlTicket, OrderCategory, OrderStatus, TicketStatus
from aftersale.services import AftersaleError
from aftersale.services.decisions import ticket_decide
from aftersale.services.execution import ticket_execute
from aftersale.tasks import execute_ticket
from bookings.accounts import supplier_account_ensure
from bookings.platform import PlatformCommand, platform_call

APPROVERS = 20
DUPLICATES = 10


@pytest.fixture
def refund_order(transactional_db, django_user_model):
    """A paid order of a traveller, committed (the worker and the threads see it)."""
    traveller = django_user_model.objects.create_user(username="traveller", password="x")
    return BizOrder.objects.create(
        order_id="ORD-901",
        user=traveller,
        category=OrderCategory.GOODS,
        items=[{"name": "冲锋衣", "qty": 1, "price": 899}],
        amount=Decimal("899.00"),
        status=OrderStatus.PAID,
        paid_at=timezone.now() - dt.timedelta(days=1),
    )


@pytest.fixture
def approvers(transactional_db, django_user_model) -> list[int]:
    group = Group.objects.create(name="approvers")
    group.permissions.add(Permission.objects.get(content_type__app_label="aftersale", codename="decide_ticket"))
    ids = []
    for i in range(APPROVERS):
        user = django_user_model.objects.create_user(username=f"approver{i}", password="x", is_staff=True)
        user.groups.add(group)
        ids.append(user.pk)
    return ids


def in_threads(fn, items: list) -> list:
    """Run fn(item) in one thread per item, all released at once; each thread has its own DB connection."""
    barrier = threading.Barrier(len(items))

    def run(item):
        try:
            barrier.wait(timeout=30)
            return fn(item)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=len(items)) as pool:
        return list(pool.map(run, items))


def wait_for(condition, *, seconds: float = 60, what: str = "condition") -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    pytest.fail(f"timed out after {seconds} s waiting for {what}")


def worker_idle() -> bool:
    from config.celery import app

    inspect = app.control.inspect(timeout=1)
    busy = [*(inspect.active() or {}).values(), *(inspect.reserved() or {}).values()]
    return all(not tasks for tasks in busy)


def supplier_refunds(order: BizOrder) -> list[dict]:
    key = supplier_account_ensure(user=order.user).api_key
    return platform_call(PlatformCommand("order", "queryOrder", {"orderId": order.order_id}), api_key=key)["refunds"]


def assert_executed_once(ticket: HitlTicket, order: BizOrder, sandbox, *, claimed_here: bool = True) -> None:
    """One refund on the supplier under the order's key, the order REFUNDED once, its money claimed by the ticket's
    first attempt (unless `claimed_here` is False: the claim was there before) and the claim gone with the move."""
    ticket.refresh_from_db()
    order.refresh_from_db()
    assert ticket.status == TicketStatus.EXECUTED
    assert order.status == OrderStatus.REFUNDED
    assert sandbox.stats()["refunds"]["byOrderId"] == {order.order_id: 1}
    [refund] = supplier_refunds(order)
    assert (refund["refundId"], refund["requestId"]) == (ticket.execution_result["refundId"], "refund:ORD-901")
    claimed = [("PAID", "PAID", f"refund claimed by ticket {ticket.ticket_no} (refund ¥899.00, attempt 1)")]
    assert list(order.events.values_list("from_status", "to_status", "reason")) == [
        *(claimed if claimed_here else []),
        ("PAID", "REFUNDED", f"refund {refund['refundId']} for ticket {ticket.ticket_no}"),
    ]
    assert order.refund_claim_id is None
    assert list(ticket.events.filter(to_status=TicketStatus.EXECUTED).values_list("from_status", flat=True)) == [
        TicketStatus.EXECUTING
    ]


def make_ticket(order: BizOrder, **fields) -> HitlTicket:
    return HitlTicket.objects.create(
        **{
            "ticket_no": "TX900000000001",
            "kind": "WORKFLOW",
            "idempotency_key": f"wfa:REFUND:{order.order_id}",
            "action": "REFUND",
            "requested_by": order.user,
            "order": order,
            "entity": order.order_id,
            "amount": order.amount,
            "deadline": timezone.now() + dt.timedelta(hours=48),
            **fields,
        }
    )


@pytest.mark.postgres
@pytest.mark.worker
def test_twenty_parallel_approvals_decide_once_and_duplicated_tasks_refund_once(
    supplier_sandbox, celery_worker_process, refund_order, approvers
):
    ticket = make_ticket(refund_order)

    def approve(approver_id: int) -> str:
        from django.contrib.auth import get_user_model

        approver = get_user_model().objects.get(pk=approver_id)
        try:
            ticket_decide(ticket_id=ticket.pk, approver=approver, approve=True, reason=f"ok from {approver_id}")
        except AftersaleError as exc:
            return exc.code
        return "APPROVED"

    outcomes = in_threads(approve, approvers)
    for _ in range(DUPLICATES):  # a redelivered, duplicated or double-clicked task
        execute_ticket.delay(ticket.pk)

    assert sorted(outcomes) == ["APPROVED"] + ["TICKET_DECIDED"] * (APPROVERS - 1)
    assert ticket.events.filter(to_status=TicketStatus.APPROVED).count() == 1
    wait_for(lambda: HitlTicket.objects.get(pk=ticket.pk).status == TicketStatus.EXECUTED, what="EXECUTED")
    wait_for(worker_idle, seconds=30, what="the worker to drain the duplicates")
    assert_executed_once(ticket, refund_order, supplier_sandbox)
    ticket.refresh_from_db()
    assert ticket.attempts == 1
    assert ticket.decided_by_id in approvers
    assert ticket.events.filter(to_status=TicketStatus.EXECUTING).count() == 1


@pytest.mark.postgres
@pytest.mark.worker
def test_duplicated_tasks_on_a_dead_executors_lease_take_it_over_once_without_refunding_again(
    supplier_sandbox, celery_worker_process, refund_order
):
    stale = timezone.now() - dt.timedelta(seconds=settings.AFTERSALE_EXECUTION_LEASE_SECONDS + 5)
    ticket = make_ticket(refund_order, status=TicketStatus.EXECUTING, attempts=1, execution_started_at=stale)
    key = supplier_account_ensure(user=refund_order.user).api_key
    BizOrder.objects.filter(pk=refund_order.pk).update(refund_claim=ticket)  # what the dead executor did…
    platform_call(  # …before it died
        PlatformCommand(
            "order", "refund", {"orderId": "ORD-901", "amount": 899.0, "total": 899.0, "requestId": "refund:ORD-901"}
        ),
        api_key=key,
    )

    for _ in range(DUPLICATES):
        execute_ticket.delay(ticket.pk)

    wait_for(lambda: HitlTicket.objects.get(pk=ticket.pk).status == TicketStatus.EXECUTED, what="EXECUTED")
    wait_for(worker_idle, seconds=30, what="the worker to drain the duplicates")
    assert_executed_once(ticket, refund_order, supplier_sandbox, claimed_here=False)
    ticket.refresh_from_db()
    assert ticket.attempts == 2 and ticket.execution_result["recovered"] is True


@pytest.mark.postgres
def test_ten_executors_released_at_once_claim_the_ticket_once(supplier_sandbox, refund_order):
    ticket = make_ticket(refund_order, status=TicketStatus.APPROVED)

    statuses = in_threads(lambda _: ticket_execute(ticket_id=ticket.pk).status, list(range(DUPLICATES)))

    assert statuses.count(TicketStatus.EXECUTED) == 1
    assert statuses.count(TicketStatus.EXECUTING) == DUPLICATES - 1  # they saw it taken, and left
    assert_executed_once(ticket, refund_order, supplier_sandbox)
    ticket.refresh_from_db()
    assert ticket.attempts == 1
