"""Celery tasks of the after-sale app (queue `aftersale`): thin, they take ids and call the execution services."""

import logging

from celery import shared_task
from django.db import InterfaceError as DatabaseInterfaceError
from django.db import OperationalError as DatabaseOperationalError
from kombu.exceptions import OperationalError as BrokerOperationalError

from aftersale import conf
from aftersale.lease import execution_time_limits
from aftersale.models import HitlTicket, TicketStatus
from aftersale.services.execution import ticket_execute, tickets_resume_stalled, tickets_time_out

logger = logging.getLogger(__name__)

# Errors that may pass by themselves: the database or the broker out of reach for a moment. Nothing else is
# retried automatically: a business "no" or a supplier failure ends the ticket FAILED, for a human to retry.
TRANSIENT_ERRORS = (
    DatabaseOperationalError,
    DatabaseInterfaceError,
    BrokerOperationalError,
    ConnectionError,
    TimeoutError,
)

# Nothing left to execute in these states (FAILED waits for a human's retry).
SETTLED = {TicketStatus.PENDING, TicketStatus.REJECTED, TicketStatus.TIMEOUT, TicketStatus.EXECUTED}

# An execution is stopped (soft limit: it ends FAILED) and then killed, with its supplier call, which dies with it,
# before its lease ends: a takeover never runs beside a live executor (aftersale.checks verifies it at start-up).
EXECUTE_SOFT_TIME_LIMIT, EXECUTE_TIME_LIMIT = execution_time_limits(conf.execution_lease_seconds())


# Acknowledged only when done and re-queued when the worker dies (acks_late, reject_on_worker_lost): a delivery may
# repeat, which the claim in `ticket_execute` makes harmless.
@shared_task(
    name="aftersale.tasks.execute_ticket",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=2,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=5,
    soft_time_limit=EXECUTE_SOFT_TIME_LIMIT,
    time_limit=EXECUTE_TIME_LIMIT,
)
def execute_ticket(ticket_id: int, retry: bool = False) -> str | None:
    """Execute an approved ticket (exactly once, however often this runs); `retry` lets it re-run a FAILED one."""
    status = HitlTicket.objects.filter(pk=ticket_id).values_list("status", flat=True).first()
    if status is None or status in SETTLED or (status == TicketStatus.FAILED and not retry):
        logger.info("ticket %s: nothing to execute (%s)", ticket_id, status or "missing")
        return status
    return ticket_execute(ticket_id=ticket_id, retry=retry).status


@shared_task(name="aftersale.tasks.time_out_tickets", autoretry_for=TRANSIENT_ERRORS, max_retries=3)
def time_out_tickets() -> int:
    """Beat: pending tickets past their deadline become TIMEOUT."""
    return tickets_time_out()


@shared_task(name="aftersale.tasks.resume_stalled_tickets", autoretry_for=TRANSIENT_ERRORS, max_retries=3)
def resume_stalled_tickets() -> int:
    """Beat: approved tickets nobody picked up, and executions whose worker died, are enqueued again."""
    return tickets_resume_stalled()
