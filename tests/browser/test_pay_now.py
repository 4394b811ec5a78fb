"""Pay now, in a real browser: headless Chromium against a live server and the sandbox supplier.

A traveller books a flight in the chat; its card counts down to the payment deadline and offers Pay now. Pay now
shows a confirmation card with the exact amount and pays nothing; Confirm pays once and the new card says CONFIRMED,
without a reload. Their bookings page says the same. The page runs under the strict Content-Security-Policy.
"""

import re

import pytest
from django.db import connections

from bookings.models import BookingEvent, BookingRecord, BookingStatus
from tests.browser.test_end_to_end import COMPLAINTS, SHOTS, _chat_screenshot, _context, _log_in, _say, browser  # noqa: F401 - a fixture

pytestmark = [pytest.mark.browser, pytest.mark.postgres]


def test_book_see_the_countdown_pay_through_the_confirmation_and_see_it_confirmed(
    transactional_db,
    supplier_sandbox,
    live_server,
    browser,  # noqa: F811 - the fixture imported above
    user_factory,
):
    try:
        _story(live_server.url, browser, user_factory, supplier_sandbox)
    finally:
        connections.close_all()  # see test_end_to_end: Playwright's loop keeps the ORM's connection otherwise


def _story(base: str, browser, user_factory, supplier_sandbox) -> None:  # noqa: F811
    from playwright.sync_api import expect

    COMPLAINTS.clear()
    user_factory("dora", password="dora-2026")
    context = _context(browser)
    page = context.new_page()
    _log_in(page, base, "dora", "dora-2026")
    page.goto(f"{base}/")

    # book: the confirmation card, then the booking card with its countdown and Pay now
    asked = _say(page, "帮我订12月19号上海飞成都的机票 张三 13800000000")
    asked.locator("[data-card=confirmation] button[data-confirm]").click()
    turns = page.locator("#messages .turn")
    booked = turns.last.locator("[data-card=booking]")
    expect(booked).to_have_attribute("data-status", "PENDING_PAYMENT")
    countdown = booked.locator("[data-deadline]")
    expect(countdown).to_have_text(re.compile(r"^(29|30):\d\d$"))
    booking = BookingRecord.objects.get()
    assert booking.status == BookingStatus.PENDING_PAYMENT and booking.pay_deadline is not None
    SHOTS.mkdir(parents=True, exist_ok=True)
    _chat_screenshot(page, "chat-pay-now.png")

    # Pay now: the exact amount to confirm, nothing paid yet
    before = turns.count()
    booked.locator("button[data-pay-now]").click()
    expect(turns).to_have_count(before + 1)
    card = turns.last.locator("[data-card=confirmation]")
    expect(card.locator("[data-total]")).to_contain_text(f"¥{booking.amount}")
    expect(card.locator("dl.facts")).to_contain_text(booking.booking_id)
    assert supplier_sandbox.stats()["payments"]["total"] == 0

    # Confirm: paid once, the new card says confirmed, no reload
    before = turns.count()
    card.locator("button[data-confirm]").click()
    expect(turns).to_have_count(before + 1)
    paid = turns.last.locator("[data-card=booking]")
    expect(paid).to_have_attribute("data-status", "CONFIRMED")
    expect(paid.locator("button[data-pay-now]")).to_have_count(0)
    expect(turns.last.locator(".bubble.assistant")).to_contain_text("已支付")
    booking.refresh_from_db()
    assert booking.status == BookingStatus.CONFIRMED
    assert BookingEvent.objects.filter(booking=booking, to_status=BookingStatus.CONFIRMED).count() == 1
    assert supplier_sandbox.stats()["payments"]["total"] == 1

    # the bookings page says the same, after its refresh from the supplier
    page.goto(f"{base}/bookings/")
    expect(page.locator("#bookings-body")).to_have_attribute("data-refreshed", "ok")
    row = page.locator(f"#booking-{booking.booking_id}")
    expect(row).to_have_attribute("data-status", "CONFIRMED")
    expect(row.locator("button[data-pay-now]")).to_have_count(0)

    context.close()
    assert COMPLAINTS == [], "the browser reported policy violations:\n" + "\n".join(COMPLAINTS)
