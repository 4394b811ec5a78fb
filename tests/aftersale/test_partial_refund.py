"""A partial refund: an approver approves less than was asked, with a reason; it is executed exactly once, like a
full refund (the same claim, the same idempotency key on the supplier), and the order records what it got back.

Bad input (no amount above zero, more than asked, not an amount, a smaller amount without a reason, an amount on a
ticket that pays nothing back) is refused with INVALID_PARAM, and nothing changes. The supplier's own store counts
the refunds; real parallel approvals and a real worker prove exactly once on PostgreSQL.
"""

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone

from aftersale.models import (
    AftersaleNotice,
    BizOrder,
    HitlTicket,
    NoticeKind,
    OrderStatus,
    TicketAction,
    TicketEvent,
    TicketKind,
    TicketStatus,
)
from aftersale.services import AftersaleError
from aftersale.services.decisions import ticket_decide, ticket_item_received
from aftersale.services.execution import ticket_execute
from aftersale.tasks import execute_ticket
from bookings.accounts import supplier_account_ensure
from bookings.platform import PlatformCommand, platform_call
from tests.aftersale.test_exactly_once import (
    APPROVERS,
    DUPLICATES,
    approvers,  # noqa: F401 - a fixture
    in_threads,
    make_ticket,
    refund_order,  # noqa: F401 - a fixture
    wait_for,
    worker_idle,
)
from tests.support.live_events import work

REASON = "One of the two poles is fine: only the broken one is refunded."


def everything() -> dict:
    """Every row a decision or an execution could touch, to compare before and after a refusal."""
    return {
        "orders": list(BizOrder.objects.order_by("pk").values_list("order_id", "status", "amount", "refunded_amount")),
        "tickets": list(
            HitlTicket.objects.order_by("pk").values_list(
                "ticket_no", "status", "approved_amount", "decided_by", "decision_reason", "attempts"
            )
        ),
        "ticket_events": TicketEvent.objects.count(),
        "notices": AftersaleNotice.objects.count(),
    }


def supplier_refunds(order: BizOrder) -> list[dict]:
    key = supplier_account_ensure(user=order.user).api_key
    return platform_call(PlatformCommand("order", "queryOrder", {"orderId": order.order_id}), api_key=key)["refunds"]


@pytest.fixture
def ord004(demo_seeded):
    """Alice's two trekking poles, ¥258.00, delivered 3 days ago."""
    return BizOrder.objects.get(order_id="ORD-004")


@pytest.fixture
def ord001(demo_seeded):
    """Alice's activity ticket, ¥380.00, in 20 days."""
    return BizOrder.objects.get(order_id="ORD-001")


# -- bounds and the reason: refused, nothing changes ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "words"),
    [
        ("0", "more than ¥0"),
        ("-10.00", "more than ¥0"),
        ("380.01", "cannot be more than the ¥380.00 asked"),
        ("1000", "cannot be more than the ¥380.00 asked"),
        ("12.345", "a number of yuan"),
        ("abc", "a number of yuan"),
        ("NaN", "a number of yuan"),
    ],
)
def test_an_amount_out_of_bounds_is_refused_and_nothing_changes(
    english, ord001, ticket_for, demo_approver, django_capture_on_commit_callbacks, amount, words
):
    ticket = ticket_for(ord001)
    before = everything()

    with django_capture_on_commit_callbacks() as enqueued, pytest.raises(AftersaleError) as refused:
        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason=REASON, amount=amount)

    assert refused.value.code == "INVALID_PARAM" and words in refused.value.message
    assert everything() == before
    assert work(enqueued) == []


def test_a_smaller_amount_without_a_reason_is_refused_and_nothing_changes(english, ord001, ticket_for, demo_approver):
    ticket = ticket_for(ord001)
    before = everything()

    with pytest.raises(AftersaleError) as refused:
        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="   ", amount="100")

    assert refused.value.code == "INVALID_PARAM" and "needs a reason" in refused.value.message
    assert everything() == before


def test_an_amount_on_a_ticket_that_pays_nothing_back_is_refused(english, demo_alice, demo_approver):
    checkpoint = HitlTicket.objects.create(
        ticket_no="TCP000000001",
        kind=TicketKind.CHECKPOINT,
        idempotency_key="hitl:CANCEL_BOOKING:BK20261201001",
        action=TicketAction.CANCEL_BOOKING,
        requested_by=demo_alice,
        entity="BK20261201001",
        amount=Decimal("2500.00"),
        deadline=timezone.now() + dt.timedelta(hours=48),
    )
    before = everything()

    with pytest.raises(AftersaleError) as refused:
        ticket_decide(ticket_id=checkpoint.pk, approver=demo_approver, approve=True, reason=REASON, amount="100")

    assert refused.value.code == "INVALID_PARAM" and "pays nothing back" in refused.value.message
    assert everything() == before


