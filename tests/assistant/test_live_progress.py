"""A turn's progress on the traveller's open page (assistant.progress): a chat turn sent with the page's live token
pushes its steps to that page as it runs (reading the message, the search it starts, what the search found with its
cards); a turn sent without a token, or with a malformed one, pushes none; with Redis down the turn still answers."""

import json
import re

import pytest
from django.urls import reverse

from core import live
from tests.support import fixtures
from tests.support.live_events import EventReader

pytestmark = [pytest.mark.redis]

live_events = fixtures.live_events

TOKEN = "page-7f3a9c21"
SEARCH = "大理有什么活动"
HTMX = {"HTTP_HX_REQUEST": "true", "HTTP_ACCEPT_LANGUAGE": "zh-hans"}
CARD = re.compile(r'data-card="activity" data-id="(\d+)"')


def test_a_turn_sent_with_the_pages_token_shows_its_steps_and_the_cards_it_found(
    live_events, client, alice, dali, channel
):
    client.force_login(alice)
    with EventReader(live_events.url, client.cookies["sessionid"].value) as stream:
        assert stream.next_event().event == live.CHANGED

        response = client.post(reverse("assistant:send"), {"message": SEARCH, "live_token": TOKEN}, **HTMX)

        steps = [stream.next_event() for _ in range(3)]
    assert response.status_code == 200
    answered = CARD.findall(response.content.decode())
    assert answered == [str(dali.pk)]
    assert [step.event for step in steps] == [live.PROGRESS] * 3
    reading, searching, found = (json.loads(step.data) for step in steps)
    assert {reading["token"], searching["token"], found["token"]} == {TOKEN}
    # The new lines have no Chinese translation yet: the first step is checked for being a started step with a line.
    assert 'data-step="started"' in reading["html"] and re.search(r'<p class="muted">\S', reading["html"])
    assert 'data-step="started"' in searching["html"] and "大理" in searching["html"]
    assert 'data-step="done"' in found["html"]
    assert CARD.findall(found["html"]) == answered  # the same cards the reply then shows


@pytest.mark.parametrize("token", [None, "<x>"], ids=["no token", "a malformed token"])
def test_a_turn_sent_without_a_valid_token_pushes_no_progress(live_events, client, alice, dali, token):
    client.force_login(alice)
    sent = {"message": SEARCH, **({"live_token": token} if token else {})}
    with EventReader(live_events.url, client.cookies["sessionid"].value) as stream:
        assert stream.next_event().event == live.CHANGED

        response = client.post(reverse("assistant:send"), sent, **HTMX)
        sentinel = live.push(alice.pk, live.CHANGED, "after the turn")

        got = stream.next_event()
    assert CARD.findall(response.content.decode()) == [str(dali.pk)]  # the turn answered, with its card
    assert (got.id, got.event, got.data) == (sentinel, live.CHANGED, "after the turn")


def test_with_redis_down_a_turn_sent_with_a_token_still_answers(redis_process, settings, client, alice, dali):
    settings.REDIS_URL = redis_process.url
    client.force_login(alice)
    redis_process.kill()
    assert live.push(alice.pk, live.CHANGED) is None  # nothing reaches the page now

    response = client.post(reverse("assistant:send"), {"message": SEARCH, "live_token": TOKEN}, **HTMX)

    assert response.status_code == 200
    assert CARD.findall(response.content.decode()) == [str(dali.pk)]
