"""The pages pass axe-core, in a real browser (headless Chromium against a live server, seeded demo data).

axe-core (npm, pinned in package-lock.json; scripts/test.sh installs it into node_modules) checks each page as a
reader meets it, in Chinese and in English: the chat after a conversation that shows every kind of card (once while a
confirmation card waits with its buttons, once at the end), the conversation history opened with a delete
confirmation showing, My bookings, My requests, and the approval console's ticket list and a ticket's page, signed
in as the demo approver. No violation of impact "serious" or "critical" is allowed; a failure lists each one (rule,
impact, the elements it found and axe's summary of what to fix).

The browser contexts run with Playwright's `bypass_csp` (test only). The site's Content-Security-Policy refuses an
inline <script> (script-src 'self'), which is what `add_script_tag` inserts, and also the <style> in which axe parses
the pages' stylesheets again (its CSSOM preload, read by css-orientation-lock): under the policy that rule would be
blind. axe is given to every page of a context as an init script (`add_init_script`, the file from node_modules).
The pages have no inline style for the bypass to let in: the other browser tests check the same pages under their
real policy (COMPLAINTS).
"""

from pathlib import Path

import pytest

from tests.browser.test_end_to_end import _context, _log_in, _say, browser  # noqa: F401 - a fixture
from tests.browser.test_page_finish import demo_site  # noqa: F401 - a fixture

pytestmark = [pytest.mark.browser, pytest.mark.postgres]

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")

# A conversation that shows every kind of card (tests/whole/test_pages_in_one_language.py walks the same), in each language. The
# booking's confirmation card is checked while it waits (its buttons shown) before the yes.
CONVERSATIONS = {
    "zh-hans": {
        "before": [
            "大理有什么活动",
            "明天杭州天气怎么样",
            "帮我规划三天丽江行程",
            "上海到成都12月19日去22日回，有哪些组合",
            "12月11日北京到天津的火车",
            "帮我订12月19号上海飞成都的机票，要早上的，张三 13800000000",
            "选第1个",
        ],
        "after": ["确认", "订单ORD-001质量问题我要退款", "确认"],
    },
    "en": {
        "before": [
            "activities in Dali",
            "weather in Hangzhou tomorrow",
            "plan a 3-day trip to Lijiang",
            "Shanghai to Chengdu, Dec 19 to 22, what are the options",
            "trains from Beijing to Tianjin on Dec 11",
            "book a flight from Shanghai to Chengdu on Dec 19 in the morning, Zhang San 13800000000",
            "Pick 1",
        ],
        "after": ["confirm", "refund order ORD-001, it arrived broken", "confirm"],
    },
}
LOCALES = {"zh-hans": "zh-CN", "en": "en-US"}


@pytest.fixture
def axe_source():
    if not AXE.exists():
        from django.conf import settings

        why = f"axe-core is not installed ({AXE.relative_to(AXE.parents[2])}: scripts/test.sh runs `npm ci`)"
        if settings.TRIPDESK_REQUIRE_SERVICES:
            pytest.fail(f"{why}, and TRIPDESK_REQUIRE_SERVICES=1")
        pytest.skip(why)
    return AXE


def blocking_violations(page) -> list[dict]:
    """axe-core's serious and critical violations on the page as it is now: rule, impact, where, what to fix."""
    found = page.evaluate(
        """async () => {
          const results = await axe.run(document);
          return results.violations.map((v) => ({
            id: v.id,
            impact: v.impact,
            help: v.help,
            nodes: v.nodes.map((n) => ({ target: n.target.join(" "), summary: n.failureSummary })),
          }));
        }"""
    )
    return [v for v in found if v["impact"] in BLOCKING]


def report(results: dict[str, list[dict]]) -> str:
    lines = []
    for where, violations in results.items():
        for v in violations:
            lines.append(f"{where}: {v['id']} ({v['impact']}): {v['help']}")
            lines += [f"    {n['target']}\n      {n['summary']}".replace("\n", "\n      ") for n in v["nodes"][:8]]
    return "\n".join(lines)


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_every_page_a_traveller_and_an_approver_use_has_no_serious_accessibility_violation(
    demo_site,  # noqa: F811 - the fixture imported above
    browser,  # noqa: F811 - the fixture imported above
    axe_source,
    language,
):
    from playwright.sync_api import expect

    results: dict[str, list[dict]] = {}
    context = _context(browser, locale=LOCALES[language], bypass_csp=True)
    context.add_init_script(path=str(axe_source))
    page = context.new_page()
    _log_in(page, demo_site, "alice", "alice-2026")
    page.goto(f"{demo_site}/")
    if page.locator("html").get_attribute("lang") != language:
        with page.expect_navigation():
            page.select_option("select[name=language]", language)
    expect(page.locator("html")).to_have_attribute("lang", language)

    conversation = CONVERSATIONS[language]
    for message in conversation["before"]:
        _say(page, message)
    expect(page.locator("[data-card=confirmation] button[data-confirm]")).to_be_visible()
    for kind in ("activity", "weather", "travel_plan", "plan_comparison", "option"):
        assert page.locator(f"[data-card={kind}]").count(), f"the conversation shows no {kind} card"
    results["chat, a confirmation card waiting"] = blocking_violations(page)
    for message in conversation["after"]:
        _say(page, message)
    expect(page.locator("[data-card=booking]").first).to_be_visible()
    expect(page.locator("[data-card=ticket]").first).to_be_visible()
    ticket_no = page.locator("[data-card=ticket]").last.get_attribute("data-ticket-no")
    results["chat, after a booking and a refund request"] = blocking_violations(page)

    # the history: a second conversation, so the first is listed with its Delete; opened, its confirmation showing
    with page.expect_navigation():
        page.click("form[action='/chat/new'] button[type=submit]")
    _say(page, conversation["before"][0])
    page.reload()
    page.locator("#history > summary").click()
    page.locator(".history-item:not(.is-current) .history-delete > summary").first.click()
    expect(page.locator(".history-item:not(.is-current) .history-confirm").first).to_be_visible()
    results["chat, the history with a delete confirmation"] = blocking_violations(page)

    page.goto(f"{demo_site}/bookings/")
    expect(page.locator("#bookings-body")).to_have_attribute("data-refreshed", "ok")
    results["My bookings"] = blocking_violations(page)
    page.goto(f"{demo_site}/aftersale/")
    expect(page.locator("main h1")).to_be_visible()
    results["My requests"] = blocking_violations(page)

    console = _context(browser, locale=LOCALES[language], viewport={"width": 1440, "height": 900}, bypass_csp=True)
    console.add_init_script(path=str(axe_source))
    admin = console.new_page()
    _log_in(admin, demo_site, "approver", "approve-2026", path="/admin/login/?next=/admin/")
    admin.goto(f"{demo_site}/admin/aftersale/hitlticket/")
    expect(admin.locator("html")).to_have_attribute("lang", language)
    expect(admin.get_by_role("link", name=ticket_no)).to_be_visible()
    results["console, the ticket list"] = blocking_violations(admin)
    admin.get_by_role("link", name=ticket_no).click()
    expect(admin.locator(".ticket-evidence")).to_be_visible()
    results["console, a ticket"] = blocking_violations(admin)

    console.close()
    context.close()
    found = {where: violations for where, violations in results.items() if violations}
    assert not found, "axe-core found serious or critical violations:\n" + report(found)
