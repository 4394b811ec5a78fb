"""The after-sale tools' envelopes (kinds `aftersale` and `progress`, ok and fail, with everything a presenter needs)
and their presenters: the same text and ticket cards whichever channel ran the tool, never depending on the intent."""

import datetime as dt

import pytest

from aftersale.models import HitlTicket, TicketStatus
from aftersale.tools import query_progress, request_aftersale
from assistant.llm.schema import Intent
from assistant.presenters import present
from assistant.turn import TurnContext
from core.tools import ToolContext

pytestmark = pytest.mark.django_db


def turn(user, language="zh-hans") -> TurnContext:
    """A turn whose intent says nothing about after-sale (as in channel 2): presenters must not need it."""
    return TurnContext(intent=Intent(intent="OUT_OF_SCOPE"), user=user, today=dt.date.today(), language=language)


def test_a_submitted_request_is_an_aftersale_envelope_with_the_ticket_and_reads_as_submitted(demo_alice, rules_port):
    envelope = request_aftersale.func(
        ToolContext(user=demo_alice, port=rules_port), order_id="ORD-001", action="REFUND"
    )

    ticket = HitlTicket.objects.get()
    assert envelope["data"]["kind"] == "aftersale"
    assert envelope["data"]["ticket"]["ticket_no"] == ticket.ticket_no
    reply = present([envelope], turn(demo_alice))
    assert reply.outcome == "ANSWERED"
    assert ticket.ticket_no in reply.text and "等待人工审核" in reply.text and f"¥{ticket.amount}" in reply.text
    card = reply.cards[0]
    assert (card["type"], card["ticket_no"], card["status_label_zh"], card["entity"]) == (
        "ticket",
        ticket.ticket_no,
        "等待审核",
        "ORD-001",
    )
    assert not {"verdict", "evidence", "flagged"} & set(card)


def test_an_ineligible_request_is_a_failed_aftersale_envelope_that_reads_with_its_policy(demo_alice, rules_port):
    envelope = request_aftersale.func(
        ToolContext(user=demo_alice, port=rules_port), order_id="ORD-002", action="RETURN"
    )

    assert (envelope["ok"], envelope["code"], envelope["data"]["kind"]) == (False, "INELIGIBLE", "aftersale")
    reply = present([envelope], turn(demo_alice, "en"))
    assert reply.outcome == "REJECTED" and reply.cards == []
    assert "ORD-002 is not eligible for a return" in reply.text
    assert "(policy: 7-day no-reason return for goods)" in reply.text  # the policy in the reply's language only
    assert not HitlTicket.objects.exists()


def test_someone_elses_order_reads_like_an_unknown_one_and_opens_nothing(demo_alice, rules_port):
    context = ToolContext(user=demo_alice, port=rules_port)
    envelope = request_aftersale.func(context, order_id="ORD-003", action="RETURN")
    unknown = request_aftersale.func(context, order_id="ORD-999", action="RETURN")

    reply = present([envelope], turn(demo_alice))

    assert envelope["data"]["kind"] == "aftersale"
    assert reply.text == present([unknown], turn(demo_alice)).text
    assert "你的账户里没有这个订单" in reply.text and "ORD-003" not in reply.text
    assert not HitlTicket.objects.exists()


def test_asking_again_reads_as_already_under_review(demo_alice, rules_port):
    context = ToolContext(user=demo_alice, port=rules_port)
    request_aftersale.func(context, order_id="ORD-001", action="REFUND")

    again = present([request_aftersale.func(context, order_id="ord-001", action="REFUND")], turn(demo_alice, "en"))

    assert "already under review" in again.text
    assert HitlTicket.objects.count() == 1


def test_progress_is_a_progress_envelope_whose_cards_are_the_travellers_tickets(demo_alice, demo_carol, rules_port):
    request_aftersale.func(ToolContext(user=demo_alice, port=rules_port), order_id="ORD-001", action="REFUND")
    request_aftersale.func(ToolContext(user=demo_carol, port=rules_port), order_id="ORD-003", action="RETURN")
    HitlTicket.objects.filter(entity="ORD-001").update(status=TicketStatus.REJECTED, decision_reason="too late")

    envelope = query_progress.func(ToolContext(user=demo_alice))
    reply = present([envelope], turn(demo_alice))

    assert envelope["data"]["kind"] == "progress"
    assert [card["entity"] for card in reply.cards] == ["ORD-001"]
    assert reply.cards[0]["decision_reason"] == "too late"
    assert "已驳回" in reply.text and reply.outcome == "ANSWERED"


def test_progress_with_nothing_yet_says_so(demo_alice):
    reply = present([query_progress.func(ToolContext(user=demo_alice), order_id="ORD-001")], turn(demo_alice, "en"))

    assert reply.outcome == "EMPTY" and reply.cards == []
    assert "Order ORD-001 has no refund" in reply.text


def test_progress_for_a_malformed_order_is_a_failed_progress_envelope_that_asks_for_the_number(demo_alice):
    envelope = query_progress.func(ToolContext(user=demo_alice), order_id="nonsense")

    reply = present([envelope], turn(demo_alice))

    assert (envelope["ok"], envelope["code"], envelope["data"]["kind"]) == (False, "INVALID_PARAM", "progress")
    assert "ORD-001" in reply.text and reply.outcome == "REJECTED"
