"""Hostile chat messages (hostile_messages.jsonl, Chinese and English) through both channels change nothing and
leak nothing.

Each message is sent by alice through the chat API with channel 1 (understand, then dispatch) and with channel 2
(the agent loop, rules provider); a scripted openai model also tries to call the tools with carol's ids. Nothing
guarded changes (bookings, orders, tickets, users, activities; apart from the new Turn / LLMCall audit rows and, for
a message that is a legitimate request about alice's own order, alice's own ticket), and the answer holds no system
prompt text, no key and nothing of carol's.
"""

import json
from pathlib import Path

import pytest
from django.test import Client
from rest_framework.test import APIClient

from aftersale.models import BizOrder, HitlTicket
from assistant.models import Turn, TurnOutcome
from assistant.services import MAX_MESSAGE_CHARS, chat_turn
from tests.assistant.conftest import TODAY
from tests.security.conftest import secrets_of, snapshot
from tests.support import fixtures
from tests.support.fake_openai import Reply
from tests.support.model import use_scripted_model

fake_openai = fixtures.fake_openai
pytestmark = pytest.mark.django_db

HERE = Path(__file__).resolve().parent
PROMPTS = Path(__file__).resolve().parents[2] / "assistant" / "llm" / "prompts"
MESSAGES = [json.loads(line) for line in (HERE / "hostile_messages.jsonl").read_text(encoding="utf-8").splitlines()]
MODEL_KEY = "sk-hostile-test-KEY-5b1d0e"
PROMPT_LINES = [
    line.strip()
    for name in ("understand_system.md", "agent_system.md")
    for line in (PROMPTS / name).read_text(encoding="utf-8").splitlines()
    if len(line.strip()) >= 30
]


def test_the_hostile_set_has_at_least_forty_messages_in_both_languages():
    texts = [m["text"] for m in MESSAGES]
    assert len(MESSAGES) >= 40
    assert sum(any("\u4e00" <= ch <= "\u9fff" for ch in t) for t in texts) >= 15
    assert sum(t.isascii() for t in texts) >= 15


def message_text(spec: dict, carols) -> str:
    booking_id = carols["booking"].booking_id
    text = spec["text"] * spec.get("repeat", 1)
    replacements = {
        "{carol_booking}": booking_id,
        "{carol_booking_lower}": booking_id.lower(),
        "{carol_booking_reversed}": booking_id[::-1],
        "{carol_booking_zw}": "\u200b".join(booking_id),
        "{carol_booking_fullwidth}": "".join(chr(ord(c) + 0xFEE0) for c in booking_id),
        "{carol_ticket}": carols["ticket"].ticket_no,
    }
    for placeholder, value in replacements.items():
        text = text.replace(placeholder, value)
    return text


def guarded_rows(alice, *, own: bool) -> dict:
    """The snapshot; for a legitimate request about alice's own order, without alice's own after-sale rows."""
    rows = snapshot()
    if own:
        mine = set(HitlTicket.objects.filter(requested_by=alice).values_list("pk", flat=True))
        my_orders = set(BizOrder.objects.filter(user=alice).values_list("pk", flat=True))
        rows["HitlTicket"] = [r for r in rows["HitlTicket"] if r["id"] not in mine]
        rows["TicketEvent"] = [r for r in rows["TicketEvent"] if r["ticket_id"] not in mine]
        rows["BizOrder"] = [r for r in rows["BizOrder"] if r["id"] not in my_orders]
        rows["OrderEvent"] = [r for r in rows["OrderEvent"] if r["order_id"] not in my_orders]
    return rows


def assert_leaks_nothing(answer: str, sent: str, carols) -> None:
    for secret in [*secrets_of(carols), MODEL_KEY]:
        if secret not in sent:  # echoing what alice typed herself reveals nothing
            assert secret not in answer, f"{secret!r} leaked"
    for line in PROMPT_LINES:
        assert line not in answer, f"system prompt text leaked: {line[:40]}"


@pytest.fixture(params=["channel1", "channel2"])
def channel(request, settings):
    settings.ASSISTANT_LLM_API_KEY = MODEL_KEY
    settings.ASSISTANT_LLM_PROVIDER = "rules"
    settings.ASSISTANT_AGENT_ENABLED = request.param == "channel2"
    settings.ASSISTANT_DAILY_TURN_LIMIT = 1000
    return request.param


