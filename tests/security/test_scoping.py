"""Every read and write of bookings, orders, tickets, plans and conversations is scoped to the signed-in user.

Alice tries carol's ids on every page, every API endpoint and every agent tool: each is refused, nothing of
carol's changes (all guarded rows are snapshotted before and after) and nothing of hers appears in the answer.
"""

import json

import pytest
from django.test import Client
from rest_framework.test import APIClient

from assistant.agent.registry import default_registry
from assistant.models import Conversation, Turn
from core.tools import ToolContext
from itinerary.planning import plan_itinerary, plan_store
from tests.itinerary.test_engine import small_request
from tests.security.conftest import secrets_of, snapshot

pytestmark = pytest.mark.django_db


def assert_reveals_nothing(text: str, carols) -> None:
    for secret in secrets_of(carols):
        assert secret not in text, f"{secret!r} leaked"


@pytest.fixture
def page(alice):
    client = Client()
    client.force_login(alice)
    return client


@pytest.fixture
def api(alice):
    client = APIClient()
    client.force_authenticate(alice)
    return client


def test_the_bookings_page_lists_none_of_carols_bookings(page, carols):
    response = page.get("/bookings/")

    assert response.status_code == 200
    assert_reveals_nothing(response.content.decode(), carols)


@pytest.mark.parametrize("htmx", [False, True])
def test_cancelling_carols_booking_on_the_page_is_refused_and_nothing_changes(page, carols, htmx):
    before = snapshot()
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}

    response = page.post(f"/bookings/{carols['booking'].booking_id}/cancel", follow=not htmx, **headers)

    assert snapshot() == before
    html = response.content.decode()
    assert "HTCAROL9" not in html and "卡萝尔秘密" not in html


def test_the_bookings_api_lists_none_of_carols_bookings(api, carols):
    response = api.get("/api/v1/bookings/")

    assert response.status_code == 200
    assert_reveals_nothing(response.content.decode(), carols)


def test_cancelling_carols_booking_through_the_api_is_refused_and_nothing_changes(api, carols):
    before = snapshot()

    response = api.post(f"/api/v1/bookings/{carols['booking'].booking_id}/cancel")

    assert response.status_code in (403, 404)
    assert response.json()["ok"] is False and response.json()["data"] is None
    assert snapshot() == before
    assert_reveals_nothing(json.dumps(response.json(), ensure_ascii=False), carols)


def test_the_aftersale_page_shows_none_of_carols_orders_or_tickets(page, carols):
    html = page.get("/aftersale/").content.decode()

    assert "ORD-003" not in html
    assert_reveals_nothing(html, carols)


@pytest.mark.parametrize("action", ["REFUND", "RETURN"])
def test_requesting_aftersale_on_carols_order_from_the_page_is_refused_and_nothing_changes(page, carols, action):
    before = snapshot()

    response = page.post("/aftersale/orders/ORD-003/request", {"action": action}, follow=True)

    assert response.status_code == 200
    assert snapshot() == before
    assert_reveals_nothing(response.content.decode(), carols)


def test_the_orders_and_tickets_apis_list_none_of_carols(api, carols):
    orders = api.get("/api/v1/aftersale/orders/").content.decode()
    tickets = api.get("/api/v1/aftersale/tickets/").content.decode()

    assert "ORD-003" not in orders and "ORD-003" not in tickets
    assert_reveals_nothing(orders + tickets, carols)


@pytest.mark.parametrize("action", ["REFUND", "RETURN"])
def test_requesting_aftersale_on_carols_order_through_the_api_is_refused_and_nothing_changes(api, carols, action):
    before = snapshot()

    response = api.post("/api/v1/aftersale/requests", {"order_id": "ORD-003", "action": action}, format="json")

    assert response.status_code == 403
    assert (response.json()["ok"], response.json()["code"]) == (False, "ORDER_NOT_OWNED")  # the one error body
    assert snapshot() == before
    assert_reveals_nothing(response.content.decode(), carols)


def test_carols_plan_is_not_found_for_alice(api, carol):
    plan_id = plan_store(plan_itinerary(small_request()), owner_id=carol.pk)

    response = api.get(f"/api/v1/itinerary/plans/{plan_id}")

    assert response.status_code == 404
    assert response.json()["code"] == "PLAN_NOT_FOUND"


