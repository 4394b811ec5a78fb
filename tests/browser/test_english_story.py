"""An English traveller's conversation and a Chinese approver's console, in a real browser, desktop and phone: the
traveller searches, books a flight (confirmed on its card) and asks for a refund in English; every reply, chip and
card reads in English (Chinese only as a name in brackets after its English name, or the traveller's own data); the
approver, whose browser is Chinese, reads that request in a Chinese console.

Screenshots for the README (docs/screenshots/): chat-en-search.png, chat-en-booking.png, chat-en-refund.png,
chat-en-phone.png, console-zh.png, console-ticket-zh.png, console-zh-phone.png.
"""

import datetime as dt
import re

import pytest
from django.core.management import call_command
from django.db import connections

from tests.browser.test_end_to_end import (  # noqa: F401 - browser is a fixture
    COMPLAINTS,
    SHOTS,
    _chat_screenshot,
    _context,
    _log_in,
    _say,
    browser,
)
from tests.support.one_language import without_names

pytestmark = [pytest.mark.browser, pytest.mark.postgres]

HAN = re.compile(r"[\u3400-\u9fff]")
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2}


def english_outside_names(text: str, own: tuple[str, ...] = ()) -> list[str]:
    """The Chinese a reader of English would meet outside a name's brackets and outside their own data."""
    return HAN.findall(without_names(text, own))


def test_an_english_traveller_searches_books_and_asks_for_a_refund_and_a_chinese_approver_reads_it(
    transactional_db,
    supplier_sandbox,
    live_server,
    browser,  # noqa: F811 - the fixture imported above
):
    try:
        _story(live_server.url, browser)
    finally:
        connections.close_all()  # see test_end_to_end: Playwright's loop keeps the ORM's connection otherwise


def _english_turn(turn, own: tuple[str, ...] = ()) -> None:
    text = turn.inner_text()
    assert text.strip(), "the turn shows nothing"
    found = english_outside_names(text, own)
    assert not found, f"Chinese outside a name in an English turn: {found[:10]} in {text[:400]!r}"


def _story(base: str, browser) -> None:  # noqa: F811
    from playwright.sync_api import expect

    from aftersale.models import HitlTicket
    from bookings.models import BookingRecord

    call_command("seed_demo", verbosity=0)
    COMPLAINTS.clear()
    SHOTS.mkdir(parents=True, exist_ok=True)

    context = _context(browser, locale="en-US")
    page = context.new_page()
    _log_in(page, base, "alice", "alice-2026")
    page.goto(f"{base}/")
    expect(page.locator("html")).to_have_attribute("lang", "en")

    # 1. a search: English cards and reply
    turn = _say(page, "What can I do in Dali?")
    expect(turn.locator("[data-card=activity]").first).to_be_visible()
    _english_turn(turn)
    _chat_screenshot(page, "chat-en-search.png")

    # 2. a flight: options, a pick, one confirmation card; booked only on its Confirm
    day = dt.date.today() + dt.timedelta(days=6)
    turn = _say(page, f"Book a flight from Shanghai to Chengdu on {day:%b} {day.day}, Zhang San 13800000000")
    _english_turn(turn, own=("张三",))
    if not turn.locator("[data-card=confirmation]").count():
        turn = _say(page, "the first one")
    confirmation = turn.locator("[data-card=confirmation]")
    expect(confirmation).to_be_visible()
    _english_turn(turn, own=("张三",))
    assert not BookingRecord.objects.filter(user__username="alice").exists(), "nothing is booked before the yes"
    turns = page.locator("#messages .turn")
    before = turns.count()
    confirmation.locator("button[data-confirm]").click()
    expect(turns).to_have_count(before + 1)
    booked = turns.nth(before)
    expect(booked.locator("[data-card=booking]")).to_be_visible()
    _english_turn(booked, own=("张三",))
    booking = BookingRecord.objects.get(user__username="alice")
    assert (booking.biz_type, booking.status) == ("FLIGHT", "PENDING_PAYMENT")
    assert booking.details["from"] == "上海" and booking.details["to"] == "成都"
    _chat_screenshot(page, "chat-en-booking.png")

    # 3. a refund: asked why, one confirmation card, a ticket waiting for an approver after Confirm
    turn = _say(page, "I want a refund for order ORD-001")
    assert not turn.locator("[data-card]").count(), "a question why, not a card, while the reason is missing"
    _english_turn(turn)
    turn = _say(page, "my plans changed")
    confirmation = turn.locator("[data-card=confirmation]")
    expect(confirmation).to_contain_text("¥380.00")
    _english_turn(turn)
    assert not HitlTicket.objects.filter(entity="ORD-001").exists(), "nothing is filed before the yes"
    before = turns.count()
    confirmation.locator("button[data-confirm]").click()
    expect(turns).to_have_count(before + 1)
    ticket_card = turns.nth(before).locator("[data-card=ticket]")
    expect(ticket_card).to_have_attribute("data-status", "PENDING")
    _english_turn(turns.nth(before))
    ticket_no = ticket_card.get_attribute("data-ticket-no")
    assert HitlTicket.objects.filter(ticket_no=ticket_no, entity="ORD-001", status="PENDING").count() == 1
    _chat_screenshot(page, "chat-en-refund.png")

    phone_ctx = _context(browser, locale="en-US", **PHONE)
    phone_ctx.add_cookies(context.cookies())
    phone = phone_ctx.new_page()
    phone.goto(f"{base}/")
    expect(phone.locator("#messages [data-card]").first).to_be_visible()
    _chat_screenshot(phone, "chat-en-phone.png")

    # 4. the approver's console in Chinese: the list and the ticket, desktop and phone
    console_ctx = _context(browser, locale="zh-CN", viewport={"width": 1366, "height": 900})
    admin = console_ctx.new_page()
    _log_in(admin, base, "approver", "approve-2026", path="/admin/login/?next=/admin/")
    admin.goto(f"{base}/admin/aftersale/hitlticket/")
    expect(admin.locator("html")).to_have_attribute("lang", "zh-hans")
    expect(admin.get_by_role("link", name=ticket_no)).to_be_visible()
    admin.screenshot(path=str(SHOTS / "console-zh.png"), full_page=True)
    admin.get_by_role("link", name=ticket_no).click()
    evidence = admin.locator(".ticket-evidence")
    expect(evidence).to_be_visible()
    expect(evidence).to_contain_text("my plans changed")  # the traveller's own words, as written
    expect(admin.locator("#ticket-decide-buttons button[value=approve]")).to_be_visible()
    admin.screenshot(path=str(SHOTS / "console-ticket-zh.png"), full_page=True)

    console_phone = _context(browser, locale="zh-CN", **PHONE)
    console_phone.add_cookies(console_ctx.cookies())
    admin_phone = console_phone.new_page()
    admin_phone.goto(f"{base}/admin/aftersale/hitlticket/{HitlTicket.objects.get(ticket_no=ticket_no).pk}/change/")
    expect(admin_phone.locator(".ticket-evidence")).to_be_visible()
    admin_phone.screenshot(path=str(SHOTS / "console-zh-phone.png"))

    for each in (console_phone, console_ctx, phone_ctx, context):
        each.close()
    assert COMPLAINTS == [], "the browser reported policy violations:\n" + "\n".join(COMPLAINTS)
