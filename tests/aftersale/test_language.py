"""The policy's reasons reach each reader in their language: a Chinese traveller reads why in Chinese (the chat,
the API, the requests page), an English one in English, from the same code and facts; nothing is pinned to the
language a ticket was opened in."""

import re

import pytest
from django.urls import reverse
from django.utils import translation
from rest_framework.test import APIClient

from aftersale.models import HitlTicket
from aftersale.policy import REASONS, policy_reason_text, ticket_verdict_reason
from aftersale.services.workflow import aftersale_request_submit
from assistant.services import chat_turn

pytestmark = pytest.mark.django_db

LATIN_WORDS = re.compile(r"[A-Za-z]{3,}")
SAMPLE_FACTS = {
    "status": "REFUNDED",
    "action": "REFUND",
    "category": "GOODS",
    "delivered": "2026-11-17",
    "days": 15,
    "window": 7,
    "start": "2026-12-22 00:00",
    "hours": 30,
    "kind": "TIMEOUT",
}


@pytest.mark.parametrize("code", sorted(REASONS))
def test_every_policy_reason_reads_in_chinese_and_in_english(code):
    with translation.override("zh-hans"):
        chinese = policy_reason_text(code, SAMPLE_FACTS)
    with translation.override("en"):
        english = policy_reason_text(code, SAMPLE_FACTS)

    assert re.search(r"[\u4e00-\u9fff]", chinese), chinese
    assert not LATIN_WORDS.findall(chinese.replace("TIMEOUT", "")), chinese  # the failure's kind is a code
    assert "%(" not in chinese and "%(" not in english
    assert not re.search(r"[\u4e00-\u9fff]", english), english


def test_a_chinese_traveller_reads_why_a_return_is_refused_in_chinese(demo_alice):
    result = chat_turn(user=demo_alice, message="ord-002 申请退货，东西不合适")

    assert result.outcome == "REJECTED"
    assert "已签收 15 天" in result.reply and "超过了 7 天无理由退货期" in result.reply
    assert "Delivered" not in result.reply and "window" not in result.reply
    assert "依据：" in result.reply and not re.search(
        r"[A-Za-z]{3,}", result.reply.split("依据：")[1]
    )  # the policy's name
    assert not HitlTicket.objects.exists()


def test_an_english_traveller_reads_the_same_refusal_in_english(demo_alice):
    result = chat_turn(user=demo_alice, message="I want to return order ORD-002, I changed my mind", page_language="en")

    assert "Delivered 15 days ago" in result.reply and "7-day no-reason return window" in result.reply
    assert "已签收" not in result.reply and "无理由退货期" not in result.reply
    assert "(policy: " in result.reply and not re.search(r"[\u4e00-\u9fff]", result.reply)  # the policy's name too


@pytest.mark.parametrize(
    ("language", "words"),
    [("zh-hans", "超过了 7 天无理由退货期"), ("en", "past the 7-day no-reason return window")],
)
def test_the_api_answers_in_the_requests_language(demo_alice, language, words):
    api = APIClient()
    api.force_authenticate(demo_alice)

    body = api.post(
        "/api/v1/aftersale/requests",
        {"order_id": "ORD-002", "action": "RETURN"},
        format="json",
        HTTP_ACCEPT_LANGUAGE=language,
    ).json()

    assert body["code"] == "INELIGIBLE" and words in body["message"]


def test_the_requests_page_says_why_in_chinese(client, demo_alice):
    client.force_login(demo_alice)

    page = client.post(
        reverse("aftersale:request", args=["ORD-002"]),
        {"action": "RETURN"},
        follow=True,
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    ).content.decode()

    assert "超过了 7 天无理由退货期" in page and "Delivered" not in page


def test_a_ticket_opened_in_chinese_words_its_reason_again_for_an_english_reader(demo_alice):
    with translation.override("zh-hans"):
        ticket = aftersale_request_submit(user=demo_alice, order_id="ORD-004", action="RETURN").ticket

    with translation.override("en"):
        english = ticket_verdict_reason(ticket)
    with translation.override("zh-hans"):
        chinese = ticket_verdict_reason(ticket)

    assert english.startswith("Delivered 3 days ago") and "已签收 3 天" in chinese
    assert ticket.evidence["verdict"]["reason_code"] == "RETURN_IN_WINDOW"
    assert ticket.evidence["verdict"]["reason_facts"]["days"] == 3


def test_a_models_own_reason_is_shown_as_it_was_written(demo_alice, ticket_for):
    from aftersale.models import BizOrder

    ticket = ticket_for(
        BizOrder.objects.get(order_id="ORD-004"),
        verdict="UNCERTAIN",
        verdict_reason="The photos do not show the lock.",
        evidence={"verdict": {"verdict": "UNCERTAIN", "provider": "openai", "reason_code": ""}},
    )

    with translation.override("zh-hans"):
        assert ticket_verdict_reason(ticket) == "The photos do not show the lock."


def test_order_items_are_named_in_the_readers_language_on_the_requests_page_and_the_card(client, demo_alice):
    client.force_login(demo_alice)
    english = client.get(reverse("aftersale:requests"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    chinese = client.get(reverse("aftersale:requests"), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "ORD-004" in english and "Trekking pole" in english and "Hiking boots" in english
    assert "登山杖" not in english and "登山鞋" not in english
    assert "ORD-004" in chinese and "登山杖" in chinese and "Trekking pole" not in chinese

    asked = chat_turn(user=demo_alice, message="I want to return order ORD-004", page_language="en")
    result = chat_turn(
        user=demo_alice, message="it does not fit", conversation_id=asked.conversation_id, page_language="en"
    )
    assert result.cards, result.reply
    card = result.cards[0]
    assert card["type"] == "confirmation"
    assert ["What", "Trekking pole ×2"] in card["rows"], card["rows"]
    assert not HitlTicket.objects.exists()  # a card to confirm, nothing filed


@pytest.mark.parametrize(
    "message",
    [
        "I want to return order ORD-004, it does not fit",
        "return ORD-004, they don't fit me",
        "please return ORD-004 because I did not like them",
    ],
)
def test_an_english_request_that_says_why_after_a_comma_goes_straight_to_its_card(demo_alice, message):
    result = chat_turn(user=demo_alice, message=message, page_language="en")

    assert result.cards, result.reply
    card = result.cards[0]
    assert card["type"] == "confirmation", card  # not "why?": the reason was read
    assert ["What", "Trekking pole ×2"] in card["rows"], card["rows"]
    assert not HitlTicket.objects.exists()  # a card to confirm, nothing filed
