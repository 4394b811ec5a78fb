"""The live channel (core.live, config/live.py) on the real thing: uvicorn serving the ASGI app, Redis streams."""

import time

import pytest

from core import live
from tests.support import fixtures
from tests.support.live_events import EventReader

pytestmark = [pytest.mark.redis]

live_events = fixtures.live_events


def _session_key(client, user) -> str:
    client.force_login(user)
    return client.cookies["sessionid"].value


def test_a_push_reaches_the_open_stream_and_a_reconnect_resumes_after_the_last_event(live_events, client, alice):
    key = _session_key(client, alice)
    with EventReader(live_events.url, key) as stream:
        assert stream.status == 200
        assert stream.next_event().event == live.CHANGED  # every connection starts by asking for the news
        first = live.push(alice.pk, live.PROGRESS, "one")
        got = stream.next_event()
        assert (got.id, got.event, got.data) == (first, live.PROGRESS, "one")

    second = live.push(alice.pk, live.PROGRESS, "two")
    third = live.push(alice.pk, live.CHANGED)
    with EventReader(live_events.url, key, last_event_id=first) as again:
        assert again.next_event().event == live.CHANGED
        replayed = [again.next_event(), again.next_event()]
        fourth = live.push(alice.pk, live.PROGRESS, "four")
        replayed.append(again.next_event())
    assert [(e.id, e.data) for e in replayed] == [(second, "two"), (third, ""), (fourth, "four")]
    _wait_for(lambda: live_events.open_streams() == 0, "the closed streams to be let go")


def _wait_for(condition, what: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {seconds} s for {what}")
        time.sleep(0.01)
