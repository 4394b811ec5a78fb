"""The live channel (core.live, config/live.py) on the real thing: uvicorn serving the ASGI app, Redis streams."""

import time

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

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
        got = stream.next_event(seconds=5)  # at once, not at the next keep-alive (15 s): its wake-up came
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


# -- who may open a stream, and from where ---------------------------------------------------------------------------


def test_a_visitor_not_signed_in_is_refused_and_holds_no_stream(live_events, client, alice):
    with EventReader(live_events.url, None) as refused:
        assert refused.status == 403
        assert refused.response.getheader("Content-Type").startswith("text/plain")
        assert refused.response.read() == b"Sign in first."
    assert live_events.open_streams() == 0

    with EventReader(live_events.url, _session_key(client, alice)) as signed_in:
        assert signed_in.status == 200
        assert signed_in.next_event().event == live.CHANGED
        _wait_for(lambda: live_events.open_streams() == 1, "the stream to be open")


def test_the_web_server_serves_no_stream_and_a_page_opens_the_live_servers(client, alice, settings):
    settings.LIVE_URL = "http://127.0.0.1:8001/live/events"
    client.force_login(alice)

    # gunicorn (WSGI) would hold a thread per open page: the stream is the live server's alone (config/asgi.py)
    assert client.get("/live/events").status_code == 404
    page = client.get(reverse("assistant:chat")).content.decode()
    assert 'data-live-url="http://127.0.0.1:8001/live/events"' in page
    assert 'id="turn-progress"' in page and "live-news" in page


def test_a_page_of_an_allowed_host_reads_the_stream_with_its_cookies(live_events, client, alice):
    with EventReader(live_events.url, _session_key(client, alice), origin="http://127.0.0.1:8000") as stream:
        assert stream.status == 200
        assert stream.response.getheader("Access-Control-Allow-Origin") == "http://127.0.0.1:8000"
        assert stream.response.getheader("Access-Control-Allow-Credentials") == "true"
        assert stream.next_event().event == live.CHANGED


def test_a_page_of_another_origin_is_not_allowed_to_read_the_stream(live_events, client, alice):
    with EventReader(live_events.url, _session_key(client, alice), origin="http://evil.example") as stream:
        assert stream.status == 200  # the server answers; the browser keeps the answer from that page
        assert stream.response.getheader("Access-Control-Allow-Origin") is None
        assert stream.response.getheader("Access-Control-Allow-Credentials") is None
        assert "Origin" in stream.response.getheader("Vary").split(", ")
        assert stream.next_event().event == live.CHANGED


# -- what an open stream costs ---------------------------------------------------------------------------------------


@pytest.mark.postgres
def test_twenty_open_streams_hold_no_database_connection(live_events, user_factory):
    keys = [_session_key(Client(), user_factory()) for _ in range(20)]
    before = _database_connections()

    streams = [EventReader(live_events.url, key) for key in keys]
    try:
        assert [s.next_event().event for s in streams] == [live.CHANGED] * 20
        _wait_for(lambda: live_events.open_streams() == 20, "the twenty streams to be open")
        during = _database_connections()
    finally:
        for stream in streams:
            stream.close()

    assert during - before <= 2, f"{during - before} more connections with twenty streams open"
    _wait_for(lambda: live_events.open_streams() == 0, "the closed streams to be let go")


def test_a_page_that_goes_away_as_a_push_arrives_is_let_go_at_once(live_events, client, alice):
    # The page leaving cancels its stream; the push's wake-up comes in the same moment. An await that swallowed the
    # cancellation (Python 3.11's wait_for did, redis-py's client does) left the stream running unread for its
    # whole lifetime (15 minutes). A race: twenty times over, each time let go well before a heartbeat.
    key = _session_key(client, alice)
    for _ in range(20):
        with EventReader(live_events.url, key) as stream:
            assert stream.next_event().event == live.CHANGED
            _wait_for(lambda: live_events.open_streams() == 1, "the stream to be open")
        assert live.push(alice.pk, live.PROGRESS, "as it goes")
        _wait_for(lambda: live_events.open_streams() == 0, "the closed stream to be let go", seconds=5)


# -- whose pushes a stream gets --------------------------------------------------------------------------------------


def test_a_push_reaches_only_its_users_streams(live_events, client, alice, user_factory):
    bob = user_factory("bob")
    with (
        EventReader(live_events.url, _session_key(client, alice)) as alices,
        EventReader(live_events.url, _session_key(Client(), bob)) as bobs,
    ):
        assert alices.next_event().event == bobs.next_event().event == live.CHANGED

        for_alice = live.push(alice.pk, live.PROGRESS, "for alice")
        for_bob = live.push(bob.pk, live.PROGRESS, "for bob")

        got = bobs.next_event()
        assert (got.id, got.data) == (for_bob, "for bob")
        got = alices.next_event()
        assert (got.id, got.data) == (for_alice, "for alice")


# -- without Redis ---------------------------------------------------------------------------------------------------


def test_with_redis_down_a_push_is_lost_quietly_and_its_caller_goes_on(redis_process, settings, alice, caplog):
    settings.REDIS_URL = redis_process.url
    assert live.push(alice.pk, live.CHANGED) is not None

    redis_process.kill()
    lost = live.push(alice.pk, live.CHANGED)

    assert lost is None
    assert "live push to user" in caplog.text and "Redis unreachable" in caplog.text


def _database_connections() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()")
        return cursor.fetchone()[0]


def _wait_for(condition, what: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {seconds} s for {what}")
        time.sleep(0.01)
