"""What an approver reads in the console, in their language: plain names, the evidence as tables (the traveller's
own words, the order's items, the policy passages with the cited one marked, for a paused cancel what it would
cancel), local times without fractions of a second, and approving a smaller amount with a reason."""

import datetime as dt
import re
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse
from django.utils import timezone, translation

from aftersale.models import AftersaleNotice, BizOrder, HitlTicket, TicketEvent, TicketKind
from aftersale.services.workflow import aftersale_request_submit
from bookings.models import BizType, BookingRecord, BookingStatus
from tests.aftersale.conftest import paid_flight

pytestmark = pytest.mark.django_db

SITE = ZoneInfo("Asia/Shanghai")
WORDS = "登山杖有一根的锁扣松了，<b>伸缩</b>时会滑下来"
FRACTION_OF_A_SECOND = re.compile(r"\d{2}:\d{2}:\d{2}\.\d{3,6}")
CHANGELIST = "admin:aftersale_hitlticket_changelist"


def change_url(ticket: HitlTicket) -> str:
    return reverse("admin:aftersale_hitlticket_change", args=[ticket.pk])


def row_of(content: str, ticket: HitlTicket) -> str:
    """The list's row of one ticket."""
    rows = re.findall(r"<tr\b.*?</tr>", content, flags=re.S)
    return next(r for r in rows if f">{ticket.ticket_no}</a>" in r)


def visible(content: str) -> str:
    """The page without its tags, scripts and styles: what a reader sees."""
    content = re.sub(r"<(script|style|svg)\b.*?</\1>", " ", content, flags=re.S)
    return re.sub(r"<[^>]+>", " ", content)


@pytest.fixture
def reader(client, demo_approver):
    """The approver's browser in a given language: `reader("zh-hans")`."""
    client.force_login(demo_approver)

    def read(language: str):
        client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
        return client

    return read


@pytest.fixture
def return_ticket(demo_alice) -> HitlTicket:
    """Alice's return of ORD-004 (delivered 3 days ago), with her own words, opened by the workflow in English."""
    with translation.override("en"):
        outcome = aftersale_request_submit(
            user=demo_alice, order_id="ORD-004", action="RETURN", reason=WORDS, reason_kind="NO_REASON"
        )
    return outcome.ticket


# -- names ------------------------------------------------------------------------------------------------------------


def test_the_console_calls_tickets_refund_and_return_requests_in_both_languages(reader, return_ticket):
    chinese = reader("zh-hans").get(reverse(CHANGELIST)).content.decode()
    english = reader("en").get(reverse(CHANGELIST)).content.decode()
    index = reader("en").get(reverse("admin:index")).content.decode()

    assert "退款/退货审批" in chinese and "Hitl" not in visible(chinese)
    assert "Refund and return requests" in english and "Hitl" not in visible(english)
    assert "Refund and return requests" in index and "Hitl tickets" not in index
    # the action labels follow the language too
    assert "批量批准所选判定为通过的申请" in chinese and "Approve selected tickets whose verdict passed" in english


def test_the_list_shows_status_verdict_flag_deadline_and_who_decided_in_local_time(reader, ticket_for, demo_approver):
    order = BizOrder.objects.get(order_id="ORD-001")
    deadline = dt.datetime(2030, 1, 1, 16, 30, 45, 123456, tzinfo=dt.UTC)  # 2030-01-02 00:30:45 in Shanghai
    pending = ticket_for(order, verdict="UNCERTAIN", flagged=True, deadline=deadline)
    decided_at = dt.datetime(2026, 11, 30, 2, 5, 9, 654321, tzinfo=dt.UTC)  # 10:05 in Shanghai
    decided = ticket_for(
        BizOrder.objects.get(order_id="ORD-002"),
        verdict="PASS",
        status="REJECTED",
        decided_by=demo_approver,
        decided_at=decided_at,
    )

    content = reader("en").get(reverse(CHANGELIST)).content.decode()

    row = row_of(content, pending)
    assert "Pending review" in row and "Uncertain" in row and "data-flagged" in row and "01-02 00:30" in row
    row = row_of(content, decided)
    assert "approver" in row and "11-30 10:05" in row and "Pass" in row
    assert not FRACTION_OF_A_SECOND.search(visible(content))


