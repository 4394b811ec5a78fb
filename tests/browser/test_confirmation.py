"""Confirm before a write, in a real browser: headless Chromium against a live server and the sandbox supplier.

A traveller asks to cancel a real flight booking: a confirmation card shows its facts with Confirm and Change and
nothing is cancelled; pressing Confirm cancels it once and says so; the card's buttons no longer act, before and
after a reload. The page runs under the strict Content-Security-Policy (no inline script).
"""

import pytest
from django.db import connections

from bookings.models import BookingEvent, BookingRecord, BookingStatus
from tests.assistant.test_pending_actions import flight_booking
from tests.browser.test_end_to_end import COMPLAINTS, SHOTS, _chat_screenshot, _context, _log_in, _say, browser  # noqa: F401 - a fixture

pytestmark = [pytest.mark.browser, pytest.mark.postgres]


def test_the_confirmation_card_shows_the_facts_and_confirm_cancels_once(
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
    traveller = user_factory("carol", password="carol-2026")
    booking = flight_booking(traveller)
    context = _context(browser)
    page = context.new_page()
    _log_in(page, base, "carol", "carol-2026")
    page.goto(f"{base}/")

    # asking shows the card with the booking's facts, and changes nothing
    turn = _say(page, f"取消预订 {booking.booking_id}")
    card = turn.locator("[data-card=confirmation]")
    expect(card).to_be_visible()
    pending_id = card.get_attribute("data-pending-id")
    expect(card.locator("dl.facts")).to_contain_text(booking.booking_id)
    expect(card.locator("[data-total]")).to_contain_text(f"¥{booking.amount}")
    expect(card.locator("button[data-confirm]")).to_be_visible()
    expect(card.locator("button[data-change]")).to_be_visible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    _chat_screenshot(page, "chat-confirmation.png")
    booking.refresh_from_db()
    assert booking.status == BookingStatus.PENDING_PAYMENT
    assert supplier_sandbox.stats()["cancels"]["total"] == 0

    # Confirm carries it out once and says so
    turns = page.locator("#messages .turn")
    before = turns.count()
    card.locator("button[data-confirm]").click()
    expect(turns).to_have_count(before + 1)
    expect(turns.nth(before).locator(".bubble.assistant")).to_contain_text(booking.booking_id)
    expect(turns.nth(before).locator(".bubble.assistant")).to_contain_text("已取消")
    expect(card.locator("button[data-confirm]")).to_be_disabled()  # the card does not act again
    booking.refresh_from_db()
    assert booking.status == BookingStatus.CANCELLED
    assert BookingEvent.objects.filter(booking=booking, to_status=BookingStatus.CANCELLED).count() == 1
    assert supplier_sandbox.stats()["cancels"]["total"] == 1
    assert BookingRecord.objects.filter(user=traveller).count() == 1

    # after a reload the old card shows what happened, without buttons
    page.reload()
    old = page.locator(f"[data-card=confirmation][data-pending-id='{pending_id}']")
    expect(old).to_have_attribute("data-status", "EXECUTED")
    expect(old.locator("button")).to_have_count(0)

    context.close()
    assert COMPLAINTS == [], "the browser reported policy violations:\n" + "\n".join(COMPLAINTS)
