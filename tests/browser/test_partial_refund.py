"""A partial refund, end to end in real browsers: the traveller asks for a refund on their requests page and keeps
it open; an approver (another browser) reads the evidence in the console and approves a smaller amount with a
reason; a real Celery worker pays it back on the sandbox supplier; the traveller's open page shows it done, with
the amount, without a reload (HTMX polling).

The console list fits 1366 px with both of the admin's sidebars open. Screenshots: docs/screenshots/
console-list.png and ticket-evidence.png (Chinese), console-list-en.png (English), aftersale-partial-refund.png
(the traveller's page once it is done).
"""

from decimal import Decimal

import pytest
from django.core.management import call_command
from django.db import connections

from tests.browser.test_end_to_end import COMPLAINTS, SHOTS, _context, _log_in, browser  # noqa: F401 - a fixture

pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.worker]

CONSOLE = {"width": 1366, "height": 900}
WORDS = "行程有变，那天去不了了，装备已经领了"
REASON = "装备已领取，押金部分不退，其余退回"
DONE_WITHIN_MS = 45_000  # an approval, a worker's execution and the page's next poll (every 5 s)


def test_an_approver_refunds_part_and_the_travellers_open_page_shows_it_done(
    transactional_db,
    supplier_sandbox,
    celery_worker_process,
    live_server,
    browser,  # noqa: F811 - the fixture imported above
):
    try:
        _story(live_server.url, browser, supplier_sandbox)
    finally:
        connections.close_all()  # see test_end_to_end: Playwright's loop keeps the ORM's connection otherwise


def _other_requests() -> None:
    """A console with more than one request in it, as an approver's morning looks: a clear case, a flagged one,
    one already decided, and a paused hotel cancel."""
    from django.contrib.auth import get_user_model

    from aftersale.services.checkpoints import approval_gate
    from aftersale.services.decisions import ticket_decide
    from aftersale.services.workflow import aftersale_request_submit
    from bookings.models import BizType, BookingRecord, BookingStatus

    users = {u.username: u for u in get_user_model().objects.all()}
    aftersale_request_submit(user=users["bob"], order_id="ORD-008", action="RETURN", reason="尺码偏小，想换个大一号的")
    aftersale_request_submit(
        user=users["carol"],
        order_id="ORD-003",
        action="REFUND",
        reason="一直没收到货，物流却显示已签收",
        reason_kind="NOT_RECEIVED",
    )
    decided = aftersale_request_submit(user=users["bob"], order_id="ORD-006", action="REFUND", reason="临时出差")
    ticket_decide(ticket_id=decided.ticket.pk, approver=users["approver"], approve=False, reason="重复申请，已线下处理")
    hotel = BookingRecord.objects.create(
        booking_id="BK20261201901",
        user=users["bob"],
        biz_type=BizType.HOTEL,
        external_order_no="HT261201000901",
        status=BookingStatus.CONFIRMED,
        amount=Decimal("2680.00"),
        details={
            "hotelId": "HEVKE06",
            "hotelName": "大理洱海观景客栈",
            "city": "大理",
            "checkInDate": "2026-12-10",
            "checkOutDate": "2026-12-13",
            "passengers": ["张三", "李四"],
        },
    )
    approval_gate(
        user=users["bob"],
        action="CANCEL_BOOKING",
        entity=hotel.booking_id,
        amount=hotel.amount,
        summary=f"Cancel hotel booking {hotel.booking_id} (¥{hotel.amount})",
        arguments={"booking_id": hotel.booking_id},
        evidence={"tool": "cancel_booking"},
    )


def _fits(page) -> None:
    """No horizontal scrolling: neither the page nor the list's own scroller is wider than what is shown."""
    widths = page.evaluate(
        "(() => { const r = document.querySelector('#changelist-form .results');"
        " return [document.documentElement.scrollWidth, window.innerWidth, r.scrollWidth, r.clientWidth]; })()"
    )
    page_width, viewport, list_width, list_shown = widths
    assert page_width <= viewport and list_width <= list_shown, f"horizontal scroll at 1366 px: {widths}"


