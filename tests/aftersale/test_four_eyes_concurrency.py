"""Four eyes under real concurrency on PostgreSQL: every decision of a ticket queues on its row lock, so one approver
clicking many times at once is one first approval, and many approvers at once are exactly one first and one second
approval by two different people, executed once on a real worker."""

import pytest

from aftersale.models import HitlTicket, TicketStatus
from aftersale.services import AftersaleError
from aftersale.services.decisions import ticket_decide
from tests.aftersale.test_exactly_once import (  # noqa: F401 - fixtures
    APPROVERS,
    approvers,
    assert_executed_once,
    in_threads,
    make_ticket,
    refund_order,  # noqa: F811
    wait_for,
    worker_idle,
)

CLICKS = 10


@pytest.fixture(autouse=True)
def four_eyes_above_the_order(settings):
    settings.AFTERSALE_FOUR_EYES_ABOVE = 500  # the ¥899 refund needs two approvers


def decide(ticket: HitlTicket, approver_id: int) -> str:
    """One approval in its own thread: FIRST (recorded, still pending), APPROVED, or the refusal's code."""
    from django.contrib.auth import get_user_model

    approver = get_user_model().objects.get(pk=approver_id)
    try:
        decided = ticket_decide(ticket_id=ticket.pk, approver=approver, approve=True, reason="")
    except AftersaleError as exc:
        return exc.code
    return "FIRST" if decided.status == TicketStatus.PENDING else decided.status


@pytest.mark.postgres
def test_one_approver_clicking_ten_times_at_once_gives_one_first_approval_and_nothing_runs(
    refund_order,  # noqa: F811
    approvers,  # noqa: F811
):
    ticket = make_ticket(refund_order)

    outcomes = in_threads(lambda _: decide(ticket, approvers[0]), list(range(CLICKS)))

    assert sorted(outcomes) == ["FIRST"] + ["PERMISSION_DENIED"] * (CLICKS - 1)
    ticket.refresh_from_db()
    assert (ticket.status, ticket.first_approved_by_id, ticket.decided_by_id) == ("PENDING", approvers[0], None)
    assert list(ticket.events.values_list("from_status", "to_status", "actor")) == [
        ("PENDING", "PENDING", approvers[0])
    ]


@pytest.mark.postgres
@pytest.mark.worker
def test_twenty_approvers_at_once_are_one_first_and_one_second_approval_executed_once(
    supplier_sandbox,
    celery_worker_process,
    refund_order,  # noqa: F811
    approvers,  # noqa: F811
):
    ticket = make_ticket(refund_order)

    outcomes = in_threads(lambda approver_id: decide(ticket, approver_id), approvers)

    assert sorted(outcomes) == ["APPROVED", "FIRST"] + ["TICKET_DECIDED"] * (APPROVERS - 2)
    wait_for(lambda: HitlTicket.objects.get(pk=ticket.pk).status == TicketStatus.EXECUTED, what="EXECUTED")
    wait_for(worker_idle, seconds=30, what="the worker to finish")
    assert_executed_once(ticket, refund_order, supplier_sandbox)
    ticket.refresh_from_db()
    first, second = approvers[outcomes.index("FIRST")], approvers[outcomes.index("APPROVED")]
    assert (ticket.first_approved_by_id, ticket.decided_by_id) == (first, second) and first != second
    assert list(ticket.events.filter(to_status__in=["PENDING", "APPROVED"]).values_list("to_status", "actor")) == [
        ("PENDING", first),
        ("APPROVED", second),
    ]
