"""Hostile shapes to every JSON endpoint and every tool: a clear 4xx (or an ordinary answer), never a 5xx, never an
exception, and nothing changed.

The shapes: nesting 100,000 levels deep (as a raw body, as a field, unterminated), 200,000-character strings, wrong
types (lists for strings, objects for numbers, booleans, null), unicode edge cases (NUL, lone surrogates escaped as
`"\\ud800"`, RTL overrides, zero-width joiners, emoji, combining marks), huge and negative numbers. Every answer
under /api/ that is not a 2xx is the one error body; a tool always answers an envelope and never INTERNAL_ERROR; the
guarded rows (bookings and their events, orders, tickets and their events, activities, users), the turns of a
refused request and the sandbox supplier's store are the same after as before. The model's side too: a model that
answers nested JSON to understand, to the refund verdict or as tool arguments gets the honest degraded path.

Explicit lists, not random examples: the same requests every run (about 1,500 requests and tool calls).
"""

import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import get_resolver

from aftersale.models import HitlTicket
from assistant.agent import default_registry
from assistant.llm.messages import MAX_RAW_ARGUMENT_CHARS, parse_tool_call
from assistant.models import Conversation, Turn
from core.admin import MAX_ADMIN_SEARCH_CHARS
from core.bounded_json import MAX_JSON_DEPTH, JSONNotUnicode, JSONTooDeep, bounded_loads
from core.envelope import Code, is_envelope
from core.tools import ToolContext
from itinerary.selectors import MAX_KEYWORDS, MAX_TERM_CHARS, ActivityQuery, activity_search
from tests.assistant.conftest import TODAY
from tests.security.conftest import snapshot
from tests.support import fixtures
from tests.support.fake_openai import Reply
from tests.support.model import use_scripted_model

fake_openai = fixtures.fake_openai
pytestmark = pytest.mark.django_db

DEPTH = 100_000
HUGE = 200_000

# -- hostile JSON values, as JSON text (a 100,000-deep value cannot even be built by json.dumps) -----------------------