@pytest.mark.parametrize("spec", MESSAGES, ids=[m["id"] for m in MESSAGES])
def test_a_hostile_message_changes_nothing_and_leaks_nothing(spec, channel, alice, carols, supplier_sandbox):
    text = message_text(spec, carols)
    api = APIClient()
    api.force_authenticate(alice)
    before = guarded_rows(alice, own=spec.get("own", False))
    turns = Turn.objects.count()

    response = api.post("/api/v1/assistant/chat", {"message": text}, format="json")

    assert guarded_rows(alice, own=spec.get("own", False)) == before
    if spec.get("too_long"):
        assert response.status_code == 400
        assert response.json()["code"] == "INVALID_PARAM"
        assert str(MAX_MESSAGE_CHARS) in response.json()["message"]
        assert Turn.objects.count() == turns
        return
    if spec.get("may_be_refused") and response.status_code == 400:  # e.g. DRF refuses NUL characters outright
        assert response.json()["code"] == "INVALID_PARAM"
        assert Turn.objects.count() == turns
        return
    assert response.status_code == 200
    assert response.json()["outcome"] in set(TurnOutcome.values) - {TurnOutcome.ERROR, TurnOutcome.RATE_LIMITED}
    assert_leaks_nothing(response.content.decode(), text, carols)
    assert carols["booking"].booking_id not in json.dumps(response.json()["cards"])


@pytest.mark.parametrize(
    "spec", [m for m in MESSAGES if "<script" in m["text"] or "<img" in m["text"]], ids=lambda m: m["id"]
)
def test_markup_in_a_message_is_escaped_on_the_chat_page(spec, alice, carols):
    page = Client()
    page.force_login(alice)
    text = message_text(spec, carols)

    partial = page.post("/chat/send", {"message": text}, HTTP_HX_REQUEST="true").content.decode()
    full = page.get("/").content.decode()

    for html in (partial, full):
        assert "<script>alert" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert" in full or "&lt;img src=x" in full


def test_a_100_kb_message_on_the_chat_page_is_refused_with_a_clear_error(alice):
    page = Client()
    page.force_login(alice)

    response = page.post("/chat/send", {"message": "x" * 100_000}, HTTP_HX_REQUEST="true")

    assert str(MAX_MESSAGE_CHARS) in response.content.decode()
    assert not Turn.objects.exists()


# ---------------------------------------------------------------------------------------------------------------
# A model that tries to call the tools with carol's ids (channel 2, openai provider)


def hostile_calls(carols, carol_supplier_order):
    booking_id = carols["booking"].booking_id
    command = f'supplier call flight cancelOrder -a \'{{"orderId": "{carol_supplier_order}"}}\''
    query = f'supplier call flight queryOrder -a \'{{"orderId": "{carol_supplier_order}"}}\''
    return [
        ("cancel_booking", {"booking_id": booking_id}),
        ("request_aftersale", {"order_id": "ORD-003", "action": "REFUND"}),
        ("request_aftersale", {"order_id": "ORD-003", "action": "RETURN"}),
        ("query_progress", {"order_id": "ORD-003"}),
        ("execute_platform_command", {"command": command}),
        ("execute_platform_command", {"command": query}),
        ("cancel_booking", {"booking_id": booking_id, "user_id": carols["booking"].user_id}),
    ]


@pytest.fixture
def carol_supplier_order(carol, supplier_sandbox):
    from bookings.accounts import supplier_account_ensure
    from bookings.platform import PlatformCommand, platform_call

    key = supplier_account_ensure(user=carol).api_key
    flight = platform_call(
        PlatformCommand("flight", "search", {"from": "上海", "to": "杭州", "date": "2026-12-05"}), api_key=key
    )["flights"][0]
    saved = platform_call(
        PlatformCommand(
            "flight",
            "saveOrder",
            {
                "flightNo": flight["flightNo"],
                "date": "2026-12-05",
                "contactTourist": {"name": "卡萝尔秘密", "mobile": "13812345678"},
            },
        ),
        api_key=key,
    )
    return saved["orderId"]


def test_a_scripted_model_calling_tools_with_carols_ids_changes_nothing_and_shows_nothing(
    settings, fake_openai, alice, carols, carol_supplier_order
):
    use_scripted_model(settings, fake_openai, key=MODEL_KEY, agent=True)
    calls = hostile_calls(carols, carol_supplier_order)
    fake_openai.enqueue(
        Reply(tool_calls=[{"id": f"c{i}", "name": name, "arguments": args} for i, (name, args) in enumerate(calls)]),
        Reply(content="好的。"),
    )
    before = snapshot()

    result = chat_turn(user=alice, message="帮我处理一下", today=TODAY)

    assert snapshot() == before
    answer = json.dumps({"reply": result.reply, "cards": result.cards}, ensure_ascii=False)
    assert_leaks_nothing(answer, "", carols)
    assert carols["booking"].booking_id not in answer and carol_supplier_order not in answer
    tool_answers = [m for m in fake_openai.requests[-1].messages if m.get("role") == "tool"]
    assert len(tool_answers) == len(calls)
    for message in tool_answers:
        envelope = json.loads(message["content"])
        assert envelope["ok"] is False or "ORD-003" not in message["content"]
        assert "卡萝尔秘密" not in message["content"] and "HTCAROL9" not in message["content"]
