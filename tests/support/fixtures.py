"""Pytest fixtures of the test support kit (imported by tests/conftest.py)."""

import copy

import pytest

from tests.support.fake_openai import FakeOpenAI
from tests.support.live_events import LiveEventsServer


@pytest.fixture
def fake_openai():
    """A local OpenAI-compatible server for this test: `.base_url`, `.enqueue(...)`, `.script(...)`, `.requests`."""
    server = FakeOpenAI().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def live_events(transactional_db, settings):
    """The live channel's ASGI server (uvicorn serving config.asgi, in this process and on the test database, as
    `run.sh` runs it beside the web server): `.url` of its event stream, `.open_streams()`; the site's pages are
    told to open it (LIVE_URL, and the CSP's connect-src for its origin). Needs Redis (mark the test `redis`)."""
    server = LiveEventsServer().start()
    settings.LIVE_URL = server.url
    policy = copy.deepcopy(settings.CONTENT_SECURITY_POLICY)
    policy["DIRECTIVES"]["connect-src"] = ["'self'", server.origin]
    settings.CONTENT_SECURITY_POLICY = policy
    try:
        yield server
    finally:
        server.stop()