def _story(base: str, browser, supplier_sandbox) -> None:  # noqa: F811
    from playwright.sync_api import expect

    from aftersale.models import AftersaleNotice, BizOrder, HitlTicket, OrderStatus, TicketStatus

    call_command("seed_demo", verbosity=0)
    SHOTS.mkdir(parents=True, exist_ok=True)
    COMPLAINTS.clear()
    before = {o.order_id: (o.status, o.refunded_amount) for o in BizOrder.objects.exclude(order_id="ORD-001")}

    # 1. the traveller asks for a refund of ORD-001 on their requests page, in their own words, and stays there
    traveller_ctx = _context(browser)
    page = traveller_ctx.new_page()
    _log_in(page, base, "alice", "alice-2026")
    page.goto(f"{base}/aftersale/")
    order_row = page.locator("#aftersale-orders tr[data-order-id=ORD-001]")
    order_row.locator("input[name=reason]").fill(WORDS)
    order_row.locator("button[value=REFUND]").click()
    page.wait_for_load_state()
    ticket = HitlTicket.objects.get(idempotency_key="wfa:REFUND:ORD-001")
    row = page.locator(f"#ticket-{ticket.ticket_no}")
    expect(row).to_have_attribute("data-status", "PENDING")
    expect(page.locator("#aftersale-live")).to_have_attribute("data-polling", "on")
    page.evaluate("window.__stillTheSamePage = true")  # gone if the page reloads
    _other_requests()

    # 2. the approver reads the list (both sidebars open, 1366 px) and the evidence, in Chinese
    approver_ctx = _context(browser, viewport=CONSOLE)
    admin = approver_ctx.new_page()
    _log_in(admin, base, "approver", "approve-2026", path="/admin/login/?next=/admin/")
    admin.goto(f"{base}/admin/aftersale/hitlticket/")
    expect(admin.locator("h1")).to_contain_text("退款/退货申请")
    expect(admin.locator("#nav-sidebar")).to_be_visible()
    expect(admin.get_by_role("link", name=ticket.ticket_no)).to_be_visible()
    admin.screenshot(path=str(SHOTS / "console-list.png"), full_page=True)
    _fits(admin)

    admin.get_by_role("link", name=ticket.ticket_no).click()
    expect(admin.locator("[data-traveller-words]")).to_have_text(WORDS)
    expect(admin.locator("tr.policy-row[data-cited=yes]")).to_contain_text("活动门票退款规则")
    expect(admin.locator(".ticket-items")).to_contain_text("赛里木湖环湖骑行一日游")
    admin.screenshot(path=str(SHOTS / "ticket-evidence.png"), full_page=True)

    # 3. approves ¥200.00 of the ¥380.00 asked, with a reason, through the confirmation page
    admin.click("#ticket-decide-buttons button[value=approve]")
    form = admin.locator("#decide-form")
    expect(form.locator("[name=amount]")).to_have_value("380.00")
    form.locator("[name=amount]").fill("200")
    form.locator("[name=reason]").fill(REASON)
    form.locator("input[type=submit]").click()
    expect(admin.locator(".messagelist")).to_contain_text("¥200.00")

    # 4. a real worker pays it back; the traveller's open page shows it done, with the amount, without a reload
    expect(row).to_have_attribute("data-status", "EXECUTED", timeout=DONE_WITHIN_MS)
    expect(row.locator("[data-amount]")).to_contain_text("¥200.00")
    expect(row.locator("[data-partial]")).to_have_text("部分退款")
    expect(row.locator("[data-decision-reason]")).to_have_text(REASON)
    done = page.locator("[data-aftersale-notices] [data-notice=EXECUTED]")
    expect(done).to_contain_text("已退款 ¥200.00")
    expect(page.locator("[data-aftersale-notices] [data-notice=PART_APPROVED]")).to_contain_text(REASON)
    expect(page.locator("#aftersale-orders tr[data-order-id=ORD-001]")).to_have_attribute(
        "data-status", "PART_REFUNDED"
    )
    expect(page.locator("#aftersale-live")).to_have_attribute("data-polling", "off")  # settled: it stopped asking
    assert page.evaluate("window.__stillTheSamePage") is True
    page.screenshot(path=str(SHOTS / "aftersale-partial-refund.png"), full_page=True)

    # what was paid back, and that nothing else changed
    ticket.refresh_from_db()
    order = BizOrder.objects.get(order_id="ORD-001")
    assert (ticket.status, ticket.approved_amount, ticket.decision_reason) == (
        TicketStatus.EXECUTED,
        Decimal("200.00"),
        REASON,
    )
    assert (order.status, order.refunded_amount) == (OrderStatus.PART_REFUNDED, Decimal("200.00"))
    assert supplier_sandbox.stats()["refunds"]["byOrderId"] == {"ORD-001": 1}
    assert {o.order_id: (o.status, o.refunded_amount) for o in BizOrder.objects.exclude(order_id="ORD-001")} == before
    assert AftersaleNotice.objects.filter(ticket=ticket, read_at__isnull=False).count() == 2  # both were shown

    # 5. the console in English, for the README
    english_ctx = _context(browser, locale="en-US", viewport=CONSOLE)
    english = english_ctx.new_page()
    _log_in(english, base, "approver", "approve-2026", path="/admin/login/?next=/admin/")
    english.goto(f"{base}/admin/aftersale/hitlticket/")
    expect(english.locator("h1")).to_contain_text("refund or return request")
    english.screenshot(path=str(SHOTS / "console-list-en.png"), full_page=True)
    _fits(english)

    for context in (english_ctx, approver_ctx, traveller_ctx):
        context.close()
    assert COMPLAINTS == [], "the browser reported policy violations:\n" + "\n".join(COMPLAINTS)
