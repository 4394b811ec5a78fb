"""Refunds and returns from chat, the API and the requests page; progress as the requester sees it."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from rest_framework.test import APIClient

from aftersale.models import BizOrder, HitlTicket
from assistant.services import chat_turn

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo():
    call_command("seed_demo", verbosity=0)
    return get_user_model().objects.get(username="alice")


def order_snapshot():
    return list(BizOrder.objects.order_by("order_id").values_list("order_id", "status", "amount"))


def refund_confirmed(user, message="订单ORD-001我要退款，行程有变"):
    """A refund request in chat, and the traveller's "确认" to its card: the turn that files the ticket."""
    asked = chat_turn(user=user, message=message)
    return chat_turn(user=user, message="确认", conversation_id=asked.conversation_id)


def test_a_refund_request_in_chat_opens_a_ticket_once_confirmed_and_returns_at_once(demo):
    result = refund_confirmed(demo)

    ticket = HitlTicket.objects.get(idempotency_key="wfa:REFUND:ORD-001")
    assert ticket.status == "PENDING" and ticket.requested_by == demo
    assert result.outcome == "ANSWERED"
    assert ticket.ticket_no in result.reply and "等待人工审核" in result.reply
    card = result.cards[0]
    assert (card["type"], card["ticket_no"], card["status"]) == ("ticket", ticket.ticket_no, "PENDING")
    assert "verdict" not in card and "evidence" not in card and "flagged" not in card


def test_asking_again_reuses_the_pending_ticket(demo):
    refund_confirmed(demo)

    again = chat_turn(user=demo, message="I'd like a refund for order ord-001")

    assert HitlTicket.objects.filter(entity="ORD-001").count() == 1
    assert "already under review" in again.reply


def test_someone_elses_order_is_refused_and_nothing_changes(demo):
    before = order_snapshot()

    result = chat_turn(user=demo, message="我买的冲锋衣想退了，订单号 ORD-003")

    assert result.outcome == "REJECTED"
    assert "你的账户里没有这个订单" in result.reply and "ORD-003" not in result.reply  # as for an unknown order
    assert not HitlTicket.objects.exists()
    assert order_snapshot() == before


def test_an_ineligible_return_says_why_with_the_policy(demo):
    result = chat_turn(user=demo, message="ord-002 申请退货，东西不合适")

    assert result.outcome == "REJECTED"
    assert "不符合退货条件" in result.reply
    assert not HitlTicket.objects.exists()


def test_a_request_without_an_order_asks_which_one_and_the_answer_completes_it(demo):
    first = chat_turn(user=demo, message="我要退款")
    assert first.outcome == "CLARIFY"
    assert any("ORD-001" in c["message"] for c in first.suggestions)

    second = chat_turn(user=demo, message="ORD-001", conversation_id=first.conversation_id)
    third = chat_turn(user=demo, message="行程有变", conversation_id=first.conversation_id)
    fourth = chat_turn(user=demo, message="确认", conversation_id=first.conversation_id)

    assert second.outcome == "CLARIFY" and "为什么" in second.reply  # then why: the reviewer reads it
    assert third.cards[0]["type"] == "confirmation"
    assert HitlTicket.objects.filter(entity="ORD-001", action="REFUND").count() == 1
    assert fourth.cards[0]["type"] == "ticket"


def test_progress_shows_my_tickets_and_only_mine(demo):
    refund_confirmed(demo)
    carol = get_user_model().objects.get(username="carol")
    refund_confirmed(carol, "订单ORD-003我要退货，尺码不合适")

    result = chat_turn(user=demo, message="我的退款申请到哪一步了")

    assert [c["entity"] for c in result.cards] == ["ORD-001"]
    assert "等待审核" in result.reply


def test_progress_with_no_tickets_says_so(demo):
    result = chat_turn(user=demo, message="What's the status of my refund?")

    assert result.outcome == "EMPTY"
    assert "no refund" in result.reply


def test_the_api_opens_a_request_and_lists_only_my_tickets(demo):
    api = APIClient()
    api.force_authenticate(demo)

    created = api.post("/api/v1/aftersale/requests", {"order_id": " ord-004 ", "action": "RETURN"}, format="json")
    listed = api.get("/api/v1/aftersale/tickets/").json()

    assert created.status_code == 201
    assert created.json()["ticket"]["entity"] == "ORD-004"
    assert "verdict" not in created.json()["ticket"]
    assert [t["entity"] for t in listed["results"]] == ["ORD-004"]


