"""A payment console's rules for who may approve what (aftersale.services.limits, applied by ticket_decide):

- each approver approves alone up to their limit (the highest of theirs and their groups', set in the admin; the
  site's AFTERSALE_APPROVAL_LIMIT without one; superusers have none);
- above AFTERSALE_FOUR_EYES_ABOVE two different approvers, neither the traveller, approve before anything runs: the
  first approval is recorded and shown, the second executes;
- bulk approval stays within the approver's limit and never takes a four-eyes ticket;
- every staff action is an event row with who, when and the client's address, listed in the admin.

The same rules through every way in: the service, the list's action (one ticket or many), the ticket's own page.
"""

import datetime as dt
from decimal import Decimal

import pytest
from django.contrib.auth.models import Group, Permission
from django.contrib.messages import get_messages
from django.urls import reverse
from django.utils import timezone

from aftersale.models import ApprovalLimit, BizOrder, HitlTicket, OrderCategory, TicketEvent, TicketKind, TicketStatus
from aftersale.services import AftersaleError
from aftersale.services.decisions import ticket_decide, tickets_approve_bulk
from aftersale.services.limits import approval_limit
from tests.support.live_events import work

pytestmark = pytest.mark.django_db

CHANGELIST = "admin:aftersale_hitlticket_changelist"
BIG = Decimal("12000.00")  # above the four-eyes amount (10000 in these tests)
LARGE = Decimal("8000.00")  # above the approvers' limit (5000), below four eyes


@pytest.fixture(autouse=True)
def rules(settings):
    settings.AFTERSALE_APPROVAL_LIMIT = 5000
    settings.AFTERSALE_FOUR_EYES_ABOVE = 10000


@pytest.fixture
def approvers_group(demo_seeded):
    return Group.objects.get(name="approvers")


@pytest.fixture
def staff(django_user_model, approvers_group):
    """Three more approvers in the demo's 'approvers' group: `staff("name", limit=…)`."""

    def make(username: str, *, limit: str | None = None):
        user = django_user_model.objects.create_user(username=username, password="x", is_staff=True)
        user.groups.add(approvers_group)
        if limit is not None:
            ApprovalLimit.objects.create(user=user, max_amount=Decimal(limit))
        return user

    return make


@pytest.fixture
def seniors(staff):
    """Two approvers who may approve ¥20,000 alone: the two pairs of eyes."""
    return staff("senior1", limit="20000"), staff("senior2", limit="20000")


@pytest.fixture
def order_of(demo_alice):
    """A paid order of alice for `amount`."""
    numbers = iter(range(901, 999))

    def make(amount: Decimal) -> BizOrder:
        return BizOrder.objects.create(
            order_id=f"ORD-{next(numbers)}",
            user=demo_alice,
            category=OrderCategory.ACTIVITY,
            items=[{"name": "私人定制环湖", "qty": 1, "price": str(amount)}],
            amount=amount,
            paid_at=timezone.now() - dt.timedelta(days=1),
        )

    return make


@pytest.fixture
def big_ticket(order_of, ticket_for):
    return ticket_for(order_of(BIG), verdict="PASS")


@pytest.fixture
def large_ticket(order_of, ticket_for):
    return ticket_for(order_of(LARGE), verdict="PASS")


def state(ticket: HitlTicket) -> tuple:
    """What a decision may change on a ticket."""
    return (
        HitlTicket.objects.filter(pk=ticket.pk)
        .values_list("status", "decided_by", "approved_amount", "first_approved_by", "first_approved_amount")
        .get()
    )


def refused(code: str, **kwargs) -> str:
    with pytest.raises(AftersaleError) as caught:
        ticket_decide(**kwargs)
    assert caught.value.code == code, caught.value.message
    return caught.value.message


# -- limits ------------------------------------------------------------------------------------------------------


