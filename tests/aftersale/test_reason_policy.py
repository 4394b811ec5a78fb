"""The right after-sale policy for the traveller's reason (issue 13): a quality problem goes to the quality policy
and its longer window, a no-reason return keeps the 7-day rule; the ticket keeps the traveller's own words and the
approver reads them in the console.

ORD-002 (alice's hiking boots) was delivered 15 days ago: past the 7-day no-reason window, inside the 15-day
quality window of the demo policy "质量问题退换货".
"""

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone, translation
from rest_framework.test import APIClient

from aftersale.models import BizOrder, HitlTicket
from aftersale.policy import ticket_verdict_reason
from aftersale.services.workflow import aftersale_request_submit

# The wording asserted here is English; tests/aftersale/test_language.py reads the same in Chinese.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]

QUALITY_MESSAGE = "ORD-002收到的东西是坏的，质量问题，我要退货"
CHAT = "/api/v1/assistant/chat"


@pytest.fixture
def alice_api(demo_alice):
    client = APIClient()
    client.force_authenticate(demo_alice)
    return client


def orders():
    return list(BizOrder.objects.order_by("order_id").values_list("order_id", "status", "amount"))


@pytest.mark.parametrize("channel", [1, 2])
def test_a_quality_problem_through_the_chat_api_opens_a_ticket_under_the_quality_policy_once_confirmed(
    alice_api, settings, channel
):
    settings.ASSISTANT_AGENT_ENABLED = channel == 2
    before = orders()

    asked = alice_api.post(CHAT, {"message": QUALITY_MESSAGE}, format="json").json()
    assert [c["type"] for c in asked["cards"]] == ["confirmation"] and not HitlTicket.objects.exists()
    response = alice_api.post(CHAT, {"message": "确认", "session_id": asked["session_id"]}, format="json")

    body = response.json()
    assert response.status_code == 200
    ticket = HitlTicket.objects.get(idempotency_key="wfa:RETURN:ORD-002")
    assert (ticket.status, ticket.verdict, ticket.reason_kind) == ("PENDING", "PASS", "QUALITY")
    assert "收到的东西是坏的" in ticket.request_reason
    evidence = ticket.evidence
    assert "收到的东西是坏的" in evidence["request"]["reason"] and evidence["request"]["reason_kind"] == "QUALITY"
    cited = [p for p in evidence["policies"] if p["id"] in evidence["verdict"]["policy_ids"]]
    assert cited and cited[0]["title"].startswith("质量问题退换货")
    # The reason is kept in the words of the turn (Chinese) and worded again in the reader's language (English here).
    assert "15 天质量问题退换期内" in ticket.verdict_reason
    with translation.override("en"):  # the request left its own language active
        english = ticket_verdict_reason(ticket)
    assert "15-day quality" in english and "7-day" not in english
    # What the traveller sees: a submitted request under the quality policy, not a 7-day rejection.
    assert ticket.ticket_no in body["reply"] and "质量问题退换货" in body["reply"]
    assert "不符合" not in body["reply"] and "7天" not in body["reply"]
    assert [c["type"] for c in body["cards"]] == ["ticket"] and body["cards"][0]["ticket_no"] == ticket.ticket_no
    assert orders() == before  # a ticket waits for a human: no order changed


def test_a_no_reason_return_after_7_days_is_still_rejected_and_nothing_is_written(alice_api):
    before = orders()

    response = alice_api.post(CHAT, {"message": "ORD-002不想要了，我要退货"}, format="json")

    body = response.json()
    assert response.status_code == 200
    assert "不符合退货条件" in body["reply"] and "7天无理由退货" in body["reply"]
    assert body["cards"] == []
    assert not HitlTicket.objects.exists()
    assert orders() == before