# -- the evidence -------------------------------------------------------------------------------------------------


def test_the_evidence_reads_as_tables_in_chinese_with_the_travellers_words_and_the_cited_passage(reader, return_ticket):
    order = BizOrder.objects.get(order_id="ORD-004")

    content = reader("zh-hans").get(change_url(return_ticket)).content.decode()

    assert "旅客原话" in content
    words = content.split("data-traveller-words>")[1].split("</blockquote>")[0]
    assert words == "登山杖有一根的锁扣松了，&lt;b&gt;伸缩&lt;/b&gt;时会滑下来"  # escaped, as typed
    assert "理解为：" in content and "无理由退货" in content
    # the order's items as a table: name, quantity, unit price, subtotal
    items = content.split("ticket-items")[1].split("</table>")[0]
    assert "登山杖" in items and "<td>2</td>" in items and "¥129" in items and "¥258.00" in items
    # the policy passages, the cited one marked
    cited = re.findall(r'<tr class="policy-row[^"]*" data-cited="yes">(.*?)</tr>', content, flags=re.S)
    assert len(cited) == 1 and "7天无理由退货" in cited[0] and "判定引用" in cited[0]
    assert content.count('data-cited="no"') >= 1
    # the verdict's reason in the reader's language, though the ticket was opened in English
    assert "已签收 3 天" in content and "在 7 天无理由退货期内" in content
    assert "Delivered 3 days ago" not in content
    # moments in local time, to the second at most; no raw JSON
    paid = timezone.localtime(order.paid_at, SITE).strftime("%Y-%m-%d %H:%M:%S")
    assert paid in content
    assert not FRACTION_OF_A_SECOND.search(visible(content))
    evidence = visible(content)
    assert '"order_id"' not in evidence and '{"' not in evidence and "<pre" not in content


def test_the_same_evidence_reads_in_english_for_an_english_approver(reader, demo_alice):
    with translation.override("zh-hans"):  # a Chinese traveller's request
        ticket = aftersale_request_submit(user=demo_alice, order_id="ORD-004", action="RETURN", reason=WORDS).ticket
    assert "已签收" in ticket.verdict_reason

    content = reader("en").get(change_url(ticket)).content.decode()

    assert "The traveller&#x27;s own words" in content and "Order facts" in content
    assert "Delivered 3 days ago" in content and "cited by the verdict" in content
    assert "已签收 3 天" not in content
    # the bilingual policies in the reader's half
    assert "7-day no-reason return for goods" in content and "Goods may be returned without giving a reason" in content
    assert "7天无理由退货" not in content and "商品自签收之日起" not in content


def test_a_utc_moment_in_the_execution_result_is_shown_in_local_time(reader, ticket_for):
    ticket = ticket_for(
        BizOrder.objects.get(order_id="ORD-001"),
        status="EXECUTED",
        execution_result={"ok": True, "refundId": "RF1", "amount": "380.00", "at": "2026-12-01T02:00:00.123456+00:00"},
    )

    content = reader("en").get(change_url(ticket)).content.decode()

    assert "2026-12-01 10:00:00" in content and "RF1" in content and "¥380.00" in content
    assert "02:00:00.123456" not in content and not FRACTION_OF_A_SECOND.search(visible(content))


def test_a_paused_hotel_cancel_says_which_hotel_dates_and_guests_it_would_cancel(reader, demo_alice):
    BookingRecord.objects.create(
        booking_id="BK20261201001",
        user=demo_alice,
        biz_type=BizType.HOTEL,
        external_order_no="HT261201000001",
        status=BookingStatus.CONFIRMED,
        amount=Decimal("2500.00"),
        details={
            "hotelId": "HEVKE06",
            "hotelName": "大理洱海观景客栈",
            "city": "大理",
            "checkInDate": "2026-12-10",
            "checkOutDate": "2026-12-12",
            "passengers": ["张三", "李四"],
        },
    )
    ticket = HitlTicket.objects.create(
        ticket_no="TCPHOTEL0001",
        kind=TicketKind.CHECKPOINT,
        idempotency_key="hitl:CANCEL_BOOKING:BK20261201001",
        action="CANCEL_BOOKING",
        requested_by=demo_alice,
        entity="BK20261201001",
        amount=Decimal("2500.00"),
        arguments={"tool": "cancel_booking", "arguments": {"booking_id": "BK20261201001"}},
        evidence={"summary": "Cancel hotel booking BK20261201001 (¥2500.00)"},
        deadline=timezone.now() + dt.timedelta(hours=48),
    )

    content = reader("zh-hans").get(change_url(ticket)).content.decode()

    cancel = content.split("ticket-cancel")[1].split("</table>")[0]
    assert "将被取消的预订" in content
    for fact in (
        "大理洱海观景客栈",
        "HEVKE06",
        "大理",
        "2026-12-10",
        "2026-12-12",
        "张三, 李四",
        "¥2500.00",
        "HT261201000001",
    ):
        assert fact in cancel, fact
    assert "入住" in cancel and "离店" in cancel and "<th>晚数</th><td>2</td>" in cancel


