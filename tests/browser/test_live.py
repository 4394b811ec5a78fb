"""The live channel in a real browser (headless Chromium; the pages from the live server, the event stream from
uvicorn on another port, both on the test database and Redis).

- A turn shows its steps as they happen: with a model that takes 1 s over each call, the first step is on the page
  within 0.5 s of sending, the step's cards arrive before the reply, the reply brings the same cards and the steps
  go.
- An approver's decision is on the traveller's open chat page within 1 s, without a reload and without the page's
  polling (skipped while the channel is open).

Times are read where they happen: the page's own clock for what the page does after sending, this process's
monotonic clock from the decision's commit to the page having the notice (an upper bound: it includes a round trip
to the browser). Screenshot: docs/screenshots/chat-live-progress.png (the steps with their cards).
"""

import json
import re
import time

import pytest
from django.core.management import call_command
from django.db import connections

from tests.browser.test_end_to_end import COMPLAINTS, SHOTS, _context, _log_in, browser  # noqa: F401 - a fixture
from tests.support import fixtures
from tests.support.fake_openai import Reply
from tests.whole.test_tracing import channel_two  # noqa: F401 - a fixture

fake_openai = fixtures.fake_openai
live_events = fixtures.live_events

pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.redis]

MODEL_DELAY = 1.0  # seconds the scripted model takes over every call
FIRST_STEP_MS = 500  # the first step is on the page this soon after sending
DECISION_SHOWN_S = 1.0  # a decision is on the traveller's open page this soon after it is committed
POLL_MS = 6_000  # a little more than the page's polling interval (every 5 s)
OPEN_MS = 15_000
# A page-side wait's end: false after 15 s (the page's timers run in real time until a test moves its clock).
TIMES_OUT = "new Promise((resolve) => setTimeout(() => resolve(false), 15000))"

# What the page does after the traveller sends, by the page's own clock (performance.now): the send, the first
# step, the first card among the steps, the reply's turn; the steps shown (started or done, and their line) and the
# cards among them (their ids), as they were last; `cardsShown`, a promise of the steps' first card.
WATCH_THE_TURN = """() => {
  const box = document.getElementById("turn-progress");
  const messages = document.getElementById("messages");
  const turnsBefore = messages.querySelectorAll(".turn").length;
  const seen = { sent: null, step: null, card: null, turn: null, steps: [], progressCards: [] };
  let cardsShown;
  document.addEventListener("submit", () => { seen.sent ??= performance.now(); }, true);
  new MutationObserver(() => {
    const now = performance.now();
    const steps = box.querySelectorAll(".progress-step");
    if (!steps.length || box.hidden) {
      return;  // cleared when the reply came: what was shown stays recorded
    }
    seen.step ??= now;
    seen.steps = Array.from(steps, (step) => [step.dataset.step, step.querySelector("p").textContent.trim()]);
    const cards = box.querySelectorAll("[data-card]");
    if (cards.length) {
      seen.card ??= now;
      seen.progressCards = Array.from(cards, (card) => card.dataset.id);
      cardsShown(true);
    }
  }).observe(box, { childList: true, subtree: true, attributes: true });
  new MutationObserver(() => {
    if (seen.turn === null && messages.querySelectorAll(".turn").length > turnsBefore) {
      seen.turn = performance.now();
    }
  }).observe(messages, { childList: true, subtree: true });
  window.__cardsShown = new Promise((resolve) => { cardsShown = resolve; });
  window.__turnSeen = seen;
}"""

# Run in the chat page before its own scripts (an init script: the stream's first "changed" comes at once): the
# requests the chat's live part makes (`firstAsked`, a promise of the first; their trigger: "live-news" when the channel said so, "poll" for a poll) and
# the polls it skipped, and a promise of the moment a notice of the ticket (TICKET_NO) is in #messages.
WATCH_THE_NEWS = """(() => {
  const ticketNo = TICKET_NO;
  const news = { asked: [], skipped: 0 };
  let asked;
  news.firstAsked = new Promise((resolve) => { asked = resolve; });
  document.addEventListener("htmx:beforeRequest", (event) => {
    if (event.detail.elt.id === "chat-live") {
      news.asked.push(event.detail.requestConfig?.triggeringEvent?.type ?? "poll");
      asked(true);
    }
  });
  window.addEventListener("htmx:confirm", (event) => {  // after the page's own listener (on document)
    if (event.detail.elt.id === "chat-live" && !event.detail.triggeringEvent && event.defaultPrevented) {
      news.skipped += 1;
    }
  });
  news.shown = new Promise((resolve) => {
    document.addEventListener("DOMContentLoaded", () => {
      const messages = document.getElementById("messages");
      new MutationObserver((_, observer) => {
        if (messages.querySelector(`[data-notice][data-ticket-no="${ticketNo}"]`)) {
          observer.disconnect();
          resolve(true);
        }
      }).observe(messages, { childList: true, subtree: true });
    });
  });
  window.__news = news;
})();"""


