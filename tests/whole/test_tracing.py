"""One trace id per turn, followed through every process it reaches: the web request, the Turn and LLMCall rows,
the Celery task on a real worker, the supplier program's environment, the BookingEvent and SupplierCall rows, and
the log lines of the web and of the worker. Also: the headers (traceparent, X-Request-ID), the log filter, and the
agent's tool steps stored with the turn and shown under it in the admin."""

import contextlib
import datetime as dt
import io
import json
import logging
import re
import uuid
from pathlib import Path

import pytest
from celery.signals import before_task_publish
from django.utils import timezone
from rest_framework.test import APIClient

from assistant.models import LLMCall, Turn
from assistant.services import chat_turn
from bookings.models import BookingEvent, BookingRecord, SupplierCall
from bookings.platform import PLATFORM_TASK, PlatformCommand, PlatformError, platform_call
from bookings.supplier_program import child_environment
from config.logfilters import TraceIdFilter
from core import tracing
from core.tracing import current_trace_id, format_traceparent, parse_traceparent, request_id_trace_id, trace
from tests.support import fixtures
from tests.support.fake_openai import Reply
from tests.support.model import use_scripted_model
from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parents[2]
WORKER_LOG = ROOT / "var" / "test-worker.log"
TODAY = dt.date(2026, 12, 1)
HEX32 = re.compile(r"^[0-9a-f]{32}$")
CHAT = "/api/v1/assistant/chat"

fake_openai = fixtures.fake_openai


# --- the mechanism -------------------------------------------------------------------------------------------------


def test_a_w3c_traceparent_gives_its_trace_id_and_a_malformed_one_gives_none():
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"

    assert parse_traceparent(f"00-{trace_id}-00f067aa0ba902b7-01") == trace_id
    assert parse_traceparent(f"01-{trace_id}-00f067aa0ba902b7-00-future-field") == trace_id  # a later version
    for bad in [
        "",
        None,
        f"00-{trace_id}-00f067aa0ba902b7",  # no flags
        f"00-{trace_id.upper()}-00f067aa0ba902b7-01",  # upper case
        f"ff-{trace_id}-00f067aa0ba902b7-01",  # version ff
        f"00-{'0' * 32}-00f067aa0ba902b7-01",  # all-zero trace id
        f"00-{trace_id}-{'0' * 16}-01",  # all-zero parent
        f"00-{trace_id}-00f067aa0ba902b7-01-extra",  # version 00 has exactly four fields
        f"00-{trace_id[:-1]}-00f067aa0ba902b7-01",
    ]:
        assert parse_traceparent(bad) is None, bad
    made = format_traceparent(trace_id)
    assert parse_traceparent(made) == trace_id and made.endswith("-01")


def test_an_x_request_id_is_honoured_when_it_names_a_trace_id_and_anything_else_is_not():
    given = uuid.uuid4()

    assert request_id_trace_id(str(given)) == given.hex
    assert request_id_trace_id(given.hex.upper()) == given.hex
    for bad in ["", "abc", "x" * 65, given.hex + "0", "<script>alert(1)</script>", given.hex[:-2] + "$$", "0" * 32]:
        assert request_id_trace_id(bad) is None, bad


def test_trace_sets_an_id_for_its_block_and_gives_the_previous_one_back():
    assert current_trace_id() == ""
    with trace() as outer:
        assert HEX32.match(outer) and current_trace_id() == outer
        with trace("not an id") as inner:  # an invalid id is replaced by a fresh one
            assert HEX32.match(inner) and inner != outer
        assert current_trace_id() == outer
    assert current_trace_id() == ""


@pytest.mark.django_db
def test_every_response_names_its_trace_and_a_bad_request_id_is_replaced(client):
    given = str(uuid.uuid4())
    honoured = client.get("/healthz", HTTP_X_REQUEST_ID=given)
    replaced = client.get("/healthz", HTTP_X_REQUEST_ID="../../etc/passwd; DROP TABLE")
    fresh = client.get("/healthz")
    parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    traced = client.get("/healthz", HTTP_TRACEPARENT=parent, HTTP_X_REQUEST_ID=given)

    assert honoured["X-Request-ID"] == given
    assert parse_traceparent(honoured["traceparent"]) == uuid.UUID(given).hex
    assert HEX32.match(replaced["X-Request-ID"]) and "passwd" not in str(replaced.headers)
    assert parse_traceparent(replaced["traceparent"]) == replaced["X-Request-ID"]
    assert HEX32.match(fresh["X-Request-ID"]) and fresh["X-Request-ID"] != replaced["X-Request-ID"]
    assert traced["X-Request-ID"] == "4bf92f3577b34da6a3ce929d0e0e4736"  # the caller's trace wins
    assert traced["traceparent"] != parent and parse_traceparent(traced["traceparent"]) == traced["X-Request-ID"]


