"""A booking by keyboard alone, in a real browser (headless Chromium against a live server and the sandbox supplier).

The traveller never touches a mouse: every step is a key press (Tab, Shift+Tab, Enter, Space) or typed text, as
page.keyboard sends them; nothing is clicked or focused by the test. She signs in, types her request with the
passenger's name and mobile; the reply lists two flights and proposes the first on a confirmation card. She
Shift+Tabs back to the second flight's pick button and presses Enter, Tabs on to the new confirmation card's Confirm
(its focus ring showing) and presses Space. The second flight is booked for her and nothing else; the booking card
is on the page; the focus is back in the message box; the page's live region (read out by screen readers) holds the
reply; and Tab leads out of the conversation and round the page (no keyboard trap).
"""

import pytest
from django.db import connections

from tests.browser.test_end_to_end import COMPLAINTS, _context, browser  # noqa: F401 - a fixture

pytestmark = [pytest.mark.browser, pytest.mark.postgres]

REQUEST = "帮我订12月19号上海飞成都的机票，要早上的，张三 13800000000"
MOST_PRESSES = 60  # more than the focusable elements of the page in this story


def test_a_traveller_books_a_flight_with_the_keyboard_alone(
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


def _has_focus(target) -> bool:
    return target.evaluate("(element) => element === document.activeElement")


def _press_until_focused(page, key: str, target) -> int:
    """Press `key` until the focus is on `target` (a locator of one element); returns how many presses it took."""
    for presses in range(1, MOST_PRESSES + 1):
        page.keyboard.press(key)
        if _has_focus(target):
            return presses
    focused = page.evaluate("document.activeElement?.outerHTML.slice(0, 200)")
    pytest.fail(f"{MOST_PRESSES} presses of {key} never reached {target} (the focus is on {focused})")


def _story(base: str, browser, user_factory, supplier_sandbox) -> None:  # noqa: F811
    from playwright.sync_api import expect

    from bookings.models import BookingRecord, BookingStatus

    COMPLAINTS.clear()
    traveller = user_factory("kim", password="kim-2026")
    context = _context(browser)
    page = context.new_page()

    # sign in: the username field has the focus when the page opens
    page.goto(f"{base}/accounts/login/")
    assert _has_focus(page.locator("input[name=username]"))
    page.keyboard.type("kim")
    page.keyboard.press("Tab")
    page.keyboard.type("kim-2026")
    with page.expect_navigation():
        page.keyboard.press("Enter")

    # the request, typed into the message box and sent with Enter
    page.goto(f"{base}/")
    _press_until_focused(page, "Tab", page.locator("#message"))
    page.keyboard.type(REQUEST)
    turns = page.locator("#messages .turn")
    page.keyboard.press("Enter")
    expect(turns).to_have_count(1)
    options = turns.nth(0).locator("[data-card=option]")
    expect(options).to_have_count(2)
    proposed = options.nth(0).get_attribute("data-ref").split("|")[1]
    flight_number = options.nth(1).get_attribute("data-ref").split("|")[1]
    expect(turns.nth(0).locator("[data-card=confirmation]")).to_contain_text(proposed)
    assert flight_number != proposed
    assert not BookingRecord.objects.exists(), "nothing is booked by a search"

    # back up from the message box, past the proposal, to the second flight's pick button, and press it with Enter
    _press_until_focused(page, "Shift+Tab", options.nth(1).locator("button"))
    page.keyboard.press("Enter")
    expect(turns).to_have_count(2)
    card = turns.nth(1).locator("[data-card=confirmation]")
    expect(card).to_contain_text(flight_number)
    expect(card).to_contain_text("张三")
    assert not BookingRecord.objects.exists(), "nothing is booked before the traveller confirms"

    # on to the confirmation card's Confirm, pressed with Space
    confirm = card.locator("button[data-confirm]")
    _press_until_focused(page, "Tab", confirm)
    # where the keyboard is shows: the site's focus ring (3 px in the accent colour), not only the browser's faint one
    ring = confirm.evaluate("(el) => { const s = getComputedStyle(el); return [s.outlineStyle, s.outlineWidth]; }")
    assert ring == ["solid", "3px"], ring
    page.keyboard.press("Space")
    expect(turns).to_have_count(3)
    booked = turns.nth(2).locator("[data-card=booking]")
    expect(booked).to_be_visible()
    expect(booked).to_contain_text(flight_number)
    expect(turns.nth(0).locator("[data-card=confirmation] button[data-confirm]")).to_be_enabled()  # not that one

    # the database: one flight booked for her, unpaid, and nothing else on the supplier or in TripDesk
    booking = BookingRecord.objects.get()
    assert booking.user == traveller
    assert booking.biz_type == "FLIGHT"
    assert booking.status == BookingStatus.PENDING_PAYMENT
    expect(booked).to_have_attribute("data-booking-id", booking.booking_id)
    supplier = supplier_sandbox.stats()
    assert supplier["orders"]["total"] == 1 and supplier["orders"]["byProduct"] == {"flight": 1}, supplier["orders"]
    assert supplier["cancels"]["total"] == 0 and supplier["payments"]["total"] == 0

    # the keyboard is back in the message box, and the live region has the reply for a screen reader
    expect(page.locator("#message")).to_be_focused()
    reply = " ".join(turns.nth(2).locator(".bubble.assistant").inner_text().split())
    announced = page.locator("#chat-announcer")
    expect(announced).to_have_attribute("role", "log")
    expect(announced).to_have_attribute("aria-live", "polite")
    expect(announced.locator("p").last).to_have_text(reply)

    # no keyboard trap: from the message box, Tab goes on round the page to its first link
    _press_until_focused(page, "Tab", page.locator("header.topbar a.brand"))

    context.close()
    assert COMPLAINTS == [], "the browser reported policy violations:\n" + "\n".join(COMPLAINTS)
