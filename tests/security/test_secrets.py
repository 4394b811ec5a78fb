"""Secrets never leave their place: the model key and the supplier keys are in no log line, audit row, error,
page or API answer, whatever happens (good turns with both providers, bookings, a 401 from the model, a supplier
that refuses the key)."""

import json
import logging

import pytest
from django.apps import apps
from django.test import Client
from rest_framework.test import APIClient

from assistant.models import Turn
from assistant.services import chat_turn
from bookings.models import BookingRecord, SupplierAccount
from tests.assistant.conftest import TODAY
from tests.support import fixtures
from tests.support.fake_openai import Reply
from tests.support.model import use_scripted_model

fake_openai = fixtures.fake_openai
pytestmark = pytest.mark.django_db

MODEL_KEY = "sk-secret-MODELKEY-7f3a9c2e1b"
SUPPLIER_KEY = "sbx_secret-SUPPLIERKEY-4d8e2a"
BAD_SUPPLIER_KEY = "wrong-secret-BADSUPPLIERKEY-91c"
SECRETS = [MODEL_KEY, SUPPLIER_KEY, BAD_SUPPLIER_KEY, "MODELKEY", "SUPPLIERKEY"]
FLIGHT = "帮我订12月5日上海到杭州最便宜的航班，乘机人张三 13800000000"


def assert_clean(text: str, where: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"a secret ({secret[:12]}…) is in {where}"


def assert_no_row_holds_a_secret() -> None:
    """Every row of every model, except the one column that is the supplier key's home."""
    for model in apps.get_models():
        for row in model.objects.values():
            if model is SupplierAccount:
                row.pop("api_key")
            assert_clean(json.dumps(row, default=str, ensure_ascii=False), f"a {model.__name__} row")


@pytest.fixture
def keys(settings, alice, carol, supplier_sandbox):
    settings.ASSISTANT_LLM_API_KEY = MODEL_KEY
    SupplierAccount.objects.create(user=alice, api_key=SUPPLIER_KEY)
    SupplierAccount.objects.create(user=carol, api_key=BAD_SUPPLIER_KEY)  # the platform refuses it
    return settings


@pytest.fixture
def openai(keys, fake_openai):
    use_scripted_model(keys, fake_openai, key=MODEL_KEY, timeout=2)  # MODEL_KEY, as `keys` set it
    return fake_openai


def scan_pages_and_logs(caplog, demo, answers: list[str]) -> None:
    for text in answers:
        assert_clean(text, "an answer")
    for record in caplog.records:
        assert_clean(record.getMessage() + repr(record.args) + str(record.__dict__), f"log line {record.name}")
    assert_no_row_holds_a_secret()
    traveller = Client()
    traveller.force_login(demo["alice"])
    for url in ["/", "/bookings/", "/aftersale/"]:
        assert_clean(traveller.get(url).content.decode(), url)
    admin = Client()
    admin.force_login(demo["admin"])
    account = SupplierAccount.objects.get(user=demo["alice"])
    admin_urls = [
        "/admin/",
        "/admin/assistant/llmcall/",
        "/admin/assistant/turn/",
        "/admin/assistant/conversation/",
        "/admin/bookings/bookingrecord/",
        "/admin/bookings/supplieraccount/",
        f"/admin/bookings/supplieraccount/{account.pk}/change/",
    ]
    for model in ("llmcall", "turn"):
        for pk in apps.get_model("assistant", model).objects.values_list("pk", flat=True):
            admin_urls.append(f"/admin/assistant/{model}/{pk}/change/")
    for url in admin_urls:
        response = admin.get(url)
        assert response.status_code == 200, url
        assert_clean(response.content.decode(), url)


def test_rules_provider_turns_bookings_and_a_refused_supplier_key_leak_no_secret(keys, demo, caplog):
    caplog.set_level(logging.DEBUG)
    api = APIClient()
    api.force_authenticate(demo["alice"])
    answers = []

    asked = chat_turn(user=demo["alice"], message=FLIGHT, today=TODAY)
    answers.append(json.dumps(asked.__dict__, default=str, ensure_ascii=False))
    booked = chat_turn(user=demo["alice"], message="确认", conversation_id=asked.conversation_id, today=TODAY)
    answers.append(json.dumps(booked.__dict__, default=str, ensure_ascii=False))
    refused = chat_turn(user=demo["carol"], message=FLIGHT, today=TODAY)  # the supplier refuses carol's key
    answers.append(json.dumps(refused.__dict__, default=str, ensure_ascii=False))
    assert refused.outcome != "ANSWERED"
    listed = api.get("/api/v1/bookings/")
    answers.append(listed.content.decode())
    booking_id = BookingRecord.objects.get(user=demo["alice"]).booking_id
    assert booking_id in listed.content.decode()
    answers.append(api.post(f"/api/v1/bookings/{booking_id}/cancel").content.decode())
    answers.append(api.post("/api/v1/assistant/chat", {"message": "我的预订"}, format="json").content.decode())

    scan_pages_and_logs(caplog, demo, answers)


def test_openai_turns_and_a_401_from_the_model_leak_no_secret(openai, demo, caplog):
    caplog.set_level(logging.DEBUG)
    openai.enqueue(
        Reply(content={"intent": "SEARCH_ACTIVITIES", "destination_keywords": ["大理"]}),
        Reply(status=401, error_message=f"Incorrect API key provided: {MODEL_KEY}"),
    )
    api = APIClient()
    api.force_authenticate(demo["alice"])

    good = api.post("/api/v1/assistant/chat", {"message": "大理有啥好玩的"}, format="json")
    failed = api.post("/api/v1/assistant/chat", {"message": "大理有啥好玩的"}, format="json")
    understood = api.post("/api/v1/assistant/understand", {"message": "大理"}, format="json")

    assert good.status_code == failed.status_code == 200
    assert Turn.objects.order_by("id").last().fallback is True  # the offline engine answered the failed turn
    assert openai.requests[0].authorization == f"Bearer {MODEL_KEY}"  # the key was really in use
    scan_pages_and_logs(caplog, demo, [good.content.decode(), failed.content.decode(), understood.content.decode()])


def test_openai_agent_turns_with_tools_and_a_401_leak_no_secret(openai, keys, demo, caplog):
    caplog.set_level(logging.DEBUG)
    keys.ASSISTANT_AGENT_ENABLED = True
    openai.enqueue(
        Reply(tool_calls=[{"id": "c1", "name": "list_my_bookings", "arguments": {}}]),
        Reply(content="你目前没有预订。"),
        Reply(status=401, error_message=f"Incorrect API key provided: {MODEL_KEY}"),
    )

    first = chat_turn(user=demo["alice"], message="帮我查一下我的预订", today=TODAY)
    second = chat_turn(user=demo["alice"], message="大理这周末天气怎么样", today=TODAY)

    assert Turn.objects.order_by("id").last().fallback is True  # channel 1 answered the failed turn
    scan_pages_and_logs(
        caplog, demo, [json.dumps(r.__dict__, default=str, ensure_ascii=False) for r in (first, second)]
    )
