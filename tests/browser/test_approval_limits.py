"""Approval limits and four eyes, end to end in real browsers: a refund of ¥12,000 (above the demo approver's ¥5,000
limit, above the ¥10,000 four-eyes amount) asked for through the after-sale service, then decided in the console.

The demo approver is refused, and nothing changes; senior1 (limit ¥20,000) gives the first approval, which is only
recorded (nothing runs), and is refused a second one of their own; senior2 gives the second, and a real Celery worker
refunds the order on the sandbox supplier, once. The superuser's list of staff actions shows who did it, from where.

Screenshot: docs/screenshots/console-four-eyes.png (the ticket's page after the first approval, in English).
"""

import datetime as dt
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.db import connections

from tests.browser.test_end_to_end import COMPLAINTS, SHOTS, _context, _log_in, _wait_for, browser  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.worker]

CONSOLE = {"width": 1366, "height": 900}
ORDER_ID = "ORD-912"
BIG = Decimal("12000.00")  # above the default limit (5000) and the four-eyes amount (10000)
SENIORS = ("senior1", "senior2")
SENIOR_PASSWORD = "senior-2026"
SENIOR_LIMIT = Decimal("20000")
WORDS = "相机套装还没发货，行程取消了，想全额退款"
FIRST_WORDS = "Checked the order: paid, not shipped; refund in full."
SECOND_WORDS = "Second pair of eyes: agreed, refund in full."
DONE_WITHIN_S = 45  # a second approval and a worker's execution on the sandbox supplier


def test_an_approver_over_their_limit_is_refused_and_two_seniors_approve_a_large_refund_once(
    transactional_db,
    settings,
    supplier_sandbox,
    celery_worker_process,
    live_server,
    browser,  # noqa: F811 - the fixture imported above
):
    settings.AFTERSALE_APPROVAL_LIMIT = 5000
    settings.AFTERSALE_FOUR_EYES_ABOVE = 10000
    try:
        _story(live_server.url, browser, supplier_sandbox)
    finally:
        connections.close_all()  # see test_end_to_end: Playwright's loop keeps the ORM's connection otherwise


def _seniors():
    """Two more approvers in the demo's 'approvers' group, each allowed ¥20,000 alone."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from aftersale.models import ApprovalLimit

    group = Group.objects.get(name="approvers")
    made = []
    for username in SENIORS:
        user = get_user_model().objects.create_user(username=username, password=SENIOR_PASSWORD, is_staff=True)
        user.groups.add(group)
        ApprovalLimit.objects.create(user=user, max_amount=SENIOR_LIMIT)
        made.append(user)
    return made


def _large_refund_request(alice):
    """Alice's paid, not yet shipped ¥12,000 order, and her refund request for it through the workflow (confirmed on
    her requests page): the policy passes it, so it waits for an approver."""
    from django.utils import timezone

    from aftersale.models import BizOrder, OrderCategory, OrderStatus, TicketStatus, Verdict
    from aftersale.services.workflow import CONFIRMED_ON_PAGE, SUBMITTED, aftersale_request_submit

    order = BizOrder.objects.create(
        order_id=ORDER_ID,
        user=alice,
        category=OrderCategory.GOODS,
        items=[{"name": "户外摄影套装", "name_en": "Outdoor camera kit", "qty": 1, "price": 12000}],
        amount=BIG,
        status=OrderStatus.PAID,
        paid_at=timezone.now() - dt.timedelta(days=1),
    )
    outcome = aftersale_request_submit(
        user=alice, order_id=ORDER_ID, action="REFUND", reason=WORDS, confirmed_via=CONFIRMED_ON_PAGE
    )
    assert outcome.status == SUBMITTED, outcome
    ticket = outcome.ticket
    assert (ticket.status, ticket.verdict, ticket.flagged, ticket.amount) == (
        TicketStatus.PENDING,
        Verdict.PASS,
        False,
        BIG,
    )
    return order, ticket


def _row(ticket) -> dict:
    """The ticket's row as stored, every column."""
    from aftersale.models import HitlTicket

    return HitlTicket.objects.filter(pk=ticket.pk).values().get()


def _approve(page, change_url: str, reason: str, *, four_eyes: str) -> None:
    """Approve the ticket from its page: its Approve button, the confirmation page (the amount asked, the four-eyes
    note, the approver's words), back on the ticket's page with a message."""
    from playwright.sync_api import expect

    page.goto(change_url)
    page.click("#ticket-decide-buttons button[value=approve]")
    form = page.locator("#decide-form")
    expect(form.locator("[name=amount]")).to_have_value(str(BIG))
    if four_eyes:
        expect(page.locator("#decide-four-eyes")).to_contain_text(four_eyes)
    form.locator("[name=reason]").fill(reason)
    form.locator(".submit-row input[type=submit]").click()
    expect(page).to_have_url(change_url)
    expect(page.locator("ul.messagelist li")).not_to_have_count(0)


