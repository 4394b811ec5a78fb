"""Every read and write of bookings, orders, tickets, plans and conversations is scoped to the signed-in user, and
someone else's id answers exactly like an unknown one.

Alice tries carol's ids on every page, every API endpoint, every agent tool and in chat: each answer is the answer
to an unknown id of the same kind, byte for byte (same status, same body, same code and message; pages compared
without their per-request CSRF tokens and nonces), so no answer tells whether a number exists or whose it is.
Nothing of carol's changes (all guarded rows are snapshotted before and after) and nothing of hers appears.
"""

import json
import re
import uuid

import pytest
from django.test import Client
from rest_framework.test import APIClient

from assistant.agent.registry import default_registry
from assistant.models import Conversation, Turn
from core.tools import ToolContext
from itinerary.planning import plan_itinerary, plan_store
from tests.factories import ActivityFactory
from tests.itinerary.test_engine import small_request
from tests.security.conftest import secrets_of, snapshot

pytestmark = pytest.mark.django_db

UNKNOWN_BOOKING = "BK209901010000000001"  # well formed, nobody's
UNKNOWN_ORDER = "ORD-999"
# What differs between two renderings of the same page on purpose: the masked CSRF token and CSP nonces.
PER_REQUEST = re.compile(r'(csrfmiddlewaretoken" value="|"X-CSRFToken": "|nonce=")[^"]*')


def assert_reveals_nothing(text: str, carols) -> None:
    for secret in secrets_of(carols):
        assert secret not in text, f"{secret!r} leaked"


def page_answer(response) -> tuple:
    """What a traveller gets from a page: the redirects, the final status, the content type and the page."""
    chain = [(url, code) for url, code in getattr(response, "redirect_chain", [])]
    html = PER_REQUEST.sub(r"\1…", response.content.decode())
    return chain, response.status_code, response.get("Content-Type"), html


def api_answer(response) -> tuple:
    return response.status_code, response.get("Content-Type"), response.content


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


# ---------------------------------------------------------------------------------------------------------------
# Bookings


def test_the_bookings_page_lists_none_of_carols_bookings(page, carols):
    response = page.get("/bookings/")

    assert response.status_code == 200
    assert_reveals_nothing(response.content.decode(), carols)


@pytest.mark.parametrize("htmx", [False, True])
def test_cancelling_carols_booking_on_the_page_answers_like_an_unknown_number_and_changes_nothing(page, carols, htmx):
    before = snapshot()
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}

    carols_answer = page.post(f"/bookings/{carols['booking'].booking_id}/cancel", follow=not htmx, **headers)
    unknown = page.post(f"/bookings/{UNKNOWN_BOOKING}/cancel", follow=not htmx, **headers)

    assert page_answer(carols_answer) == page_answer(unknown)
    assert "You have no booking with that number." in carols_answer.content.decode()
    assert snapshot() == before
    assert_reveals_nothing(carols_answer.content.decode(), carols)


def test_the_bookings_api_lists_none_of_carols_bookings(api, carols):
    response = api.get("/api/v1/bookings/")

    assert response.status_code == 200
    assert_reveals_nothing(response.content.decode(), carols)


def test_cancelling_carols_booking_through_the_api_answers_404_like_an_unknown_number_and_changes_nothing(api, carols):
    before = snapshot()

    response = api.post(f"/api/v1/bookings/{carols['booking'].booking_id}/cancel")
    unknown = api.post(f"/api/v1/bookings/{UNKNOWN_BOOKING}/cancel")

    assert api_answer(response) == api_answer(unknown)
    assert response.status_code == 404
    assert response.json() == {
        "ok": False,
        "code": "BOOKING_NOT_FOUND",
        "message": "You have no booking with that number.",
        "data": None,
    }
    assert snapshot() == before
    assert_reveals_nothing(response.content.decode(), carols)


# ---------------------------------------------------------------------------------------------------------------
# Orders and tickets


def test_the_aftersale_page_shows_none_of_carols_orders_or_tickets(page, carols):
    html = page.get("/aftersale/").content.decode()

    assert "ORD-003" not in html
    assert_reveals_nothing(html, carols)


