"""A PostgreSQL connection dropped mid-request: the request fails with a clear error and leaves no partial rows;
the next request (Django re-checks the connection at each request start: CONN_HEALTH_CHECKS) works.

The request's own backend is killed from a second connection with `pg_terminate_backend`, at two points: while
the turn waits on the model (a fake-OpenAI responder does it), and inside the turn's final transaction (between
the Turn insert and the insert of its model calls).
"""

import psycopg
import pytest
from django.conf import settings as django_settings
from django.db import close_old_connections, connection
from django.db.utils import DatabaseError
from rest_framework.test import APIClient

from assistant.models import LLMCall, Turn
from assistant.services import chat_turn
from tests.support import fixtures
from tests.support.fake_openai import Reply
from tests.support.model import use_scripted_model

fake_openai = fixtures.fake_openai
pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

UNDERSTOOD = {"intent": "SEARCH_ACTIVITIES", "destination_keywords": ["大理"]}


def _other_connection() -> psycopg.Connection:
    db = django_settings.DATABASES["default"]
    return psycopg.connect(
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"] or "postgres",
        dbname=db["NAME"],
        autocommit=True,
    )


def terminate(pid: int) -> None:
    with _other_connection() as other:
        assert other.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone()[0] is True


def terminate_every_other_backend() -> int:
    """Kill whatever connection the request holds on the test database (this test is its only user)."""
    with _other_connection() as other:
        rows = other.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
    return len(rows)


def backend_pid() -> int:
    connection.ensure_connection()
    return connection.connection.info.backend_pid


@pytest.fixture
def api(alice, settings, fake_openai):
    use_scripted_model(settings, fake_openai, key="sk-test-db", model="db-fault-model", timeout=5)
    client = APIClient(raise_request_exception=False)
    client.force_authenticate(alice)
    return client


def partial_rows() -> dict[str, int]:
    return {
        "turns_without_their_call": Turn.objects.filter(provider="openai", llm_calls__isnull=True).count(),
        "calls_without_a_turn": LLMCall.objects.filter(purpose="understand", turn__isnull=True).count(),
    }


def assert_the_next_request_works(api) -> None:
    close_old_connections()  # what Django runs at every request start (request_started): drops the dead link
    response = api.post("/api/v1/assistant/chat", {"message": "大理有什么活动"}, format="json")
    assert response.status_code == 200
    turn = Turn.objects.get(pk=Turn.objects.latest("pk").pk)
    assert turn.llm_calls.count() == 1


def test_the_connections_killed_while_the_turn_waits_on_the_model(api, fake_openai):
    backend_pid()  # the request starts with a live connection
    killed = []

    def kill_then_answer(_request):
        killed.append(terminate_every_other_backend())
        return Reply(content=UNDERSTOOD)

    fake_openai.set_default(kill_then_answer)

    response = api.post("/api/v1/assistant/chat", {"message": "大理有什么活动"}, format="json")

    assert len(killed) == 1
    # The turn gives its connection back before the remote model call and takes a fresh, health-checked one after:
    # the kill costs it nothing, and the turn completes with its audit linked.
    assert response.status_code == 200, response.content
    assert response.json()["intent"]["intent"] == "SEARCH_ACTIVITIES"
    close_old_connections()
    assert Turn.objects.count() == 1
    assert Turn.objects.get().llm_calls.count() == 1
    assert partial_rows() == {"turns_without_their_call": 0, "calls_without_a_turn": 0}

    fake_openai.set_default(Reply(content=UNDERSTOOD))
    assert_the_next_request_works(api)


def test_the_connection_killed_inside_the_turn_s_final_transaction_leaves_no_turn_without_its_audit(
    alice, api, fake_openai
):
    fake_openai.set_default(Reply(content=UNDERSTOOD))
    fired = []

    def kill_before_linking(execute, sql, params, many, context):
        if not fired and sql.lstrip().upper().startswith("INSERT") and "assistant_llmcall" in sql:
            fired.append(sql)
            terminate(context["connection"].connection.info.backend_pid)  # the connection running this UPDATE
        return execute(sql, params, many, context)

    with connection.execute_wrapper(kill_before_linking), pytest.raises(DatabaseError):
        # in-process so the error itself is seen: the turn raises, it does not answer as if it were saved
        chat_turn(user=alice, message="大理有什么活动")

    assert fired
    close_old_connections()
    assert Turn.objects.count() == 0  # the Turn insert was rolled back with its transaction
    assert LLMCall.objects.filter(turn__isnull=False).count() == 0
    assert_the_next_request_works(api)