def _story(base: str, browser, supplier_sandbox) -> None:  # noqa: F811
    from django.contrib.auth import get_user_model
    from playwright.sync_api import expect

    from aftersale.models import BizOrder, HitlTicket, OrderStatus, TicketEvent, TicketStatus

    call_command("seed_demo", verbosity=0)
    SHOTS.mkdir(parents=True, exist_ok=True)
    COMPLAINTS.clear()
    users = {u.username: u for u in get_user_model().objects.all()}
    senior1, senior2 = _seniors()
    others = {o.order_id: (o.status, o.refunded_amount) for o in BizOrder.objects.all()}
    order, ticket = _large_refund_request(users["alice"])
    no = ticket.ticket_no
    change_url = f"{base}/admin/aftersale/hitlticket/{ticket.pk}/change/"
    assert list(HitlTicket.objects.values_list("pk", flat=True)) == [ticket.pk]  # the only request in the console

    # 1. the demo approver (no limit of their own: the site's ¥5000) is refused, and nothing changes
    as_asked = _row(ticket)
    approver_ctx = _context(browser, locale="en-US", viewport=CONSOLE)
    approver = approver_ctx.new_page()
    _log_in(approver, base, "approver", "approve-2026", path="/admin/login/?next=/admin/")
    _approve(approver, change_url, "Looks fine to me.", four_eyes="is above your approval limit of ¥5000")
    refused = approver.locator("ul.messagelist li.error")
    expect(refused).to_have_text(
        f"{no}: ¥12000.00 is above your approval limit of ¥5000: an approver with a higher limit must approve it."
    )
    expect(approver.locator("ul.messagelist li.success")).to_have_count(0)
    expect(approver.locator("#ticket-decide-buttons button[value=approve]")).to_be_visible()  # still to decide
    expect(approver.locator("#ticket-four-eyes")).to_have_count(0)
    assert _row(ticket) == as_asked
    assert not TicketEvent.objects.filter(ticket=ticket, actor=users["approver"]).exists()
    assert not TicketEvent.objects.filter(actor__is_staff=True).exists()

    # 2. senior1 gives the first approval: recorded and shown, the ticket still pending, nothing runs
    first_ctx = _context(browser, locale="en-US", viewport=CONSOLE)
    first = first_ctx.new_page()
    _log_in(first, base, "senior1", SENIOR_PASSWORD, path="/admin/login/?next=/admin/")
    _approve(first, change_url, FIRST_WORDS, four_eyes="yours is recorded as the first, and nothing runs until")
    expect(first.locator("ul.messagelist li.success")).to_have_text(
        f"Your approval of {no} is recorded as the first: it runs once a second approver approves."
    )
    expect(first.locator("ul.messagelist li.error")).to_have_count(0)
    expect(first.locator("#ticket-decide-buttons #ticket-four-eyes")).to_have_text(
        "senior1 gave the first approval: it runs once a second approver approves."
    )
    expect(first.locator("#ticket-first-approval")).to_contain_text("senior1 approved ¥12000.00 at")
    expect(first.locator(".field-first_approval_display")).to_contain_text("A second approver must approve it.")
    expect(first.locator(".field-first_approval_display")).to_contain_text(FIRST_WORDS)
    first.screenshot(path=str(SHOTS / "console-four-eyes.png"), full_page=True)

    ticket.refresh_from_db()
    assert (ticket.status, ticket.first_approved_by, ticket.first_approved_amount, ticket.first_approval_reason) == (
        TicketStatus.PENDING,
        senior1,
        BIG,
        FIRST_WORDS,
    )
    assert ticket.first_approved_at is not None
    assert (ticket.decided_by, ticket.decided_at, ticket.approved_amount, ticket.attempts) == (None, None, None, 0)
    assert list(TicketEvent.objects.filter(actor__is_staff=True).values_list("actor__username", "to_status")) == [
        ("senior1", TicketStatus.PENDING)
    ]
    assert supplier_sandbox.stats()["refunds"] == {"total": 0, "byOrderId": {}}  # nothing ran
    order.refresh_from_db()
    assert (order.status, order.refunded_amount, order.refund_claim_id) == (OrderStatus.PAID, Decimal(0), None)

    # 3. senior1 may not give the second approval too
    after_first = _row(ticket)
    _approve(first, change_url, "Approving again.", four_eyes="a second approver, not you, must give the other")
    expect(first.locator("ul.messagelist li.error")).to_have_text(
        f"You gave {no} its first approval: a second approver, not you, must give the other."
    )
    expect(first.locator("ul.messagelist li.success")).to_have_count(0)
    expect(first.locator("#ticket-four-eyes")).to_be_visible()
    assert _row(ticket) == after_first
    assert TicketEvent.objects.filter(ticket=ticket, actor=senior1).count() == 1

    # 4. senior2 gives the second approval: approved for the amount the first approved; a real worker refunds it once
    second_ctx = _context(browser, locale="en-US", viewport=CONSOLE)
    second = second_ctx.new_page()
    _log_in(second, base, "senior2", SENIOR_PASSWORD, path="/admin/login/?next=/admin/")
    second.goto(change_url)
    expect(second.locator("#ticket-four-eyes")).to_have_text(
        "senior1 gave the first approval: it runs once a second approver approves."
    )
    _approve(second, change_url, SECOND_WORDS, four_eyes="senior1 gave this ticket its first approval. Yours is")
    expect(second.locator("ul.messagelist li.success")).to_have_text(f"Approved {no}.")
    expect(second.locator("ul.messagelist li.error")).to_have_count(0)

    _wait_for(
        lambda: HitlTicket.objects.get(pk=ticket.pk).status == TicketStatus.EXECUTED,
        f"{no} to be executed by the worker",
        timeout=DONE_WITHIN_S,
    )
    second.reload()
    expect(second.locator(".ticket-status-executed")).to_be_visible()
    expect(second.locator("#ticket-decide-buttons")).to_have_count(0)  # nothing left to decide
    expect(second.locator("#ticket-first-approval")).to_contain_text("senior1 approved ¥12000.00 at")
    expect(second.locator(".field-first_approval_display")).not_to_contain_text("A second approver must approve it.")

    ticket.refresh_from_db()
    order.refresh_from_db()
    assert (ticket.status, ticket.decided_by, ticket.first_approved_by) == (TicketStatus.EXECUTED, senior2, senior1)
    assert (ticket.approved_amount, ticket.decision_reason, ticket.attempts) == (BIG, SECOND_WORDS, 1)
    assert (order.status, order.refunded_amount, order.refund_claim_id) == (OrderStatus.REFUNDED, BIG, None)
    stats = supplier_sandbox.stats()["refunds"]
    assert stats == {"total": 1, "byOrderId": {ORDER_ID: 1}}, stats
    assert ticket.execution_result["refundId"]
    staff_events = TicketEvent.objects.filter(ticket=ticket, actor__is_staff=True).order_by("pk")
    assert list(staff_events.values_list("actor__username", "from_status", "to_status", "client_address")) == [
        ("senior1", TicketStatus.PENDING, TicketStatus.PENDING, "127.0.0.1"),
        ("senior2", TicketStatus.PENDING, TicketStatus.APPROVED, "127.0.0.1"),
    ]
    assert not TicketEvent.objects.filter(actor__username="approver").exists()
    assert list(HitlTicket.objects.values_list("pk", flat=True)) == [ticket.pk]
    assert {o.order_id: (o.status, o.refunded_amount) for o in BizOrder.objects.exclude(order_id=ORDER_ID)} == others

    # 5. the superuser's list of staff actions: who approved it, when, from where, and why
    admin_ctx = _context(browser, locale="en-US", viewport=CONSOLE)
    admin = admin_ctx.new_page()
    _log_in(admin, base, "admin", "admin-2026", path="/admin/login/?next=/admin/")
    admin.goto(f"{base}/admin/aftersale/staffaction/?q={no}")
    rows = admin.locator("#result_list tbody tr")
    expect(rows).to_have_count(2)
    for username, why in (("senior1", "first approval, ¥12000.00"), ("senior2", "second approval (the first by")):
        row = rows.filter(has=admin.locator("td.field-who", has_text=username))
        expect(row).to_have_count(1)
        expect(row.locator("td.field-client_address")).to_have_text("127.0.0.1")
        expect(row.locator("td.field-ticket_link")).to_have_text(no)
        expect(row.locator("td.field-why")).to_contain_text(why)
    expect(rows.filter(has=admin.locator("td.field-who", has_text="approver"))).to_have_count(0)

    for context in (admin_ctx, second_ctx, first_ctx, approver_ctx):
        context.close()
    assert COMPLAINTS == [], "the browser reported policy violations:\n" + "\n".join(COMPLAINTS)
