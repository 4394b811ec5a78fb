"""Guessers are slowed: login lockout (django-axes), no Basic authentication on the API, a per-IP anonymous limit.

The 10th wrong password for a username from one address locks that username at that address for the cool-off; from
then on every attempt, right or wrong, is refused (429) without any password being checked, and the attempt is listed
in the admin. The API authenticates by session (+ CSRF) only, so an `Authorization: Basic` header is ignored and the
request is anonymous. Anonymous requests under /api/ count against a per-IP rate.

The lockout runs as a site with nothing configured has it: the limit is not set here, so these tests fail if the
default ever stops being 10.
"""

import base64
import os
from unittest import mock

import pytest
from axes.models import AccessAttempt, AccessFailureLog
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import MD5PasswordHasher
from django.test import Client
from django.urls import reverse

from tests.security.conftest import snapshot
from tests.support.staff import staff_code

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"
ADMIN_LOGIN = "/admin/login/"
LIMIT = 10  # the wrong passwords that lock a login, with nothing configured (AXES_FAILURE_LIMIT unset)
ALICE_PASSWORD = "alice-2026"
ADMIN_PASSWORD = "admin-2026"


@pytest.fixture(autouse=True)
def _default_limits(settings):
    if os.environ.get("AXES_FAILURE_LIMIT", "").strip():
        pytest.skip("AXES_FAILURE_LIMIT is set in this environment; these tests check the site's default lockout")
    settings.API_ANON_RATE = "60/min"


def log_in(client: Client, username: str, password: str, url: str = LOGIN, code: str = "", **headers):
    return client.post(url, {"username": username, "password": password, "code": code}, headers=headers)


def is_signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


def error_code(response) -> str:
    body = response.json()
    assert set(body) == {"ok", "code", "message", "data"} and body["ok"] is False
    return body["code"]


# -- the login page ------------------------------------------------------------------------------------------------


def test_the_tenth_wrong_password_locks_the_login_form_and_then_even_the_right_one_is_refused(client, demo):
    before = snapshot()

    first = [log_in(client, "alice", f"guess-{n}") for n in range(LIMIT - 1)]
    tenth = log_in(client, "alice", "guess-10")
    eleventh = log_in(client, "alice", "guess-11")
    right = log_in(client, "alice", ALICE_PASSWORD)

    assert {r.status_code for r in first} == {200}
    assert all("用户名或密码不正确" in r.content.decode() for r in first)  # the form's own error, not a lockout
    assert [tenth.status_code, eleventh.status_code, right.status_code] == [429, 429, 429]
    assert "登录失败次数过多" in right.content.decode()
    assert int(right["Retry-After"]) > 0
    assert not is_signed_in(client)
    assert snapshot() == before


def test_a_locked_out_attempt_checks_no_password(client, demo):
    for n in range(LIMIT):
        log_in(client, "alice", f"guess-{n}")

    with mock.patch.object(MD5PasswordHasher, "verify", autospec=True, return_value=True) as verify:
        response = log_in(client, "alice", ALICE_PASSWORD)

    assert response.status_code == 429
    verify.assert_not_called()


def test_the_lockout_page_speaks_the_visitors_language(client, demo):
    for n in range(LIMIT):
        log_in(client, "alice", f"guess-{n}")

    english = log_in(client, "alice", ALICE_PASSWORD, **{"Accept-Language": "en"})
    chinese = log_in(client, "alice", ALICE_PASSWORD, **{"Accept-Language": "zh-hans"})

    assert "Too many failed logins" in english.content.decode()
    assert "Even the right password is refused" in english.content.decode()
    assert "登录失败次数过多" in chinese.content.decode()


def test_an_api_client_that_is_locked_out_gets_the_one_error_body(client, demo):
    for n in range(LIMIT):
        log_in(client, "alice", f"guess-{n}")

    response = log_in(client, "alice", ALICE_PASSWORD, Accept="application/json")

    assert response.status_code == 429
    assert error_code(response) == "RATE_LIMITED"
    assert response.json()["data"]["retry_after"] == int(response["Retry-After"]) > 0


def test_the_admin_lists_the_lockout_for_that_username(client, demo):
    for n in range(LIMIT + 1):
        log_in(client, "alice", f"guess-{n}")
    admin = Client()
    admin.force_login(demo["admin"])

    attempts = admin.get(reverse("admin:axes_accessattempt_changelist"))
    failures = admin.get(reverse("admin:axes_accessfailurelog_changelist"))

    assert attempts.status_code == 200 and "alice" in attempts.content.decode()
    assert failures.status_code == 200 and "alice" in failures.content.decode()
    attempt = AccessAttempt.objects.get(username="alice")
    assert attempt.failures_since_start == LIMIT + 1 and attempt.ip_address == "127.0.0.1"
    assert AccessFailureLog.objects.filter(username="alice", locked_out=True).exists()


def test_the_lock_holds_for_that_username_from_that_address_only(client, demo):
    for n in range(LIMIT):
        log_in(client, "alice", f"guess-{n}")

    bob = log_in(Client(), "bob", "bob-2026")
    alice_elsewhere = log_in(Client(REMOTE_ADDR="203.0.113.7"), "alice", ALICE_PASSWORD)

    assert bob.status_code == 302
    assert alice_elsewhere.status_code == 302


