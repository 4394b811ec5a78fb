"""The broker unreachable when an approver approves: the approval stands, the ticket waits APPROVED, and the
stalled-ticket sweep executes it once the broker is back: exactly one refund.

The broker outage is simulated at the publish call (`execute_ticket.delay` raising kombu's OperationalError, what
a real unreachable broker raises after its publish retries); the supplier is the real sandbox CLI.
"""

import datetime as dt

import pytest
from django.conf import settings as django_settings
from django.utils import timezone
from kombu.exceptions import OperationalError

from aftersale.models import BizOrder, OrderStatus, TicketStatus
from aftersale.services.decisions import ticket_decide
from aftersale.services.execution import tickets_resume_stalled
from aftersale.tasks import execute_ticket
from tests.aftersale.conftest import demo_approver, demo_seeded, ticket_for  # noqa: F401 - fixtures

pytestmark = pytest.mark.django_db


def test_an_approval_while_the_broker_is_down_stands_and_the_sweep_executes_it_once_the_broker_is_back(
    demo_approver,  # noqa: F811
    ticket_for,  # noqa: F811
    supplier_sandbox,
    monkeypatch,
    django_capture_on_commit_callbacks,
    caplog,
):
    order = BizOrder.objects.get(order_id="ORD-001")
    ticket = ticket_for(order)

    def broker_down(*args, **kwargs):
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    with monkeypatch.context() as m:
        m.setattr(execute_ticket, "delay", broker_down)
        with django_capture_on_commit_callbacks(execute=True):
            decided = ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="ok")

    assert decided.status == TicketStatus.APPROVED  # the approver's decision is saved, no error shown
    ticket.refresh_from_db()
    assert ticket.status == TicketStatus.APPROVED
    assert "could not enqueue the execution" in caplog.text
    assert supplier_sandbox.stats()["refunds"]["byOrderId"] == {}

    # the broker is back; the beat's sweep runs after a lease
    with django_capture_on_commit_callbacks(execute=True):
        assert tickets_resume_stalled(now=timezone.now()) == 0  # too fresh: it might still be on its way
    later = timezone.now() + dt.timedelta(seconds=django_settings.AFTERSALE_EXECUTION_LEASE_SECONDS + 5)
    with django_capture_on_commit_callbacks(execute=True):
        assert tickets_resume_stalled(now=later) == 1

    ticket.refresh_from_db()
    order.refresh_from_db()
    assert ticket.status == TicketStatus.EXECUTED
    assert order.status == OrderStatus.REFUNDED
    assert supplier_sandbox.stats()["refunds"]["byOrderId"] == {"ORD-001": 1}