def test_a_task_carries_the_trace_in_its_headers_and_runs_under_it():
    class Task:
        class request:
            pass

    headers: dict = {}
    with trace() as sent:
        tracing.celery_before_task_publish(headers=headers)
    assert headers["trace_id"] == sent and parse_traceparent(headers["traceparent"]) == sent

    Task.request.trace_id = headers["trace_id"]
    tracing.celery_task_prerun(task_id="t1", task=Task)
    assert current_trace_id() == sent
    tracing.celery_task_postrun(task_id="t1")
    assert current_trace_id() == ""

    Task.request.trace_id = None  # sent outside any trace (the beat): the task gets a trace of its own
    tracing.celery_task_prerun(task_id="t2", task=Task)
    assert HEX32.match(current_trace_id())
    tracing.celery_task_postrun(task_id="t2")
    assert current_trace_id() == ""


def test_the_supplier_program_gets_the_trace_in_its_environment_and_nothing_outside_one():
    assert "TRIPDESK_TRACE_ID" not in child_environment("sbx_key") and "TRACEPARENT" not in child_environment("k")
    with trace() as trace_id:
        env = child_environment("sbx_key")
    assert env["TRIPDESK_TRACE_ID"] == trace_id and parse_traceparent(env["TRACEPARENT"]) == trace_id


def test_every_log_line_carries_the_trace_id_in_text_and_in_json():
    from pythonjsonlogger.json import JsonFormatter

    from config.settings.logging import LOGGING

    record = logging.LogRecord("tripdesk.test", logging.INFO, __file__, 1, "hello %s", ("there",), None)
    with trace() as trace_id:
        TraceIdFilter().filter(record)
    text = logging.Formatter(LOGGING["formatters"]["text"]["format"]).format(record)
    spec = LOGGING["formatters"]["json"]
    line = json.loads(JsonFormatter(spec["fmt"], rename_fields=spec["rename_fields"]).format(record))

    assert f"[{trace_id}]" in text and text.endswith("hello there")
    assert (line["trace_id"], line["message"]) == (trace_id, "hello there")


# --- supplier calls ----------------------------------------------------------------------------------------------

CONTACT = {"name": "张三", "mobile": "13812345678"}


@pytest.mark.django_db
def test_each_supplier_command_is_one_row_and_a_business_no_is_not_a_fault(supplier_sandbox, admin_client):
    key = "sbx_" + "k" * 20
    with trace() as trace_id:
        platform_call(
            PlatformCommand("flight", "search", {"from": "上海", "to": "杭州", "date": "2026-12-05"}), api_key=key
        )
        with pytest.raises(PlatformError):
            platform_call(PlatformCommand("hotel", "cancelOrder", {"orderId": "HT1"}), api_key=key)
        supplier_sandbox.fault("flight.search=fail")
        with pytest.raises(PlatformError):
            platform_call(PlatformCommand("flight", "search", {"from": "上海", "to": "杭州"}), api_key=key)

    rows = list(SupplierCall.objects.order_by("id").values_list("product", "action", "outcome", "fault", "trace_id"))
    assert rows == [
        ("flight", "search", "OK", False, trace_id),
        ("hotel", "cancelOrder", "REJECTED:HOTEL_NO_ONLINE_CANCEL", False, trace_id),  # the supplier said no
        ("flight", "search", "REJECTED:PLATFORM_ERROR", True, trace_id),  # the supplier is broken: a fault
    ]
    assert [c["command"] for c in supplier_sandbox.traces()[trace_id]] == ["flight.search", "hotel.cancelOrder"]

    # The admin lists them read only; the faults are one filter away.
    faults = admin_client.get("/admin/bookings/suppliercall/?fault__exact=1")
    assert faults.status_code == 200
    assert [row.outcome for row in faults.context["cl"].result_list] == ["REJECTED:PLATFORM_ERROR"]
    assert "REJECTED:PLATFORM_ERROR" in faults.content.decode()
    assert "/admin/bookings/suppliercall/add/" not in faults.content.decode()


# --- the agent's steps ---------------------------------------------------------------------------------------------


@pytest.fixture
def channel_two(settings, fake_openai):
    return use_scripted_model(
        settings, fake_openai, key="sk-test-steps-0123456789", agent=True, timeout=5, daily_turn_limit=1000
    )


def save_order_command(flight_no: str) -> str:
    args = {"flightNo": flight_no, "date": "2026-12-05", "from": "上海", "to": "杭州", "contactTourist": CONTACT}
    return f"supplier call flight saveOrder -a '{json.dumps(args, ensure_ascii=False)}'"


