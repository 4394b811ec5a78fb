"""Every read and write of bookings, orders, tickets, plans and conversations is scoped to the signed-in user, and
someone else's id answers exactly like an unknown one.

Alice tries carol's ids on every page, every API endpoint, every agent tool and in chat: each answer is the answer
to an unknown id of the same kind, byte for byte (same status, same body, same code and message; pages compared
without their per-request CSRF tokens and nonces), so no answer tells whether a number exists or whose it is.
Nothing of carol's changes (all guarded rows are snapshotted before and after) and nothing of hers appears.

A write is tried to its end: the first step (the preview) and then the confirmation, as a traveller who clicks
through would send it. A list that must leave carol's rows out is checked to show alice's own: an empty page would
leave carol's out too.
"""

import json
import re
import uuid

import pytest
from django.test import Client
from rest_framework.test import APIClient

from assistant.actions import pending_action_confirm, pending_action_decline
from assistant.agent.registry import default_registry
from assistant.models import Conversation, PendingAction, Turn
from assistant.services import chat_turn
from bookings.models import BookingStatus
from core.tools import ToolContext
from itinerary.round_trip import plan_itinerary, plan_store
from tests.factories import ActivityFactory
from tests.itinerary.test_engine import small_request
from tests.security.conftest import rows_of, secrets_of, snapshot

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
def alices(alice):
    """Alice's own rows, which her lists must show: a hotel booking and a pending refund ticket on ORD-001."""
    return rows_of(
        alice, hotel_order="HTALICE1", guest="爱丽丝本人", total=555, order_id="ORD-001", ticket_no="TKALICE0001"
    )


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


def test_the_bookings_page_lists_alices_booking_and_none_of_carols(page, alices, carols):
    response = page.get("/bookings/")

    assert response.status_code == 200
    assert alices["booking"].booking_id in response.content.decode()
    assert_reveals_nothing(response.content.decode(), carols)


@pytest.mark.parametrize("htmx", [False, True])
@pytest.mark.parametrize("step", [{}, {"confirm": "1"}], ids=["preview", "confirmed"])
def test_cancelling_carols_booking_on_the_page_answers_like_an_unknown_number_and_changes_nothing(
    page, carols, htmx, step
):
    before = snapshot()
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}

    carols_answer = page.post(f"/bookings/{carols['booking'].booking_id}/cancel", step, follow=not htmx, **headers)
    unknown = page.post(f"/bookings/{UNKNOWN_BOOKING}/cancel", step, follow=not htmx, **headers)

    assert page_answer(carols_answer) == page_answer(unknown)
    assert "You have no booking with that number." in carols_answer.content.decode()
    assert snapshot() == before
    assert_reveals_nothing(carols_answer.content.decode(), carols)


def test_the_bookings_api_lists_alices_booking_and_none_of_carols(api, alices, carols):
    response = api.get("/api/v1/bookings/")

    assert response.status_code == 200
    assert [b["booking_id"] for b in response.json()["results"]] == [alices["booking"].booking_id]
    assert_reveals_nothing(response.content.decode(), carols)


@pytest.mark.parametrize("step", [{}, {"confirm": True}], ids=["preview", "confirmed"])
def test_cancelling_carols_booking_through_the_api_answers_404_like_an_unknown_number_and_changes_nothing(
    api, carols, step
):
    before = snapshot()

    response = api.post(f"/api/v1/bookings/{carols['booking'].booking_id}/cancel", step, format="json")
    unknown = api.post(f"/api/v1/bookings/{UNKNOWN_BOOKING}/cancel", step, format="json")

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


def test_the_aftersale_page_shows_alices_orders_and_ticket_and_none_of_carols(page, alices, carols):
    response = page.get("/aftersale/")

    html = response.content.decode()
    assert response.status_code == 200
    assert "ORD-001" in html and alices["ticket"].ticket_no in html
    assert "ORD-003" not in html
    assert_reveals_nothing(html, carols)


@pytest.mark.parametrize("action", ["REFUND", "RETURN"])
@pytest.mark.parametrize("step", [{}, {"confirm": "1"}], ids=["first-step", "confirmed"])
def test_requesting_aftersale_on_carols_order_from_the_page_answers_like_an_unknown_order_and_changes_nothing(
    page, carols, action, step
):
    before = snapshot()

    response = page.post("/aftersale/orders/ORD-003/request", {"action": action, **step}, follow=True)
    unknown = page.post(f"/aftersale/orders/{UNKNOWN_ORDER}/request", {"action": action, **step}, follow=True)

    assert page_answer(response) == page_answer(unknown)
    html = response.content.decode()
    assert response.status_code == 200 and "你的账户里没有这个订单号。" in html  # the site's language: Chinese
    assert "ORD-003" not in html
    assert snapshot() == before
    assert_reveals_nothing(html, carols)


