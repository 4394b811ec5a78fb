"""A refund or return request is a write like a booking: the chat shows a confirmation card with the order, what it
is, the amount, the action and the traveller's reason, files nothing before the traveller confirms ("确认", "yes",
the button, the API), and asks why when they did not say. The checks before the card answer at once (not yours,
ruled out by the policy, already under review). A model can only show the card. The ticket records the confirmed
pending action; the console's bulk approval skips a ticket that has none, and the ticket page says which it is.

Demo data (`seed_demo`): alice's ORD-001 is a ¥380.00 activity (赛里木湖环湖骑行一日游, 21 December: refundable),
ORD-004 two trekking poles delivered 3 days ago (returnable), ORD-005 an activity tomorrow (no refund within 48
hours), ORD-002 boots delivered 15 days ago; carol's ORD-003.
"""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from aftersale.models import BizOrder, HitlTicket, TicketStatus, Verdict
from aftersale.services.decisions import tickets_approve_bulk
from assistant.models import LLMCall, PendingAction
from assistant.services import chat_turn
from tests.support import fixtures
from tests.support.fake_openai import Reply
from tests.support.model import use_scripted_model

fake_openai = fixtures.fake_openai
pytestmark = pytest.mark.django_db

CHAT = "/api/v1/assistant/chat"


@pytest.fixture(params=[1, 2], ids=["channel-1", "channel-2"])
def channel(request, settings):
    """Each test twice: channel 1 (understand, then the handlers) and channel 2 (the agent loop, the rules
    provider replaying channel 1's flow)."""
    settings.ASSISTANT_AGENT_ENABLED = request.param == 2
    settings.ASSISTANT_LLM_PROVIDER = "rules"
    settings.ASSISTANT_DAILY_TURN_LIMIT = 1000
    return request.param


class Chat:
    """One conversation of one traveller through `POST /api/v1/assistant/chat`."""

    def __init__(self, user) -> None:
        self.client = APIClient()
        self.client.force_authenticate(user)
        self.session = None

    def say(self, message: str) -> dict:
        body = {"message": message, **({"session_id": self.session} if self.session else {})}
        response = self.client.post(CHAT, body, format="json")
        assert response.status_code == 200, response.content
        answer = response.json()
        self.session = answer["session_id"]
        return answer


def rows() -> dict:
    """What a request may change: tickets, orders and the pending actions."""
    return {
        "tickets": list(HitlTicket.objects.order_by("pk").values_list("pk", "status")),
        "orders": list(BizOrder.objects.order_by("order_id").values_list("order_id", "status", "refunded_amount")),
        "actions": list(PendingAction.objects.order_by("created_at").values_list("pk", "status")),
    }


def card_of(answer: dict) -> dict:
    [card] = [c for c in answer["cards"] if c["type"] == "confirmation"]
    return card


def facts(card: dict) -> dict:
    return dict(card["rows"])


# -- the card first, the ticket after the traveller's yes ---------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "language", "expected"),
    [
        ("订单ORD-001我要退款，行程有变", "zh", ("订单", "ORD-001", "金额", "¥380.00", "你的理由", "行程有变")),
        ("ORD-001退款，因为家里老人住院了", "zh", ("订单", "ORD-001", "金额", "¥380.00", "你的理由", "因为家里老人住院了")),
        ("Refund ORD-001 please, my plans changed", "en", ("Order", "ORD-001", "Amount", "¥380.00", "Your reason", "my plans changed")),
        ("I'd like a refund for order ORD-001 because I got sick", "en", ("Order", "ORD-001", "Amount", "¥380.00", "Your reason", "I'd like a refund because I got sick")),
    ],
    ids=["zh-trip-changed", "zh-because", "en-plans-changed", "en-because"],
)  # fmt: skip
def test_a_refund_request_files_nothing_and_shows_the_card_with_the_order_the_amount_and_the_reason(
    demo_alice, channel, message, language, expected
):
    before = rows()

    answer = Chat(demo_alice).say(message)

    card = card_of(answer)
    order_label, order, amount_label, amount, reason_label, reason = expected
    shown = facts(card)
    assert shown[order_label] == order and shown[amount_label] == amount and shown[reason_label] == reason
    # what the order is, in the card's language (the catalogue's English title on an English card)
    assert ("Sayram Lake cycling day trip" if language == "en" else "赛里木湖环湖骑行一日游") in shown.values()
    assert card["status"] == "PENDING" and card["tool"] == "request_aftersale"
    assert ("Refund order ORD-001" if language == "en" else "退款：订单 ORD-001") == card["title"]
    assert amount in answer["reply"] and reason in answer["reply"]
    assert not HitlTicket.objects.exists()
    assert rows()["orders"] == before["orders"]
    assert PendingAction.objects.get().status == "PENDING"


