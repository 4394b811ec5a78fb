"""A person when asked for, in a real browser (headless Chromium against a live server, seeded demo data).

The traveller asks for a person on the chat page; the demo approver (support staff) opens the hand-over in the admin
queue, reads the conversation and sends a reply; the reply appears on the traveller's open chat page without a
reload (the page's live part, polled every few seconds: the page's clock is moved on, nothing sleeps). Then staff
close it, and the page says the assistant is back.
"""

import pytest

from tests.browser.test_end_to_end import _context, _log_in, _say, browser  # noqa: F401 - a fixture
from tests.browser.test_page_finish import demo_site  # noqa: F401 - a fixture

pytestmark = [pytest.mark.browser, pytest.mark.postgres]

POLL_MS = 6_000  # a little more than the page's polling interval (every 5 s)
REPLY = "您好，我是客服 Ada，请问是哪一个订单？"


def test_staff_answer_a_hand_over_in_the_admin_and_the_reply_appears_on_the_chat_page(demo_site, browser):  # noqa: F811
    from playwright.sync_api import expect

    from assistant.models import Handover

    traveller = _context(browser).new_page()
    _log_in(traveller, demo_site, "alice", "alice-2026")
    traveller.goto(f"{demo_site}/")
    turn = _say(traveller, "我要找人工客服")
    expect(turn.locator(".bubble.assistant")).to_contain_text("工作人员")
    handover = Handover.objects.get()

    staff = _context(browser, locale="en-US").new_page()
    _log_in(staff, demo_site, "approver", "approve-2026", path="/admin/login/")
    staff.goto(f"{demo_site}/admin/assistant/handover/")
    staff.get_by_role("link", name=str(handover.pk), exact=True).click()
    expect(staff.locator("#handover-answer")).to_be_visible()
    expect(staff.locator(".handover-table").first).to_contain_text("我要找人工客服")
    staff.fill("#handover-answer textarea[name=body]", REPLY)
    with staff.expect_navigation():
        staff.get_by_role("button", name="Send reply").click()
    expect(staff.locator(".messagelist")).to_contain_text("sent to the traveller")

    traveller.clock.run_for(POLL_MS)
    staff_message = traveller.locator("#messages [data-staff-message=staff]")
    expect(staff_message).to_contain_text(REPLY)
    expect(staff_message).to_contain_text("工作人员")  # the frame in the reader's language
    assert traveller.locator("#messages .bubble.user").all_inner_texts() == ["我要找人工客服"]  # no reload, no resend

    with staff.expect_navigation():
        staff.get_by_role("button", name="Close: the assistant answers again").click()
    traveller.clock.run_for(POLL_MS)
    expect(traveller.locator("#messages [data-staff-message=back]")).to_contain_text("助手回来了")
