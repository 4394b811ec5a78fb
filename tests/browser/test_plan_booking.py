"""Booking a compared plan, in a real browser: headless Chromium against a live server and the sandbox supplier.

A traveller asks the chat to compare round trips; each plan of the card shows its facts and why it is shown, and a
"预订这个方案" button. Pressing it asks who travels; the answer brings one confirmation card listing the outbound, the
hotel and the return with the total, and nothing is booked; Confirm books every part once, shown as booking cards.
Screenshots: docs/screenshots/chat-plan-comparison.png and chat-plan-booking.png.
"""

import datetime as dt
import re

import pytest
from django.db import connections
from django.utils import timezone

from bookings.models import BookingRecord
from tests.browser.test_end_to_end import COMPLAINTS, SHOTS, _chat_screenshot, _context, _log_in, _say, browser  # noqa: F401 - a fixture

pytestmark = [pytest.mark.browser, pytest.mark.postgres]


def test_compare_round_trips_press_a_plan_s_book_button_confirm_and_see_every_part_booked(
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
    SHOTS.mkdir(parents=True, exist_ok=True)
    user_factory("erin", password="erin-2026")
    context = _context(browser)
    page = context.new_page()
    _log_in(page, base, "erin", "erin-2026")
    page.goto(f"{base}/")

    # compare: one card, each plan with its facts, why it is shown, and its book button; no scores
    depart = timezone.localdate() + dt.timedelta(days=17)
    back = depart + dt.timedelta(days=3)
    turn = _say(
        page, f"{depart.month}月{depart.day}日从上海去成都，{back.month}月{back.day}日回来，帮我比较一下交通和酒店方案"
    )
    card = turn.locator("[data-card=plan_comparison]")
    expect(card).to_be_visible()
    plans = card.locator("li.plan")
    expect(plans.first.locator(".plan-why")).to_contain_text("为什么选它")
    expect(plans.first.locator("[data-part=hotel]")).to_contain_text("入住")
    expect(plans.first.locator("[data-part=hotel]")).to_contain_text("退房")
    expect(card).not_to_contain_text(re.compile(r"综合 \d|时间 \d|价格 \d|偏好 \d"))  # the engine's scores
    assert plans.count() >= 1
    _chat_screenshot(page, "chat-plan-comparison.png")
    chosen = plans.first
    outbound = chosen.locator("[data-part=outbound]").inner_text()
    hotel = chosen.locator("[data-part=hotel] .leg-what").inner_text().split("·")[0].strip()
    total = chosen.locator(".plan-labels .price").inner_text()

    # press its book button: who travels is asked; nothing is booked
    turns = page.locator("#messages .turn")
    before = turns.count()
    chosen.locator("button[data-book-plan]").click()
    expect(turns).to_have_count(before + 1)
    expect(turns.last.locator(".bubble.assistant")).to_contain_text("姓名和手机号")

    # the answer: one confirmation card with every part and the total; still nothing booked
    asked = _say(page, "张三 13800000000")
    confirmation = asked.locator("[data-card=confirmation]")
    expect(confirmation).to_have_count(1)
    facts = confirmation.locator("dl.facts")
    for label in ("去程", "酒店", "回程", "出行人"):
        expect(facts).to_contain_text(label)
    expect(facts).to_contain_text(hotel)
    expect(facts).to_contain_text(outbound.split("·")[0].split()[-1])  # the outbound's number
    expect(confirmation.locator("[data-total]")).to_contain_text(total.replace("¥", "¥").split(".")[0])
    assert BookingRecord.objects.count() == 0
    assert supplier_sandbox.stats()["orders"]["total"] == 0
    _chat_screenshot(page, "chat-plan-booking.png")

    # confirm: every part booked once, each a booking card
    before = turns.count()
    confirmation.locator("button[data-confirm]").click()
    expect(turns).to_have_count(before + 1)
    booked = turns.last.locator("[data-card=booking]")
    expect(booked).to_have_count(3)
    expect(turns.last.locator(".bubble.assistant")).to_contain_text("已预订方案的全部项目")
    assert BookingRecord.objects.count() == 3
    assert sorted(BookingRecord.objects.values_list("biz_type", flat=True)).count("HOTEL") == 1
    assert supplier_sandbox.stats()["orders"]["total"] == 3
    context.close()

    # the same card in English: the supplier's words translated, places by their English names
    user_factory("frank", password="frank-2026")
    context = _context(browser, locale="en-US")
    page = context.new_page()
    _log_in(page, base, "frank", "frank-2026")
    page.goto(f"{base}/")
    turn = _say(page, f"Compare round trips from Shanghai to Chengdu, {depart:%b} {depart.day} to {back:%b} {back.day}")
    card = turn.locator("[data-card=plan_comparison]")
    expect(card.locator(".plan-why").first).to_contain_text("Why this plan:")
    expect(card.locator("[data-part=hotel]").first).to_contain_text("Check-out")
    expect(card).to_contain_text("Shanghai → Chengdu")
    expect(card.locator("button[data-book-plan]").first).to_have_text("Book this plan")
    _chat_screenshot(page, "chat-plan-comparison-en.png")
    context.close()
    assert COMPLAINTS == [], "the browser reported policy violations:\n" + "\n".join(COMPLAINTS)


def test_activity_cards_show_their_covers_and_why_and_the_activity_page_offers_to_ask(
    transactional_db,
    live_server,
    browser,  # noqa: F811 - the fixture imported above
):
    try:
        _activities_story(live_server.url, browser)
    finally:
        connections.close_all()


def _activities_story(base: str, browser) -> None:  # noqa: F811
    from django.core.management import call_command
    from playwright.sync_api import expect

    call_command("seed_demo", verbosity=0)
    COMPLAINTS.clear()
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = _context(browser)
    page = context.new_page()
    _log_in(page, base, "alice", "alice-2026")  # likes hiking and photography
    page.goto(f"{base}/")

    # recommended for her: each card with its picture (served, drawn) and why it was suggested
    turn = _say(page, "推荐热门活动")
    cards = turn.locator("[data-card=activity]")
    expect(cards.first).to_be_visible()
    covers = turn.locator("[data-card=activity] .cover img")
    expect(covers).to_have_count(cards.count())
    covers.first.scroll_into_view_if_needed()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=covers.first.element_handle())
    expect(turn.locator(".why-for-you").first).to_contain_text("为什么推给你")
    expect(turn.locator(".why-for-you").first).to_contain_text("你常选")
    _chat_screenshot(page, "chat-activity-cards.png")

    # the activity page: its picture, "ask the assistant about this", and what to do next
    cards.first.locator("h3 a").click()
    page.wait_for_load_state()
    cover = page.locator(".activity-cover img")
    expect(cover).to_be_visible()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=cover.element_handle())
    expect(page.locator("[data-action=plan]")).to_be_visible()
    title = page.locator("h1").inner_text()
    page.screenshot(path=str(SHOTS / "activity-page.png"), full_page=True)

    page.locator("[data-ask-assistant]").click()
    page.wait_for_load_state()
    expect(page.locator("#message")).to_have_value(re.compile(re.escape(f"关于「{title}」")))

    context.close()
    assert COMPLAINTS == [], "the browser reported policy violations:\n" + "\n".join(COMPLAINTS)