@pytest.mark.parametrize("yes", ["确认", "yes"])
def test_confirming_files_exactly_one_ticket_that_records_the_confirmed_action(demo_alice, channel, yes):
    chat = Chat(demo_alice)
    card = card_of(chat.say("订单ORD-001我要退款，行程有变"))

    done = chat.say(yes)

    ticket = HitlTicket.objects.get()
    assert (ticket.entity, ticket.action, ticket.status, ticket.requested_by) == (
        "ORD-001",
        "REFUND",
        "PENDING",
        demo_alice,
    )
    assert ticket.request_reason == "行程有变" and ticket.reason_kind == "TICKET"
    request = ticket.evidence["request"]
    assert (request["confirmed_via"], request["confirmed_action"]) == ("chat", card["pending_id"])
    assert PendingAction.objects.get(pk=card["pending_id"]).status == "EXECUTED"
    assert [c["type"] for c in done["cards"]] == ["ticket"] and done["cards"][0]["ticket_no"] == ticket.ticket_no
    assert ticket.ticket_no in done["reply"]


def test_confirming_twice_still_files_one_ticket(demo_alice, channel):
    chat = Chat(demo_alice)
    card = card_of(chat.say("ORD-004我要退货，尺码不合适"))
    chat.say("确认")

    again = chat.client.post(f"/api/v1/assistant/actions/{card['pending_id']}/confirm", {}, format="json")

    assert again.status_code == 200
    assert HitlTicket.objects.filter(entity="ORD-004", action="RETURN").count() == 1
    assert HitlTicket.objects.get().ticket_no in again.json()["reply"]


def test_the_api_confirms_the_card_by_its_id(demo_alice, channel):
    chat = Chat(demo_alice)
    card = card_of(chat.say("ORD-004我要退货，尺码不合适"))

    response = chat.client.post(f"/api/v1/assistant/actions/{card['pending_id']}/confirm", {}, format="json")

    assert response.status_code == 200
    ticket = HitlTicket.objects.get()
    assert (ticket.entity, ticket.action, ticket.request_reason) == ("ORD-004", "RETURN", "尺码不合适")
    assert ticket.evidence["request"]["confirmed_action"] == card["pending_id"]


@pytest.mark.parametrize("no", ["不要了", "no"])
def test_declining_the_card_files_nothing(demo_alice, channel, no):
    chat = Chat(demo_alice)
    card = card_of(chat.say("订单ORD-001我要退款，行程有变"))
    before = rows()

    chat.say(no)

    after = rows()
    assert not HitlTicket.objects.exists()
    assert after["orders"] == before["orders"]
    assert PendingAction.objects.get(pk=card["pending_id"]).status == "DECLINED"


# -- the reason, asked when missing and kept when given later -----------------------------------------------------


@pytest.mark.parametrize(
    ("ask", "reason", "yes", "question"),
    [
        ("订单ORD-001我要退款", "行程有变", "确认", "为什么"),
        ("ORD-001 能退款吗", "家里临时有事去不了", "好的", "为什么"),
        ("refund order ORD-001", "my plans changed", "yes", "Why"),
        ("I want my money back for ORD-001", "I'm moving abroad", "confirm", "Why"),
    ],
    ids=["zh", "zh-free-words", "en", "en-free-words"],
)
def test_the_reason_is_asked_when_missing_and_the_answer_is_the_tickets_reason(
    demo_alice, channel, ask, reason, yes, question
):
    chat = Chat(demo_alice)
    before = rows()

    asked = chat.say(ask)

    assert asked["outcome"] == "CLARIFY" and question in asked["reply"] and "ORD-001" in asked["reply"]
    assert asked["cards"] == [] and rows() == before  # nothing pending, nothing filed

    card = card_of(chat.say(reason))
    assert facts(card).get("你的理由", facts(card).get("Your reason")) == reason
    assert not HitlTicket.objects.exists()

    chat.say(yes)

    ticket = HitlTicket.objects.get()
    assert ticket.request_reason == reason and ticket.entity == "ORD-001" and ticket.status == "PENDING"


def test_a_new_reason_replaces_the_card_and_the_ticket_keeps_the_last_one(demo_alice, channel):
    chat = Chat(demo_alice)
    first = card_of(chat.say("订单ORD-001我要退款，行程有变"))

    second = card_of(chat.say("其实是因为生病了"))
    chat.say("确认")

    assert PendingAction.objects.get(pk=first["pending_id"]).status == "SUPERSEDED"
    assert facts(second)["你的理由"] == "其实是因为生病了"
    assert HitlTicket.objects.get().request_reason == "其实是因为生病了"