def test_a_paused_flight_cancel_says_which_flight_route_times_and_passengers(reader, demo_alice):
    paid_flight(demo_alice)
    ticket = HitlTicket.objects.create(
        ticket_no="TCPFLIGHT001",
        kind=TicketKind.CHECKPOINT,
        idempotency_key="hitl:CANCEL_BOOKING:BK20261201002",
        action="CANCEL_BOOKING",
        requested_by=demo_alice,
        entity="BK20261201002",
        amount=Decimal("2380.00"),
        deadline=timezone.now() + dt.timedelta(hours=48),
    )

    content = reader("en").get(change_url(ticket)).content.decode()

    cancel = content.split("ticket-cancel")[1].split("</table>")[0]
    for fact in ("MU5101", "Shanghai → Chengdu", "2026-12-19 18:45", "2026-12-20 03:55", "张三", "¥2380.00"):
        assert fact in cancel, fact
    assert "What would be cancelled" in content


# -- approving a smaller amount on a ticket's page ------------------------------------------------------------------


def test_a_partial_refund_without_a_reason_is_refused_on_the_page_and_nothing_changes(reader, return_ticket):
    client = reader("en")
    url = reverse("admin:aftersale_hitlticket_decide", args=[return_ticket.pk])
    before = (HitlTicket.objects.filter(pk=return_ticket.pk).values_list("status", "approved_amount").get(),)

    form = client.post(url, {"decision": "approve"}).content.decode()
    refused = client.post(url, {"decision": "approve", "apply": "yes", "amount": "100", "reason": ""})
    too_much = client.post(url, {"decision": "approve", "apply": "yes", "amount": "300", "reason": "x"})

    assert 'name="amount"' in form and 'value="258.00"' in form and "The amount asked is ¥258.00" in form
    assert refused.status_code == 200 and "needs a reason the traveller can read" in refused.content.decode()
    assert too_much.status_code == 200 and "cannot be more than the ¥258.00 asked" in too_much.content.decode()
    assert (HitlTicket.objects.filter(pk=return_ticket.pk).values_list("status", "approved_amount").get(),) == before
    assert not TicketEvent.objects.filter(ticket=return_ticket).exclude(to_status="PENDING").exists()
    assert not AftersaleNotice.objects.exists()


def test_a_partial_refund_with_a_reason_is_approved_from_the_page(reader, return_ticket, demo_approver):
    client = reader("en")
    url = reverse("admin:aftersale_hitlticket_decide", args=[return_ticket.pk])

    done = client.post(url, {"decision": "approve", "apply": "yes", "amount": "129.00", "reason": "one pole is fine"})

    assert done.status_code == 302 and done["Location"] == change_url(return_ticket)
    return_ticket.refresh_from_db()
    assert (return_ticket.status, return_ticket.approved_amount, return_ticket.decision_reason) == (
        "APPROVED",
        Decimal("129.00"),
        "one pole is fine",
    )
    assert return_ticket.decided_by == demo_approver
    texts = [str(m) for m in get_messages(done.wsgi_request)]
    assert any("for ¥129.00 of the ¥258.00 asked" in text for text in texts)
    listing = client.get(reverse(CHANGELIST)).content.decode()
    row = row_of(listing, return_ticket)
    assert "¥129.00" in row and "/ ¥258.00" in row
