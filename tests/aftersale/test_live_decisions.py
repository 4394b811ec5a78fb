"""An approver's decision reaches the traveller's open page as it is made: their live channel (core.live) says
something changed, and the page's next ask of `chat/live` shows the notice, once."""

import pytest
from django.urls import reverse

from aftersale.models import BizOrder
from aftersale.services.decisions import ticket_decide
from core import live
from tests.support import fixtures
from tests.support.live_events import EventReader

pytestmark = [pytest.mark.redis]

live_events = fixtures.live_events

HTMX = {"HTTP_HX_REQUEST": "true"}


def test_a_decision_reaches_the_travellers_open_page_and_is_shown_once(
    live_events, client, demo_alice, demo_approver, ticket_for
):
    ticket = ticket_for(BizOrder.objects.get(order_id="ORD-001"))
    client.force_login(demo_alice)
    with EventReader(live_events.url, client.cookies["sessionid"].value) as stream:
        assert stream.next_event().event == live.CHANGED  # the page asks once as it connects: nothing yet
        assert client.get(reverse("assistant:live"), **HTMX).status_code == 204

        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=False, reason="活动已开始，无法退款")

        told = stream.next_event()
        assert (told.event, told.data) == (live.CHANGED, "")
        assert told.id is not None

    news = client.get(reverse("assistant:live"), HTTP_ACCEPT_LANGUAGE="zh-hans", **HTMX)
    html = news.content.decode()
    assert news.status_code == 200
    assert ticket.ticket_no in html and "活动已开始，无法退款" in html and 'data-notice="REJECTED"' in html
    assert client.get(reverse("assistant:live"), **HTMX).status_code == 204  # shown once