def test_the_full_amount_needs_no_reason_and_is_recorded_as_approved(ord001, ticket_for, demo_approver):
    ticket = ticket_for(ord001)

    decided = ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="", amount="380.00")

    assert (decided.status, decided.approved_amount, decided.is_partial) == ("APPROVED", Decimal("380.00"), False)
    assert AftersaleNotice.objects.get(ticket=ticket).kind == NoticeKind.APPROVED


def test_an_approval_without_an_amount_approves_the_amount_asked(ord001, ticket_for, demo_approver):
    ticket = ticket_for(ord001)

    decided = ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="")

    assert decided.approved_amount == Decimal("380.00") == decided.refund_amount


# -- a partial refund, approved and executed ----------------------------------------------------------------------


def test_a_partial_refund_is_approved_with_its_reason_and_the_traveller_is_told(
    ord001, ticket_for, demo_approver, django_capture_on_commit_callbacks
):
    ticket = ticket_for(ord001)

    with django_capture_on_commit_callbacks() as enqueued:
        decided = ticket_decide(
            ticket_id=ticket.pk, approver=demo_approver, approve=True, reason=REASON, amount=Decimal("120.50")
        )

    assert (decided.status, decided.approved_amount, decided.amount) == (
        "APPROVED",
        Decimal("120.50"),
        Decimal("380.00"),
    )
    assert decided.is_partial and decided.decision_reason == REASON and decided.decided_by == demo_approver
    event = TicketEvent.objects.get(ticket=ticket, to_status="APPROVED")
    assert event.actor == demo_approver and "¥120.50 of ¥380.00" in event.reason
    notice = AftersaleNotice.objects.get(ticket=ticket)
    assert (notice.user, notice.kind) == (ord001.user, NoticeKind.PART_APPROVED)
    assert notice.facts["approved_amount"] == "120.50" and notice.facts["reason"] == REASON
    assert len(work(enqueued)) == 1  # the execution, after the commit


def test_a_partial_refund_pays_back_the_approved_amount_once_and_the_order_records_it(
    supplier_sandbox, ord001, ticket_for, demo_approver, django_capture_on_commit_callbacks
):
    others = list(BizOrder.objects.exclude(pk=ord001.pk).values_list("order_id", "status", "refunded_amount"))
    ticket = ticket_for(ord001)

    with django_capture_on_commit_callbacks(execute=True):  # the execution runs in-process (eager tasks)
        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason=REASON, amount="120.50")
    ticket.refresh_from_db()
    again = ticket_execute(ticket_id=ticket.pk)  # a redelivered task

    ord001.refresh_from_db()
    assert (ticket.status, again.status) == ("EXECUTED", "EXECUTED")
    assert (ord001.status, ord001.refunded_amount, ord001.amount) == (
        OrderStatus.PART_REFUNDED,
        Decimal("120.50"),
        Decimal("380.00"),
    )
    assert supplier_sandbox.stats()["refunds"]["byOrderId"] == {"ORD-001": 1}
    [refund] = supplier_refunds(ord001)
    assert (Decimal(str(refund["amount"])), refund["requestId"]) == (Decimal("120.50"), "refund:ORD-001")
    assert ticket.execution_result["amount"] == "120.50" and ticket.attempts == 1
    assert list(ord001.events.values_list("from_status", "to_status")) == [
        ("", "PAID"),
        ("PAID", "PAID"),  # the order's money claimed for the ticket before the supplier was asked
        ("PAID", "PART_REFUNDED"),
    ]
    assert "¥120.50 of ¥380.00" in ord001.events.get(to_status="PART_REFUNDED").reason
    kinds = list(AftersaleNotice.objects.filter(ticket=ticket).order_by("pk").values_list("kind", flat=True))
    assert kinds == [NoticeKind.PART_APPROVED, NoticeKind.EXECUTED]
    assert AftersaleNotice.objects.get(ticket=ticket, kind=NoticeKind.EXECUTED).facts["refunded_amount"] == "120.50"
    assert list(BizOrder.objects.exclude(pk=ord001.pk).values_list("order_id", "status", "refunded_amount")) == others


def test_a_partial_return_leaves_the_order_returned_with_what_it_got_back(
    supplier_sandbox, ord004, ticket_for, demo_approver, django_capture_on_commit_callbacks
):
    ticket = ticket_for(ord004, action=TicketAction.RETURN)

    with django_capture_on_commit_callbacks(execute=True):
        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason=REASON, amount="129")
        ticket_item_received(ticket_id=ticket.pk, actor=demo_approver)  # a return is refunded once the item is back

    ord004.refresh_from_db()
    assert (ord004.status, ord004.refunded_amount) == (OrderStatus.RETURNED, Decimal("129.00"))
    assert HitlTicket.objects.get(pk=ticket.pk).status == TicketStatus.EXECUTED


def test_a_full_refund_records_the_whole_amount_on_the_order(
    supplier_sandbox, ord001, ticket_for, demo_approver, django_capture_on_commit_callbacks
):
    ticket = ticket_for(ord001)

    with django_capture_on_commit_callbacks(execute=True):
        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="")

    ord001.refresh_from_db()
    assert (ord001.status, ord001.refunded_amount) == (OrderStatus.REFUNDED, Decimal("380.00"))
    assert HitlTicket.objects.get(pk=ticket.pk).status == TicketStatus.EXECUTED


