"""The traveller's pages in English, chosen with the switcher on the page, in a real browser: the choice holds on
every page after it and on the next login (remembered per user), and each page reads in English. Screenshots for
the README: docs/screenshots/*-en.png (their Chinese twins come from the other browser tests)."""

import re

import pytest
from django.core.management import call_command
from django.db import connections

from core.models import LanguagePreference
from tests.browser.test_end_to_end import COMPLAINTS, SHOTS, _chat_screenshot, _context, _log_in, _say, browser  # noqa: F401 - a fixture

pytestmark = [pytest.mark.browser, pytest.mark.postgres]

# Han characters: an English page shows them only inside names (a hotel, an activity, "Hangzhou (杭州)").
HAN = re.compile(r"[\u3400-\u9fff]")


def test_a_traveller_switches_to_english_and_every_page_follows(
    transactional_db,
    live_server,
    browser,  # noqa: F811 - the fixture imported above
):
    try:
        _story(live_server.url, browser)
    finally:
        connections.close_all()  # see test_end_to_end: Playwright's loop keeps the ORM's connection otherwise


def _headings_are_english(page) -> None:
    for heading in page.locator("th, button, nav a, label").all_inner_texts():
        assert not HAN.search(heading), f"Chinese in an English page's heading or button: {heading!r}"


def _story(base: str, browser) -> None:  # noqa: F811
    from playwright.sync_api import expect

    call_command("seed_demo", verbosity=0)
    COMPLAINTS.clear()
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = _context(browser)  # a Chinese browser
    page = context.new_page()
    _log_in(page, base, "alice", "alice-2026")
    page.goto(f"{base}/")
    expect(page.locator("#message")).to_have_attribute("placeholder", re.compile("大理"))

    # the switcher on the page: English from here on, remembered for her
    with page.expect_navigation():
        page.select_option("select[name=language]", "en")
    expect(page.locator("#message")).to_have_attribute("placeholder", "e.g. Dali this weekend, budget 2000")
    assert LanguagePreference.objects.get(user__username="alice").language == "en"

    turn = _say(page, "Recommend popular activities")
    expect(turn.locator("[data-card=activity]").first).to_be_visible()
    expect(turn.locator(".why-for-you").first).to_contain_text("Why for you")
    _headings_are_english(page)
    _chat_screenshot(page, "chat-activity-cards-en.png")

    turn.locator("[data-card=activity] h3 a").first.click()
    page.wait_for_load_state()
    expect(page.locator("[data-ask-assistant]")).to_contain_text("Ask the assistant")
    cover = page.locator(".activity-cover img")
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=cover.element_handle())
    _headings_are_english(page)
    page.screenshot(path=str(SHOTS / "activity-page-en.png"), full_page=True)

    page.goto(f"{base}/bookings/")
    expect(page.locator("h1")).to_have_text("My bookings")
    _headings_are_english(page)
    page.screenshot(path=str(SHOTS / "my-bookings-en.png"), full_page=True)

    page.goto(f"{base}/aftersale/")
    expect(page.locator("h1")).to_have_text("My requests")
    expect(page.locator("#aftersale-orders")).to_be_visible()
    _headings_are_english(page)
    page.screenshot(path=str(SHOTS / "my-requests-en.png"), full_page=True)
    context.close()

    # another browser, still Chinese, on her next login: her choice follows her
    again = _context(browser)
    page = again.new_page()
    _log_in(page, base, "alice", "alice-2026")
    page.goto(f"{base}/bookings/")
    expect(page.locator("h1")).to_have_text("My bookings")
    again.close()
    assert COMPLAINTS == [], "the browser reported policy violations:\n" + "\n".join(COMPLAINTS)
