"""An approved return of goods tells the traveller how to send the item back (the return address, in their notice
and on My requests, in Chinese and English), and its refund waits until staff mark the item received: no money
leaves before the goods come back. Then the refund runs once, as any approved refund does. A refund (no goods to
send back) is still executed at once."""

from decimal import Decimal

import pytest
from django.test import Client

from aftersale.models import AftersaleNotice, BizOrder, OrderStatus, TicketAction, TicketStatus
from aftersale.services import AftersaleError
from aftersale.services.decisions import ticket_decide, ticket_item_received
from aftersale.services.execution import ticket_execute, tickets_resume_stalled
from tests.support.live_events import work

pytestmark = pytest.mark.django_db

ADDRESS = "TripDesk Returns, 3F Building B, 988 Shenchang Road, Minhang, Shanghai 201100, 021-5555 0100"


@pytest.fixture
def ord004(demo_seeded):
    """Alice's 登山杖 ×2, ¥258, delivered three days ago: returnable."""
    return BizOrder.objects.get(order_id="ORD-004")


@pytest.fixture
def approved_return(ord004, demo_approver, ticket_for, supplier_sandbox, django_capture_on_commit_callbacks):
    ticket = ticket_for(ord004, action=TicketAction.RETURN)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="")
    assert work(callbacks) == []  # nothing to execute yet
    ticket.refresh_from_db()
    return ticket


def refunds(sandbox) -> dict:
    return sandbox.stats()["refunds"]["byOrderId"]


def requests_page(user, language: str) -> str:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client.get("/aftersale/").content.decode()


def test_an_approved_return_waits_for_the_item_and_refunds_nothing(approved_return, ord004, supplier_sandbox):
    assert approved_return.status == TicketStatus.APPROVED and approved_return.item_received_at is None
    ord004.refresh_from_db()
    assert (ord004.status, ord004.refunded_amount, ord004.refund_claim_id) == (OrderStatus.DELIVERED, 0, None)
    assert refunds(supplier_sandbox) == {}
    notice = AftersaleNotice.objects.get(ticket=approved_return)
    assert notice.kind == "APPROVED" and notice.facts["return_to"] == ADDRESS


def test_neither_a_duplicate_task_nor_the_sweep_refunds_before_the_item_is_back(approved_return, supplier_sandbox):
    assert ticket_execute(ticket_id=approved_return.pk).status == TicketStatus.APPROVED
    assert tickets_resume_stalled() == 0
    approved_return.refresh_from_db()
    assert approved_return.status == TicketStatus.APPROVED and approved_return.attempts == 0
    assert refunds(supplier_sandbox) == {}


@pytest.mark.parametrize(
    ("language", "said"),
    [("zh-hans", "请把商品寄回"), ("en", "Please send the item back to")],
)
def test_the_traveller_reads_how_to_send_it_back_in_their_notice_and_on_my_requests(
    approved_return, demo_alice, language, said
):
    html = requests_page(demo_alice, language)

    assert html.count(said) == 2, html  # the notice, and the request's row
    assert ADDRESS in html and approved_return.ticket_no in html
    assert "¥258" in html


def test_once_staff_mark_the_item_received_the_refund_runs_once_and_the_order_is_returned(
    approved_return, ord004, demo_approver, supplier_sandbox, django_capture_on_commit_callbacks, demo_alice
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        ticket_item_received(ticket_id=approved_return.pk, actor=demo_approver)

    assert len(work(callbacks)) == 1
    approved_return.refresh_from_db()
    ord004.refresh_from_db()
    assert approved_return.status == TicketStatus.EXECUTED and approved_return.item_received_at is not None
    assert (ord004.status, ord004.refunded_amount) == (OrderStatus.RETURNED, Decimal("258.00"))
    assert refunds(supplier_sandbox) == {"ORD-004": 1}
    assert list(approved_return.events.values_list("from_status", "to_status", "reason")) == [
        ("PENDING", "APPROVED", "approved"),
        ("APPROVED", "APPROVED", "item received back; refund started"),
        ("APPROVED", "EXECUTING", "execution started (attempt 1)"),
        ("EXECUTING", "EXECUTED", approved_return.events.last().reason),
    ]
    with pytest.raises(AftersaleError) as again:
        ticket_item_received(ticket_id=approved_return.pk, actor=demo_approver)
    assert again.value.code == "INVALID_TRANSITION" and refunds(supplier_sandbox) == {"ORD-004": 1}
    assert "Please send the item back" not in requests_page(demo_alice, "en").split("<tbody>", 1)[-1]


def test_the_traveller_cannot_mark_their_own_return_received(approved_return, demo_alice, supplier_sandbox):
    with pytest.raises(AftersaleError) as refused:
        ticket_item_received(ticket_id=approved_return.pk, actor=demo_alice)

    assert refused.value.code == "PERMISSION_DENIED"
    approved_return.refresh_from_db()
    assert approved_return.item_received_at is None and refunds(supplier_sandbox) == {}


@pytest.mark.parametrize(("language", "said"), [("zh-hans", "等待商品寄回"), ("en", "waiting for the item")])
def test_the_approval_console_lists_the_return_as_waiting_for_its_item(approved_return, demo_approver, language, said):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(demo_approver)

    html = client.get("/admin/aftersale/hitlticket/").content.decode()

    assert html.count("data-awaits-item") == 1 and said in html


def test_the_approval_console_marks_the_item_received(
    approved_return, demo_approver, supplier_sandbox, django_capture_on_commit_callbacks
):
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(demo_approver)

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/admin/aftersale/hitlticket/",
            {"action": "mark_items_received", "_selected_action": [approved_return.pk]},
            follow=True,
        )

    assert response.status_code == 200 and approved_return.ticket_no in response.content.decode()
    approved_return.refresh_from_db()
    assert approved_return.status == TicketStatus.EXECUTED and refunds(supplier_sandbox) == {"ORD-004": 1}


def test_a_refund_with_nothing_to_send_back_is_still_executed_at_once(
    demo_seeded, demo_approver, ticket_for, supplier_sandbox, django_capture_on_commit_callbacks
):
    order = BizOrder.objects.get(order_id="ORD-001")
    ticket = ticket_for(order)

    with django_capture_on_commit_callbacks(execute=True):
        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="")

    ticket.refresh_from_db()
    assert ticket.status == TicketStatus.EXECUTED and refunds(supplier_sandbox) == {"ORD-001": 1}
    assert "return_to" not in AftersaleNotice.objects.get(ticket=ticket, kind="APPROVED").facts


@pytest.mark.parametrize(("language", "said"), [("zh-hans", "请把商品寄回"), ("en", "Please send the item back to")])
def test_the_chat_page_shows_the_notice_with_where_to_send_the_item(approved_return, demo_alice, language, said):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(demo_alice)

    html = client.get("/chat/live").content.decode()

    assert said in html and ADDRESS in html and approved_return.ticket_no in html
    assert AftersaleNotice.objects.get(ticket=approved_return).read_at is not None
