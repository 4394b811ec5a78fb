"""A traveller's conversation history in a real browser (headless Chromium against a live server, seeded demo data).

Three conversations; the history panel lists them, the current one marked; the traveller reopens the oldest (its
turns and activity cards come back), asks to delete another, changes their mind (Keep it), then deletes it. On a
390 px phone the folded panel takes one line and the chat stays in view.

Screenshots land in docs/screenshots/ (chat-history.png on a desktop, chat-history-phone.png on a phone: the list with
the current conversation marked and a delete confirmation open).
"""

import pytest

from tests.browser.test_end_to_end import COMPLAINTS, SHOTS, _context, _log_in, _say, browser  # noqa: F401 - a fixture
from tests.browser.test_page_finish import DESKTOP, PHONE, demo_site  # noqa: F401 - a fixture

pytestmark = [pytest.mark.browser, pytest.mark.postgres]

# Three conversations, oldest first: the first message of each is its title in the list.
CONVERSATIONS = ["大理有什么活动", "黄山下周徒步，2000以内", "你好"]


def _new_conversation(page) -> None:
    with page.expect_navigation():
        page.click("form[action='/chat/new'] button[type=submit]")


def _item(page, title: str):
    return page.locator(".history-item", has_text=title)


@pytest.mark.parametrize("screen", [PHONE, DESKTOP], ids=["phone 390 px", "desktop"])
def test_the_history_reopens_an_older_conversation_and_deletes_one_after_asking(demo_site, browser, screen):  # noqa: F811
    from playwright.sync_api import expect

    context = _context(browser, **screen)
    page = context.new_page()
    _log_in(page, demo_site, "alice", "alice-2026")
    page.goto(f"{demo_site}/")
    for number, message in enumerate(CONVERSATIONS):
        if number:
            _new_conversation(page)
        _say(page, message)
    page.reload()

    # Folded, the panel is one line above the chat: the current conversation's turn is in view below it.
    history = page.locator("#history")
    summary = history.locator("> summary")
    expect(summary).to_be_visible()
    expect(summary.locator(".history-count")).to_have_text("3")
    expect(history.locator(".history-list")).to_be_hidden()
    assert summary.bounding_box()["height"] < 60
    turn = page.locator("#messages .turn").first
    assert turn.bounding_box()["y"] < screen["viewport"]["height"] - 120, "the chat is pushed off-screen"

    # Unfolded: newest first, the current one marked.
    summary.click()
    items = history.locator(".history-item")
    expect(items).to_have_count(3)
    expect(items.nth(0)).to_contain_text("你好")
    expect(items.nth(2)).to_contain_text("大理有什么活动")
    expect(items.nth(0)).to_have_attribute("aria-current", "true")
    expect(items.nth(0).locator(".history-badge")).to_have_text("当前")

    # Reopen the oldest: its turn and activity cards come back, marked current.
    with page.expect_navigation():
        _item(page, "大理有什么活动").locator("button.history-title").click()
    expect(page.locator("#messages .bubble.user")).to_have_text(["大理有什么活动"])
    expect(page.locator("#messages [data-card=activity]").first).to_be_visible()
    page.locator("#history > summary").click()
    expect(_item(page, "大理有什么活动")).to_have_attribute("aria-current", "true")

    # Delete asks first; Keep it folds the question away and nothing is deleted.
    doomed = _item(page, "黄山下周徒步")
    doomed.locator(".history-delete > summary").click()
    confirm = doomed.locator(".history-confirm")
    expect(confirm).to_be_visible()
    expect(confirm).to_contain_text("删除这段对话及其 1 条消息？删除后无法恢复。")
    box = confirm.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= screen["viewport"]["width"], box  # whole, even on a phone
    doomed.get_by_role("button", name="保留").click()
    expect(confirm).to_be_hidden()
    doomed.locator(".history-delete > summary").click()
    expect(confirm).to_be_visible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    name = "chat-history-phone.png" if screen is PHONE else "chat-history.png"
    page.screenshot(path=str(SHOTS / name))
    with page.expect_navigation():
        confirm.get_by_role("button", name="删除").click()

    # Deleted: the panel says so and lists what is left; the reopened conversation is still the current one.
    expect(page.locator("#history .history-done")).to_have_text("对话已删除。")
    expect(page.locator("#history .history-item")).to_have_count(2)
    expect(_item(page, "黄山下周徒步")).to_have_count(0)
    expect(_item(page, "大理有什么活动")).to_have_attribute("aria-current", "true")
    expect(page.locator("#messages .bubble.user")).to_have_text(["大理有什么活动"])
    context.close()
    assert COMPLAINTS == [], "the browser reported policy violations:\n" + "\n".join(COMPLAINTS)
