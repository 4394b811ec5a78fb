"""The payment countdown says the time left from the first paint: the server writes "29:59" (what the page's script
then counts down each second), not the deadline's clock time, on My bookings and on the chat's booking card."""

import datetime as dt
import re

import pytest
from django.template.loader import render_to_string
from django.utils import timezone, translation

from assistant.cards import booking_card
from tests.bookings.test_booking_life import book_flight

pytestmark = pytest.mark.django_db

COUNTDOWN = re.compile(r'<span class="countdown" data-deadline="[^"]+"[^>]*>([^<]*)</span>')


def _countdowns(html: str) -> list[str]:
    return COUNTDOWN.findall(html)


def test_my_bookings_shows_the_minutes_left_to_pay_before_any_script_runs(client, alice, supplier_sandbox):
    booking = book_flight(alice)
    client.force_login(alice)

    html = client.get("/bookings/").content.decode()

    deadline = timezone.localtime(booking.pay_deadline).strftime("%H:%M")
    (shown,) = _countdowns(html)
    assert re.fullmatch(r"(29|30):\d\d", shown), shown  # the sandbox gives 30 minutes to pay
    assert shown != deadline
    assert "剩余 <span" in html


@pytest.mark.parametrize(("language", "label"), [("en", "time left"), ("zh-hans", "剩余")])
def test_the_chat_booking_card_shows_the_time_left_in_the_readers_language(alice, supplier_sandbox, language, label):
    booking = book_flight(alice)
    card = booking_card(booking)

    with translation.override(language):
        html = render_to_string("assistant/partials/card_booking.html", {"card": card})

    (shown,) = _countdowns(html)
    assert re.fullmatch(r"(29|30):\d\d", shown), shown
    assert f"{label} <span" in html
    assert card["pay_deadline_label"] not in shown


@pytest.mark.parametrize(("language", "expired"), [("en", "none: payment time is up"), ("zh-hans", "0，支付时间已到")])
def test_a_row_past_its_deadline_says_the_time_is_up_without_the_script(
    client, alice, supplier_sandbox, language, expired
):
    booking = book_flight(alice)
    booking.pay_deadline = timezone.now() - dt.timedelta(seconds=5)  # the supplier has not expired it yet
    booking.save(update_fields=["pay_deadline"])

    with translation.override(language):
        html = render_to_string("bookings/partials/row.html", {"booking": booking})

    assert _countdowns(html) == [expired]
