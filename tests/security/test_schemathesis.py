"""Property-based tests of the JSON API against its own OpenAPI schema (schemathesis, through the WSGI app).

Signed in as the demo traveller alice (a session cookie and the CSRF token, as the chat page sends them: the API has
no Basic authentication; the demo data seeded), every operation gets at most 25 generated requests, derandomized: no
answer is a 5xx, and every answer has a documented status code and matches its documented schema.
"""

import pytest
import schemathesis
from django.conf import settings
from django.middleware.csrf import get_token
from django.test import Client, RequestFactory
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance, status_code_conformance

from config.wsgi import application

schema = schemathesis.openapi.from_wsgi("/api/v1/schema/", application)

TRAVELLER = "alice"  # a demo traveller


def signed_in(user) -> dict:
    """What a signed-in page sends: its session and CSRF cookies, and the CSRF token in the header HTMX sets."""
    client = Client()
    client.force_login(user)  # no request is made: the test's connection stays open (see below)
    page = RequestFactory().get("/")
    token = get_token(page)  # what {% csrf_token %} puts in a page; the cookie carries its secret
    cookies = {
        settings.SESSION_COOKIE_NAME: client.cookies[settings.SESSION_COOKIE_NAME].value,
        settings.CSRF_COOKIE_NAME: page.META["CSRF_COOKIE"],
    }
    return {"headers": {"X-CSRFToken": token}, "cookies": cookies}


@pytest.fixture(autouse=True)
def _unlimited_turns(settings):
    settings.ASSISTANT_DAILY_TURN_LIMIT = 100_000


@pytest.fixture(autouse=True)
def _keep_the_test_connection_open():
    """As Django's test client does: a request through the raw WSGI app must not close the test's connection
    (on PostgreSQL that would end the test transaction)."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@schema.parametrize()
@hypothesis_settings(
    max_examples=25,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@pytest.mark.django_db
def test_every_api_operation_answers_within_its_schema(case, demo):
    case.call_and_validate(
        **signed_in(demo[TRAVELLER]),
        checks=[not_a_server_error, response_schema_conformance, status_code_conformance],
    )
