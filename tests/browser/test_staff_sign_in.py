"""The approval console's door in a real browser: an approver signs in with the code of their authenticator app;
without it the console stays closed (config/staff.py)."""

import time

import pytest
from django_otp.plugins.otp_totp.models import TOTPDevice

from tests.browser.test_end_to_end import _context, _log_in, browser  # noqa: F401 - a fixture
from tests.browser.test_page_finish import demo_site  # noqa: F401 - a fixture

pytestmark = [pytest.mark.browser, pytest.mark.postgres]


def test_an_approver_signs_in_with_the_code_of_their_authenticator_and_not_without(demo_site, browser):  # noqa: F811
    from playwright.sync_api import expect

    page = _context(browser, locale="en-US").new_page()
    page.goto(f"{demo_site}/admin/login/")
    page.fill("input[name=username]", "approver")
    page.fill("input[name=password]", "approve-2026")
    page.click("form [type=submit]")  # no code: the browser asks for it (a required field)
    expect(page.locator("input[name=code]")).to_be_visible()
    assert page.evaluate("document.querySelector('input[name=code]').validity.valueMissing")

    page.fill("input[name=code]", "000000")
    page.click("form [type=submit]")
    expect(page.locator(".errornote").first).to_contain_text("code")
    page.goto(f"{demo_site}/admin/aftersale/hitlticket/")
    expect(page.locator("input[name=code]")).to_be_visible()  # still the door, not the console

    # A failed code makes the device wait before it takes another (django-otp's throttle: 1 s after one failure)
    device = TOTPDevice.objects.get(user__username="approver")
    deadline = time.monotonic() + 30
    while not device.verify_is_allowed()[0]:
        assert time.monotonic() < deadline, "the device's throttle did not end"
        time.sleep(0.05)
        device.refresh_from_db()
    _log_in(page, demo_site, "approver", "approve-2026", path="/admin/login/")  # with the code now
    page.goto(f"{demo_site}/admin/aftersale/hitlticket/")
    expect(page.locator("#result_list, #changelist")).to_be_visible()
