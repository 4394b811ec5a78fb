"""The decision reaches the traveller without asking: a notice of each decision (approved, partly approved with the
amount and why, rejected with why, done, failed, not decided in time), and their requests page, which keeps
asking for itself every 5 s while a request may still move and stops once every request is settled."""

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from aftersale.models import AftersaleNotice, BizOrder, NoticeKind, TicketStatus
from aftersale.selectors import aftersale_notices_for_user, ticket_facts
from aftersale.services import AftersaleError
from aftersale.services.decisions import ticket_decide
from aftersale.services.execution import ticket_execute, tickets_time_out
from aftersale.services.notices import aftersale_notices_mark_read

pytestmark = pytest.mark.django_db

LIVE = "aftersale:live"
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def ord001(demo_seeded):
    return BizOrder.objects.get(order_id="ORD-001")


def kinds(user) -> list[str]:
    return list(aftersale_notices_for_user(user=user).order_by("pk").values_list("kind", flat=True))


# -- one notice per decision, for the requester only -----------------------------------------------------------------


def test_each_decision_and_outcome_leaves_the_requester_one_notice(
    supplier_sandbox, ord001, ticket_for, demo_approver, demo_alice, django_capture_on_commit_callbacks
):
    partly = ticket_for(ord001)
    rejected = ticket_for(BizOrder.objects.get(order_id="ORD-004"), action="RETURN")
    late = ticket_for(BizOrder.objects.get(order_id="ORD-002"), deadline=timezone.now() - dt.timedelta(minutes=1))

    with django_capture_on_commit_callbacks(execute=True):
        ticket_decide(ticket_id=partly.pk, approver=demo_approver, approve=True, reason="half used", amount="190")
    ticket_decide(ticket_id=rejected.pk, approver=demo_approver, approve=False, reason="tags removed")
    tickets_time_out()

    assert kinds(demo_alice) == [NoticeKind.PART_APPROVED, NoticeKind.EXECUTED, NoticeKind.REJECTED, NoticeKind.TIMEOUT]
    part = AftersaleNotice.objects.get(ticket=partly, kind=NoticeKind.PART_APPROVED)
    assert part.facts["approved_amount"] == "190.00"
    assert part.facts["amount"] == "380.00" and part.facts["reason"] == "half used"
    assert AftersaleNotice.objects.get(ticket=rejected).facts["reason"] == "tags removed"
    assert AftersaleNotice.objects.get(ticket=late).kind == NoticeKind.TIMEOUT
    assert not AftersaleNotice.objects.exclude(user=demo_alice).exists()


def test_a_failed_execution_is_told_and_a_refused_decision_tells_nothing(
    supplier_sandbox, ord001, ticket_for, demo_approver, demo_alice, django_capture_on_commit_callbacks
):
    ticket = ticket_for(ord001)
    with pytest.raises(AftersaleError):
        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=False, reason="")
    assert kinds(demo_alice) == []

    with django_capture_on_commit_callbacks():
        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="")
    supplier_sandbox.fault("order.refund=fail")
    done = ticket_execute(ticket_id=ticket.pk)

    assert done.status == TicketStatus.FAILED
    assert kinds(demo_alice) == [NoticeKind.APPROVED, NoticeKind.FAILED]


def test_notices_are_marked_read_once_shown(ord001, ticket_for, demo_approver, demo_alice):
    ticket = ticket_for(ord001)
    ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=False, reason="no")
    [notice] = aftersale_notices_for_user(user=demo_alice, unread=True)

    assert aftersale_notices_mark_read(user=demo_approver, notice_ids=[notice.pk]) == 0  # not theirs
    assert aftersale_notices_mark_read(user=demo_alice, notice_ids=[notice.pk]) == 1
    assert aftersale_notices_mark_read(user=demo_alice, notice_ids=[notice.pk]) == 0
    assert list(aftersale_notices_for_user(user=demo_alice, unread=True)) == []


