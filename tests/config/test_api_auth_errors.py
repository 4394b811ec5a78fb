"""401 and 403 on the JSON API, as its schema documents them: 401 NOT_AUTHENTICATED (with a WWW-Authenticate
challenge) for a caller nobody signed in, 403 PERMISSION_DENIED only for a signed-in caller who may not do it (here:
a write without its CSRF token, which the session authentication still checks). Both with the one error body."""

import base64
import uuid

import pytest
from django.test import Client

from aftersale.models import HitlTicket
from assistant.models import Turn
from bookings.models import BookingRecord
from core.authentication import CHALLENGE

pytestmark = pytest.mark.django_db

# A value for every path parameter of the API (none of them names a row: the caller is refused before any lookup).
PATH_VALUES = {
    "booking_id": "BK20261201001",
    "pending_id": str(uuid.uuid4()),
    "plan_id": "no-such-plan",
    "conversation_id": str(uuid.uuid4()),
}
METHODS = {"get", "post", "put", "patch", "delete"}


def operations() -> list[tuple[str, str, dict]]:
    schema = Client().get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    return [
        (method, path, operation)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    ]


def rows() -> tuple[int, int, int]:
    return Turn.objects.count(), BookingRecord.objects.count(), HitlTicket.objects.count()


def call(client: Client, method: str, path: str, **extra):
    url = path.format(**PATH_VALUES)
    if method == "get":
        return client.get(url, **extra)
    return getattr(client, method)(url, {}, content_type="application/json", **extra)


def assert_error_body(response, code: str) -> None:
    body = response.json()
    assert set(body) == {"ok", "code", "message", "data"}, body
    assert body["ok"] is False and body["code"] == code and body["message"], body


def test_every_operation_needs_a_signed_in_caller_and_documents_401_with_its_challenge():
    found = operations()

    assert len(found) >= 10
    for method, path, operation in found:
        assert operation["security"] == [{"cookieAuth": []}], (method, path)
        documented = operation["responses"].get("401")
        assert documented, f"{method} {path} does not document 401"
        assert documented["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
        assert "WWW-Authenticate" in documented["headers"]


def test_an_anonymous_call_to_any_operation_is_401_not_authenticated_with_the_challenge():
    before = rows()

    for method, path, _operation in operations():
        response = call(Client(enforce_csrf_checks=True), method, path)

        assert response.status_code == 401, (method, path, response.status_code)
        assert response["WWW-Authenticate"] == CHALLENGE, (method, path)
        assert_error_body(response, "NOT_AUTHENTICATED")
    assert rows() == before


def test_basic_credentials_are_401_and_the_challenge_asks_for_no_password():
    token = base64.b64encode(b"alice:a-guess").decode()

    response = Client().get("/api/v1/bookings/", headers={"Authorization": f"Basic {token}"})

    assert response.status_code == 401
    assert_error_body(response, "NOT_AUTHENTICATED")
    assert not response["WWW-Authenticate"].lower().startswith("basic")  # no browser password prompt


def test_every_write_documents_403_for_a_signed_in_caller_who_may_not():
    for method, path, operation in operations():
        if method != "get":
            assert "403" in operation["responses"], f"{method} {path} does not document 403"


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/v1/assistant/chat", {"message": "大理有什么活动"}),
        ("/api/v1/aftersale/requests", {"order_id": "ORD-001", "action": "REFUND"}),
        ("/api/v1/bookings/BK20261201001/cancel", {"confirm": True}),
    ],
)
def test_a_signed_in_write_without_its_csrf_token_is_403_permission_denied_and_changes_nothing(alice, path, body):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    before = rows()

    response = client.post(path, body, content_type="application/json")

    assert response.status_code == 403
    assert_error_body(response, "PERMISSION_DENIED")
    assert "WWW-Authenticate" not in response
    assert rows() == before


def test_a_signed_in_caller_is_answered_not_refused(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)

    response = client.get("/api/v1/bookings/")

    assert response.status_code == 200
    assert response.json()["results"] == []
