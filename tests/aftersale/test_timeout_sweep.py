"""The timeout sweep (Celery beat): pending tickets past their deadline become TIMEOUT, nothing else moves."""

import datetime as dt

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from aftersale.models import BizOrder, HitlTicket, TicketStatus
from aftersale.services.execution import tickets_time_out
from aftersale.tasks import time_out_tickets


def past() -> dt.datetime:
    return timezone.now() - dt.timedelta(minutes=5)


def future() -> dt.datetime:
    return timezone.now() + dt.timedelta(hours=1)


def snapshot() -> list[tuple]:
    return list(HitlTicket.objects.order_by("pk").values_list("pk", "status", "updated_at"))


@pytest.fixture
def orders(demo_seeded):
    return {order.order_id: order for order in BizOrder.objects.all()}


def test_a_pending_ticket_past_its_deadline_times_out_with_an_event(orders, ticket_for):
    ticket = ticket_for(orders["ORD-001"], deadline=past())

    count = tickets_time_out()

    ticket.refresh_from_db()
    assert count == 1
    assert ticket.status == TicketStatus.TIMEOUT
    assert list(ticket.events.values_list("from_status", "to_status", "actor", "reason")) == [
        ("PENDING", "TIMEOUT", None, "deadline passed")
    ]


def test_a_pending_ticket_not_yet_due_is_left_alone(orders, ticket_for):
    ticket_for(orders["ORD-001"], deadline=future())
    before = snapshot()

    assert tickets_time_out() == 0
    assert snapshot() == before


@pytest.mark.parametrize(
    "status", [TicketStatus.APPROVED, TicketStatus.REJECTED, TicketStatus.EXECUTED, TicketStatus.FAILED]
)
def test_a_decided_ticket_past_its_deadline_is_left_alone(orders, ticket_for, status):
    ticket_for(orders["ORD-001"], status=status, deadline=past())
    before = snapshot()

    assert tickets_time_out() == 0
    assert snapshot() == before


def test_the_sweep_run_twice_changes_nothing_the_second_time(orders, ticket_for):
    ticket_for(orders["ORD-001"], deadline=past())
    ticket_for(orders["ORD-004"], deadline=past())
    ticket_for(orders["ORD-006"], deadline=future())
    assert tickets_time_out() == 2
    after_first = snapshot(), HitlTicket.objects.get(entity="ORD-001").events.count()

    assert tickets_time_out() == 0
    assert (snapshot(), HitlTicket.objects.get(entity="ORD-001").events.count()) == after_first


def test_the_sweep_task_times_out_what_is_due(orders, ticket_for):
    ticket_for(orders["ORD-001"], deadline=past())
    ticket_for(orders["ORD-004"], deadline=future())

    assert time_out_tickets.delay().get() == 1
    assert sorted(HitlTicket.objects.values_list("status", flat=True)) == [TicketStatus.PENDING, TicketStatus.TIMEOUT]


def test_the_sweep_reads_the_clock_it_is_given(orders, ticket_for):
    ticket = ticket_for(orders["ORD-001"], deadline=future())

    assert tickets_time_out(now=timezone.now() + dt.timedelta(hours=2)) == 1
    ticket.refresh_from_db()
    assert ticket.status == TicketStatus.TIMEOUT


def test_while_a_ticket_is_pending_its_key_takes_no_second_ticket(orders, ticket_for):
    ticket_for(orders["ORD-001"], deadline=past())

    with pytest.raises(IntegrityError), transaction.atomic():
        ticket_for(orders["ORD-001"])

    assert HitlTicket.objects.count() == 1


def test_after_a_timeout_the_same_key_may_open_a_new_ticket(orders, ticket_for):
    old = ticket_for(orders["ORD-001"], deadline=past())
    tickets_time_out()

    new = ticket_for(orders["ORD-001"])

    assert new.idempotency_key == old.idempotency_key == "wfa:REFUND:ORD-001"
    assert sorted(HitlTicket.objects.values_list("status", flat=True)) == [TicketStatus.PENDING, TicketStatus.TIMEOUT]


def test_beat_runs_the_sweep_and_the_stalled_ticket_resumer_every_sweep_interval(settings):
    from config.celery import app

    app.loader.import_default_modules()
    schedule = settings.CELERY_BEAT_SCHEDULE

    for name, task in [
        ("aftersale-timeout-sweep", "aftersale.tasks.time_out_tickets"),
        ("aftersale-resume-stalled", "aftersale.tasks.resume_stalled_tickets"),
    ]:
        assert schedule[name]["task"] == task and task in app.tasks
        assert schedule[name]["schedule"] == settings.AFTERSALE_TIMEOUT_SWEEP_SECONDS
