"""The operations page in a real browser: staff open it from the admin after `seed_demo --traffic`, see its charts
drawn (inline SVG, no script, nothing the CSP refuses) with the synthetic traffic, and a number opens the admin list
of the rows it counts. Screenshot: docs/screenshots/operations.png."""

import re

import pytest
from django.core.management import call_command
from django.db import connections

from tests.browser.test_end_to_end import COMPLAINTS, SHOTS, _context, _log_in, browser  # noqa: F401 - a fixture

pytestmark = [pytest.mark.browser, pytest.mark.postgres]

CHARTS = ["turns", "latency", "tokens", "supplier", "backlog", "decisions"]


def test_staff_see_the_operations_charts_of_the_demo_traffic_and_open_the_rows_behind_a_number(
    transactional_db,
    live_server,
    browser,  # noqa: F811 - the fixture imported above
):
    try:
        _story(live_server.url, browser)
    finally:
        connections.close_all()  # see test_end_to_end: Playwright's loop keeps the ORM's connection otherwise


def _story(base: str, browser) -> None:  # noqa: F811
    from playwright.sync_api import expect

    from assistant.models import Turn, TurnOutcome
    from operations.overview import operations_overview

    call_command("seed_demo", "--traffic", verbosity=0)
    SHOTS.mkdir(parents=True, exist_ok=True)
    COMPLAINTS.clear()

    context = _context(browser, viewport={"width": 1366, "height": 900})
    page = context.new_page()
    _log_in(page, base, "admin", "admin-2026", path="/admin/login/")
    page.click("#operations-link")
    expect(page).to_have_url(f"{base}/admin/operations/")
    expect(page.locator("h1")).to_have_text("运行概况")

    overview = operations_overview()
    for name in CHARTS:
        chart = page.locator(f"svg.ops-chart[data-chart={name}]")
        expect(chart).to_be_visible()
        shapes = chart.locator("rect.ops-bar, circle.ops-dot")
        assert shapes.count() > 0, f"the {name} chart draws nothing"
        linked = chart.locator("a rect, a circle").count()
        # A past backlog is no list the admin can filter: only the bar of now links (to the waiting tickets).
        waiting_now = 1 if overview.backlog.at_end[-1].value else 0
        assert linked == (waiting_now if name == "backlog" else shapes.count()), f"{name}: {linked} linked"
    # Fourteen days of traffic: a stack of bars on each day of the turns chart.
    days = page.locator("svg.ops-chart[data-chart=turns] a rect").evaluate_all(
        "rects => new Set(rects.map(r => r.getAttribute('x'))).size"
    )
    assert days == 14
    page.screenshot(path=str(SHOTS / "operations.png"), full_page=True)

    # The error count opens the list of exactly those turns.
    errors = Turn.objects.filter(
        outcome=TurnOutcome.ERROR,
        created_at__gte=overview.buckets[0].start,
        created_at__lt=overview.buckets[-1].end,
    ).count()
    link = page.locator("#ops-turns tr[data-outcome=ERROR] a.ops-figure")
    expect(link).to_have_text(str(errors))
    assert 0 < errors <= 50  # one page of the list
    link.click()
    expect(page).to_have_url(re.compile(r"/admin/assistant/turn/\?.*outcome__exact=ERROR"))
    expect(page.locator("#result_list tbody tr")).to_have_count(errors)

    assert COMPLAINTS == [], COMPLAINTS