@pytest.mark.parametrize("action", ["REFUND", "RETURN"])
def test_requesting_aftersale_on_carols_order_from_the_page_answers_like_an_unknown_order_and_changes_nothing(
    page, carols, action
):
    before = snapshot()

    response = page.post("/aftersale/orders/ORD-003/request", {"action": action}, follow=True)
    unknown = page.post(f"/aftersale/orders/{UNKNOWN_ORDER}/request", {"action": action}, follow=True)

    assert page_answer(response) == page_answer(unknown)
    html = response.content.decode()
    assert response.status_code == 200 and "你的账户里没有这个订单号。" in html  # the site's language: Chinese
    assert "ORD-003" not in html
    assert snapshot() == before
    assert_reveals_nothing(html, carols)


def test_the_orders_and_tickets_apis_list_none_of_carols(api, carols):
    orders = api.get("/api/v1/aftersale/orders/").content.decode()
    tickets = api.get("/api/v1/aftersale/tickets/").content.decode()

    assert "ORD-003" not in orders and "ORD-003" not in tickets
    assert_reveals_nothing(orders + tickets, carols)


@pytest.mark.parametrize("action", ["REFUND", "RETURN"])
def test_requesting_aftersale_on_carols_order_through_the_api_answers_404_like_an_unknown_order(api, carols, action):
    before = snapshot()

    response = api.post("/api/v1/aftersale/requests", {"order_id": "ORD-003", "action": action}, format="json")
    unknown = api.post("/api/v1/aftersale/requests", {"order_id": UNKNOWN_ORDER, "action": action}, format="json")

    assert api_answer(response) == api_answer(unknown)
    assert response.status_code == 404
    body = response.json()
    assert (body["ok"], body["code"], body["message"]) == (
        False,
        "ORDER_NOT_FOUND",
        "你的账户里没有这个订单号。",
    )
    assert snapshot() == before
    assert_reveals_nothing(response.content.decode(), carols)


# ---------------------------------------------------------------------------------------------------------------
# Plans and activities


def test_carols_plan_answers_404_like_an_unknown_plan(api, carol):
    plan_id = plan_store(plan_itinerary(small_request()), owner_id=carol.pk)

    response = api.get(f"/api/v1/itinerary/plans/{plan_id}")
    unknown = api.get(f"/api/v1/itinerary/plans/{uuid.uuid4()}")

    assert api_answer(response) == api_answer(unknown)
    assert response.status_code == 404
    assert response.json()["code"] == "PLAN_NOT_FOUND"


def test_an_unpublished_activity_page_answers_404_like_an_unknown_one(page, demo):
    hidden = ActivityFactory(is_published=False, title="卡萝尔秘密的内测活动")
    before = snapshot()

    response = page.get(f"/activities/{hidden.pk}/")
    unknown = page.get(f"/activities/{hidden.pk + 100000}/")

    # The 404 page's language switcher returns to the address alice typed: apart from it the answers are the same.
    typed = re.compile(r"/activities/\d+/")
    hidden_page, unknown_page = (typed.sub("/activities/ID/", str(page_answer(r))) for r in (response, unknown))
    assert hidden_page == unknown_page
    assert response.status_code == 404
    assert "卡萝尔秘密" not in response.content.decode()
    assert snapshot() == before


def test_the_activity_tool_answers_an_unpublished_activity_like_an_unknown_one(alice):
    hidden = ActivityFactory(is_published=False, title="卡萝尔秘密的内测活动")
    unknown_id = hidden.pk + 100000

    result = call(alice, "activity_detail", {"activity_id": hidden.pk})
    unknown = call(alice, "activity_detail", {"activity_id": unknown_id})

    # The id alice typed is echoed back in both (it is hers to know); apart from it the answers are the same.
    assert json.dumps(result).replace(str(hidden.pk), "ID") == json.dumps(unknown).replace(str(unknown_id), "ID")
    assert result["code"] == "NOT_FOUND"
    assert "卡萝尔秘密" not in json.dumps(result, ensure_ascii=False)


# ---------------------------------------------------------------------------------------------------------------
# Conversations


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