def test_an_approver_below_the_amount_is_refused_and_one_with_a_higher_limit_approves(
    english, large_ticket, demo_approver, staff, django_capture_on_commit_callbacks
):
    before = state(large_ticket)

    message = refused("PERMISSION_DENIED", ticket_id=large_ticket.pk, approver=demo_approver, approve=True, reason="")

    assert "¥8000.00 is above your approval limit of ¥5000" in message
    assert state(large_ticket) == before and not TicketEvent.objects.filter(ticket=large_ticket).exists()
    lead = staff("lead", limit="9000")
    with django_capture_on_commit_callbacks(execute=False) as enqueued:
        ticket_decide(ticket_id=large_ticket.pk, approver=lead, approve=True, reason="")
    assert state(large_ticket) == ("APPROVED", lead.pk, LARGE, None, None)
    assert len(work(enqueued)) == 1


def test_an_approvers_limit_is_the_highest_of_their_own_their_groups_and_none_for_a_superuser(
    demo_approver, approvers_group, staff, django_user_model
):
    assert approval_limit(demo_approver) == Decimal("5000")  # nothing set: the site's
    low = staff("low", limit="800")
    assert approval_limit(low) == Decimal("800")  # their own, below the site's
    ApprovalLimit.objects.create(group=approvers_group, max_amount=Decimal("3000"))
    assert approval_limit(low) == Decimal("3000")  # their group's is higher
    assert approval_limit(demo_approver) == Decimal("3000")  # a group's limit replaces the site's
    ApprovalLimit.objects.filter(user=low).update(max_amount=Decimal("7000"))
    assert approval_limit(low) == Decimal("7000")
    assert approval_limit(django_user_model.objects.get(username="admin")) is None


def test_a_partial_refund_within_the_limit_is_the_approvers_to_give(english, large_ticket, demo_approver):
    ticket_decide(
        ticket_id=large_ticket.pk, approver=demo_approver, approve=True, amount="5000", reason="押金不退，其余退回"
    )

    assert state(large_ticket) == ("APPROVED", demo_approver.pk, Decimal("5000.00"), None, None)


def test_a_cancel_above_the_limit_waits_for_an_approver_with_a_higher_one(english, demo_alice, demo_approver, staff):
    ticket = HitlTicket.objects.create(
        ticket_no="TCPLIMIT0001",
        kind=TicketKind.CHECKPOINT,
        idempotency_key="hitl:CANCEL_BOOKING:BK20261201077",
        action="CANCEL_BOOKING",
        requested_by=demo_alice,
        entity="BK20261201077",
        amount=Decimal("6800.00"),
        deadline=timezone.now() + dt.timedelta(hours=48),
    )

    message = refused("PERMISSION_DENIED", ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="")

    assert "¥6800.00 is above your approval limit" in message
    assert HitlTicket.objects.get(pk=ticket.pk).status == TicketStatus.PENDING
    ticket_decide(ticket_id=ticket.pk, approver=staff("lead", limit="7000"), approve=True, reason="")
    assert HitlTicket.objects.get(pk=ticket.pk).status == TicketStatus.APPROVED


def test_any_approver_may_reject_whatever_the_amount(english, large_ticket, demo_approver):
    ticket_decide(ticket_id=large_ticket.pk, approver=demo_approver, approve=False, reason="重复申请")

    assert state(large_ticket)[:2] == ("REJECTED", demo_approver.pk)


# -- four eyes ---------------------------------------------------------------------------------------------------


def test_a_four_eyes_refund_runs_only_after_a_second_different_approver(
    english, big_ticket, seniors, demo_alice, django_capture_on_commit_callbacks
):
    first, second = seniors

    with django_capture_on_commit_callbacks(execute=False) as enqueued:
        ticket_decide(ticket_id=big_ticket.pk, approver=first, approve=True, reason="核实无误")
    assert work(enqueued) == []
    assert state(big_ticket) == ("PENDING", None, None, first.pk, BIG)
    [event] = TicketEvent.objects.filter(ticket=big_ticket)
    assert (event.from_status, event.to_status, event.actor, event.reason) == (
        "PENDING",
        "PENDING",
        first,
        "first approval ¥12000.00; a second approver must approve",
    )

    # the same approver again does not count as two, nor does the traveller
    before = state(big_ticket)
    message = refused("PERMISSION_DENIED", ticket_id=big_ticket.pk, approver=first, approve=True, reason="")
    assert "a second approver, not you" in message
    refused("PERMISSION_DENIED", ticket_id=big_ticket.pk, approver=demo_alice, approve=True, reason="")
    assert state(big_ticket) == before and TicketEvent.objects.filter(ticket=big_ticket).count() == 1

    with django_capture_on_commit_callbacks(execute=False) as enqueued:
        ticket_decide(ticket_id=big_ticket.pk, approver=second, approve=True, reason="")
    assert len(work(enqueued)) == 1
    ticket = HitlTicket.objects.get(pk=big_ticket.pk)
    assert state(ticket) == ("APPROVED", second.pk, BIG, first.pk, BIG)
    assert ticket.decision_reason == "核实无误"  # the first approver's words stand when the second adds none
    assert ticket.events.filter(to_status="APPROVED").get().reason == "second approval (first by senior1): 核实无误"


