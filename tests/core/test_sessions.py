"""Login sessions read from Redis and kept in the database (core.sessions): a signed-in request reads no session
row while Redis answers, and a Redis outage logs nobody out, keeps sign-in and sign-out working, and leaves no
signed-out session behind once Redis is back."""

import pytest
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from core.sessions import CACHE_SECONDS
from tests.conftest import RedisProcess

pytestmark = pytest.mark.django_db

PASSWORD = {"username": "alice", "password": "pass-1234"}


@pytest.fixture
def cached_sessions(settings, redis_process):
    settings.SESSION_ENGINE = "core.sessions"
    return redis_process


def signed_in(client: Client) -> bool:
    page = client.get("/")
    return page.status_code == 200 and b'id="chat-form"' in page.content


def session_reads(client: Client) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert signed_in(client)
    return sum('FROM "django_session"' in q["sql"] for q in queries.captured_queries)


def test_a_signed_in_page_reads_its_session_from_redis_not_from_its_row(alice, client, cached_sessions):
    client.post("/accounts/login/", PASSWORD)

    assert session_reads(client) == 0
    assert Session.objects.filter(session_key=client.session.session_key).exists()  # the row is the record


def test_a_session_missing_from_redis_is_read_from_its_row_and_cached_again(alice, client, cached_sessions):
    client.post("/accounts/login/", PASSWORD)
    cached_sessions.kill()
    empty = RedisProcess(cached_sessions.port)  # an empty Redis on the same port
    empty.start()
    try:
        assert session_reads(client) == 1
        assert session_reads(client) == 0
    finally:
        empty.kill()  # a server of the test's own: none outlives it


def test_with_redis_down_travellers_stay_signed_in_and_can_sign_out_and_in(alice, client, cached_sessions):
    client.post("/accounts/login/", PASSWORD)
    key = client.session.session_key
    assert signed_in(client)

    cached_sessions.kill()

    assert signed_in(client)  # from the row
    assert client.post("/accounts/logout/").status_code == 302
    assert not Session.objects.filter(session_key=key).exists()
    assert client.get("/").status_code == 302  # signed out
    assert client.post("/accounts/login/", PASSWORD).status_code == 302
    assert signed_in(client)


def test_a_session_stays_in_redis_at_most_a_quarter_of_an_hour(alice, client, cached_sessions, settings):
    """A logout while Redis is down cannot delete the cached copy; if that Redis comes back with its data, the copy
    is used until it expires: at most CACHE_SECONDS, not the session's two weeks."""
    import redis

    settings.SESSION_COOKIE_AGE = 14 * 24 * 3600
    client.post("/accounts/login/", PASSWORD)
    store = redis.Redis.from_url(cached_sessions.url)

    (key,) = store.keys(f"*{client.session.session_key}")
    assert 0 < store.ttl(key) <= CACHE_SECONDS
