"""CSRF on every form and HTMX post, and the approval console's permissions.

Every post without a CSRF token is refused with 403 and changes nothing; deciding a ticket needs
`aftersale.decide_ticket` (staff alone is not enough), travellers cannot reach the admin, and nobody approves
their own request.
"""

import datetime as dt

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from aftersale.models import BizOrder, HitlTicket, TicketAction, TicketKind, TicketStatus
from assistant.models import Conversation, Turn
from bookings.services.recording import booking_record_from_platform
from tests.security.conftest import snapshot

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/aftersale/hitlticket/"


def strict_client(user) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def pending_ticket(*, requester, order_id="ORD-004", number="TKSEC0001") -> HitlTicket:
    order = BizOrder.objects.get(order_id=order_id)
    return HitlTicket.objects.create(
        ticket_no=number,
        kind=TicketKind.WORKFLOW,
        idempotency_key=f"wfa:RETURN:{order_id}:{number}",
        action=TicketAction.RETURN,
        requested_by=requester,
        order=order,
        entity=order.order_id,
        amount=order.amount,
        status=TicketStatus.PENDING,
        deadline=timezone.now() + dt.timedelta(hours=48),
    )


@pytest.fixture
def alices_booking(alice):
    return booking_record_from_platform(
        user=alice,
        biz_type="HOTEL",
        external_order_no="HTALICE1",
        arguments={"hotelId": "HDL001", "checkInDate": "2026-12-10", "checkOutDate": "2026-12-12"},
        response={"orderNo": "HTALICE1", "totalPrice": 640},
    )


def chat_rows():
    return Conversation.objects.count(), Turn.objects.count()


@pytest.mark.parametrize("htmx", [False, True])
def test_sending_a_chat_message_without_a_csrf_token_is_refused_and_records_nothing(alice, htmx):
    client = strict_client(alice)
    before, rows = snapshot(), chat_rows()
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}

    response = client.post("/chat/send", {"message": "推荐赛里木湖的活动"}, **headers)

    assert response.status_code == 403
    assert (snapshot(), chat_rows()) == (before, rows)


def test_starting_a_new_chat_without_a_csrf_token_is_refused(alice):
    client = strict_client(alice)
    rows = chat_rows()

    response = client.post("/chat/new", HTTP_HX_REQUEST="true")

    assert response.status_code == 403
    assert chat_rows() == rows


@pytest.mark.parametrize("htmx", [False, True])
def test_cancelling_a_booking_without_a_csrf_token_is_refused_and_it_stays(alice, alices_booking, htmx):
    client = strict_client(alice)
    before = snapshot()
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}

    response = client.post(f"/bookings/{alices_booking.booking_id}/cancel", **headers)

    assert response.status_code == 403
    assert snapshot() == before


def test_an_aftersale_request_without_a_csrf_token_is_refused_and_opens_no_ticket(alice):
    client = strict_client(alice)
    before = snapshot()

    response = client.post("/aftersale/orders/ORD-004/request", {"action": "RETURN"})

    assert response.status_code == 403
    assert snapshot() == before


def test_the_session_api_refuses_writes_without_a_csrf_token(alice, alices_booking):
    client = strict_client(alice)
    before = snapshot()

    responses = [
        client.post(f"/api/v1/bookings/{alices_booking.booking_id}/cancel"),
        client.post("/api/v1/aftersale/requests", {"order_id": "ORD-004", "action": "RETURN"}, "application/json"),
        client.post("/api/v1/assistant/chat", {"message": "你好"}, "application/json"),
    ]

    assert [r.status_code for r in responses] == [403, 403, 403]
    assert snapshot() == before


def test_logging_out_without_a_csrf_token_is_refused_and_the_session_stays(alice):
    client = strict_client(alice)

    response = client.post("/accounts/logout/")

    assert response.status_code == 403
    assert client.get("/bookings/").status_code == 200


def test_an_admin_action_without_a_csrf_token_is_refused_and_the_ticket_stays_pending(demo):
    ticket = pending_ticket(requester=demo["alice"])
    client = strict_client(demo["approver"])
    before = snapshot()

    response = client.post(
        CHANGELIST,
        {"action": "approve_tickets", "_selected_action": [ticket.pk], "apply": "yes", "reason": "ok"},
    )

    assert response.status_code == 403
    assert snapshot() == before


