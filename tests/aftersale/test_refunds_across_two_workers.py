"""Work spreads over many workers: two real Celery worker processes share a batch of approved refunds on
PostgreSQL and Redis, and nothing is done twice (the supplier's own store counts the refunds)."""

import datetime as dt
import re
import time
from decimal import Decimal

import pytest
from django.contrib.auth.models import Group, Permission
from django.utils import timezone

from aftersale.models import BizOrder, HitlTicket, OrderCategory, OrderStatus, TicketKind, TicketStatus
from aftersale.services.decisions import ticket_decide

pytestmark = [pytest.mark.postgres, pytest.mark.worker]

BATCH = 24


def approver(django_user_model):
    group = Group.objects.create(name="approvers")
    group.permissions.add(Permission.objects.get(content_type__app_label="aftersale", codename="decide_ticket"))
    user = django_user_model.objects.create_user(username="approver", password="x", is_staff=True)
    user.groups.add(group)
    return user


def pending_tickets(django_user_model) -> list[HitlTicket]:
    traveller = django_user_model.objects.create_user(username="traveller", password="x")
    tickets = []
    for i in range(BATCH):
        order = BizOrder.objects.create(
            order_id=f"ORD-{700 + i}",
            user=traveller,
            category=OrderCategory.GOODS,
            items=[{"name": "登山杖", "qty": 1, "price": 100 + i}],
            amount=Decimal(100 + i),
            status=OrderStatus.PAID,
            paid_at=timezone.now() - dt.timedelta(days=1),
        )
        tickets.append(
            HitlTicket.objects.create(
                ticket_no=f"T2W{i:04d}",
                kind=TicketKind.WORKFLOW,
                idempotency_key=f"wfa:REFUND:{order.order_id}",
                action="REFUND",
                requested_by=traveller,
                order=order,
                entity=order.order_id,
                amount=order.amount,
                deadline=timezone.now() + dt.timedelta(hours=48),
            )
        )
    return tickets


def executed_by(log_path) -> int:
    """How many execute_ticket tasks this worker finished, from its own log."""
    text = log_path.read_text(errors="replace") if log_path.exists() else ""
    return len(re.findall(r"Task aftersale\.tasks\.execute_ticket\[[^\]]+\] succeeded", text))


def test_two_workers_share_a_batch_of_approved_refunds_and_do_nothing_twice(
    supplier_sandbox, two_celery_workers, django_user_model
):
    decider = approver(django_user_model)
    tickets = pending_tickets(django_user_model)

    for ticket in tickets:  # each approval enqueues its execution after commit, onto the shared broker
        ticket_decide(ticket_id=ticket.pk, approver=decider, approve=True, reason="batch")

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        done = HitlTicket.objects.filter(pk__in=[t.pk for t in tickets], status=TicketStatus.EXECUTED).count()
        if done == BATCH:
            break
        time.sleep(0.1)
    assert done == BATCH, f"only {done} of {BATCH} tickets executed"

    refunds = supplier_sandbox.stats()["refunds"]
    assert refunds["total"] == BATCH
    assert refunds["byOrderId"] == {t.entity: 1 for t in tickets}
    assert set(HitlTicket.objects.filter(pk__in=[t.pk for t in tickets]).values_list("attempts", flat=True)) == {1}
    assert set(BizOrder.objects.filter(order_id__startswith="ORD-7").values_list("status", flat=True)) == {"REFUNDED"}
    time.sleep(1)  # let the workers flush their "succeeded" log lines
    per_worker = [executed_by(log) for log in two_celery_workers]
    assert sum(per_worker) == BATCH
    assert all(count > 0 for count in per_worker), f"the batch was not shared: {per_worker}"