def test_another_order_the_policy_refuses_withdraws_the_open_card(demo_alice, channel):
    chat = Chat(demo_alice)
    first = card_of(chat.say("订单ORD-001我要退款，行程有变"))

    refused = chat.say("那ORD-005呢，也退款，行程有变")
    after = chat.say("确认")

    assert refused["outcome"] == "REJECTED" and refused["cards"] == []
    assert PendingAction.objects.get(pk=first["pending_id"]).status == "SUPERSEDED"
    assert not HitlTicket.objects.exists() and not after["cards"]


def test_chat_turn_asks_why_and_files_the_answer_once_confirmed(demo_alice, channel):
    asked = chat_turn(user=demo_alice, message="订单ORD-001我要退款")
    card = chat_turn(user=demo_alice, message="行程有变", conversation_id=asked.conversation_id)
    done = chat_turn(user=demo_alice, message="确认", conversation_id=asked.conversation_id)

    assert asked.outcome == "CLARIFY" and not asked.cards
    assert [c["type"] for c in card.cards] == ["confirmation"]
    assert HitlTicket.objects.get().request_reason == "行程有变"
    assert done.cards[0]["type"] == "ticket"


# -- the checks before the card ------------------------------------------------------------------------------------


@pytest.mark.parametrize("order_id", ["ORD-003", "ORD-999"], ids=["someone-elses", "unknown"])
def test_an_order_that_is_not_yours_gets_the_same_answer_and_no_card(demo_alice, demo_carol, channel, order_id):
    before = rows()

    answer = Chat(demo_alice).say(f"订单{order_id}我要退款，行程有变")

    assert answer["outcome"] == "REJECTED" and "你的账户里没有这个订单" in answer["reply"]
    assert order_id not in answer["reply"] and answer["cards"] == []
    assert rows() == before


@pytest.mark.parametrize(
    ("message", "says"),
    [
        ("订单ORD-005我要退款", "48"),  # within 48 hours: whatever the reason, told before asking why
        ("ORD-002不想要了，我要退货", "7天无理由退货"),  # past the 7-day no-reason window
        ("Return ORD-002, I changed my mind", "7-day"),
    ],
    ids=["activity-tomorrow", "no-reason-too-late", "no-reason-too-late-en"],
)
def test_a_request_the_policy_rules_out_is_answered_at_once_without_a_card_or_a_model(
    demo_alice, channel, message, says
):
    before = rows()

    answer = Chat(demo_alice).say(message)

    assert answer["outcome"] == "REJECTED" and says in answer["reply"] and answer["cards"] == []
    assert rows() == before
    assert not LLMCall.objects.filter(purpose="verdict").exists()


def test_a_request_already_under_review_is_said_so_without_a_card(demo_alice, channel):
    chat = Chat(demo_alice)
    chat.say("订单ORD-001我要退款，行程有变")
    chat.say("确认")
    ticket = HitlTicket.objects.get()
    before = rows()

    again = Chat(demo_alice).say("I'd like a refund for order ord-001, my plans changed")

    assert "already under review" in again["reply"] and ticket.ticket_no in again["reply"]
    assert [c["type"] for c in again["cards"]] == ["ticket"]
    assert rows() == before


def test_the_verdict_runs_once_when_the_confirmed_request_is_filed(demo_alice, channel):
    chat = Chat(demo_alice)
    chat.say("订单ORD-001我要退款，行程有变")
    assert not LLMCall.objects.filter(purpose="verdict").exists()

    chat.say("确认")

    assert LLMCall.objects.filter(purpose="verdict").count() == 1
    assert HitlTicket.objects.get().verdict == Verdict.PASS


# -- a model can only show the card ---------------------------------------------------------------------------------


@pytest.fixture
def model_agent(settings, fake_openai):
    use_scripted_model(settings, fake_openai, agent=True, timeout=2)
    return fake_openai