def test_the_orders_and_tickets_apis_list_alices_and_none_of_carols(api, alices, carols):
    orders = api.get("/api/v1/aftersale/orders/").content.decode()
    tickets = api.get("/api/v1/aftersale/tickets/").content.decode()

    assert "ORD-001" in orders and alices["ticket"].ticket_no in tickets
    assert "ORD-003" not in orders and "ORD-003" not in tickets
    assert_reveals_nothing(orders + tickets, carols)


@pytest.mark.parametrize("action", ["REFUND", "RETURN"])
@pytest.mark.parametrize("step", [{}, {"confirm": True}], ids=["first-step", "confirmed"])
def test_requesting_aftersale_on_carols_order_through_the_api_answers_404_like_an_unknown_order(
    api, carols, action, step
):
    before = snapshot()

    response = api.post("/api/v1/aftersale/requests", {"order_id": "ORD-003", "action": action, **step}, format="json")
    unknown = api.post(
        "/api/v1/aftersale/requests", {"order_id": UNKNOWN_ORDER, "action": action, **step}, format="json"
    )

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


def test_carols_plan_answers_404_like_an_unknown_plan_and_alices_own_plan_is_there(api, alice, carol):
    plan_id = plan_store(plan_itinerary(small_request()), owner_id=carol.pk)
    alices_plan = plan_store(plan_itinerary(small_request()), owner_id=alice.pk)

    response = api.get(f"/api/v1/itinerary/plans/{plan_id}")
    unknown = api.get(f"/api/v1/itinerary/plans/{uuid.uuid4()}")
    own = api.get(f"/api/v1/itinerary/plans/{alices_plan}")

    assert api_answer(response) == api_answer(unknown)
    assert response.status_code == 404
    assert response.json()["code"] == "PLAN_NOT_FOUND"
    assert own.status_code == 200


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


def test_the_chat_page_with_carols_session_id_answers_alice_and_shows_nothing_of_hers(page, alice, carol, carols):
    carols_conversation = Conversation.objects.create(user=carol)
    Turn.objects.create(
        conversation=carols_conversation,
        user=carol,
        message="卡萝尔秘密的问题",
        reply="卡萝尔秘密的回答",
        outcome="ANSWERED",
    )

    response = page.post("/chat/send", {"message": "你好", "session_id": str(carols_conversation.pk)}, follow=True)

    assert response.status_code == 200
    alices_turn = Turn.objects.get(user=alice)
    assert alices_turn.conversation_id != carols_conversation.pk and alices_turn.message == "你好"
    assert alices_turn.reply and alices_turn.reply[:20] in response.content.decode()  # alice lands on her answer
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
    # Then alice confirms, as she would a card, in each conversation.
    said_yes = api.post("/api/v1/assistant/chat", {"message": "确认", "session_id": said.json()["session_id"]})
    unknown_yes = api.post("/api/v1/assistant/chat", {"message": "确认", "session_id": unknown.json()["session_id"]})

    keys = ("reply", "cards", "suggestions", "outcome")
    seen = {key: said.json()[key] for key in keys}
    assert seen == {key: unknown.json()[key] for key in keys}
    assert seen["outcome"] == "REJECTED" and seen["cards"] == []
    assert carols["booking"].booking_id not in seen["reply"] and "ORD-003" not in seen["reply"]
    assert said_yes.status_code == unknown_yes.status_code == 200
    assert {key: said_yes.json()[key] for key in keys} == {key: unknown_yes.json()[key] for key in keys}
    assert not PendingAction.objects.exists()  # nothing was ever waiting to be confirmed
    assert snapshot() == before
    assert_reveals_nothing(said.content.decode() + said_yes.content.decode(), carols)


# ---------------------------------------------------------------------------------------------------------------
# The agent's tools, called as the model would with carol's ids


def call(alice, name, arguments):
    """The call as the model makes it in a turn alice sent, in her conversation (a write is only ever prepared
    there, for her to confirm)."""
    return call_then_confirm(alice, name, arguments)[0]


def call_then_confirm(alice, name, arguments) -> tuple[dict, dict]:
    """The call as above, then alice's "确认" in that conversation: the tool's envelope and what the confirmation
    answered (reply, cards, outcome)."""
    conversation = Conversation.objects.create(user=alice)
    context = ToolContext(
        user=alice, conversation_id=str(conversation.pk), request_text=json.dumps(arguments, ensure_ascii=False)
    )
    envelope = default_registry().call(name, arguments, context, call_id="c1")
    yes = chat_turn(user=alice, message="确认", conversation_id=str(conversation.pk))
    return envelope, {"reply": yes.reply, "cards": yes.cards, "outcome": yes.outcome}