def test_after_nine_wrong_passwords_the_right_one_still_signs_in_and_after_ten_it_is_refused(demo):
    nine, ten = Client(REMOTE_ADDR="198.51.100.9"), Client(REMOTE_ADDR="198.51.100.10")  # one count per address
    for n in range(9):
        log_in(nine, "alice", f"guess-{n}")
    for n in range(10):
        log_in(ten, "alice", f"guess-{n}")

    after_nine = log_in(nine, "alice", ALICE_PASSWORD)
    after_ten = log_in(ten, "alice", ALICE_PASSWORD)

    assert after_nine.status_code == 302 and is_signed_in(nine)
    assert after_ten.status_code == 429 and not is_signed_in(ten)


def test_a_successful_login_resets_the_count(client, demo):
    for n in range(LIMIT - 1):
        log_in(client, "alice", f"guess-{n}")

    signed_in = log_in(client, "alice", ALICE_PASSWORD)
    client.post(reverse("logout"))
    again = [log_in(client, "alice", f"again-{n}") for n in range(LIMIT - 1)]

    assert signed_in.status_code == 302
    assert {r.status_code for r in again} == {200}
    assert AccessAttempt.objects.get(username="alice").failures_since_start == LIMIT - 1
    assert log_in(client, "alice", ALICE_PASSWORD).status_code == 302


# -- the admin login -----------------------------------------------------------------------------------------------


def test_the_admin_login_locks_out_after_ten_wrong_passwords_and_lists_the_attempt(client, demo):
    before = snapshot()

    wrong = [log_in(client, "admin", f"guess-{n}", ADMIN_LOGIN) for n in range(LIMIT + 1)]
    right = log_in(client, "admin", ADMIN_PASSWORD, ADMIN_LOGIN)

    assert {r.status_code for r in wrong[: LIMIT - 1]} == {200}
    assert [r.status_code for r in wrong[LIMIT - 1 :]] == [429, 429]
    assert right.status_code == 429
    assert not is_signed_in(client)
    assert snapshot() == before
    superuser = Client(REMOTE_ADDR="198.51.100.20")
    admin = get_user_model().objects.get(username="admin")
    assert log_in(superuser, "admin", ADMIN_PASSWORD, ADMIN_LOGIN, code=staff_code(admin)).status_code == 302
    listed = superuser.get(reverse("admin:axes_accessattempt_changelist"))
    assert "admin" in listed.content.decode() and "127.0.0.1" in listed.content.decode()


# -- the API: no Basic authentication --------------------------------------------------------------------------------


def test_basic_credentials_on_the_api_are_refused_and_check_no_password(client, demo):
    with mock.patch.object(MD5PasswordHasher, "verify", autospec=True, return_value=True) as verify:
        response = client.get("/api/v1/bookings/", headers={"Authorization": basic("alice", ALICE_PASSWORD)})

    assert response.status_code == 401
    assert error_code(response) == "NOT_AUTHENTICATED"
    verify.assert_not_called()
    assert not AccessAttempt.objects.exists()


def test_a_cross_site_post_with_basic_credentials_changes_nothing(demo):
    client = Client(enforce_csrf_checks=True)
    before = snapshot()

    response = client.post(
        "/api/v1/aftersale/requests",
        {"order_id": "ORD-001", "action": "REFUND"},
        "application/json",
        headers={"Authorization": basic("alice", ALICE_PASSWORD), "Origin": "https://evil.example"},
    )

    assert response.status_code == 401
    assert error_code(response) == "NOT_AUTHENTICATED"
    assert snapshot() == before


# -- anonymous requests per IP -------------------------------------------------------------------------------------


def test_anonymous_api_requests_past_the_rate_get_429_with_the_one_error_body(client, demo, settings):
    settings.API_ANON_RATE = "3/min"
    before = snapshot()

    within = [client.get("/api/v1/bookings/") for _ in range(3)]
    past = client.post("/api/v1/aftersale/requests", {"order_id": "ORD-001", "action": "REFUND"}, "application/json")

    assert [r.status_code for r in within] == [401, 401, 401]
    assert past.status_code == 429
    assert error_code(past) == "RATE_LIMITED"
    assert int(past["Retry-After"]) > 0
    assert snapshot() == before


def test_a_forged_forwarded_for_header_does_not_reset_the_anonymous_rate(client, demo, settings):
    settings.API_ANON_RATE = "3/min"

    statuses = [
        client.get("/api/v1/bookings/", headers={"X-Forwarded-For": f"192.0.2.{n}"}).status_code for n in range(4)
    ]

    assert statuses == [401, 401, 401, 429]


def test_the_anonymous_rate_is_per_address_and_spares_signed_in_travellers(client, demo, settings):
    settings.API_ANON_RATE = "3/min"
    for _ in range(4):
        client.get("/api/v1/bookings/")
    traveller = Client()
    traveller.force_login(demo["alice"])

    other_address = Client(REMOTE_ADDR="203.0.113.9").get("/api/v1/bookings/")
    signed_in = [traveller.get("/api/v1/bookings/").status_code for _ in range(5)]

    assert other_address.status_code == 401
    assert signed_in == [200] * 5


def test_with_the_cache_down_anonymous_api_requests_are_still_answered_not_failed(client, demo, settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "core.cache.SharedClientRedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens there
            "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
        }
    }

    response = client.get("/api/v1/bookings/")

    assert response.status_code == 401
    assert error_code(response) == "NOT_AUTHENTICATED"