@pytest.mark.parametrize(
    "arguments",
    [
        {"order_id": "ORD-001", "action": "REFUND", "reason": "行程有变"},
        {"order_id": "ORD-004", "action": "RETURN", "reason": "the traveller asked for it"},
    ],
    ids=["refund", "return"],
)
def test_a_model_that_calls_request_aftersale_unasked_files_no_ticket(demo_alice, model_agent, arguments):
    model_agent.enqueue(
        Reply(tool_calls=[{"id": "r1", "name": "request_aftersale", "arguments": arguments}]),
        Reply(content="Refund filed."),
    )
    before = rows()

    result = chat_turn(user=demo_alice, message="我的订单都还好吗")

    assert not HitlTicket.objects.exists()
    assert rows()["orders"] == before["orders"]
    assert [c["type"] for c in result.cards] == ["confirmation"]
    assert "Refund filed" not in result.reply
    assert PendingAction.objects.get().status == "PENDING"
    assert not LLMCall.objects.filter(purpose="verdict").exists()  # no verdict before a confirmation


def test_a_model_without_the_travellers_reason_gets_the_question_asked_not_a_card(demo_alice, model_agent):
    model_agent.enqueue(
        Reply(tool_calls=[{"id": "r1", "name": "request_aftersale", "arguments": {"order_id": "ORD-001", "action": "REFUND"}}]),
        Reply(content="Done."),
    )  # fmt: skip

    result = chat_turn(user=demo_alice, message="订单ORD-001我要退款")

    assert result.outcome == "CLARIFY" and "为什么" in result.reply and result.cards == []
    assert not HitlTicket.objects.exists() and not PendingAction.objects.exists()


# -- the console: bulk approval needs the traveller's confirmation ----------------------------------------------------


def confirmed(pending_id: str = "5f0e7a52-3c1d-4e2b-9a51-0c2f7d3b6e11") -> dict:
    return {"request": {"reason": "行程有变", "confirmed_via": "chat", "confirmed_action": pending_id}}


def test_bulk_approval_skips_a_ticket_without_the_travellers_confirmation(english, ticket_for, demo_approver):
    orders = {o.order_id: o for o in BizOrder.objects.all()}
    unconfirmed = ticket_for(orders["ORD-001"], verdict=Verdict.PASS, evidence={"request": {"reason": "x"}})
    chat_only = ticket_for(orders["ORD-006"], verdict=Verdict.PASS, evidence={"request": {"confirmed_via": "chat"}})
    mine = ticket_for(orders["ORD-008"], action="RETURN", verdict=Verdict.PASS, evidence=confirmed())

    outcome = tickets_approve_bulk(ticket_ids=[unconfirmed.pk, chat_only.pk, mine.pk], approver=demo_approver)

    assert [t.ticket_no for t in outcome.approved] == [mine.ticket_no]
    skipped = dict((t.ticket_no, why) for t, why in outcome.skipped)
    assert set(skipped) == {unconfirmed.ticket_no, chat_only.ticket_no}
    assert all("no confirmation by the traveller is on record" in why for why in skipped.values())
    statuses = dict(HitlTicket.objects.values_list("ticket_no", "status"))
    assert statuses[unconfirmed.ticket_no] == statuses[chat_only.ticket_no] == TicketStatus.PENDING
    assert not unconfirmed.events.exists() and not chat_only.events.exists()


def test_the_ticket_page_says_whether_the_traveller_confirmed(client, demo_alice, demo_approver, ticket_for):
    orders = {o.order_id: o for o in BizOrder.objects.all()}
    yes = ticket_for(orders["ORD-001"], verdict=Verdict.PASS, evidence=confirmed())
    no = ticket_for(orders["ORD-004"], action="RETURN", verdict=Verdict.PASS, evidence={})
    client.force_login(demo_approver)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"

    confirmed_page = client.get(reverse("admin:aftersale_hitlticket_change", args=[yes.pk])).content.decode()
    unconfirmed_page = client.get(reverse("admin:aftersale_hitlticket_change", args=[no.pk])).content.decode()

    assert 'data-confirmation="chat"' in confirmed_page
    assert "Confirmed by the traveller on the chat&#x27;s confirmation card" in confirmed_page
    assert "5f0e7a52-3c1d-4e2b-9a51-0c2f7d3b6e11" in confirmed_page
    assert 'data-confirmation="none"' in unconfirmed_page
    assert "No confirmation by the traveller is on record" in unconfirmed_page


def test_a_request_from_the_page_or_the_api_records_how_the_traveller_made_it(client, demo_alice):
    client.force_login(demo_alice)
    api = APIClient()
    api.force_authenticate(demo_alice)

    client.post("/aftersale/orders/ORD-004/request", {"action": "RETURN", "reason": "尺码不合适"})
    api.post(
        "/api/v1/aftersale/requests", {"order_id": "ORD-001", "action": "REFUND", "reason": "行程有变"}, format="json"
    )

    via = {t.entity: t.evidence["request"]["confirmed_via"] for t in HitlTicket.objects.all()}
    assert via == {"ORD-004": "page", "ORD-001": "api"}
