"""/metrics: Prometheus' text format for staff or the scrape token, counting what every process did.

The scrape after scripted traffic reads the counters of the web (this test process) and of a real Celery worker
(another process) from the session's multiprocess directory (tests/conftest.py), and checks they moved by exactly
what was sent: the rows the traffic left in the database are the expected counts. A business "no" moves the
rejection counter and never the fault counter."""

import datetime as dt
from collections import Counter

import pytest
from django.core.management import call_command
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families
from rest_framework.test import APIClient

from aftersale.models import HitlTicket, TicketEvent, TicketStatus
from aftersale.services.decisions import ticket_decide
from assistant.models import LLMCall, Turn
from bookings.models import SupplierCall
from core import metrics
from tests.waiting import wait_for

CHAT = "/api/v1/assistant/chat"
TODAY = dt.date(2026, 12, 1)
TOKEN = "scrape-token-0123456789abcdef"


def scrape(client) -> dict[tuple[str, frozenset], float]:
    """Every sample of one scrape: {(sample name, labels): value}."""
    response = client.get("/metrics")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=")
    samples = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def moved(before: dict, after: dict, name: str, *keys: str) -> Counter:
    """How much each series of `name` moved between two scrapes, by the values of the labels `keys`."""
    result: Counter = Counter()
    for (sample, labels), value in after.items():
        if sample != name:
            continue
        delta = value - before.get((sample, labels), 0.0)
        if delta:
            found = dict(labels)
            result[tuple(found[key] for key in keys)] += delta
    return result


def staff_client(django_user_model) -> APIClient:
    staff = django_user_model.objects.create_user("metrics-staff", password="x", is_staff=True)
    client = APIClient()
    client.force_login(staff)
    return client


# --- who may read it ---------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_metrics_answer_staff_and_the_scrape_token_and_refuse_everyone_else(client, django_user_model, settings):
    settings.METRICS_TOKEN = TOKEN
    traveller = django_user_model.objects.create_user("metrics-traveller", password="x")

    anonymous = client.get("/metrics")
    wrong = client.get("/metrics", HTTP_AUTHORIZATION="Bearer not-the-token")
    other_scheme = client.get("/metrics", HTTP_AUTHORIZATION=f"Basic {TOKEN}")
    client.force_login(traveller)
    not_staff = client.get("/metrics")
    client.logout()
    scraper = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    staff = staff_client(django_user_model).get("/metrics")

    for refused, status in [(anonymous, 401), (wrong, 401), (other_scheme, 401), (not_staff, 403)]:
        assert refused.status_code == status
        assert b"tripdesk_" not in refused.content and b"# TYPE" not in refused.content
    assert anonymous["WWW-Authenticate"] == wrong["WWW-Authenticate"] == 'Bearer realm="metrics"'
    for allowed in (scraper, staff):
        assert allowed.status_code == 200
        assert b"# TYPE tripdesk_tickets_open gauge" in allowed.content
        assert "no-cache" in allowed["Cache-Control"] or "no-store" in allowed["Cache-Control"]


@pytest.mark.django_db
def test_without_a_configured_token_no_bearer_token_is_accepted(client, settings):
    settings.METRICS_TOKEN = ""

    for header in ("Bearer ", "Bearer  ", "Bearer x"):
        response = client.get("/metrics", HTTP_AUTHORIZATION=header)
        assert response.status_code == 401 and b"tripdesk_" not in response.content


# --- what the counters mean --------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_supplier_no_is_a_business_rejection_and_a_timeout_a_fault(django_user_model):
    client = staff_client(django_user_model)
    before = scrape(client)

    metrics.supplier_call_observed(
        product="hotel", action="cancelOrder", outcome="REJECTED:NO", fault=False, latency_ms=5
    )
    metrics.supplier_call_observed(product="flight", action="search", outcome="TIMEOUT", fault=True, latency_ms=15_000)
    metrics.supplier_call_observed(product="flight", action="search", outcome="OK", fault=False, latency_ms=80)

    after = scrape(client)
    assert moved(before, after, "tripdesk_business_rejections_total", "reason") == {("supplier:NO",): 1}
    assert moved(before, after, "tripdesk_faults_total", "source") == {("supplier",): 1}
    assert moved(before, after, "tripdesk_supplier_commands_total", "product", "action", "outcome") == {
        ("hotel", "cancelOrder", "REJECTED:NO"): 1,
        ("flight", "search", "TIMEOUT"): 1,
        ("flight", "search", "OK"): 1,
    }
    assert moved(before, after, "tripdesk_supplier_latency_seconds_count", "product", "action") == {
        ("hotel", "cancelOrder"): 1,
        ("flight", "search"): 2,
    }
    assert moved(before, after, "tripdesk_supplier_latency_seconds_sum", "product")[("flight",)] == pytest.approx(15.08)


def test_a_label_from_outside_is_bounded_and_printable():
    assert metrics.label("REJECTED:" + "X" * 100) == "REJECTED:" + "X" * 39
    assert metrics.label('a"b\n{c}') == "a_b__c_"
    assert metrics.label("") == metrics.label(None) == "NONE"


# --- scripted traffic, a real worker ----------------------------------------------------------------------------


@pytest.fixture
def worker_after_sandbox(supplier_sandbox, transactional_db, request):
    """A real worker started after the sandbox store is in the environment it inherits."""
    return request.getfixturevalue("celery_worker_process")


