"""Waiting for a state, never for a fixed time: poll a predicate until it holds, fail saying what was awaited."""

import time

import pytest

POLL_SECONDS = 0.1  # between two looks at the state; the deadline, not this, bounds the wait


def wait_for(predicate, what: str, seconds: float = 45.0):
    """Poll until `predicate()` is truthy and return its value; fail (saying what) after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {seconds:g} s waiting for {what}")
        time.sleep(POLL_SECONDS)