def test_the_cancel_booking_tool_answers_carols_booking_like_an_unknown_number_and_changes_nothing(alice, carols):
    before = snapshot()

    result, confirmed = call_then_confirm(alice, "cancel_booking", {"booking_id": carols["booking"].booking_id})
    unknown, unknown_confirmed = call_then_confirm(alice, "cancel_booking", {"booking_id": UNKNOWN_BOOKING})

    assert result == unknown
    assert (result["ok"], result["code"], result["data"]["booking_id"]) == (False, "BOOKING_NOT_FOUND", None)
    assert confirmed == unknown_confirmed and confirmed["cards"] == []
    assert not PendingAction.objects.exists()
    assert snapshot() == before
    assert_reveals_nothing(json.dumps([result, confirmed], ensure_ascii=False), carols)


def test_the_list_my_bookings_tool_lists_alices_booking_and_none_of_carols(alice, alices, carols):
    result = call(alice, "list_my_bookings", {})

    assert result["ok"] is True
    assert alices["booking"].booking_id in json.dumps(result)
    assert_reveals_nothing(json.dumps(result, ensure_ascii=False), carols)
    assert carols["booking"].booking_id not in json.dumps(result)


@pytest.mark.parametrize("action", ["REFUND", "RETURN"])
def test_the_request_aftersale_tool_answers_carols_order_like_an_unknown_one_and_changes_nothing(alice, carols, action):
    before = snapshot()

    result, confirmed = call_then_confirm(alice, "request_aftersale", {"order_id": "ORD-003", "action": action})
    unknown, unknown_confirmed = call_then_confirm(
        alice, "request_aftersale", {"order_id": UNKNOWN_ORDER, "action": action}
    )

    assert result == unknown
    assert (result["ok"], result["code"], result["data"]["order_id"]) == (False, "ORDER_NOT_FOUND", None)
    assert confirmed == unknown_confirmed and confirmed["cards"] == []
    assert not PendingAction.objects.exists()
    assert snapshot() == before
    assert_reveals_nothing(json.dumps([result, confirmed], ensure_ascii=False), carols)


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
    from bookings.accounts import supplier_account_ensure
    from bookings.platform import PlatformCommand, platform_call

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


# ---------------------------------------------------------------------------------------------------------------
# Confirmations


@pytest.fixture
def carols_card(carol, carols):
    """Carol asked in the chat to cancel her hotel booking: her confirmation card waits for her yes."""
    asked = chat_turn(user=carol, message=f"取消预订 {carols['booking'].booking_id}")
    action = PendingAction.objects.get(user=carol)
    assert action.status == "PENDING" and [c["type"] for c in asked.cards] == ["confirmation"]
    return action


def test_alice_confirming_or_declining_carols_card_answers_like_an_unknown_one_and_carols_card_stays_hers(
    api, alice, carol, carols, carols_card
):
    unknown = uuid.uuid4()
    before = snapshot()

    by_service = [pending_action_confirm(user=alice, pending_id=carols_card.pk)]
    by_service.append(pending_action_decline(user=alice, pending_id=carols_card.pk))
    unknown_by_service = [pending_action_confirm(user=alice, pending_id=unknown)]
    unknown_by_service.append(pending_action_decline(user=alice, pending_id=unknown))
    by_api = [api.post(f"/api/v1/assistant/actions/{carols_card.pk}/{verb}") for verb in ("confirm", "decline")]
    unknown_by_api = [api.post(f"/api/v1/assistant/actions/{unknown}/{verb}") for verb in ("confirm", "decline")]
    by_button = chat_turn(user=alice, message="确认", action_id=str(carols_card.pk))
    unknown_button = chat_turn(user=alice, message="确认", action_id=str(unknown))

    assert by_service == unknown_by_service
    assert [e["code"] for e in by_service] == ["ACTION_NOT_FOUND", "ACTION_NOT_FOUND"]
    assert [(r.status_code, r.json()["code"]) for r in by_api] == [(404, "ACTION_NOT_FOUND")] * 2
    assert [api_answer(r) for r in by_api] == [api_answer(r) for r in unknown_by_api]
    assert (by_button.reply, by_button.cards, by_button.outcome) == (
        unknown_button.reply,
        unknown_button.cards,
        unknown_button.outcome,
    )
    carols_card.refresh_from_db()
    assert (carols_card.status, carols_card.decided_at, carols_card.result) == ("PENDING", None, None)
    assert snapshot() == before
    assert_reveals_nothing(json.dumps(by_service, ensure_ascii=False) + by_button.reply, carols)

    carols_yes = pending_action_confirm(user=carol, pending_id=carols_card.pk)  # still hers to confirm, once

    carols["booking"].refresh_from_db()
    assert carols_yes["ok"] is True and carols["booking"].status == BookingStatus.CANCELLED