@pytest.mark.worker
@pytest.mark.postgres
def test_a_scrape_after_scripted_traffic_counts_exactly_what_every_process_did(
    worker_after_sandbox, settings, monkeypatch, django_user_model
):
    from config.celery import app

    assert app.conf.task_always_eager is False
    settings.ASSISTANT_LLM_PROVIDER = "rules"
    settings.ASSISTANT_AGENT_ENABLED = False
    real_localdate = timezone.localdate
    monkeypatch.setattr(
        "django.utils.timezone.localdate",
        lambda value=None, timezone=None: TODAY if value is None else real_localdate(value, timezone),
    )
    call_command("seed_demo", verbosity=0)
    alice = django_user_model.objects.get(username="alice")
    approver = django_user_model.objects.get(username="approver")
    scraper = staff_client(django_user_model)
    api = APIClient()
    api.force_authenticate(alice)
    before = scrape(scraper)
    # What this (web) process itself counted so far (earlier tests in this session may have run commands in-process).
    own_bookings = metrics.SUPPLIER_COMMANDS.labels(product="train", action="saveOrder", outcome="OK")._value.get
    own_bookings_before = own_bookings()

    # Six messages: a train booking (its card, then the yes: the supplier's search and saveOrder run on the worker),
    # a refund request (its card, then the yes: a ticket), a return the policy refuses (a business "no"), and one
    # past the daily limit.
    asked = api.post(CHAT, {"message": "帮我订12月22号成都到重庆的火车票，张三 13800000000"}, format="json")
    assert asked.status_code == 200 and [c for c in asked.json()["cards"] if c["type"] == "confirmation"]
    booked = api.post(CHAT, {"message": "确认", "session_id": asked.json()["session_id"]}, format="json")
    assert booked.status_code == 200
    card = api.post(CHAT, {"message": "订单ORD-001我要退款，行程有变"}, format="json").json()
    refund = api.post(CHAT, {"message": "确认", "session_id": card["session_id"]}, format="json").json()
    refused = api.post(CHAT, {"message": "ord-002 申请退货，东西不合适"}, format="json").json()
    settings.ASSISTANT_DAILY_TURN_LIMIT = 5
    limited = api.post(CHAT, {"message": "你好"}, format="json").json()
    assert (refund["outcome"], refused["outcome"], limited["outcome"]) == ("ANSWERED", "REJECTED", "RATE_LIMITED")
    # The approver approves the refund; the worker executes it (the supplier's refund, on the worker too).
    ticket = HitlTicket.objects.get(idempotency_key="wfa:REFUND:ORD-001")
    ticket_decide(ticket_id=ticket.pk, approver=approver, approve=True, reason="")
    wait_for(
        lambda: (
            HitlTicket.objects.filter(pk=ticket.pk, status=TicketStatus.EXECUTED).exists()
            and moved(before, scrape(scraper), "tripdesk_ticket_execution_seconds_count", "kind")
        ),
        "the worker's execution of the refund, counted",
    )

    after = scrape(scraper)
    turns = Counter((t.intent or "NONE", t.outcome) for t in Turn.objects.all())
    assert sum(turns.values()) == 5  # the turn past the limit was refused before it became one: only counted
    assert moved(before, after, "tripdesk_turns_total", "intent", "outcome") == turns
    assert moved(before, after, "tripdesk_rate_limited_turns_total", "limit") == {("daily",): 1}
    assert moved(before, after, "tripdesk_understanding_fallbacks_total", "provider") == {}
    calls = Counter((c.provider, c.purpose, c.outcome) for c in LLMCall.objects.all())
    assert calls and moved(before, after, "tripdesk_llm_calls_total", "provider", "purpose", "outcome") == calls
    tokens = sum(c.prompt_tokens + c.completion_tokens for c in LLMCall.objects.all())
    assert sum(moved(before, after, "tripdesk_llm_tokens_total", "kind").values()) == tokens

    # Supplier commands: counted by the worker process that ran them, one for each SupplierCall row.
    commands = Counter(SupplierCall.objects.values_list("product", "action", "outcome"))
    assert commands[("train", "saveOrder", "OK")] == 1 and any(action == "refund" for _, action, _ in commands)
    assert moved(before, after, "tripdesk_supplier_commands_total", "product", "action", "outcome") == commands
    assert own_bookings() == own_bookings_before, (
        "this (web) process ran no supplier command itself: the count came from the worker's file"
    )

    # Tickets: each status entered once, as its events say; one decision and one execution timed.
    entered = Counter(TicketEvent.objects.values_list("ticket__kind", "to_status"))
    assert moved(before, after, "tripdesk_ticket_transitions_total", "kind", "status") == entered
    assert entered[("WORKFLOW", "EXECUTED")] == 1
    assert moved(before, after, "tripdesk_ticket_decision_seconds_count", "kind", "decision") == {
        ("WORKFLOW", "APPROVED"): 1
    }
    assert moved(before, after, "tripdesk_ticket_execution_seconds_count", "kind") == {("WORKFLOW",): 1}
    assert after[("tripdesk_tickets_open", frozenset({("kind", "WORKFLOW"), ("status", "PENDING")}))] == 0

    # The one business "no" is counted as such, and nothing at all as a fault.
    assert moved(before, after, "tripdesk_business_rejections_total", "reason") == {("aftersale:INELIGIBLE",): 1}
    assert moved(before, after, "tripdesk_faults_total", "source") == {}


@pytest.mark.django_db
def test_staff_signed_in_with_a_password_alone_read_no_metrics(client, django_user_model):
    django_user_model.objects.create_user("metrics-staff-password", password="x-long-password", is_staff=True)
    signed_in = client.post("/accounts/login/", {"username": "metrics-staff-password", "password": "x-long-password"})
    assert signed_in.status_code == 302 and "_auth_user_id" in client.session  # the site's form: no second factor

    response = client.get("/metrics")

    assert response.status_code == 403 and b"tripdesk_" not in response.content
    assert b"authenticator" in response.content
    assert staff_client(django_user_model).get("/metrics").status_code == 200  # with it: read