@pytest.mark.parametrize(
    ("payload", "http", "code"),
    [
        ({"order_id": "ORD-003", "action": "RETURN"}, 404, "ORDER_NOT_FOUND"),  # someone else's: as if unknown
        ({"order_id": "ORD-999", "action": "REFUND"}, 404, "ORDER_NOT_FOUND"),
        ({"order_id": "ORD-002", "action": "RETURN"}, 409, "INELIGIBLE"),
        ({"order_id": "ORD-001", "action": "STEAL"}, 400, "INVALID_PARAM"),
        ({"order_id": "", "action": "REFUND"}, 400, "INVALID_PARAM"),
    ],
)
def test_the_api_refuses_bad_requests_clearly_and_changes_nothing(demo, payload, http, code):
    api = APIClient()
    api.force_authenticate(demo)
    before = order_snapshot()

    response = api.post("/api/v1/aftersale/requests", payload, format="json")

    assert response.status_code == http
    body = response.json()
    assert set(body) == {"ok", "code", "message", "data"}  # the one error body of every API view
    assert (body["ok"], body["code"]) == (False, code)
    assert body["message"]
    assert not HitlTicket.objects.exists()
    assert order_snapshot() == before


def test_an_ineligible_api_request_names_the_policy_it_breaks(demo):
    api = APIClient()
    api.force_authenticate(demo)

    body = api.post(
        "/api/v1/aftersale/requests",
        {"order_id": "ORD-002", "action": "RETURN"},
        format="json",
        HTTP_ACCEPT_LANGUAGE="en",
    ).json()

    assert "7-day" in body["message"]
    assert body["data"]["policies"][0]["title"].startswith("7天无理由退货")


@pytest.mark.parametrize(
    ("body", "content_type", "http", "code"),
    [
        ('{"order_id": "ORD-001", ', "application/json", 400, "INVALID_PARAM"),  # malformed JSON
        ("order_id=ORD-001", "text/plain", 415, "INVALID_PARAM"),
    ],
)
def test_a_malformed_api_request_gets_the_same_error_body(demo, body, content_type, http, code):
    api = APIClient()
    api.force_authenticate(demo)

    response = api.post("/api/v1/aftersale/requests", body, content_type=content_type)

    assert response.status_code == http
    assert set(response.json()) == {"ok", "code", "message", "data"}
    assert (response.json()["ok"], response.json()["code"]) == (False, code)
    assert not HitlTicket.objects.exists()


@pytest.mark.parametrize(
    "path", ["/api/v1/aftersale/requests", "/api/v1/aftersale/tickets/", "/api/v1/aftersale/orders/"]
)
def test_the_api_asks_a_stranger_to_sign_in_in_the_same_error_body(demo, path):
    response = APIClient().post(path, {"order_id": "ORD-001", "action": "REFUND"}, format="json")

    assert response.status_code == 401
    assert set(response.json()) == {"ok", "code", "message", "data"}
    assert response.json()["ok"] is False
    assert not HitlTicket.objects.exists()


def test_the_requests_page_lists_my_orders_and_opens_a_request(client, demo):
    client.force_login(demo)

    page = client.post("/aftersale/orders/ORD-004/request", {"action": "RETURN"}, follow=True).content.decode()

    ticket = HitlTicket.objects.get(entity="ORD-004")
    assert ticket.ticket_no in page
    assert "ORD-003" not in page  # carol's order is not listed


def test_channel_two_opens_a_refund_ticket_once_confirmed_and_reports_progress(demo, settings):
    settings.ASSISTANT_AGENT_ENABLED = True

    requested = refund_confirmed(demo)
    progress = chat_turn(user=demo, message="我的退款申请到哪一步了")

    ticket = HitlTicket.objects.get(entity="ORD-001")
    assert requested.cards[0]["ticket_no"] == ticket.ticket_no
    assert "等待人工审核" in requested.reply
    assert [c["ticket_no"] for c in progress.cards] == [ticket.ticket_no]