def test_an_order_that_changed_after_the_partial_approval_is_not_refunded(
    supplier_sandbox, ord001, ticket_for, demo_approver, django_capture_on_commit_callbacks
):
    ticket = ticket_for(ord001)
    with django_capture_on_commit_callbacks():  # approved; its execution not run yet
        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason=REASON, amount="100")
    BizOrder.objects.filter(pk=ord001.pk).update(amount=Decimal("300.00"))  # someone changed the order

    done = ticket_execute(ticket_id=ticket.pk)

    ord001.refresh_from_db()
    assert done.status == TicketStatus.FAILED and done.execution_result["stage"] == "reconcile"
    assert (ord001.status, ord001.refunded_amount) == (OrderStatus.PAID, Decimal("0.00"))
    assert supplier_sandbox.stats()["refunds"]["byOrderId"] == {}
    assert AftersaleNotice.objects.filter(ticket=ticket, kind=NoticeKind.FAILED).count() == 1


def test_the_database_refuses_an_approved_amount_above_the_amount_asked(ord001, ticket_for):
    from django.db import IntegrityError, transaction

    ticket = ticket_for(ord001)

    with pytest.raises(IntegrityError), transaction.atomic():
        HitlTicket.objects.filter(pk=ticket.pk).update(approved_amount=Decimal("380.01"))


# -- exactly once, with real parallel approvals and a real worker ---------------------------------------------------


@pytest.mark.postgres
@pytest.mark.worker
def test_parallel_partial_approvals_decide_once_and_duplicated_tasks_refund_the_approved_amount_once(
    supplier_sandbox,
    celery_worker_process,
    refund_order,  # noqa: F811 - the fixture imported above
    approvers,  # noqa: F811 - the fixture imported above
):
    ticket = make_ticket(refund_order)

    def amount_of(approver_id: int) -> Decimal:
        return Decimal("100.00") + approvers.index(approver_id)

    def approve(approver_id: int) -> str:
        from django.contrib.auth import get_user_model

        approver = get_user_model().objects.get(pk=approver_id)
        amount = amount_of(approver_id)  # each approver would pay back another amount
        try:
            ticket_decide(ticket_id=ticket.pk, approver=approver, approve=True, reason=REASON, amount=amount)
        except AftersaleError as exc:
            return exc.code
        return "APPROVED"

    outcomes = in_threads(approve, approvers)
    for _ in range(DUPLICATES):  # a redelivered, duplicated or double-clicked task
        execute_ticket.delay(ticket.pk)

    assert sorted(outcomes) == ["APPROVED"] + ["TICKET_DECIDED"] * (APPROVERS - 1)
    wait_for(lambda: HitlTicket.objects.get(pk=ticket.pk).status == TicketStatus.EXECUTED, what="EXECUTED")
    wait_for(worker_idle, seconds=30, what="the worker to drain the duplicates")
    ticket.refresh_from_db()
    refund_order.refresh_from_db()
    winner = amount_of(ticket.decided_by_id)
    assert ticket.approved_amount == winner and ticket.attempts == 1
    assert supplier_sandbox.stats()["refunds"]["byOrderId"] == {refund_order.order_id: 1}
    [refund] = supplier_refunds(refund_order)
    assert (Decimal(str(refund["amount"])), refund["requestId"]) == (winner, "refund:ORD-901")
    assert (refund_order.status, refund_order.refunded_amount) == (OrderStatus.PART_REFUNDED, winner)
    assert list(refund_order.events.values_list("from_status", "to_status")) == [
        ("PAID", "PAID"),
        ("PAID", "PART_REFUNDED"),
    ]
    assert ticket.events.filter(to_status=TicketStatus.APPROVED).count() == 1
    assert ticket.events.filter(to_status=TicketStatus.EXECUTING).count() == 1
    assert AftersaleNotice.objects.filter(ticket=ticket, kind=NoticeKind.EXECUTED).count() == 1


@pytest.mark.postgres
def test_ten_executors_released_at_once_pay_a_partial_refund_once(
    supplier_sandbox,
    refund_order,  # noqa: F811 - the fixture imported above
):
    ticket = make_ticket(refund_order, status=TicketStatus.APPROVED, approved_amount=Decimal("450.00"))

    statuses = in_threads(lambda _: ticket_execute(ticket_id=ticket.pk).status, list(range(DUPLICATES)))

    assert statuses.count(TicketStatus.EXECUTED) == 1
    refund_order.refresh_from_db()
    assert supplier_sandbox.stats()["refunds"]["byOrderId"] == {refund_order.order_id: 1}
    assert (refund_order.status, refund_order.refunded_amount) == (OrderStatus.PART_REFUNDED, Decimal("450.00"))
    assert HitlTicket.objects.get(pk=ticket.pk).attempts == 1