def test_the_reason_kind_picks_the_window_and_the_policy(demo_alice):
    quality = aftersale_request_submit(
        user=demo_alice, order_id="ORD-002", action="RETURN", reason="鞋底开胶了", reason_kind="QUALITY"
    )
    assert quality.status == "SUBMITTED" and quality.verdict == "PASS"
    assert quality.cited_policies[0]["title"].startswith("质量问题退换货")

    no_reason = aftersale_request_submit(
        user=demo_alice, order_id="ORD-004", action="RETURN", reason="不想要了", reason_kind="NO_REASON"
    )
    assert no_reason.status == "SUBMITTED" and no_reason.cited_policies[0]["title"].startswith("7天无理由退货")


def test_a_quality_problem_past_the_quality_window_is_rejected_citing_the_quality_policy(demo_alice):
    later = timezone.now() + dt.timedelta(days=5)  # ORD-002 delivered 20 days before that

    outcome = aftersale_request_submit(
        user=demo_alice, order_id="ORD-002", action="RETURN", reason="坏了", reason_kind="QUALITY", now=later
    )

    assert outcome.status == "REJECTED" and outcome.code == "INELIGIBLE"
    assert "warranty" in outcome.reason and outcome.cited_policies[0]["title"].startswith("质量问题退换货")
    assert not HitlTicket.objects.exists()


def test_a_refund_of_a_broken_delivered_item_goes_to_the_quality_policy_too(demo_alice):
    outcome = aftersale_request_submit(
        user=demo_alice, order_id="ORD-002", action="REFUND", reason="质量太差，坏了", reason_kind="QUALITY"
    )

    assert outcome.status == "SUBMITTED" and outcome.verdict == "PASS"
    assert outcome.ticket.reason_kind == "QUALITY"


def test_without_a_reason_kind_the_action_decides_as_before(demo_alice):
    outcome = aftersale_request_submit(user=demo_alice, order_id="ORD-002", action="RETURN", reason="坏了")

    assert outcome.status == "REJECTED" and "7-day" in outcome.reason
    assert not HitlTicket.objects.exists()


def test_the_reason_is_kept_bounded_and_without_control_characters(demo_alice):
    words = "鞋子坏了\x00\x1b[31m\u200b\r\n  开胶" + "很" * 2000

    outcome = aftersale_request_submit(
        user=demo_alice, order_id="ORD-002", action="RETURN", reason=words, reason_kind="quality"
    )

    stored = HitlTicket.objects.get(pk=outcome.ticket.pk)
    assert stored.request_reason.startswith("鞋子坏了 [31m 开胶很")
    assert len(stored.request_reason) <= 500 and stored.request_reason.endswith("…")
    assert not any(ord(ch) < 32 or ch == "\u200b" for ch in stored.request_reason)
    assert stored.evidence["request"]["reason"] == stored.request_reason and stored.reason_kind == "QUALITY"


def test_an_unknown_reason_kind_is_none_and_the_action_decides(demo_alice):
    outcome = aftersale_request_submit(
        user=demo_alice, order_id="ORD-004", action="RETURN", reason="x", reason_kind="PLEASE_APPROVE"
    )

    assert outcome.status == "SUBMITTED" and outcome.ticket.reason_kind == ""


def test_the_approver_reads_the_travellers_reason_on_the_ticket_page_and_in_the_list(client, demo_approver, demo_alice):
    outcome = aftersale_request_submit(
        user=demo_alice,
        order_id="ORD-002",
        action="RETURN",
        reason="收到的东西是坏的，<b>鞋底</b>开胶",
        reason_kind="QUALITY",
    )
    client.force_login(demo_approver)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"

    page = client.get(reverse("admin:aftersale_hitlticket_change", args=[outcome.ticket.pk]))
    listing = client.get(reverse("admin:aftersale_hitlticket_changelist"))

    content = page.content.decode()
    assert page.status_code == 200
    assert "traveller&#x27;s reason" in content.lower() or "traveller's reason" in content.lower()
    assert "收到的东西是坏的，&lt;b&gt;鞋底&lt;/b&gt;开胶" in content and "<b>鞋底</b>" not in content
    assert "Quality problem" in content and "Returns for quality problems" in content  # the English half
    assert listing.status_code == 200
    assert "收到的东西是坏的" in listing.content.decode() and "Quality problem" in listing.content.decode()
