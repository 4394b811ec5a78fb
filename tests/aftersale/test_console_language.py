"""The approval console in its reader's language: a ticket's events, policies, verdict and paused action read in
Chinese to a Chinese approver and in English to an English one, whatever language the services wrote the audit
record in (stable English, kept as written), and the facts (amounts, order, booking and refund numbers) are on the
page in both.

The checks reuse tests/whole/test_pages_in_one_language.py (`visible`, `foreign_chinese`, `names_in_data`), narrowed to the
ticket's own sections and stricter for Chinese: there, any English word outside a name or a code fails."""

import re
from html.parser import HTMLParser

import pytest
from django.urls import reverse
from django.utils import translation

from aftersale.models import BizOrder, HitlTicket, OrderEvent, TicketEvent
from aftersale.reasons import event_reason_text
from aftersale.services.decisions import ticket_decide
from aftersale.services.workflow import aftersale_request_submit
from bookings.models import BookingEvent
from bookings.reasons import booking_event_reason_text
from bookings.services.cancel import booking_cancel
from bookings.services.errors import BookingError
from tests.aftersale.conftest import paid_flight
from tests.whole.test_pages_in_one_language import foreign_chinese, names_in_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def reader(client, demo_approver):
    client.force_login(demo_approver)

    def read(language: str, ticket: HitlTicket) -> str:
        client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
        response = client.get(reverse("admin:aftersale_hitlticket_change", args=[ticket.pk]))
        assert response.status_code == 200
        return response.content.decode()

    return read


@pytest.fixture
def refund_executed(demo_alice, demo_approver, supplier_sandbox, django_capture_on_commit_callbacks):
    with translation.override("en"):
        ticket = aftersale_request_submit(
            user=demo_alice, order_id="ORD-001", action="REFUND", reason="东西坏了", reason_kind="QUALITY"
        ).ticket
    with django_capture_on_commit_callbacks(execute=True):
        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="")
    ticket.refresh_from_db()
    assert ticket.status == "EXECUTED"
    return ticket


@pytest.fixture
def cancel_waiting(demo_alice, settings):
    settings.BOOKINGS_CANCEL_APPROVAL_ABOVE = 1000
    paid_flight(demo_alice)
    with pytest.raises(BookingError):
        booking_cancel(user=demo_alice, booking_id="BK20261201002")
    return HitlTicket.objects.get(entity="BK20261201002")


# The parts of a ticket's page that say what happened and why: its events, the verdict and policy passages, and
# for a paused action what it would do, and the workflow's path (Django's inline group and read-only field rows).
SECTIONS = (
    "events-group",
    "field-verdict_detail",
    "field-policies_display",
    "field-paused_call",
    "field-cancel_display",
    "field-other_evidence",
    "field-execution_display",
)
ENGLISH_WORD = re.compile(r"\b[A-Za-z]*[a-z][A-Za-z]*\b")
# Latin a Chinese section may show: the demo's user names (who acted, for whom).
USERNAMES = {"alice", "approver"}