@pytest.fixture
def live_site(transactional_db, supplier_sandbox, live_server, live_events, browser):  # noqa: F811
    """The seeded demo site with its live channel, on an address whose cookies the stream's address is sent too
    (127.0.0.1: a cookie is per host, whatever the port)."""
    call_command("seed_demo", verbosity=0)
    COMPLAINTS.clear()
    try:
        yield live_server.url.replace("localhost", "127.0.0.1")
    finally:
        # While Playwright's loop runs (this fixture needs the browser), the ORM's connections are kept per context,
        # not per thread: closed here, before the loop ends, or the test's own stay open (see test_end_to_end).
        connections.close_all()


@pytest.fixture
def slow_model(channel_two, fake_openai):  # noqa: F811 - the fixture imported above
    """The site's assistant is the agent over the scripted model (test_tracing's channel two: 5 s a call at most);
    a call nothing was scripted for fails (500)."""
    fake_openai.set_default(None)
    return fake_openai


def _chat_with_the_channel_open(browser, base: str, *, before_its_scripts: str = ""):  # noqa: F811
    from playwright.sync_api import expect

    # The context's clock (installed by _context) runs in real time until a test moves it: the stream, the swaps
    # and performance.now() go on as they would.
    page = _context(browser).new_page()
    _log_in(page, base, "alice", "alice-2026")
    if before_its_scripts:
        page.add_init_script(before_its_scripts)
    page.goto(f"{base}/")
    expect(page.locator("body")).to_have_attribute("data-live", "open", timeout=OPEN_MS)
    return page


def test_a_turn_shows_its_first_step_at_once_and_its_cards_before_the_reply(
    live_site,
    slow_model,
    browser,  # noqa: F811 - the fixture imported above
):
    from playwright.sync_api import expect

    slow_model.enqueue(
        Reply(
            tool_calls=[{"id": "call_dali", "name": "search_activities", "arguments": {"city": "大理"}}],
            delay=MODEL_DELAY,
        ),
        Reply(content="大理有这些活动可以选。", delay=MODEL_DELAY),
    )
    page = _chat_with_the_channel_open(browser, live_site)
    page.evaluate(WATCH_THE_TURN)
    progress = page.locator("#turn-progress")

    page.fill("#message", "大理有什么活动")
    page.click("#chat-form button[type=submit]")

    assert page.evaluate(f"Promise.race([window.__cardsShown, {TIMES_OUT}])"), "no cards among the steps"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "chat-live-progress.png"))  # the steps with their cards, as the reply is awaited
    turn = page.locator("#messages .turn").last
    expect(turn.locator(".bubble.user")).to_have_text("大理有什么活动")
    expect(turn.locator(".bubble.assistant")).to_be_visible()
    seen = page.evaluate("window.__turnSeen")

    first_step_ms = seen["step"] - seen["sent"]
    assert first_step_ms <= FIRST_STEP_MS, f"the first step came {first_step_ms:.0f} ms after sending"
    # The turn begins, the call starts (what it does, with its place), the call is done: in the page's language.
    assert seen["steps"][:2] == [["started", "正在读取您的消息…"], ["started", "正在查找大理的活动…"]]
    assert seen["steps"][2][0] == "done" and re.fullmatch(r"找到 \d+ 个", seen["steps"][2][1]), seen["steps"]
    assert seen["card"] < seen["turn"], f"the cards came after the reply: {seen}"
    turn_cards = turn.locator("[data-card]")
    assert seen["progressCards"] and turn_cards.count() == len(seen["progressCards"])
    assert [card.get_attribute("data-id") for card in turn_cards.all()] == seen["progressCards"]
    expect(progress).to_be_hidden()
    expect(progress.locator("*")).to_have_count(0)
    requests = slow_model.requests
    assert len(requests) == 2
    assert [m["tool_call_id"] for m in requests[1].messages if m["role"] == "tool"] == ["call_dali"]
    assert not COMPLAINTS  # the stream, from another origin, within the Content-Security-Policy
    print(
        f"first step {first_step_ms:.0f} ms after sending; cards {seen['turn'] - seen['card']:.0f} ms before the "
        f"reply ({seen['card'] - seen['sent']:.0f} ms and {seen['turn'] - seen['sent']:.0f} ms after sending)"
    )


