"""Pytest fixtures of the test support kit (imported by tests/conftest.py)."""

import pytest

from tests.support.fake_openai import FakeOpenAI


@pytest.fixture
def fake_openai():
    """A local OpenAI-compatible server for this test: `.base_url`, `.enqueue(...)`, `.script(...)`, `.requests`."""
    server = FakeOpenAI().start()
    try:
        yield server
    finally:
        server.stop()