DEEP_ARRAY = "[" * DEPTH + "]" * DEPTH
DEEP_OBJECT = '{"a":' * (DEPTH // 2) + "1" + "}" * (DEPTH // 2)
UNTERMINATED = "[" * DEPTH
HOSTILE_JSON = {
    "deep array": DEEP_ARRAY,
    "deep object": DEEP_OBJECT,
    "unterminated nesting": UNTERMINATED,
    "huge string": json.dumps("x" * HUGE),
    "huge cjk string": json.dumps("大" * HUGE),
    "string of brackets": json.dumps("[" * HUGE),
    "nul": json.dumps("ORD-003\x00"),
    "only nul": json.dumps("\x00"),
    "lone high surrogate": '"\\ud800"',
    "lone low surrogate": '"ORD-\\udfff"',
    "rtl override": json.dumps("\u202eORD-003\u202c"),
    "zero width": json.dumps("O\u200bR\u200dD-003\ufeff"),
    "emoji": json.dumps("👩\u200d👩\u200d👧\u200d👦🏳️\u200d🌈" * 50),
    "combining marks": json.dumps("a" + "\u0301" * 5000),
    "fullwidth": json.dumps("ＯＲＤ－００３"),
    "sql": json.dumps("ORD-003' OR '1'='1"),
    "like wildcards": json.dumps("%_%\\"),
    "template": json.dumps("{{7*7}}{% debug %}<script>alert(1)</script>"),
    "path": json.dumps("../../../etc/passwd"),
    "empty string": '""',
    "blank string": json.dumps(" \t\n "),
    "null": "null",
    "true": "true",
    "false": "false",
    "zero": "0",
    "negative": "-1",
    "negative huge": "-9223372036854775809",
    "huge int": "9" * 4000,
    "too many digits": "9" * 5000,
    "float overflow": "1e999",
    "negative zero": "-0.0",
    "fraction": "1.5",
    "empty list": "[]",
    "empty object": "{}",
    "list of strings": '["ORD-003", "大理"]',
    "list of nulls": "[null, null]",
    "long list": "[" + ",".join(["0"] * 20_000) + "]",
    "operator object": '{"$gt": ""}',
    "object of numbers": '{"a": 1, "b": [2]}',
}
RAW_BODIES = {
    "deep array": DEEP_ARRAY,
    "deep object": DEEP_OBJECT,
    "unterminated nesting": UNTERMINATED,
    "deep inside a field": '{"message": "hi", "x": ' + DEEP_ARRAY + "}",
    "empty": "",
    "truncated": '{"message": ',
    "not json": "hello",
    "a bare string": '"hello"',
    "a bare number": "1e999",
    "nan": '{"message": NaN}',
    "duplicate keys": '{"message": "a", "message": ["b"]}',
    "a list": '[{"message": "hi"}]',
    "three megabytes": json.dumps({"message": "x" * 3_000_000}),
    "one megabyte": json.dumps({"message": "x" * 1_000_000}),
}
BAD_UTF8 = b'{"message": "\xff\xfe\xed\xa0\x80"}'

# -- the JSON endpoints and a request to each that changes nothing when it works ---------------------------------------

PLAN_BODY = {
    "origin": "上海",
    "destination": "杭州",
    "depart_date": "2026-12-10",
    "return_date": "2026-12-12",
    "outbound": [
        {
            "id": "out:1",
            "mode": "TRAIN",
            "number": "G1",
            "depart": "2026-12-10T08:00",
            "arrive": "2026-12-10T09:00",
            "price": 100,
        }
    ],
    "hotels": [{"id": "hotel:1", "name": "西湖宾馆", "star": 4, "price_per_night": 300}],
    "returns": [
        {
            "id": "ret:1",
            "mode": "TRAIN",
            "number": "G2",
            "depart": "2026-12-12T18:00",
            "arrive": "2026-12-12T19:00",
            "price": 100,
        }
    ],
}
# (method, path, baseline body, the fields the hostile values go into)
POSTS = {
    "chat": ("/api/v1/assistant/chat", {"message": "大理有什么活动"}, ["message", "session_id", "fresh"]),
    "understand": ("/api/v1/assistant/understand", {"message": "大理有什么活动"}, ["message", "today"]),
    "aftersale request": (
        "/api/v1/aftersale/requests",
        {"order_id": "ORD-999", "action": "REFUND"},
        ["order_id", "action"],
    ),
    "plan create": (
        "/api/v1/itinerary/plans",
        PLAN_BODY,
        ["origin", "depart_date", "outbound", "hotels", "preference_scores", "policy", "preferences_text"],
    ),
    "booking cancel": ("/api/v1/bookings/BK20990101001/cancel", {}, ["booking_id"]),
    "booking pay": ("/api/v1/bookings/BK20990101001/pay", {"confirm": True}, ["confirm", "booking_id"]),
}
GETS = {
    "bookings list": ("/api/v1/bookings/", ["page", "biz_type", "status"]),
    "orders list": ("/api/v1/aftersale/orders/", ["page"]),
    "tickets list": ("/api/v1/aftersale/tickets/", ["page"]),
    "conversations list": ("/api/v1/assistant/conversations", ["page"]),
}
# Path parameters: ids of every shape (the plan detail's, the cancel's).
PATH_TEMPLATES = [
    "/api/v1/itinerary/plans/{}",
    "/api/v1/bookings/{}/cancel",
    "/api/v1/bookings/{}/pay",
    "/api/v1/assistant/actions/{}/confirm",
    "/api/v1/assistant/actions/{}/decline",
    "/api/v1/assistant/conversations/{}",
]
HOSTILE_IDS = [
    "x" * HUGE,
    "%00",
    "BK%00001",
    "%ED%A0%80",  # a lone surrogate, UTF-8 encoded: not valid UTF-8
    "%E2%80%AEBK20261201001",
    "-1",
    "9" * 400,
    "..%2F..%2Fetc%2Fpasswd",
    "%F0%9F%91%A9%E2%80%8D%F0%9F%91%A9",
]
# The operations of the OpenAPI schema this file covers; a new operation fails the coverage test until added here.
COVERED = {
    ("post", "/api/v1/assistant/chat"),
    ("post", "/api/v1/assistant/understand"),
    ("post", "/api/v1/assistant/actions/{pending_id}/confirm"),
    ("post", "/api/v1/assistant/actions/{pending_id}/decline"),
    ("post", "/api/v1/aftersale/requests"),
    ("post", "/api/v1/itinerary/plans"),
    ("get", "/api/v1/itinerary/plans/{plan_id}"),
    ("post", "/api/v1/bookings/{booking_id}/cancel"),
    ("post", "/api/v1/bookings/{booking_id}/pay"),
    ("get", "/api/v1/bookings/"),
    ("get", "/api/v1/aftersale/orders/"),
    ("get", "/api/v1/aftersale/tickets/"),
    ("get", "/api/v1/assistant/conversations"),
    ("get", "/api/v1/assistant/conversations/{conversation_id}"),
    ("delete", "/api/v1/assistant/conversations/{conversation_id}"),
}


def body_with(base: dict, field: str, value_json: str) -> str:
    """`base` as JSON text with `field` set to the raw JSON text `value_json`."""
    rest = {k: v for k, v in base.items() if k != field}
    inner = json.dumps(rest, ensure_ascii=False)[1:-1]
    return "{" + (inner + ", " if inner else "") + json.dumps(field) + ": " + value_json + "}"


class Problems(list):
    """What went wrong, collected over many requests so one run shows them all."""

    def check(self, label: str, response) -> None:
        status = response.status_code
        if status >= 500:
            self.append(f"{label}: HTTP {status}")
            return
        if status >= 400 and response.wsgi_request.path.startswith("/api/"):
            try:
                body = response.json()
            except ValueError:
                self.append(f"{label}: HTTP {status} is not JSON ({response['Content-Type']})")
                return
            if not (isinstance(body, dict) and body.get("ok") is False and {"code", "message", "data"} <= set(body)):
                self.append(f"{label}: HTTP {status} is not the one error body: {str(body)[:120]}")


@pytest.fixture
def client(alice, settings):
    settings.ASSISTANT_LLM_PROVIDER = "rules"
    settings.ASSISTANT_AGENT_ENABLED = False
    settings.ASSISTANT_DAILY_TURN_LIMIT = 100_000
    web = Client(raise_request_exception=False)
    web.force_login(alice)
    return web


def still(before: dict, supplier_before: dict, supplier_sandbox) -> None:
    assert snapshot() == before
    assert supplier_sandbox.stats() == supplier_before


def test_the_fuzz_covers_every_json_operation_of_the_schema(client):
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    operations = {
        (method, path)
        for path, item in schema["paths"].items()
        for method in item
        if method in {"get", "post", "put", "patch", "delete"}
    }
    assert operations == COVERED


@pytest.mark.parametrize("endpoint", list(POSTS))
def test_hostile_bodies_to_a_json_endpoint_are_a_4xx_error_body_and_change_nothing(endpoint, client, supplier_sandbox):
    path, base, fields = POSTS[endpoint]
    before, supplier_before, turns = snapshot(), supplier_sandbox.stats(), Turn.objects.count()
    problems = Problems()

    for label, raw in RAW_BODIES.items():
        response = client.post(path, raw, content_type="application/json")
        problems.check(f"{endpoint} body {label}", response)
    problems.check(f"{endpoint} body bad utf-8", client.post(path, BAD_UTF8, content_type="application/json"))
    for field in fields:
        for label, value in HOSTILE_JSON.items():
            response = client.post(path, body_with(base, field, value), content_type="application/json")
            problems.check(f"{endpoint} {field}={label}", response)
            if response.status_code >= 400 and Turn.objects.count() != turns:
                problems.append(f"{endpoint} {field}={label}: refused with {response.status_code}, yet a turn was kept")
                turns = Turn.objects.count()
            turns = Turn.objects.count()

    assert not problems, "\n" + "\n".join(problems)
    still(before, supplier_before, supplier_sandbox)


@pytest.mark.parametrize("endpoint", list(GETS))
def test_hostile_query_parameters_to_a_list_are_a_4xx_or_the_list(endpoint, client):
    path, params = GETS[endpoint]
    before = snapshot()
    problems = Problems()
    values = ["x" * HUGE, "\x00", "-1", "0", "9" * 400, "1e999", "\u202e1", "大理", "[]", "null", "%"]
    for param in params:
        for value in values:
            problems.check(f"{endpoint} ?{param}={value[:12]!r}", client.get(path, {param: value}))
    problems.check(f"{endpoint} ?page=a&page=b", client.get(path + "?page=1&page=%ED%A0%80"))
    assert not problems, "\n" + "\n".join(problems)
    assert snapshot() == before


def test_hostile_ids_in_the_path_are_a_4xx_and_change_nothing(client, supplier_sandbox):
    before, supplier_before = snapshot(), supplier_sandbox.stats()
    problems = Problems()
    for template in PATH_TEMPLATES:
        for hostile in HOSTILE_IDS:
            path = template.format(hostile)
            if path.endswith(("/cancel", "/pay", "/confirm", "/decline")):
                response = client.post(path, "{}", content_type="application/json")
            else:
                response = client.get(path)
            problems.check(f"{template} {hostile[:16]!r}", response)
            if response.status_code < 400:
                problems.append(f"{template} {hostile[:16]!r}: HTTP {response.status_code} for an id nobody has")
    assert not problems, "\n" + "\n".join(problems)
    still(before, supplier_before, supplier_sandbox)


def test_every_url_of_the_api_is_covered_by_a_template_or_an_endpoint():
    """The URLconf's /api/ routes (besides the schema and its docs) are the covered operations."""
    routes = set()
    for pattern in get_resolver().url_patterns:
        for inner in getattr(pattern, "url_patterns", [pattern]):
            route = str(pattern.pattern) + str(inner.pattern)
            if route.startswith("api/v1/") and not route.startswith(("api/v1/schema", "api/v1/docs")):
                routes.add("/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route))
    assert routes == {path for _, path in COVERED}


# -- the pages that take a form post -----------------------------------------------------------------------------


@pytest.mark.parametrize("htmx", [False, True], ids=["form post", "htmx post"])
def test_hostile_form_posts_to_the_chat_page_are_a_clear_answer_never_a_500(htmx, client, supplier_sandbox):
    before, supplier_before = snapshot(), supplier_sandbox.stats()
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    problems = Problems()
    messages = ["x" * HUGE, "[" * DEPTH, "\x00", "a\x00b", "\ud800", "\u202e取消 BK20261201001", "👩\u200d👩" * 500]
    for message in messages:
        try:
            data = {"message": message}
            response = client.post("/chat/send", data, **headers)
        except UnicodeEncodeError:  # the test client cannot even encode a lone surrogate; a browser never sends one
            continue
        problems.check(f"chat page {message[:12]!r}", response)
    oversized = "message=" + "x" * 3_000_000
    english = {**headers, "HTTP_ACCEPT_LANGUAGE": "en"}
    response = client.post("/chat/send", oversized, content_type="application/x-www-form-urlencoded", **english)
    problems.check("chat page, 3 MB form", response)
    assert response.status_code == (200 if htmx else 413)
    assert "larger than" in response.content.decode()  # said in the reader's language (zh: 超过)
    many_fields = "&".join(f"f{i}=1" for i in range(5000))
    response = client.post("/chat/send", many_fields, content_type="application/x-www-form-urlencoded", **headers)
    problems.check("chat page, 5000 fields", response)
    assert not problems, "\n" + "\n".join(problems)
    still(before, supplier_before, supplier_sandbox)


# -- every tool ----------------------------------------------------------------------------------------------------


def deep_list(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def deep_dict(depth: int) -> dict:
    value: dict = {}
    for _ in range(depth):
        value = {"a": value}
    return value


HOSTILE_ARGUMENTS = {
    "deep list": deep_list(DEPTH),
    "deep dict": deep_dict(DEPTH),
    "deep list within the size limit": deep_list(2_000),
    "huge string": "x" * HUGE,
    "nul": "ORD-003\x00",
    "lone surrogate": "\ud800",
    "rtl override": "\u202eBK20261201001\u202c",
    "zero width": "B\u200bK2026\u200d1201001",
    "emoji": "👩\u200d👩\u200d👧\u200d👦" * 20,
    "combining marks": "a" + "\u0301" * 3000,
    "sql": "' OR 1=1 --",
    "empty string": "",
    "null": None,
    "true": True,
    "false": False,
    "zero": 0,
    "negative": -1,
    "huge int": 2**70,
    "huge float": 1e308,
    "nan": float("nan"),
    "infinity": float("inf"),
    "list for a string": ["ORD-003"],
    "object for a number": {"value": 1},
    "long list": ["大理"] * 10_000,
    "list with nul": ["大理\x00"],
    "list with a huge keyword": ["大理" + "x" * HUGE],
}
BASELINES = {
    "search_activities": {"keywords": ["大理"]},
    "recommend_activities": {},
    "activity_detail": {"activity_id": 1},
    "weather_report": {"place": "大理"},
    "make_travel_plan": {"destination": "丽江"},
    "compare_round_trip": {
        "origin": "上海",
        "destination": "杭州",
        "depart_date": "2026-12-10",
        "return_date": "2026-12-12",
    },
    "book_plan": {
        "plan_id": "00000000-0000-0000-0000-000000000000",
        "plan": "cheapest",
        "passengers": [{"name": "张三", "mobile": "13800000000"}],
    },
    "execute_platform_command": {"command": "supplier call flight search -a '{}'"},
    "cancel_booking": {"booking_id": "BK20990101001"},
    "pay_booking": {"booking_id": "BK20990101001"},
    "check_my_bookings": {"biz_type": "FLIGHT"},
    "find_booking_options": {"biz_type": "FLIGHT", "origin": "上海", "destination": "杭州", "date": "2026-12-05"},
    "book_option": {
        "option_ref": "FLIGHT|MU5101|2026-12-05|上海|杭州|经济舱",
        "passengers": [{"name": "张三", "mobile": "13800000000"}],
    },
    "rebook_booking": {"booking_id": "BK20990101001", "option_ref": "FLIGHT|MU5101|2026-12-06|上海|杭州|经济舱"},
    "describe_options": {"option_refs": ["FLIGHT|MU5101|2026-12-05|上海|杭州|经济舱"], "facts": ["PRICE"]},
    "list_my_bookings": {},
    "request_aftersale": {"order_id": "ORD-999", "action": "REFUND"},
    "query_progress": {},
    "ask_traveller": {"missing": ["date"], "biz_type": "TRAIN"},
    "hand_over_to_person": {"complaint": True},
}
WHOLE_ARGUMENTS = {
    "null": None,
    "a list": [],
    "a string": "{}",
    "deep list": deep_list(DEPTH),
    "deep under an unknown key": {"unknown": deep_list(DEPTH)},
    "an empty key": {"": "x"},
    "many keys": {f"k{i}": i for i in range(10_000)},
}
PLATFORM_COMMANDS = [
    "supplier call flight saveOrder -a '" + "[" * 3_900 + "'",
    "supplier call flight saveOrder -a '" + '{"a":' * 700 + "'",
    'supplier call flight saveOrder -a \'{"passengers": "\\ud800"}\'',
    "supplier call flight saveOrder -a '{\"passengers\": [null, true, 1e999]}'",
    'supplier call order refund -a \'{"orderId": "x\\u0000"}\'',
    "supplier call order cancelOrder -a '{\"orderId\": -1}'",
    'supplier call hotel saveOrder -a \'{"hotelId": {"$gt": ""}}\'',
    "supplier call flight search -a '" + json.dumps({"from": "x" * 3_000}) + "'",
    "\u202esupplier call flight search -a '{}'",
    "supplier call flight search -a '{}' ; rm -rf /",
]


def test_every_tool_answers_hostile_arguments_with_an_envelope_and_changes_nothing(alice, supplier_sandbox):
    registry = default_registry()
    assert set(BASELINES) == set(registry.names), "a new tool needs a baseline here"
    conversation = Conversation.objects.create(user=alice)  # a write is prepared (previewed) only in a conversation
    context = ToolContext(user=alice, conversation_id=str(conversation.pk), today=TODAY, request_text="帮我处理一下")
    before, supplier_before, turns = snapshot(), supplier_sandbox.stats(), Turn.objects.count()
    problems = []

    def call(name: str, arguments, label: str) -> None:
        try:
            envelope = registry.call(name, arguments, context)
        except Exception as exc:  # noqa: BLE001 - the finding is that it raised at all
            problems.append(f"{name} {label}: raised {type(exc).__name__}: {str(exc)[:80]}")
            return
        if not is_envelope(envelope):
            problems.append(f"{name} {label}: not an envelope: {str(envelope)[:80]}")
        elif envelope["code"] == Code.INTERNAL_ERROR:
            problems.append(f"{name} {label}: INTERNAL_ERROR: {envelope['message'][:80]}")

    for name in registry.names:
        base = BASELINES[name]
        for label, arguments in WHOLE_ARGUMENTS.items():
            call(name, arguments, f"arguments={label}")
        fields = list(registry.get(name).parameters.get("properties", {}))
        for field in fields:
            for label, value in HOSTILE_ARGUMENTS.items():
                call(name, {**base, field: value}, f"{field}={label}")
    for command in PLATFORM_COMMANDS:
        call("execute_platform_command", {"command": command}, f"command={command[:40]!r}")

    assert not problems, "\n" + "\n".join(problems)
    still(before, supplier_before, supplier_sandbox)
    assert Turn.objects.count() == turns


@pytest.mark.parametrize(
    "raw",
    [
        "[" * (MAX_RAW_ARGUMENT_CHARS - 10),
        '{"keywords": ' + "[" * 40_000 + "}",
        '{"a":' * 9_000,
        '{"keywords": ["' + "[" * 40_000 + '"]}',
        '{"keywords": ["\\ud800"]}',
    ],
    ids=["deep array", "deep under a key", "deep objects", "brackets in a string", "lone surrogate"],
)
def test_tool_argument_text_nested_too_deep_is_refused_unparsed_and_an_ordinary_string_is_not(raw):
    call = parse_tool_call("call_1", "search_activities", raw)

    if raw.startswith('{"keywords": ["['):  # the brackets are inside a string: a valid (oversized) keyword
        assert call.arguments_error is None and call.arguments["keywords"][0].startswith("[[[")
    else:
        assert call.arguments == {}
        assert call.arguments_error is not None
        assert "nest deeper" in call.arguments_error or "surrogate" in call.arguments_error


# -- the model's side: nested answers get the honest degraded path --------------------------------------------------


@pytest.fixture
def scripted_model(settings, fake_openai):
    use_scripted_model(settings, fake_openai, key="sk-fuzz-test", daily_turn_limit=1000)
    return fake_openai


NESTED_ANSWERS = {
    "deep array": DEEP_ARRAY,
    "unterminated": UNTERMINATED,
    "deep field": '{"intent": ' + DEEP_OBJECT + "}",
    "deep verdict": '{"verdict": "PASS", "x": ' + DEEP_ARRAY,
    "lone surrogate": '{"intent": "SEARCH_ACTIVITIES", "destination_keywords": ["\\ud800"]}',
}


@pytest.mark.parametrize("answer", NESTED_ANSWERS.values(), ids=NESTED_ANSWERS.keys())
def test_a_model_answering_nested_json_to_understand_falls_back_never_a_500(answer, client, scripted_model):
    scripted_model.set_default(Reply(content=answer))
    before = snapshot()

    understood = client.post(
        "/api/v1/assistant/understand", {"message": "大理有什么活动"}, content_type="application/json"
    )
    chatted = client.post("/api/v1/assistant/chat", {"message": "大理有什么活动"}, content_type="application/json")

    assert understood.status_code in (200, 503)
    if understood.status_code == 503:
        assert understood.json()["code"] == "LLM_UNAVAILABLE"
    assert chatted.status_code == 200
    assert chatted.json()["outcome"] != "error"
    assert snapshot() == before


def test_a_model_answering_nested_json_as_the_refund_verdict_sends_the_request_to_a_human(
    alice, client, scripted_model, supplier_sandbox
):
    scripted_model.set_default(Reply(content='{"verdict": "PASS", "reason": ' + DEEP_ARRAY + "}"))

    response = client.post(
        "/api/v1/aftersale/requests", {"order_id": "ORD-001", "action": "REFUND"}, content_type="application/json"
    )

    assert response.status_code in (200, 201), response.content[:300]
    ticket = HitlTicket.objects.get(order__order_id="ORD-001", requested_by=alice)
    assert ticket.status == "PENDING"
    assert ticket.flagged  # the verdict failed: a human looks closely, nothing was approved by the model


def test_a_model_calling_tools_with_nested_arguments_is_told_and_the_turn_ends_normally(
    alice, settings, scripted_model, supplier_sandbox
):
    from assistant.services import chat_turn

    settings.ASSISTANT_AGENT_ENABLED = True
    calls = [
        {"id": "c1", "name": "search_activities", "arguments": '{"keywords": ' + "[" * 40_000 + "}"},
        {"id": "c2", "name": "cancel_booking", "arguments": "[" * 40_000},
        {"id": "c3", "name": "execute_platform_command", "arguments": '{"command": ' + DEEP_OBJECT[:40_000]},
    ]
    scripted_model.enqueue(Reply(tool_calls=calls), Reply(content="好的。"))
    before, supplier_before = snapshot(), supplier_sandbox.stats()

    result = chat_turn(user=alice, message="帮我处理一下", today=TODAY)

    assert result.outcome != "error"
    tool_answers = [m for m in scripted_model.requests[-1].messages if m.get("role") == "tool"]
    assert len(tool_answers) == 3
    for message in tool_answers:
        envelope = json.loads(message["content"])
        assert envelope["ok"] is False and envelope["code"] == "INVALID_PARAM"
    still(before, supplier_before, supplier_sandbox)
    assert Conversation.objects.filter(user=alice).exists()


# -- the limits themselves ----------------------------------------------------------------------------------------


def test_json_nested_to_the_limit_is_parsed_and_one_level_deeper_is_refused_unparsed():
    at_limit = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    mixed = '{"a": [' * (MAX_JSON_DEPTH // 2) + "1" + "]}" * (MAX_JSON_DEPTH // 2)

    assert bounded_loads(at_limit) is not None
    assert bounded_loads(mixed)["a"][0]["a"]
    with pytest.raises(JSONTooDeep):
        bounded_loads("[" + at_limit + "]")
    with pytest.raises(JSONTooDeep):
        bounded_loads("[]" * 1000 + "[" * (MAX_JSON_DEPTH + 1))  # deep after many shallow values


def test_brackets_and_escaped_quotes_inside_strings_do_not_count_as_nesting():
    text = json.dumps({"note": "[" * 10_000 + '\\"{' * 100, "list": ["]]]", "\\"]})

    assert bounded_loads(text)["note"].startswith("[[[")


def test_a_lone_surrogate_is_refused_and_a_surrogate_pair_is_an_emoji():
    assert bounded_loads('"\\ud83d\\ude00"') == "😀"
    assert bounded_loads('"\\\\ud800"') == "\\ud800"  # an escaped backslash, then plain letters
    with pytest.raises(JSONNotUnicode):
        bounded_loads('{"order_id": "ORD-\\udfff"}')


def test_a_search_term_is_bounded_however_the_query_is_made(demo):
    huge = "大理" + "x" * HUGE
    built = ActivityQuery.build(today=TODAY, keywords=[huge, *[f"k{i}" for i in range(100)]], city=huge)
    direct = ActivityQuery(keywords=(huge, " 大理 ", "大理\x00", ""), province="云南" * 1000)

    assert built.keywords[0] == huge[:MAX_TERM_CHARS] and len(built.keywords) == MAX_KEYWORDS
    assert built.city == huge[:MAX_TERM_CHARS]
    assert direct.keywords == (huge[:MAX_TERM_CHARS], "大理")
    assert len(direct.province) == MAX_TERM_CHARS
    assert list(activity_search(direct)) == []  # no title holds 48 x's
    assert [a.pk for a in activity_search(ActivityQuery(keywords=("大理\x00",)))] == [
        a.pk for a in activity_search(ActivityQuery(keywords=("大理",)))
    ]


ADMIN_CHANGELISTS = [
    "/admin/bookings/bookingrecord/",
    "/admin/bookings/supplieraccount/",
    "/admin/aftersale/bizorder/",
    "/admin/aftersale/hitlticket/",
    "/admin/aftersale/policy/",
    "/admin/itinerary/activity/",
    "/admin/itinerary/interestprofile/",
]


@pytest.mark.parametrize("term", ["a " * (HUGE // 2), "x" * HUGE, '"' * 1000 + "\x00"], ids=["words", "one", "quotes"])
def test_a_huge_admin_search_term_is_cut_before_the_query_is_built(term, demo):
    staff = Client(raise_request_exception=False)
    staff.force_login(get_user_model().objects.get(username="admin"))
    before = snapshot()
    for path in ADMIN_CHANGELISTS:
        with CaptureQueriesContext(connection) as queries:
            response = staff.get(path, {"q": term})

        assert response.status_code == 200, path
        longest = max(len(q["sql"]) for q in queries.captured_queries)
        assert longest < 20 * MAX_ADMIN_SEARCH_CHARS + 5_000, f"{path}: a {longest}-character query"
    assert snapshot() == before