def test_an_approvers_decision_is_on_the_travellers_open_chat_page_within_a_second(
    live_site,
    browser,  # noqa: F811 - the fixture imported above
):
    from django.contrib.auth import get_user_model
    from playwright.sync_api import expect

    from aftersale.services.decisions import ticket_decide
    from aftersale.services.workflow import aftersale_request_submit

    users = {u.username: u for u in get_user_model().objects.filter(username__in=["alice", "approver"])}
    ticket = aftersale_request_submit(
        user=users["alice"], order_id="ORD-001", action="REFUND", reason="行程有变"
    ).ticket
    watch = WATCH_THE_NEWS.replace("TICKET_NO", json.dumps(ticket.ticket_no))
    page = _chat_with_the_channel_open(browser, live_site, before_its_scripts=watch)
    page.evaluate("() => { window.__stillTheSamePage = true; }")  # gone if the page reloads
    # The stream opens with "changed": the page asks for its news once (nothing yet). Then its polls are skipped.
    assert page.evaluate(f"Promise.race([window.__news.firstAsked, {TIMES_OUT}])"), page.evaluate("window.__news")
    page.clock.run_for(POLL_MS)
    assert page.evaluate("window.__news.skipped") >= 1
    assert page.evaluate("window.__news.asked") == ["live-news"]

    ticket_decide(ticket_id=ticket.pk, approver=users["approver"], approve=False, reason="活动已开始，无法退款")
    decided = time.monotonic()
    shown = page.evaluate(f"Promise.race([window.__news.shown, {TIMES_OUT}])")
    shown_after = time.monotonic() - decided

    assert shown, "the decision never reached the open page"
    assert shown_after <= DECISION_SHOWN_S, f"the decision reached the open page {shown_after * 1000:.0f} ms after"
    notice = page.locator(f'#messages [data-notice=REJECTED][data-ticket-no="{ticket.ticket_no}"]')
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("活动已开始，无法退款")
    assert page.evaluate("window.__stillTheSamePage") is True  # no reload
    assert page.evaluate("window.__news.asked") == ["live-news", "live-news"]  # asked when told, never by a poll
    assert not COMPLAINTS
    print(f"decision on the page {shown_after * 1000:.0f} ms after its commit")


def test_a_page_whose_channel_was_refused_polls_and_gets_it_back_once_redis_is(
    redis_process,
    settings,
    live_site,
    browser,  # noqa: F811 - the fixture imported above
):
    """Redis stops: the stream ends, the live server refuses the browser's reconnect (503) and EventSource gives up;
    the page polls, and opens a new stream on its own once Redis answers again (no reload), which then brings a
    decision as it happens."""
    from django.contrib.auth import get_user_model
    from playwright.sync_api import expect

    from aftersale.services.decisions import ticket_decide
    from aftersale.services.workflow import aftersale_request_submit
    from tests.conftest import RedisProcess

    settings.REDIS_URL = redis_process.url  # the live channel's Redis: the test's own, that it may stop
    users = {u.username: u for u in get_user_model().objects.filter(username__in=["alice", "approver"])}
    ticket = aftersale_request_submit(
        user=users["alice"], order_id="ORD-001", action="REFUND", reason="行程有变"
    ).ticket
    watch = WATCH_THE_NEWS.replace("TICKET_NO", json.dumps(ticket.ticket_no))
    page = _chat_with_the_channel_open(browser, live_site, before_its_scripts=watch)
    page.evaluate("() => { window.__stillTheSamePage = true; }")
    body = page.locator("body")

    redis_process.kill()
    expect(body).to_have_attribute("data-live", "off", timeout=OPEN_MS)  # the reconnect was refused
    asked = len(page.evaluate("window.__news.asked"))
    page.clock.run_for(POLL_MS)
    # without the channel, the page polls
    page.wait_for_function(f"window.__news.asked.slice({asked}).includes('poll')", timeout=OPEN_MS)

    restarted = RedisProcess(redis_process.port)
    restarted.start()
    try:
        page.clock.run_for(15_000)  # the page's first wait before opening a refused channel again
        expect(body).to_have_attribute("data-live", "open", timeout=OPEN_MS)
        ticket_decide(ticket_id=ticket.pk, approver=users["approver"], approve=False, reason="活动已开始，无法退款")
        assert page.evaluate(f"Promise.race([window.__news.shown, {TIMES_OUT}])"), "the decision never came"
        expect(page.locator(f'#messages [data-notice=REJECTED][data-ticket-no="{ticket.ticket_no}"]')).to_be_visible()
        assert page.evaluate("window.__news.asked")[-1] == "live-news"  # brought by the channel, not a poll
        assert page.evaluate("window.__stillTheSamePage") is True
    finally:
        restarted.kill()