def test_the_traveller_sees_the_approved_amount_and_the_reason_of_a_partial_refund(ord001, ticket_for, demo_approver):
    ticket = ticket_for(ord001)
    ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="half used", amount="190")
    ticket.refresh_from_db()

    facts = ticket_facts(ticket)

    assert (facts["amount"], facts["approved_amount"], facts["decision_reason"]) == ("380.00", "190.00", "half used")


# -- the requests page --------------------------------------------------------------------------------------------


def test_the_requests_page_tells_the_decision_in_chinese_and_marks_it_read(client, ord001, ticket_for, demo_approver):
    ticket = ticket_for(ord001)
    ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="活动已部分使用", amount="190")
    client.force_login(ord001.user)

    page = client.get(reverse("aftersale:requests"), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()

    notice = page.split("data-aftersale-notices")[1].split("</ul>")[0]
    assert f"你对订单 ORD-001 的退款申请 {ticket.ticket_no} 部分通过" in notice
    assert "申请 ¥380.00，将退回 ¥190.00" in notice and "审批原因：活动已部分使用" in notice
    row = page.split(f'id="ticket-{ticket.ticket_no}"')[1].split("</tr>")[0]
    assert 'data-status="APPROVED"' in page and "¥190.00" in row and "部分退款" in row and "活动已部分使用" in row
    assert list(aftersale_notices_for_user(user=ord001.user, unread=True)) == []


def test_the_requests_page_tells_it_in_english_too(client, ord001, ticket_for, demo_approver):
    ticket = ticket_for(ord001)
    ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=False, reason="The activity already started.")
    client.force_login(ord001.user)

    page = client.get(reverse("aftersale:requests"), HTTP_ACCEPT_LANGUAGE="en").content.decode()

    assert (
        f"Your refund request {ticket.ticket_no} for order ORD-001 was rejected: The activity already started." in page
    )
    assert "Rejected" in page


def test_someone_elses_notices_are_not_shown(client, ord001, ticket_for, demo_approver, demo_carol):
    ticket = ticket_for(ord001)
    ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=False, reason="no")
    client.force_login(demo_carol)

    page = client.get(reverse("aftersale:requests")).content.decode()

    assert ticket.ticket_no not in page and "data-aftersale-notices" not in page
    assert aftersale_notices_for_user(user=ord001.user, unread=True).count() == 1


def test_the_page_polls_while_a_request_may_move_and_stops_once_it_is_settled(
    client, ord001, ticket_for, demo_approver, supplier_sandbox, django_capture_on_commit_callbacks
):
    ticket = ticket_for(ord001)
    client.force_login(ord001.user)

    pending = client.get(reverse("aftersale:requests")).content.decode()
    assert 'hx-trigger="every 5s, live-news"' in pending and f'hx-get="{reverse(LIVE)}"' in pending
    assert 'data-polling="on"' in pending

    with django_capture_on_commit_callbacks(execute=True):  # approved, then executed by the (eager) task
        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="ok", amount="300")
    live = client.get(reverse(LIVE), **HTMX)

    content = live.content.decode()
    assert live.status_code == 200 and content.startswith('<div id="aftersale-live"')
    assert f'data-ticket-no="{ticket.ticket_no}" data-status="EXECUTED"' in content
    assert "¥300.00" in content and 'data-notice="EXECUTED"' in content
    # settled: the polling stops (a push of the live channel still asks, core.live)
    assert 'hx-trigger="live-news"' in content and 'data-polling="off"' in content


def test_a_page_with_only_settled_requests_does_not_poll(client, ord001, ticket_for):
    ticket_for(ord001, status=TicketStatus.REJECTED)
    client.force_login(ord001.user)

    page = client.get(reverse("aftersale:requests")).content.decode()

    assert 'hx-trigger="live-news"' in page and "every 5s" not in page and 'data-polling="off"' in page


def test_the_live_part_is_only_for_htmx_and_signed_in_travellers(client, demo_alice):
    assert client.get(reverse(LIVE), **HTMX)["Location"].startswith(reverse("login"))
    client.force_login(demo_alice)
    assert client.get(reverse(LIVE))["Location"] == reverse("aftersale:requests")