def test_the_second_approval_is_for_the_amount_the_first_approved(english, big_ticket, seniors):
    first, second = seniors
    ticket_decide(ticket_id=big_ticket.pk, approver=first, approve=True, amount="11000", reason="扣除手续费")
    before = state(big_ticket)

    message = refused(
        "INVALID_PARAM", ticket_id=big_ticket.pk, approver=second, approve=True, amount="12000", reason=""
    )

    assert "senior1 approved" in message and "¥11000.00" in message
    assert state(big_ticket) == before
    ticket_decide(ticket_id=big_ticket.pk, approver=second, approve=True, reason="")
    ticket = HitlTicket.objects.get(pk=big_ticket.pk)
    assert (ticket.status, ticket.approved_amount, ticket.decision_reason) == (
        "APPROVED",
        Decimal("11000.00"),
        "扣除手续费",
    )


def test_each_of_the_two_approvers_stays_within_their_own_limit(english, big_ticket, seniors, staff):
    first, _ = seniors
    ticket_decide(ticket_id=big_ticket.pk, approver=first, approve=True, reason="")
    before = state(big_ticket)

    message = refused(
        "PERMISSION_DENIED", ticket_id=big_ticket.pk, approver=staff("junior", limit="9000"), approve=True, reason=""
    )

    assert "above your approval limit of ¥9000" in message and state(big_ticket) == before


def test_a_four_eyes_ticket_may_be_rejected_after_its_first_approval(english, big_ticket, seniors):
    first, second = seniors
    ticket_decide(ticket_id=big_ticket.pk, approver=first, approve=True, reason="")

    ticket_decide(ticket_id=big_ticket.pk, approver=second, approve=False, reason="订单信息不符")

    ticket = HitlTicket.objects.get(pk=big_ticket.pk)
    assert (ticket.status, ticket.decided_by, ticket.approved_amount) == ("REJECTED", second, None)
    assert ticket.reason_for_traveller == "订单信息不符"


def test_the_database_refuses_a_second_approval_by_the_first_approver(big_ticket, seniors):
    from django.db import IntegrityError, transaction

    first, _ = seniors
    with pytest.raises(IntegrityError), transaction.atomic():
        HitlTicket.objects.filter(pk=big_ticket.pk).update(first_approved_by=first, decided_by=first)


# -- bulk --------------------------------------------------------------------------------------------------------


def test_bulk_approval_stays_within_the_limit_and_leaves_four_eyes_tickets_to_their_pages(
    english, ticket_for, order_of, demo_approver, big_ticket, large_ticket
):
    small = ticket_for(order_of(Decimal("300.00")), verdict="PASS")
    before = {t.pk: state(t) for t in (big_ticket, large_ticket)}

    outcome = tickets_approve_bulk(
        ticket_ids=[small.pk, big_ticket.pk, large_ticket.pk], approver=demo_approver, reason=""
    )

    assert [t.pk for t in outcome.approved] == [small.pk]
    why = {t.pk: text for t, text in outcome.skipped}
    assert "above your approval limit of ¥5000" in why[large_ticket.pk]
    assert "two approvers decide it, each on its own page" in why[big_ticket.pk]
    assert {t.pk: state(t) for t in (big_ticket, large_ticket)} == before


def test_bulk_approval_skips_a_four_eyes_ticket_even_for_a_superuser(english, big_ticket, django_user_model):
    admin = django_user_model.objects.get(username="admin")

    outcome = tickets_approve_bulk(ticket_ids=[big_ticket.pk], approver=admin, reason="")

    assert outcome.approved == [] and "two approvers" in outcome.skipped[0][1]
    assert state(big_ticket)[0] == "PENDING"