@pytest.mark.django_db
def test_a_channel_two_turn_stores_its_tool_steps_scrubbed_and_the_admin_shows_them_under_the_turn(
    alice, admin_client, supplier_sandbox, channel_two, fake_openai
):
    search = 'supplier call flight search -a \'{"from": "上海", "to": "杭州", "date": "2026-12-05"}\''
    fake_openai.enqueue(
        Reply(
            tool_calls=[
                {"id": "s1", "name": "execute_platform_command", "arguments": {"command": search}},
                {"id": "x1", "name": "no_such_tool", "arguments": {"api_key": "sk-leak-123456", "q": 1}},
            ]
        ),
        Reply(tool_calls=[{"id": "b1", "name": "execute_platform_command", "arguments": {"command": "MU5101"}}]),
        Reply(content="done"),
    )

    result = chat_turn(user=alice, message="帮我订12月5日上海到杭州的航班，乘机人张三 13812345678", today=TODAY)

    turn = Turn.objects.get()
    steps = list(turn.steps.order_by("id"))
    assert [(s.iteration, s.tool, s.ok, s.code) for s in steps] == [
        (1, "execute_platform_command", True, ""),
        (1, "no_such_tool", False, "UNKNOWN_TOOL"),
        (2, "execute_platform_command", False, "INVALID_PARAM"),
    ]
    assert steps[1].arguments == {"api_key": "[redacted]", "q": 1}
    assert all(s.trace_id == turn.trace_id and HEX32.match(s.trace_id) for s in steps)
    assert {c.trace_id for c in LLMCall.objects.filter(turn=turn)} == {turn.trace_id}
    assert result.meta["turn_id"] == turn.pk

    # A confirmation card's saveOrder: its mobile number is masked in the stored step.
    flight_no = _first_flight(alice)
    fake_openai.enqueue(
        Reply(
            tool_calls=[
                {
                    "id": "b2",
                    "name": "execute_platform_command",
                    "arguments": {"command": save_order_command(flight_no)},
                }
            ]
        ),
        Reply(content="ok"),
    )
    chat_turn(user=alice, message="订MU的那班", conversation_id=result.conversation_id, today=TODAY)
    booking_turn = Turn.objects.order_by("id").last()
    [step] = booking_turn.steps.all()
    stored = json.dumps(step.arguments, ensure_ascii=False)
    assert (step.tool, step.code) == ("execute_platform_command", "CONFIRMATION_REQUIRED")
    assert "138****5678" in stored and "13812345678" not in stored

    page = admin_client.get(f"/admin/assistant/turn/{booking_turn.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "execute_platform_command" in html and "CONFIRMATION_REQUIRED" in html
    assert "138****5678" in html and "13812345678" not in html


def _first_flight(user) -> str:
    from bookings.accounts import supplier_account_ensure

    key = supplier_account_ensure(user=user).api_key
    found = platform_call(
        PlatformCommand("flight", "search", {"from": "上海", "to": "杭州", "date": "2026-12-05"}), api_key=key
    )
    return found["flights"][0]["flightNo"]


# --- one booking turn, end to end, across processes ----------------------------------------------------------------


@contextlib.contextmanager
def web_log() -> io.StringIO:
    """What the web process's configured log handler (LOGGING's console: the trace filter and the formatter) writes,
    captured for the block."""
    root = logging.getLogger()
    handler = next(h for h in root.handlers if any(isinstance(f, TraceIdFilter) for f in h.filters))
    stream = io.StringIO()
    previous = handler.setStream(stream)
    try:
        yield stream
    finally:
        handler.setStream(previous)


def worker_lines(trace_id: str, *wanted: str, timeout: float = 30) -> list[str]:
    """The worker's log lines that carry `trace_id`, once one line holding all of `wanted` is among them (the worker
    may log a task's success just after its result is stored)."""

    def lines() -> list[str]:
        text = WORKER_LOG.read_text(errors="replace") if WORKER_LOG.exists() else ""
        found = [line for line in text.splitlines() if trace_id in line]
        return found if any(all(w in line for w in wanted) for line in found) else []

    return wait_for(lines, f"the worker's log line with {trace_id} and {wanted}", seconds=timeout)


@pytest.fixture
def published_platform_tasks():
    """The message headers of every platform task this process sends."""
    sent: list[dict] = []

    def remember(sender=None, headers=None, **_):
        if sender == PLATFORM_TASK:
            sent.append(dict(headers or {}))

    before_task_publish.connect(remember, weak=False)
    yield sent
    before_task_publish.disconnect(remember)


@pytest.fixture
def traced_worker(supplier_sandbox, transactional_db, request):
    """A real worker started after the sandbox store is in the environment it inherits."""
    return request.getfixturevalue("celery_worker_process")


@pytest.mark.worker
@pytest.mark.postgres
def test_one_booking_turn_has_one_trace_id_in_every_row_process_and_log_line(
    traced_worker, supplier_sandbox, user_factory, settings, monkeypatch, published_platform_tasks
):
    from config.celery import app

    settings.ASSISTANT_LLM_PROVIDER = "rules"
    settings.ASSISTANT_AGENT_ENABLED = False
    real_localdate = timezone.localdate
    monkeypatch.setattr(
        "django.utils.timezone.localdate",
        lambda value=None, timezone=None: TODAY if value is None else real_localdate(value, timezone),
    )
    assert app.conf.task_always_eager is False
    traveller = user_factory("traced-traveller")
    api = APIClient()
    api.force_authenticate(traveller)

    # A booking is two turns, each one trace: the card (the message is read, the train searched and priced), then
    # the traveller's yes, which books. The first request names its own id; the second sends none.
    request_id = str(uuid.uuid4())
    with web_log() as web:
        asked = api.post(
            CHAT,
            {"message": "帮我订12月22号成都到重庆的火车票，张三 13800000000"},
            format="json",
            HTTP_X_REQUEST_ID=request_id,
        )
        assert asked.status_code == 200, asked.content
        assert [c for c in asked.json()["cards"] if c["type"] == "confirmation"]
        booked = api.post(CHAT, {"message": "确认", "session_id": asked.json()["session_id"]}, format="json")
    assert booked.status_code == 200, booked.content

    # The ids: the traveller's is honoured and returned; the yes without one gets a fresh one.
    assert asked["X-Request-ID"] == request_id
    card_trace = uuid.UUID(request_id).hex
    trace_id = booked["X-Request-ID"]
    assert HEX32.match(trace_id) and trace_id != card_trace
    assert (
        parse_traceparent(asked["traceparent"]) == card_trace and parse_traceparent(booked["traceparent"]) == trace_id
    )

    # The rows. The card's turn and its model calls (the message read by the model port, audited):
    card_turn, turn = Turn.objects.filter(user=traveller).order_by("id")
    assert card_turn.trace_id == card_trace
    calls = list(LLMCall.objects.filter(turn=card_turn))
    assert calls and {c.trace_id for c in calls} == {card_trace}
    # The booking turn: its row, the tool it ran, every model call it made (the yes is read by code: none needed),
    # the booking's event and the supplier's saveOrder.
    assert turn.trace_id == trace_id
    assert [(s.tool, s.ok, s.trace_id) for s in turn.steps.all()] == [("book_option", True, trace_id)]
    assert all(c.trace_id == trace_id for c in LLMCall.objects.filter(turn=turn))
    booking = BookingRecord.objects.get(user=traveller)
    [event] = BookingEvent.objects.filter(booking=booking)
    assert event.trace_id == trace_id
    [save] = SupplierCall.objects.filter(action="saveOrder")
    assert (save.product, save.outcome, save.fault, save.trace_id) == ("train", "OK", False, trace_id)
    assert set(SupplierCall.objects.values_list("trace_id", flat=True)) == {card_trace, trace_id}

    # The Celery tasks: sent with the turn's trace in their headers, run under it by the real worker.
    assert {headers.get("trace_id") for headers in published_platform_tasks} == {card_trace, trace_id}
    lines = worker_lines(trace_id, "bookings.tasks.platform_command", "succeeded")
    assert any("bookings.platform" in line and "train saveOrder outcome=OK" in line for line in lines), lines
    assert any("bookings.tasks.platform_command" in line and "succeeded" in line for line in lines), lines
    card_lines = worker_lines(card_trace, "bookings.tasks.platform_command", "succeeded")
    assert any("bookings.platform" in line and "train search outcome=OK" in line for line in card_lines), card_lines
    assert not any(trace_id in line for line in card_lines)

    # The supplier program ran each command with its turn's trace in its environment.
    commands = supplier_sandbox.traces()
    assert [c["command"] for c in commands[trace_id]][-1] == "train.saveOrder"
    assert "train.saveOrder" not in [c["command"] for c in commands[card_trace]]
    assert "train.search" in [c["command"] for c in commands[card_trace]]
    assert {parse_traceparent(c["traceparent"]) for c in commands[trace_id]} == {trace_id}

    # The web's own log lines of each turn carry its id.
    text = web.getvalue()
    assert any("assistant.turn" in line and trace_id in line for line in text.splitlines()), text[-2000:]
    assert any("assistant.turn" in line and card_trace in line for line in text.splitlines()), text[-2000:]
