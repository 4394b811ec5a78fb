"""Identical refund requests at the same moment open exactly one ticket: the partial unique constraint decides,
in PostgreSQL, not a check in Python memory."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connections

from aftersale.models import HitlTicket, TicketEvent
from aftersale.services.workflow import aftersale_request_submit

# 50 requests, each on its own connection, plus the test's own: well under PostgreSQL's default 100.
PARALLEL = 50


@pytest.mark.postgres
def test_given_fifty_identical_refund_requests_at_once_then_exactly_one_ticket_opens_and_all_name_it(
    transactional_db, demo_alice, rules_port
):
    start = threading.Barrier(PARALLEL, timeout=60)

    def one_request(_):
        try:
            start.wait()
            outcome = aftersale_request_submit(user=demo_alice, order_id="ORD-001", action="REFUND", port=rules_port)
            return outcome.status, outcome.ticket.pk if outcome.ticket else None
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        answers = list(pool.map(one_request, range(PARALLEL)))

    tickets = HitlTicket.objects.filter(idempotency_key="wfa:REFUND:ORD-001")
    assert tickets.count() == 1
    ticket = tickets.get()
    assert {pk for _, pk in answers} == {ticket.pk}
    statuses = [status for status, _ in answers]
    assert statuses.count("SUBMITTED") == 1
    assert statuses.count("REUSED") == PARALLEL - 1
    assert TicketEvent.objects.filter(ticket=ticket).count() == 1