# -- the console: the list's action, the ticket's page ---------------------------------------------------------


def console(client, user):
    client.force_login(user)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    return client


def messages_of(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def decide_on_page(client, ticket, **data):
    url = reverse("admin:aftersale_hitlticket_decide", args=[ticket.pk])
    return client.post(url, {"decision": "approve", "apply": "yes", "reason": "", **data}, REMOTE_ADDR="10.1.2.3")


def test_the_list_action_previews_and_skips_what_the_approver_may_not_approve(
    client, demo_approver, big_ticket, large_ticket
):
    page = console(client, demo_approver).post(
        reverse(CHANGELIST), {"action": "approve_tickets", "_selected_action": [big_ticket.pk, large_ticket.pk]}
    )

    content = page.content.decode()
    assert page.status_code == 200 and 'id="decide-nothing"' in content
    skipped = content.split('id="decide-skipped"')[1].split("</ul>")[0]
    assert "above your approval limit" in skipped and "two approvers" in skipped
    applied = client.post(
        reverse(CHANGELIST),
        {"action": "approve_tickets", "_selected_action": [big_ticket.pk, large_ticket.pk], "apply": "yes"},
    )
    assert applied.status_code == 302
    assert sum(text.startswith("Skipped") for text in messages_of(applied)) == 2
    assert state(big_ticket)[0] == state(large_ticket)[0] == "PENDING"


def test_on_the_tickets_page_an_approver_below_the_limit_is_told_and_nothing_changes(
    client, demo_approver, large_ticket
):
    before = state(large_ticket)
    confirm = console(client, demo_approver).get(
        reverse("admin:aftersale_hitlticket_decide", args=[large_ticket.pk]), {"decision": "approve"}
    )
    note = confirm.content.decode().split('id="decide-four-eyes"')[1].split("</p>")[0]
    assert "above your approval limit of ¥5000" in note  # told before confirming

    response = decide_on_page(client, large_ticket)

    assert response.status_code == 302
    assert any("above your approval limit of ¥5000" in text for text in messages_of(response))
    assert state(large_ticket) == before


def test_on_the_tickets_page_four_eyes_takes_two_approvers_and_shows_the_first(
    client, seniors, big_ticket, django_capture_on_commit_callbacks
):
    first, second = seniors
    confirm = console(client, first).get(
        reverse("admin:aftersale_hitlticket_decide", args=[big_ticket.pk]), {"decision": "approve"}
    )
    assert (
        'id="decide-four-eyes"' in confirm.content.decode()
        and "yours is recorded as the first" in confirm.content.decode()
    )

    with django_capture_on_commit_callbacks(execute=False) as enqueued:
        response = decide_on_page(client, big_ticket)
    assert work(enqueued) == []
    assert any("recorded as the first" in text for text in messages_of(response))
    page = client.get(reverse("admin:aftersale_hitlticket_change", args=[big_ticket.pk])).content.decode()
    assert 'id="ticket-four-eyes"' in page and "senior1 gave the first approval" in page
    assert 'id="ticket-first-approval"' in page and "senior1 approved ¥12000.00" in page
    listed = client.get(reverse(CHANGELIST)).content.decode()
    assert "1 of 2 approvals: senior1" in listed

    confirm = client.get(reverse("admin:aftersale_hitlticket_decide", args=[big_ticket.pk]), {"decision": "approve"})
    assert "a second approver, not you" in confirm.content.decode().split('id="decide-four-eyes"')[1]
    again = decide_on_page(client, big_ticket)  # the same approver a second time
    assert any("a second approver, not you" in text for text in messages_of(again))
    assert state(big_ticket) == ("PENDING", None, None, first.pk, BIG)

    with django_capture_on_commit_callbacks(execute=False) as enqueued:
        done = decide_on_page(console(client, second), big_ticket)
    assert len(work(enqueued)) == 1
    assert any(text == f"Approved {big_ticket.ticket_no}." for text in messages_of(done))
    assert state(big_ticket) == ("APPROVED", second.pk, BIG, first.pk, BIG)


# -- who, when, from where ---------------------------------------------------------------------------------------


def test_every_staff_decision_records_its_address_and_is_listed_as_a_staff_action(
    client, seniors, big_ticket, large_ticket, django_user_model
):
    first, second = seniors
    decide_on_page(console(client, first), big_ticket)
    decide_on_page(console(client, second), big_ticket)
    decide_on_page(client, large_ticket, decision="reject", reason="重复申请")

    events = list(TicketEvent.objects.filter(actor__in=seniors).order_by("pk").values_list("actor", "client_address"))
    assert events == [(first.pk, "10.1.2.3"), (second.pk, "10.1.2.3"), (second.pk, "10.1.2.3")]
    ticket = client.get(reverse("admin:aftersale_hitlticket_change", args=[big_ticket.pk])).content.decode()
    assert ticket.count("10.1.2.3") == 2  # both approvals, in the ticket's history

    admin = console(client, django_user_model.objects.get(username="admin"))
    listing = admin.get(reverse("admin:aftersale_staffaction_changelist")).content.decode()
    rows = listing.split('id="result_list"')[1].split("</table>")[0]
    assert rows.count("10.1.2.3") == 3 and rows.count('field-who">senior1<') == 1
    assert rows.count('field-who">senior2<') == 2
    assert big_ticket.ticket_no in rows and large_ticket.ticket_no in rows
    assert "first approval, ¥12000.00; a second approver must approve" in rows
    assert "second approval (the first by senior1): approved" in rows
    # a worker's or the traveller's events are not staff actions
    TicketEvent.objects.create(ticket=big_ticket, from_status="APPROVED", to_status="EXECUTING", reason="worker")
    listing = admin.get(reverse("admin:aftersale_staffaction_changelist")).content.decode()
    assert listing.split('id="result_list"')[1].split("</table>")[0].count("<tr") == 4  # the header and three rows


def test_an_event_written_outside_a_request_has_no_address(big_ticket):
    event = TicketEvent.objects.create(ticket=big_ticket, from_status="PENDING", to_status="TIMEOUT", reason="sweep")

    assert event.client_address is None


# -- limits in the admin -------------------------------------------------------------------------------------------


def test_an_admin_sets_an_approvers_limit_in_the_admin_and_it_holds_at_once(
    english, client, demo_approver, large_ticket, django_user_model
):
    admin = console(client, django_user_model.objects.get(username="admin"))

    response = admin.post(
        reverse("admin:aftersale_approvallimit_add"), {"user": demo_approver.pk, "group": "", "max_amount": "9000"}
    )

    assert response.status_code == 302, response.content.decode()[:2000]
    assert approval_limit(demo_approver) == Decimal("9000")
    ticket_decide(ticket_id=large_ticket.pk, approver=demo_approver, approve=True, reason="")
    assert state(large_ticket)[0] == "APPROVED"
    listing = admin.get(reverse("admin:aftersale_approvallimit_changelist")).content.decode()
    assert "approver" in listing and "9000" in listing


def test_nobody_raises_their_own_limit_or_their_groups(client, demo_approver, approvers_group):
    demo_approver.user_permissions.add(
        *Permission.objects.filter(content_type__app_label="aftersale", codename__endswith="approvallimit")
    )
    page = console(client, demo_approver)

    own = page.post(reverse("admin:aftersale_approvallimit_add"), {"user": demo_approver.pk, "max_amount": "99999"})
    group = page.post(
        reverse("admin:aftersale_approvallimit_add"), {"group": approvers_group.pk, "max_amount": "99999"}
    )

    assert own.status_code == group.status_code == 200
    assert "Nobody sets their own approval limit." in own.content.decode()
    assert "a group they belong to" in group.content.decode()
    assert not ApprovalLimit.objects.exists() and approval_limit(demo_approver) == Decimal("5000")


def test_an_approver_without_the_permission_does_not_see_the_limits_or_the_staff_actions(client, demo_approver):
    page = console(client, demo_approver)

    assert page.get(reverse("admin:aftersale_approvallimit_changelist")).status_code == 403
    assert page.get(reverse("admin:aftersale_staffaction_changelist")).status_code == 403
    assert page.get(reverse(CHANGELIST)).status_code == 200
