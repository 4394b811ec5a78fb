"""Bulk approval in the console: only pending refund and return requests whose verdict passed (and that nobody
flagged) are approved, each through the same service as a single approval, after a confirmation page; every
other selected ticket is skipped and reported, and stays as it was."""

import datetime as dt

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse
from django.utils import timezone

from aftersale.models import AftersaleNotice, HitlTicket, TicketEvent, TicketKind, TicketStatus, Verdict
from aftersale.services import AftersaleError
from aftersale.services.decisions import tickets_approve_bulk
from tests.support.live_events import work

pytestmark = pytest.mark.django_db

CHANGELIST = "admin:aftersale_hitlticket_changelist"


@pytest.fixture
def console(client, demo_approver):
    client.force_login(demo_approver)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    return client


@pytest.fixture
def mix(demo_seeded, ticket_for, demo_alice):
    """One ticket of each kind a selection may hold: two that may be approved in bulk, and four that may not."""
    from aftersale.models import BizOrder

    order = {o.order_id: o for o in BizOrder.objects.all()}
    return {
        "passed": ticket_for(order["ORD-001"], verdict=Verdict.PASS),
        "passed_too": ticket_for(order["ORD-008"], action="RETURN", verdict=Verdict.PASS),
        "uncertain": ticket_for(order["ORD-004"], action="RETURN", verdict=Verdict.UNCERTAIN, flagged=True),
        "flagged_pass": ticket_for(order["ORD-006"], verdict=Verdict.PASS, flagged=True),
        "decided": ticket_for(order["ORD-005"], verdict=Verdict.PASS, status=TicketStatus.REJECTED),
        "checkpoint": HitlTicket.objects.create(
            ticket_no="TCPBULK00001",
            kind=TicketKind.CHECKPOINT,
            idempotency_key="hitl:CANCEL_BOOKING:BK20261201001",
            action="CANCEL_BOOKING",
            requested_by=demo_alice,
            entity="BK20261201001",
            amount="2500.00",
            deadline=timezone.now() + dt.timedelta(hours=48),
        ),
    }


def rows(tickets) -> dict:
    return {
        name: HitlTicket.objects.filter(pk=t.pk).values_list("status", "decided_by", "approved_amount").get()
        for name, t in tickets.items()
    }


def bulk(client, tickets, **extra):
    data = {"action": "approve_tickets", "_selected_action": [t.pk for t in tickets], **extra}
    return client.post(reverse(CHANGELIST), data)


def test_the_bulk_approval_asks_first_listing_what_it_approves_and_what_it_skips(console, mix):
    before = rows(mix)

    page = bulk(console, mix.values())

    content = page.content.decode()
    assert page.status_code == 200
    assert "Confirm: approve 2 tickets" in content and 'name="apply"' in content
    approved_table = content.split('id="decide-tickets"')[1].split("</table>")[0]
    assert mix["passed"].ticket_no in approved_table and mix["passed_too"].ticket_no in approved_table
    skipped = content.split('id="decide-skipped"')[1].split("</ul>")[0]
    for name in ("uncertain", "flagged_pass", "decided", "checkpoint"):
        assert mix[name].ticket_no in skipped and mix[name].ticket_no not in approved_table
    assert "the verdict is not a pass (Uncertain)" in skipped
    assert "flagged for close review" in skipped and "not pending (Rejected)" in skipped
    assert "action awaiting approval" in skipped
    assert rows(mix) == before and TicketEvent.objects.count() == 0


def test_confirming_approves_only_the_passed_tickets_each_once_and_reports_the_rest(
    console, mix, demo_approver, django_capture_on_commit_callbacks
):
    before = rows(mix)

    with django_capture_on_commit_callbacks() as enqueued:
        response = bulk(console, mix.values(), apply="yes", reason="batch of clear cases")

    assert response.status_code == 302
    after = rows(mix)
    for name in ("passed", "passed_too"):
        ticket = HitlTicket.objects.get(pk=mix[name].pk)
        assert after[name] == ("APPROVED", demo_approver.pk, ticket.amount)
        assert ticket.decision_reason == "batch of clear cases"
        assert ticket.events.filter(to_status="APPROVED", actor=demo_approver).count() == 1
        assert AftersaleNotice.objects.filter(ticket=ticket, kind="APPROVED").count() == 1
    for name in ("uncertain", "flagged_pass", "decided", "checkpoint"):
        assert after[name] == before[name]
        assert not TicketEvent.objects.filter(ticket=mix[name]).exists()
    # one execution per approval, after the commit; the return of goods (passed_too) waits for its item instead
    assert len(work(enqueued)) == 1
    texts = [str(m) for m in get_messages(response.wsgi_request)]
    assert any(text.startswith("Approved 2 tickets") for text in texts)
    assert sum(text.startswith("Skipped") for text in texts) == 4


def test_a_selection_with_nothing_to_approve_offers_no_confirmation(console, mix):
    page = bulk(console, [mix["uncertain"], mix["checkpoint"]])

    content = page.content.decode()
    assert 'id="decide-form"' not in content and 'id="decide-nothing"' in content


def test_the_service_skips_a_ticket_decided_between_the_page_and_the_confirmation(english, mix, demo_approver):
    HitlTicket.objects.filter(pk=mix["passed_too"].pk).update(status=TicketStatus.TIMEOUT)

    outcome = tickets_approve_bulk(
        ticket_ids=[mix["passed"].pk, mix["passed_too"].pk], approver=demo_approver, reason=""
    )

    assert [t.ticket_no for t in outcome.approved] == [mix["passed"].ticket_no]
    [(skipped, why)] = outcome.skipped
    assert skipped.ticket_no == mix["passed_too"].ticket_no and "not pending" in why
    assert HitlTicket.objects.get(pk=mix["passed_too"].pk).status == TicketStatus.TIMEOUT


def test_someone_who_may_not_decide_approves_nothing_in_bulk(mix, demo_alice):
    before = rows(mix)

    with pytest.raises(AftersaleError) as refused:
        tickets_approve_bulk(ticket_ids=[t.pk for t in mix.values()], approver=demo_alice, reason="")

    assert refused.value.code == "PERMISSION_DENIED"
    assert rows(mix) == before


def test_the_bulk_confirmation_reads_in_chinese_for_a_chinese_approver(client, demo_approver, mix):
    client.force_login(demo_approver)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "zh-hans"

    content = bulk(client, mix.values()).content.decode()

    assert "确认：批准 2 个申请" in content and "将被跳过" in content
    assert "请在它自己的页面上决定" in content