class SectionText(HTMLParser):
    """The visible text inside the elements whose id or class names one of SECTIONS."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._depth = 0  # > 0 while inside a section

    def handle_starttag(self, tag, attrs):
        if tag in ("br", "img", "input", "hr", "meta", "link"):
            return
        marks = " ".join(value or "" for name, value in attrs if name in ("id", "class")).split()
        if self._depth or any(mark in SECTIONS for mark in marks):
            self._depth += 1

    def handle_endtag(self, tag):
        if self._depth and tag not in ("br", "img", "input", "hr", "meta", "link"):
            self._depth -= 1

    def handle_data(self, data):
        if self._depth and data.strip():
            self.parts.append(data.strip())


def sections(page: str) -> list[str]:
    parser = SectionText()
    parser.feed(page)
    assert parser.parts, "no section of the ticket on the page"
    return parser.parts


# An idempotency key (the supplier's request id, "refund:ORD-001") is a code, not words.
KEY = re.compile(r"\b[a-z_]+:[A-Z0-9-]+")


def english_words(texts: list[str]) -> list[str]:
    return [word for text in texts for word in ENGLISH_WORD.findall(KEY.sub(" ", text)) if word not in USERNAMES]


def chinese_runs(texts: list[str]) -> list[str]:
    names = names_in_data()
    return [run for text in texts for run in foreign_chinese(text, names)]


@pytest.fixture
def cancel_approved(cancel_waiting, demo_approver):
    """The paused cancel, approved (its execution is the worker's, not run here)."""
    ticket_decide(ticket_id=cancel_waiting.pk, approver=demo_approver, approve=True, reason="")
    cancel_waiting.refresh_from_db()
    assert cancel_waiting.status == "APPROVED"
    return cancel_waiting


@pytest.fixture
def refund_failed(demo_seeded, demo_approver, ticket_for, supplier_sandbox, django_capture_on_commit_callbacks):
    """A refund of ORD-001 approved while a return of the same order holds its money: the execution fails on the
    reconciliation, and the supplier is not asked."""
    order = BizOrder.objects.get(order_id="ORD-001")
    other = ticket_for(order, action="RETURN", status="EXECUTING")
    BizOrder.objects.filter(pk=order.pk).update(refund_claim=other)
    ticket = ticket_for(order)
    with django_capture_on_commit_callbacks(execute=True):
        ticket_decide(ticket_id=ticket.pk, approver=demo_approver, approve=True, reason="")
    ticket.refresh_from_db()
    assert ticket.status == "FAILED"
    return ticket


TICKETS = ("refund_executed", "refund_failed", "cancel_waiting", "cancel_approved")


@pytest.mark.parametrize("ticket_name", TICKETS)
def test_a_chinese_approver_reads_a_tickets_events_policies_and_action_in_chinese(reader, request, ticket_name):
    ticket = request.getfixturevalue(ticket_name)

    texts = sections(reader("zh-hans", ticket))

    assert not english_words(texts), english_words(texts)


@pytest.mark.parametrize("ticket_name", TICKETS)
def test_an_english_approver_reads_the_same_sections_in_english(reader, request, ticket_name):
    ticket = request.getfixturevalue(ticket_name)

    texts = sections(reader("en", ticket))

    assert not chinese_runs(texts), chinese_runs(texts)


def test_an_executed_refund_reads_its_history_with_its_facts_in_both_languages(reader, refund_executed):
    refund_id = refund_executed.execution_result["refundId"]

    chinese = " ".join(sections(reader("zh-hans", refund_executed)))
    english = " ".join(sections(reader("en", refund_executed)))

    assert "申请退款；判定：通过" in chinese and "开始执行（第 1 次）" in chinese
    assert f"供应商已退款（{refund_id}）" in chinese and "活动门票退款规则" in chinese
    assert "Refund requested; verdict: Pass" in english and "execution started (attempt 1)" in english
    assert f"refunded on the supplier ({refund_id})" in english and "Activity ticket refunds" in english
    assert "活动门票退款规则" not in english and "Activity ticket refunds" not in chinese
    # the audit record stays as the service wrote it
    assert list(refund_executed.events.values_list("reason", flat=True))[-1] == f"refunded on the supplier {refund_id}"


def test_a_failed_refund_says_why_in_the_readers_language(reader, refund_failed):
    claimant = BizOrder.objects.get(order_id="ORD-001").refund_claim_id

    chinese = " ".join(sections(reader("zh-hans", refund_failed)))
    english = " ".join(sections(reader("en", refund_failed)))

    assert f"订单 ORD-001 正由申请单 {claimant} 退款" in chinese and "执行失败（RECONCILIATION_FAILED）" in chinese
    assert f"ORD-001 is being refunded by ticket {claimant}" in english


def test_a_paused_cancel_says_what_on_which_booking_how_much_and_for_whom(reader, cancel_waiting):
    chinese = " ".join(sections(reader("zh-hans", cancel_waiting)))
    english = " ".join(sections(reader("en", cancel_waiting)))

    for facts, words in (
        (chinese, ("取消预订", "BK20261201002", "¥2380.00", "alice", "张三", "等待审批：取消机票预订 BK20261201002")),
        (
            english,
            (
                "Cancel booking",
                "BK20261201002",
                "¥2380.00",
                "alice",
                "张三",
                "Cancel flight booking BK20261201002 (¥2380.00)",
            ),
        ),
    ):
        for word in words:
            assert word in facts, word
        assert "cancel_booking" not in facts and "Tool" not in facts


# Reasons as the services write them (execution, reconciliation, order claims, bookings), read back in Chinese.
STORED_REASONS = (
    "return requested; verdict UNCERTAIN (flagged)",
    "partial refund ¥200.00 of ¥380.00: 只退一半",
    "item received back; refund started",
    "retry requested",
    "deadline passed",
    "the previous executor's lease expired (attempt 2)",
    "retry (attempt 3)",
    "refund found on the supplier from an earlier attempt RF261201000001; order NOT updated",
    "booking BK20261201002 cancelled",
    "RECONCILIATION_FAILED: ORD-004 is being refunded by ticket T261201000002; order ORD-004 already got ¥10.00 back",
    "RECONCILIATION_FAILED: order ORD-004 is REFUNDED, it cannot become RETURNED; amounts differ: ticket ¥1.00, "
    "order ¥2.00",
    "refund claimed by ticket T261201000002 (return ¥380.00, attempt 1)",
    "refund claim released: ticket T261201000002 failed: PLATFORM_UNAVAILABLE",
    "return RF261201000001 (¥200.00 of ¥380.00) for ticket T261201000002",
    "Demo data created by seed_demo.",
)
STORED_BOOKING_REASONS = (
    "Created on the supplier platform.",
    "Rebooked from BK20261201001 after the traveller confirmed.",
    "Not paid by its deadline.",
    "Paid on the supplier (PAY261201000001).",
    "The supplier refused the payment: CARD_DECLINED.",
    "Schedule changed by the supplier: 2026-12-19T07:10 → 2026-12-19T09:10.",
)


@pytest.mark.parametrize(
    "reason, word",
    [(r, event_reason_text) for r in STORED_REASONS] + [(r, booking_event_reason_text) for r in STORED_BOOKING_REASONS],
)
def test_every_kind_of_stored_reason_reads_in_chinese_with_its_numbers(reason, word):
    with translation.override("zh-hans"):
        chinese = word(reason)

    assert re.search(r"[\u4e00-\u9fff]", chinese), chinese
    words = [w for w in ENGLISH_WORD.findall(chinese) if w != "seed_demo"]
    assert not words, chinese
    for number in re.findall(r"[A-Z]{1,3}\d{6,}|¥[\d.]+|\d{4}-\d{2}-\d{2}", reason):
        assert number.lstrip("¥") in chinese, number


def test_a_reason_no_template_reads_is_shown_as_written():
    with translation.override("zh-hans"):
        assert event_reason_text("客户来电说已经收到") == "客户来电说已经收到"
        assert (
            event_reason_text("PLATFORM_UNAVAILABLE: supplier down")
            == "执行失败（PLATFORM_UNAVAILABLE）：supplier down"
        )


def test_event_captions_name_statuses_by_their_labels(refund_executed):
    with translation.override("zh-hans"):
        caption = str(refund_executed.events.order_by("id").last())
        order_caption = str(OrderEvent.objects.filter(order__order_id="ORD-001").order_by("id").last())

    assert "处理中 → 已完成" in caption and "EXECUTED" not in caption
    assert "已退款" in order_caption
    assert TicketEvent.objects.exists() and BookingEvent is not None


@pytest.mark.parametrize(
    "language, shown, hidden",
    [("zh-hans", "活动门票退款规则", "Activity ticket refunds"), ("en", "Activity ticket refunds", "活动门票退款规则")],
)
def test_the_policy_list_names_each_policy_in_the_readers_language(client, demo_approver, language, shown, hidden):
    client.force_login(demo_approver)

    page = client.get(reverse("admin:aftersale_policy_changelist"), HTTP_ACCEPT_LANGUAGE=language).content.decode()

    assert shown in page and hidden not in page