@pytest.mark.parametrize("agent", [False, True], ids=["channel-1", "channel-2"])
@pytest.mark.parametrize(
    ("carols_message", "unknown_message"),
    [
        ("取消预订 {booking}", "取消预订 " + UNKNOWN_BOOKING),
        ("订单 ORD-003 我要退款", f"订单 {UNKNOWN_ORDER} 我要退款"),
        ("我买的冲锋衣想退货，订单号 ORD-003", f"我买的冲锋衣想退货，订单号 {UNKNOWN_ORDER}"),
        ("ORD-003 的退款到哪一步了", f"{UNKNOWN_ORDER} 的退款到哪一步了"),
    ],
    ids=["cancel", "refund", "return", "progress"],
)
def test_chat_answers_carols_ids_like_unknown_ones_and_changes_nothing(
    api, carols, settings, agent, carols_message, unknown_message
):
    settings.ASSISTANT_AGENT_ENABLED = agent
    carols_message = carols_message.format(booking=carols["booking"].booking_id)
    before = snapshot()

    said = api.post("/api/v1/assistant/chat", {"message": carols_message, "fresh": True}, format="json")
    unknown = api.post("/api/v1/assistant/chat", {"message": unknown_message, "fresh": True}, format="json")

    seen = {key: said.json()[key] for key in ("reply", "cards", "suggestions", "outcome")}
    assert seen == {key: unknown.json()[key] for key in ("reply", "cards", "suggestions", "outcome")}
    assert seen["outcome"] == "REJECTED" and seen["cards"] == []
    assert carols["booking"].booking_id not in seen["reply"] and "ORD-003" not in seen["reply"]
    assert snapshot() == before
    assert_reveals_nothing(said.content.decode(), carols)


# ---------------------------------------------------------------------------------------------------------------
# The agent's tools, called as the model would with carol's ids


def call(alice, name, arguments):
    """The call as the model makes it in a turn alice sent, in her conversation (a write is only ever prepared
    there, for her to confirm)."""
    conversation = Conversation.objects.create(user=alice)
    context = ToolContext(
        user=alice, conversation_id=str(conversation.pk), request_text=json.dumps(arguments, ensure_ascii=False)
    )
    return default_registry().call(name, arguments, context, call_id="c1")


def test_the_cancel_booking_tool_answers_carols_booking_like_an_unknown_number_and_changes_nothing(alice, carols):
    before = snapshot()

    result = call(alice, "cancel_booking", {"booking_id": carols["booking"].booking_id})
    unknown = call(alice, "cancel_booking", {"booking_id": UNKNOWN_BOOKING})

    assert result == unknown
    assert (result["ok"], result["code"], result["data"]["booking_id"]) == (False, "BOOKING_NOT_FOUND", None)
    assert snapshot() == before
    assert_reveals_nothing(json.dumps(result, ensure_ascii=False), carols)


def test_the_list_my_bookings_tool_lists_none_of_carols(alice, carols):
    result = call(alice, "list_my_bookings", {})

    assert result["ok"] is True
    assert_reveals_nothing(json.dumps(result, ensure_ascii=False), carols)
    assert carols["booking"].booking_id not in json.dumps(result)


@pytest.mark.parametrize("action", ["REFUND", "RETURN"])
def test_the_request_aftersale_tool_answers_carols_order_like_an_unknown_one_and_changes_nothing(alice, carols, action):
    before = snapshot()

    result = call(alice, "request_aftersale", {"order_id": "ORD-003", "action": action})
    unknown = call(alice, "request_aftersale", {"order_id": UNKNOWN_ORDER, "action": action})

    assert result == unknown
    assert (result["ok"], result["code"], result["data"]["order_id"]) == (False, "ORDER_NOT_FOUND", None)
    assert snapshot() == before
    assert_reveals_nothing(json.dumps(result, ensure_ascii=False), carols)


def test_the_query_progress_tool_answers_carols_order_like_an_unknown_one(alice, carols):
    before = snapshot()

    result = call(alice, "query_progress", {"order_id": "ORD-003"})
    unknown = call(alice, "query_progress", {"order_id": UNKNOWN_ORDER})

    assert result == unknown
    assert (result["ok"], result["code"]) == (False, "ORDER_NOT_FOUND")
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