def test_the_decide_view_without_a_csrf_token_is_refused_and_the_ticket_stays_pending(demo):
    ticket = pending_ticket(requester=demo["alice"])
    client = strict_client(demo["approver"])
    before = snapshot()

    response = client.post(f"{CHANGELIST}{ticket.pk}/decide/", {"decision": "approve", "apply": "yes", "reason": "ok"})

    assert response.status_code == 403
    assert snapshot() == before


# ---------------------------------------------------------------------------------------------------------------
# Who may decide


@pytest.fixture
def staff_without_decide(django_user_model):
    user = django_user_model.objects.create_user("viewer", password="pass-1234", is_staff=True)
    user.user_permissions.add(
        Permission.objects.get(codename="view_hitlticket"), Permission.objects.get(codename="change_hitlticket")
    )
    return user


def test_a_staff_user_without_the_decide_permission_cannot_approve_with_the_action(demo, staff_without_decide):
    ticket = pending_ticket(requester=demo["alice"])
    client = Client()
    client.force_login(staff_without_decide)
    before = snapshot()

    client.post(
        CHANGELIST, {"action": "approve_tickets", "_selected_action": [ticket.pk], "apply": "yes", "reason": "x"}
    )

    assert snapshot() == before
    ticket.refresh_from_db()
    assert ticket.status == TicketStatus.PENDING


def test_a_staff_user_without_the_decide_permission_cannot_approve_with_the_decide_view(demo, staff_without_decide):
    ticket = pending_ticket(requester=demo["alice"])
    client = Client()
    client.force_login(staff_without_decide)
    before = snapshot()

    response = client.post(f"{CHANGELIST}{ticket.pk}/decide/", {"decision": "approve", "apply": "yes", "reason": "x"})

    assert response.status_code == 403
    assert snapshot() == before


@pytest.mark.parametrize("url", ["/admin/", CHANGELIST, "/admin/auth/user/"])
def test_a_traveller_cannot_reach_the_admin(demo, url):
    client = Client()
    client.force_login(demo["alice"])

    response = client.get(url)

    assert response.status_code == 302
    assert reverse("admin:login") in response["Location"]


def test_a_traveller_cannot_approve_by_posting_to_the_console(demo):
    ticket = pending_ticket(requester=demo["alice"])
    client = Client()
    client.force_login(demo["alice"])
    before = snapshot()

    client.post(
        CHANGELIST, {"action": "approve_tickets", "_selected_action": [ticket.pk], "apply": "yes", "reason": "x"}
    )
    client.post(f"{CHANGELIST}{ticket.pk}/decide/", {"decision": "approve", "apply": "yes", "reason": "x"})

    assert snapshot() == before


@pytest.mark.parametrize("way", ["action", "decide_view"])
def test_an_approver_cannot_approve_their_own_request(demo, way):
    approver = demo["approver"]
    assert approver.has_perm("aftersale.decide_ticket")
    ticket = pending_ticket(requester=approver)
    client = Client()
    client.force_login(approver)
    before = snapshot()

    if way == "action":
        data = {"action": "approve_tickets", "_selected_action": [ticket.pk], "apply": "yes", "reason": "mine"}
        client.post(CHANGELIST, data)
    else:
        client.post(f"{CHANGELIST}{ticket.pk}/decide/", {"decision": "approve", "apply": "yes", "reason": "mine"})

    assert snapshot() == before
    ticket.refresh_from_db()
    assert (ticket.status, ticket.decided_by) == (TicketStatus.PENDING, None)


def test_with_a_token_the_same_approver_can_approve_someone_elses_ticket(demo):
    """The control case: the refusals above are about CSRF and permission, not a broken console."""
    ticket = pending_ticket(requester=demo["alice"])
    client = Client()
    client.force_login(demo["approver"])

    client.post(f"{CHANGELIST}{ticket.pk}/decide/", {"decision": "approve", "apply": "yes", "reason": "checked"})

    ticket.refresh_from_db()
    assert ticket.status != TicketStatus.PENDING and ticket.decided_by == demo["approver"]
