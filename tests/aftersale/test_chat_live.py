"""The decision reaches the traveller in the chat too, without asking: the open chat page polls `chat/live`, which
answers with the notices not shown yet (each once) and nothing (204) otherwise; a ticket card of an earlier turn
shows the request as it stands now, a partial refund with both amounts and the approver's reason."""

import pytest
from django.urls import reverse

from aftersale.models import BizOrder, TicketStatus
from aftersale.selectors import aftersale_notices_for_user
from aftersale.services.decisions import ticket_decide
from assistant.models import Conversation, Turn, TurnOutcome
from assistant.views import SESSION_KEY

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def alice_client(client, demo_alice):
    client.force_login(demo_alice)
    return client


def test_the_open_chat_page_polls_and_is_told_of_a_decision_once(alice_client, demo_alice, demo_approver, ticket_for):
    ticket = ticket_for(BizOrder.objects.get(order_id="ORD-001"))
    page = alice_client.get(reverse("assistant:chat"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert page.status_code == 200
    assert f'hx-get="{reverse("assistant:live")}"' in page.content.decode()
    assert 'hx-trigger="every 5s, live-news"' in page.content.decode()
    nothing = alice_client.get(reverse("assistant:live"), **HTMX)
    assert nothing.status_code == 204 and nothing.content == b""

    ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=False, reason="活动已开始，无法退款")

    told = alice_client.get(reverse("assistant:live"), HTTP_ACCEPT_LANGUAGE="zh-hans", **HTMX)
    html = told.content.decode()
    assert told.status_code == 200
    assert "你的申请有新进展" in html and ticket.ticket_no in html and "活动已开始，无法退款" in html
    assert 'data-notice="REJECTED"' in html
    assert not aftersale_notices_for_user(user=demo_alice, unread=True).exists()
    assert alice_client.get(reverse("assistant:live"), **HTMX).status_code == 204  # told once


def test_a_ticket_card_of_an_earlier_turn_shows_the_partial_refund_as_it_stands(
    alice_client, demo_alice, demo_approver, ticket_for, english
):
    ticket = ticket_for(BizOrder.objects.get(order_id="ORD-001"))
    conversation = Conversation.objects.create(user=demo_alice)
    card = {
        "type": "ticket",
        "ticket_no": ticket.ticket_no,
        "action": "REFUND",
        "entity": "ORD-001",
        "amount": "380.00",
        "status": "PENDING",
        "status_label": "Pending review",
    }
    Turn.objects.create(
        conversation=conversation,
        user=demo_alice,
        message="refund ORD-001",
        reply="Submitted.",
        cards=[card],
        outcome=TurnOutcome.ANSWERED,
    )
    session = alice_client.session
    session[SESSION_KEY] = str(conversation.pk)
    session.save()

    ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="gear was used", amount="200")
    ticket.refresh_from_db()
    assert ticket.status == TicketStatus.APPROVED

    html = alice_client.get(reverse("assistant:chat"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f'data-ticket-no="{ticket.ticket_no}" data-status="APPROVED"' in html
    assert "¥200.00 of ¥380.00" in html and "gear was used" in html
    assert "News about your requests" in html  # the notice, shown once on the page
    assert reverse("assistant:live") in html