def test_chatting_with_carols_session_id_starts_alices_own_conversation(api, carol, alice, carols):
    carols_conversation = Conversation.objects.create(user=carol)
    before = snapshot()

    response = api.post(
        "/api/v1/assistant/chat", {"message": "我的预订", "session_id": str(carols_conversation.pk)}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["session_id"] != str(carols_conversation.pk)
    assert not Turn.objects.filter(conversation=carols_conversation).exists()
    assert Conversation.objects.get(pk=response.json()["session_id"]).user == alice
    assert snapshot() == before
    assert_reveals_nothing(response.content.decode(), carols)


def test_the_chat_page_with_carols_session_id_shows_nothing_of_hers(page, carol, carols):
    carols_conversation = Conversation.objects.create(user=carol)
    Turn.objects.create(
        conversation=carols_conversation,
        user=carol,
        message="卡萝尔秘密的问题",
        reply="卡萝尔秘密的回答",
        outcome="ANSWERED",
    )

    response = page.post("/chat/send", {"message": "你好", "session_id": str(carols_conversation.pk)})

    assert "卡萝尔秘密" not in response.content.decode()
    assert Turn.objects.filter(conversation=carols_conversation).count() == 1


# ---------------------------------------------------------------------------------------------------------------
# The agent's tools, called as the model would with carol's ids


def call(alice, name, arguments):
    return default_registry().call(name, arguments, ToolContext(user=alice), call_id="c1")


def test_the_cancel_booking_tool_refuses_carols_booking_and_nothing_changes(alice, carols):
    before = snapshot()

    result = call(alice, "cancel_booking", {"booking_id": carols["booking"].booking_id})

    assert result["ok"] is False
    assert snapshot() == before
    assert_reveals_nothing(json.dumps(result["data"] or {}, ensure_ascii=False), carols)


def test_the_list_my_bookings_tool_lists_none_of_carols(alice, carols):
    result = call(alice, "list_my_bookings", {})

    assert result["ok"] is True
    assert_reveals_nothing(json.dumps(result, ensure_ascii=False), carols)
    assert carols["booking"].booking_id not in json.dumps(result)


@pytest.mark.parametrize("action", ["REFUND", "RETURN"])
def test_the_request_aftersale_tool_refuses_carols_order_and_nothing_changes(alice, carols, action):
    before = snapshot()

    result = call(alice, "request_aftersale", {"order_id": "ORD-003", "action": action})

    assert result["ok"] is False
    assert snapshot() == before
    assert_reveals_nothing(json.dumps(result, ensure_ascii=False), carols)


def test_the_query_progress_tool_shows_nothing_of_carols_order(alice, carols):
    before = snapshot()

    result = call(alice, "query_progress", {"order_id": "ORD-003"})

    assert snapshot() == before
    assert_reveals_nothing(json.dumps(result, ensure_ascii=False), carols)


@pytest.mark.parametrize("action", ["queryOrder", "cancelOrder"])
def test_the_platform_command_tool_cannot_reach_carols_supplier_order(alice, carol, supplier_sandbox, action):
    from bookings.platform import PlatformCommand, platform_call
    from bookings.services import supplier_account_ensure

    carol_key = supplier_account_ensure(user=carol).api_key
    search = platform_call(
        PlatformCommand("flight", "search", {"from": "上海", "to": "杭州", "date": "2026-12-05"}), api_key=carol_key
    )
    flight = search["flights"][0]
    saved = platform_call(
        PlatformCommand(
            "flight",
            "saveOrder",
            {
                "flightNo": flight["flightNo"],
                "date": "2026-12-05",
                "contactTourist": {"name": "卡萝尔秘密", "mobile": "13812345678"},
            },
        ),
        api_key=carol_key,
    )
    order_no = saved["orderId"]
    before = snapshot()

    result = call(
        alice,
        "execute_platform_command",
        {"command": f'supplier call flight {action} -a \'{{"orderId": "{order_no}"}}\''},
    )

    assert result["ok"] is False
    assert snapshot() == before
    assert "卡萝尔秘密" not in json.dumps(result, ensure_ascii=False)
    still = platform_call(PlatformCommand("flight", "queryOrder", {"orderId": order_no}), api_key=carol_key)
    assert still["status"] == saved.get("status", "PENDING_PAYMENT")
