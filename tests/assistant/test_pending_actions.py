"""Nothing is written before the traveller confirms: a WRITE tool call becomes a pending action with a confirmation
card; "确认" / "yes" / the Confirm button carries it out once; "不要了" / "no" / Change declines it; it expires; it
belongs to one traveller; ten confirmations at once (real HTTP requests on PostgreSQL) run the write once; a replay
answers what was done. Real sandbox supplier CLI, PostgreSQL, Redis."""

import datetime as dt
import json
import threading
import urllib.request
from dataclasses import replace
from decimal import Decimal
from http.cookiejar import CookieJar
from typing import Annotated

import pytest
from django.db import IntegrityError, transaction
from django.test import Client
from django.utils import timezone
from pydantic import Field
from rest_framework.test import APIClient

from assistant import agent as agent_package
from assistant import agent_turn as agent_turn_module
from assistant.actions import pending_action_confirm, pending_action_open
from assistant.agent import ToolRegistry
from assistant.handlers import base as handlers_base
from assistant.llm.rules.confirm import confirmation_answer
from assistant.models import Conversation, PendingAction, Turn
from assistant.pending import pending_action_create
from assistant.services import chat_turn
from bookings.accounts import supplier_account_ensure
from bookings.models import BookingEvent, BookingRecord, BookingStatus
from bookings.platform import PlatformCommand, order_number, platform_call
from bookings.services.recording import booking_record_from_platform
from bookings.tools import cancel_booking
from core.envelope import ok
from core.errors import ApplicationError
from core.tools import Risk, ToolContext, tool
from tests.assistant.conftest import TODAY
from tests.support import fixtures
from tests.support.fake_openai import Reply
from tests.support.model import use_scripted_model

fake_openai = fixtures.fake_openai
pytestmark = pytest.mark.django_db

ROUTE = {"from": "上海", "to": "杭州", "date": "2026-12-05"}


@pytest.fixture(autouse=True)
def _many_turns(settings):
    settings.ASSISTANT_DAILY_TURN_LIMIT = 1000
    settings.ASSISTANT_AGENT_ENABLED = False


def flight_booking(user) -> BookingRecord:
    """A real order on the sandbox supplier, recorded as TripDesk records a booking."""
    key = supplier_account_ensure(user=user).api_key
    flight = min(
        platform_call(PlatformCommand("flight", "search", ROUTE), api_key=key)["flights"], key=lambda f: f["price"]
    )
    arguments = {
        "flightNo": flight["flightNo"],
        "date": ROUTE["date"],
        "from": ROUTE["from"],
        "to": ROUTE["to"],
        "contactTourist": {"name": "张三", "mobile": "13800000000"},
    }
    answer = platform_call(PlatformCommand("flight", "saveOrder", arguments), api_key=key)
    return booking_record_from_platform(
        user=user, biz_type="FLIGHT", external_order_no=order_number(answer), arguments=arguments, response=answer
    )


def cancellations(booking: BookingRecord) -> int:
    return BookingEvent.objects.filter(booking=booking, to_status=BookingStatus.CANCELLED).count()


def status_of(booking: BookingRecord) -> str:
    booking.refresh_from_db()
    return booking.status


def confirmation_cards(cards: list[dict]) -> list[dict]:
    return [card for card in cards if card["type"] == "confirmation"]


@pytest.fixture
def asked_to_cancel(alice, supplier_sandbox):
    """Alice asked in the chat to cancel a real flight booking: the confirmation card is shown, nothing changed."""
    booking = flight_booking(alice)
    result = chat_turn(user=alice, message=f"取消预订 {booking.booking_id}", today=TODAY)
    return booking, result


# -- asking --------------------------------------------------------------------------------------------------------


def test_a_cancel_asked_in_the_chat_shows_the_facts_to_confirm_and_changes_nothing(asked_to_cancel, supplier_sandbox):
    booking, result = asked_to_cancel

    assert status_of(booking) == BookingStatus.PENDING_PAYMENT
    assert cancellations(booking) == 0
    assert supplier_sandbox.stats()["cancels"]["total"] == 0
    action = PendingAction.objects.get()
    assert (action.status, action.tool, action.arguments) == (
        "PENDING",
        "cancel_booking",
        {"booking_id": booking.booking_id},
    )
    [card] = confirmation_cards(result.cards)
    assert card["pending_id"] == str(action.pk) and card["status"] == "PENDING"
    assert booking.booking_id in json.dumps(card["rows"], ensure_ascii=False)
    assert card["amount"] == str(booking.amount) and card["expires_at"]
    assert "确认" in result.reply and booking.booking_id in result.reply  # the text carries the facts too


def test_a_sentence_with_new_content_leaves_the_action_open_and_changes_nothing(asked_to_cancel, alice):
    booking, result = asked_to_cancel

    chat_turn(user=alice, message="换个早一点的", conversation_id=result.conversation_id, today=TODAY)

    assert PendingAction.objects.get().status == "PENDING"
    assert status_of(booking) == BookingStatus.PENDING_PAYMENT


# -- yes, no, expiry ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("answer", ["确认", "好的，就这个", "yes please", "Go ahead!"])
def test_a_typed_yes_carries_the_action_out_once(asked_to_cancel, alice, supplier_sandbox, answer):
    booking, asked = asked_to_cancel

    done = chat_turn(user=alice, message=answer, conversation_id=asked.conversation_id, today=TODAY)

    assert status_of(booking) == BookingStatus.CANCELLED
    assert cancellations(booking) == 1
    assert supplier_sandbox.stats()["cancels"]["total"] == 1
    action = PendingAction.objects.get()
    assert action.status == "EXECUTED" and action.result["ok"] is True
    assert booking.booking_id in done.reply
    assert Turn.objects.filter(conversation_id=asked.conversation_id).count() == 2

    again = chat_turn(user=alice, message=answer, conversation_id=asked.conversation_id, today=TODAY)

    assert cancellations(booking) == 1  # a second yes does nothing more
    assert supplier_sandbox.stats()["cancels"]["total"] == 1
    assert again.reply


@pytest.mark.parametrize("answer", ["不要了", "算了", "no", "never mind"])
def test_a_typed_no_declines_and_nothing_is_cancelled(asked_to_cancel, alice, supplier_sandbox, answer):
    booking, asked = asked_to_cancel

    declined = chat_turn(user=alice, message=answer, conversation_id=asked.conversation_id, today=TODAY)

    assert PendingAction.objects.get().status == "DECLINED"
    assert status_of(booking) == BookingStatus.PENDING_PAYMENT
    assert supplier_sandbox.stats()["cancels"]["total"] == 0
    assert ("没有预订、取消" in declined.reply) or ("nothing was booked, cancelled" in declined.reply)

    later = chat_turn(user=alice, message="确认", conversation_id=asked.conversation_id, today=TODAY)

    assert status_of(booking) == BookingStatus.PENDING_PAYMENT  # a yes after the no confirms nothing
    assert later.reply


def test_an_expired_action_is_refused_and_nothing_is_cancelled(asked_to_cancel, alice, supplier_sandbox):
    booking, asked = asked_to_cancel
    PendingAction.objects.update(expires_at=timezone.now() - dt.timedelta(seconds=1))

    answer = chat_turn(user=alice, message="确认", conversation_id=asked.conversation_id, today=TODAY)

    assert PendingAction.objects.get().status == "EXPIRED"
    assert "过期" in answer.reply
    assert status_of(booking) == BookingStatus.PENDING_PAYMENT
    assert supplier_sandbox.stats()["cancels"]["total"] == 0
    assert pending_action_open(user=alice, conversation_id=asked.conversation_id) is None


def test_a_newer_request_supersedes_the_open_action_and_the_old_card_confirms_nothing(alice, supplier_sandbox):
    first, second = flight_booking(alice), flight_booking(alice)
    asked = chat_turn(user=alice, message=f"取消预订 {first.booking_id}", today=TODAY)
    chat_turn(user=alice, message=f"取消预订 {second.booking_id}", conversation_id=asked.conversation_id, today=TODAY)
    old, new = PendingAction.objects.order_by("created_at")
    assert (old.status, new.status) == ("SUPERSEDED", "PENDING")
    api = APIClient()
    api.force_authenticate(alice)

    response = api.post(f"/api/v1/assistant/actions/{old.pk}/confirm")

    assert response.status_code == 200 and "替代" in response.json()["reply"]
    assert (status_of(first), status_of(second)) == ("PENDING_PAYMENT", "PENDING_PAYMENT")


def test_the_database_holds_at_most_one_open_action_per_conversation(alice):
    conversation = Conversation.objects.create(user=alice)
    later = timezone.now() + dt.timedelta(minutes=5)
    PendingAction.objects.create(user=alice, conversation=conversation, tool="t", expires_at=later)

    with pytest.raises(IntegrityError), transaction.atomic():
        PendingAction.objects.create(user=alice, conversation=conversation, tool="t", expires_at=later)
    assert PendingAction.objects.count() == 1


# -- buttons and the API -----------------------------------------------------------------------------------------


def test_the_confirm_endpoint_runs_it_once_and_a_replay_answers_the_same_result(
    asked_to_cancel, alice, supplier_sandbox
):
    booking, asked = asked_to_cancel
    action = PendingAction.objects.get()
    api = APIClient()
    api.force_authenticate(alice)

    first = api.post(f"/api/v1/assistant/actions/{action.pk}/confirm")
    replay = api.post(f"/api/v1/assistant/actions/{action.pk}/confirm")

    assert first.status_code == replay.status_code == 200
    assert first.json()["conversation_id"] == asked.conversation_id
    assert status_of(booking) == BookingStatus.CANCELLED and cancellations(booking) == 1
    assert supplier_sandbox.stats()["cancels"]["total"] == 1
    assert booking.booking_id in first.json()["reply"]
    assert "不会重复执行" in replay.json()["reply"] and booking.booking_id in replay.json()["reply"]
    stored = PendingAction.objects.get().result
    again = pending_action_confirm(user=alice, pending_id=action.pk)
    assert again["data"].pop("action_replay") is True and again["data"].pop("pending_id") == str(action.pk)
    assert again == stored  # the replay is the stored envelope of the one execution


def test_the_decline_endpoint_declines_and_nothing_changes(asked_to_cancel, alice, supplier_sandbox):
    booking, _ = asked_to_cancel
    action = PendingAction.objects.get()
    api = APIClient()
    api.force_authenticate(alice)

    response = api.post(f"/api/v1/assistant/actions/{action.pk}/decline")

    assert response.status_code == 200 and "没有预订、取消" in response.json()["reply"]
    assert PendingAction.objects.get().status == "DECLINED"
    assert status_of(booking) == BookingStatus.PENDING_PAYMENT
    assert supplier_sandbox.stats()["cancels"]["total"] == 0


def test_another_travellers_action_is_not_found_and_nothing_changes(asked_to_cancel, user_factory, supplier_sandbox):
    booking, _ = asked_to_cancel
    action = PendingAction.objects.get()
    mallory = user_factory("mallory")
    api = APIClient()
    api.force_authenticate(mallory)

    by_api = api.post(f"/api/v1/assistant/actions/{action.pk}/confirm")
    by_button = chat_turn(user=mallory, message="确认", action_id=str(action.pk), today=TODAY)
    by_function = pending_action_confirm(user=mallory, pending_id=action.pk)

    assert (by_api.status_code, by_api.json()["code"]) == (404, "ACTION_NOT_FOUND")
    assert by_function["code"] == "ACTION_NOT_FOUND"
    assert "没有找到" in by_button.reply
    assert PendingAction.objects.get().status == "PENDING"
    assert status_of(booking) == BookingStatus.PENDING_PAYMENT
    assert supplier_sandbox.stats()["cancels"]["total"] == 0


def test_the_chat_page_button_confirms_and_the_reloaded_card_has_no_buttons(asked_to_cancel, alice):
    booking, _ = asked_to_cancel
    action = PendingAction.objects.get()
    browser = Client()
    browser.force_login(alice)
    session = browser.session
    session["assistant_conversation_id"] = str(action.conversation_id)
    session.save()
    page = browser.get("/").content.decode()
    assert f'name="action_id" value="{action.pk}"' in page

    response = browser.post("/chat/send", {"message": "确认", "action_id": str(action.pk)}, HTTP_HX_REQUEST="true")

    assert response.status_code == 200 and booking.booking_id in response.content.decode()
    assert status_of(booking) == BookingStatus.CANCELLED
    reloaded = browser.get("/").content.decode()
    assert f'name="action_id" value="{action.pk}"' not in reloaded  # the old card is done: no buttons
    assert 'data-status="EXECUTED"' in reloaded


# -- the registry's side ------------------------------------------------------------------------------------------

NOTES: list[str] = []


def _note_preview(context: ToolContext, arguments: dict) -> dict:
    if arguments["text"] == "refuse":
        raise ApplicationError("INVALID_PARAM", "that cannot be noted", {"kind": "note"})
    return {"title": f"Note {arguments['text']}", "rows": [["Text", arguments["text"]]], "amount": None, "terms": ""}


@tool(risk=Risk.WRITE, preview=_note_preview)
def write_note(context: ToolContext, text: Annotated[str, Field(max_length=20)]) -> dict:
    """Write a note (a test tool)."""
    NOTES.append(text)
    return ok({"kind": "note", "text": text})


@tool(risk=Risk.WRITE)
def write_blind(context: ToolContext, text: Annotated[str, Field(max_length=20)]) -> dict:
    """A write that cannot show what it will do (a test tool)."""
    NOTES.append(text)
    return ok({"kind": "note", "text": text})


@pytest.fixture
def notes(alice, monkeypatch):
    NOTES.clear()
    registry = ToolRegistry([write_note, write_blind])
    monkeypatch.setattr(agent_package, "default_registry", lambda: registry)  # what a confirmation runs through
    conversation = Conversation.objects.create(user=alice)
    context = ToolContext(user=alice, conversation_id=str(conversation.pk), request_text="记一下", turn_id="t1")
    return registry, context


def test_a_write_becomes_pending_and_runs_only_when_confirmed(notes, alice):
    registry, context = notes

    asked = registry.call("write_note", {"text": "hello"}, context)

    assert (asked["code"], asked["data"]["kind"]) == ("CONFIRMATION_REQUIRED", "confirmation")
    assert asked["data"]["preview"]["title"] == "Note hello" and NOTES == []
    done = pending_action_confirm(user=alice, pending_id=asked["data"]["pending_id"])
    assert done == ok({"kind": "note", "text": "hello"}) and NOTES == ["hello"]


def test_a_write_without_a_preview_or_with_a_refusing_one_is_not_kept_and_not_run(notes):
    registry, context = notes

    blind = registry.call("write_blind", {"text": "x"}, context)
    refused = registry.call("write_note", {"text": "refuse"}, context)

    assert blind["code"] == "PERMISSION_DENIED"
    assert (refused["code"], refused["data"]) == ("INVALID_PARAM", {"kind": "note"})
    assert NOTES == [] and not PendingAction.objects.exists()


def test_a_confirmed_action_id_must_name_an_action_being_carried_out_for_that_tool(notes, alice):
    registry, context = notes
    asked = registry.call("write_note", {"text": "hello"}, context)
    pending_id = asked["data"]["pending_id"]

    still_pending = registry.call("write_note", {"text": "hello"}, replace(context, confirmed_action=pending_id))
    PendingAction.objects.update(status="EXECUTING")
    other_tool = registry.call("write_blind", {"text": "hello"}, replace(context, confirmed_action=pending_id))
    other_text = registry.call("write_note", {"text": "other"}, replace(context, confirmed_action=pending_id))

    assert [e["code"] for e in (still_pending, other_tool, other_text)] == ["PERMISSION_DENIED"] * 3
    assert NOTES == []


def test_a_crashed_execution_can_be_claimed_again_once_its_claim_ran_out(notes, alice):
    registry, context = notes
    asked = registry.call("write_note", {"text": "hello"}, context)
    pending_id = asked["data"]["pending_id"]
    PendingAction.objects.update(status="EXECUTING", claimed_until=timezone.now() + dt.timedelta(minutes=1))

    busy = pending_action_confirm(user=alice, pending_id=pending_id)
    PendingAction.objects.update(claimed_until=timezone.now() - dt.timedelta(seconds=1))
    retried = pending_action_confirm(user=alice, pending_id=pending_id)

    assert busy["code"] == "ACTION_IN_PROGRESS"
    assert retried["ok"] is True and NOTES == ["hello"]
    assert PendingAction.objects.get().status == "EXECUTED"


def test_a_pending_action_needs_a_conversation_of_the_traveller(notes, alice, user_factory):
    registry, context = notes
    someone_elses = Conversation.objects.create(user=user_factory("bob"))

    answer = registry.call("write_note", {"text": "hello"}, replace(context, conversation_id=str(someone_elses.pk)))

    assert answer["code"] == "PERMISSION_DENIED" and not PendingAction.objects.exists()
    with pytest.raises(ApplicationError):
        pending_action_create(
            user=alice, conversation_id=someone_elses.pk, tool="write_note", arguments={}, preview={}, turn_id=""
        )


# -- channel 2 ----------------------------------------------------------------------------------------------------


@pytest.fixture
def models_cancel_card(alice, supplier_sandbox, settings, fake_openai):
    """Channel 2 with a scripted model that asks to cancel Alice's flight: (the booking, the turn with its card)."""
    use_scripted_model(settings, fake_openai, key="sk-test-actions", agent=True)
    booking = flight_booking(alice)
    call = {"id": "c1", "name": "cancel_booking", "arguments": {"booking_id": booking.booking_id}}
    fake_openai.enqueue(Reply(tool_calls=[call]), Reply(content="已取消"))
    return booking, chat_turn(user=alice, message=f"帮我取消 {booking.booking_id}", today=TODAY)


def test_in_channel_two_the_models_cancel_waits_for_a_typed_yes(alice, models_cancel_card, fake_openai):
    booking, asked = models_cancel_card

    assert status_of(booking) == BookingStatus.PENDING_PAYMENT
    assert len(confirmation_cards(asked.cards)) == 1

    # With a card open the model reads the typed message (its reading's `answer`), and that reading decides.
    fake_openai.enqueue(Reply(content=json.dumps({"intent": "OUT_OF_SCOPE", "answer": "YES"})))
    done = chat_turn(user=alice, message="yes", conversation_id=asked.conversation_id, today=TODAY)

    assert status_of(booking) == BookingStatus.CANCELLED and cancellations(booking) == 1
    assert booking.booking_id in done.reply
    assert len(fake_openai.requests) == 3  # the cancel's two calls, then one reading of the yes (no agent run)


def test_in_channel_two_a_yes_the_model_does_not_read_as_yes_carries_nothing_out(
    alice, models_cancel_card, fake_openai
):
    booking, asked = models_cancel_card
    assert len(confirmation_cards(asked.cards)) == 1
    # "好的" would be a yes to the offline grammar; the model reads it as no answer to the card (a question about
    # the refund comes with it), so the card stays open and nothing is cancelled.
    fake_openai.enqueue(
        Reply(content=json.dumps({"intent": "QUERY_PROGRESS", "answer": None})), Reply(content="先问一下")
    )

    later = chat_turn(user=alice, message="好的，退款多久到账？", conversation_id=asked.conversation_id, today=TODAY)

    assert status_of(booking) == BookingStatus.PENDING_PAYMENT and cancellations(booking) == 0
    assert later.reply
    assert PendingAction.objects.get(conversation_id=asked.conversation_id).status == "PENDING"


# -- ten confirmations at once -------------------------------------------------------------------------------------

RUNS: list[str] = []
RUNS_LOCK = threading.Lock()


def _counted(func):
    def run(context, **arguments):
        with RUNS_LOCK:
            RUNS.append(context.confirmed_action)
        return func(context, **arguments)

    return run


def _session_opener(base_url: str, user):
    """An HTTP client of the live server signed in as `user`, with the CSRF cookie and header the API wants."""
    client = Client()
    client.force_login(user)
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.addheaders = [("Cookie", f"sessionid={client.cookies['sessionid'].value}")]
    with opener.open(f"{base_url}/") as page:
        assert page.status == 200
    csrf = next(cookie.value for cookie in jar if cookie.name == "csrftoken")
    opener.addheaders = [("Cookie", f"sessionid={client.cookies['sessionid'].value}; csrftoken={csrf}")]
    return opener, csrf


def _confirmed_at_once(base_url: str, user, action: PendingAction, *, times: int) -> list[tuple[int, dict]]:
    """`times` real HTTP requests confirming `action`, sent at the same moment from as many threads."""
    opener, csrf = _session_opener(base_url, user)
    start = threading.Barrier(times)
    answers: list[tuple[int, dict]] = []

    def confirm():
        request = urllib.request.Request(  # noqa: S310 - the live server's own http URL
            f"{base_url}/api/v1/assistant/actions/{action.pk}/confirm",
            data=b"{}",
            method="POST",
            headers={"Content-Type": "application/json", "X-CSRFToken": csrf},
        )
        start.wait()
        with opener.open(request, timeout=60) as response:
            answers.append((response.status, json.loads(response.read())))

    threads = [threading.Thread(target=confirm) for _ in range(times)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return answers


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_ten_confirmations_at_once_over_http_cancel_once(alice, supplier_sandbox, live_server, monkeypatch):
    RUNS.clear()
    counted = replace(cancel_booking, func=_counted(cancel_booking.func))
    registry = ToolRegistry([counted])
    for owner in (agent_package, handlers_base, agent_turn_module):
        monkeypatch.setattr(owner, "default_registry", lambda: registry)
    booking = flight_booking(alice)
    chat_turn(user=alice, message=f"取消预订 {booking.booking_id}", today=TODAY)
    action = PendingAction.objects.get()
    answers = _confirmed_at_once(live_server.url, alice, action, times=10)

    assert [status for status, _ in answers] == [200] * 10
    ran = list(RUNS)
    assert ran == [str(action.pk)]  # the tool ran once
    assert status_of(booking) == BookingStatus.CANCELLED and cancellations(booking) == 1
    assert supplier_sandbox.stats()["cancels"]["total"] == 1
    assert PendingAction.objects.get().status == "EXECUTED"
    replies = [body["reply"] for _, body in answers]
    assert sum("已取消预订" in reply and "不会重复执行" not in reply for reply in replies) == 1  # one did it
    assert all("不会重复执行" in reply or "已取消预订" in reply for reply in replies)  # the rest say so
    assert Turn.objects.filter(conversation_id=action.conversation_id).count() == 11  # every request is answered


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_ten_confirmations_of_a_booking_at_once_over_http_book_once(alice, supplier_sandbox, live_server):
    asked = chat_turn(user=alice, message="帮我订12月5日上海到杭州的机票，张三 13800000000", today=TODAY)
    [card] = confirmation_cards(asked.cards)
    action = PendingAction.objects.get()
    assert not BookingRecord.objects.exists() and supplier_sandbox.stats()["orders"]["total"] == 0
    answers = _confirmed_at_once(live_server.url, alice, action, times=10)

    assert [status for status, _ in answers] == [200] * 10
    [booking] = BookingRecord.objects.all()  # one booking in TripDesk …
    assert supplier_sandbox.stats()["orders"]["total"] == 1  # … and one order on the supplier
    assert booking.amount == Decimal(card["amount"]) and booking.status == BookingStatus.PENDING_PAYMENT
    assert PendingAction.objects.get().status == "EXECUTED"
    replies = [body["reply"] for _, body in answers]
    assert sum(booking.booking_id in reply and "不会重复执行" not in reply for reply in replies) == 1  # one did it
    assert all("不会重复执行" in reply or booking.booking_id in reply for reply in replies)  # the rest say so


# -- the typed answer's grammar -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "确认",
        "确定",
        "好的",
        "好",
        "行",
        "可以",
        "没问题",
        "就这个",
        "就订这个",
        "订吧",
        "对",
        "是的",
        "嗯",
        "好的，就这个",
        "请确认",
        "确认取消",
        "可以的，谢谢！",
        "嗯嗯，订吧😀",
        "yes",
        "Yep",
        "OK",
        "okay",
        "sure",
        "confirm",
        "go ahead",
        "book it",
        "do it",
        "please do",
        "That's right.",
        "sounds good",
        "yes please",
        "Yes, go ahead and book it",
        "👍",
    ],
)
def test_short_affirmatives_confirm(text):
    assert confirmation_answer(text) == "YES"


@pytest.mark.parametrize(
    "text",
    [
        "不要",
        "不要了",
        "不用了",
        "取消",
        "算了",
        "不了",
        "先不",
        "先不要了吧",
        "好的，不要了",
        "修改",
        "no",
        "nope",
        "cancel that",
        "don't",
        "Don't book it",
        "never mind",
        "not now",
        "no thanks",
        "Change",
    ],
)
def test_short_negatives_decline(text):
    assert confirmation_answer(text) == "NO"


@pytest.mark.parametrize(
    "text",
    [
        "换个早一点的",
        "第二个",
        "改成20号",
        "可以吗？",
        "你好",
        "谢谢",
        "算了还是高铁吧 便宜点",
        "不对，是苏州不是杭州",
        "确认 BK20261201001",
        "ok now the cheapest one",
        "yes, the second one",
        "no, I meant Suzhou",
        "maybe",
        "不确定",
        "大理",
        "",
        "   ",
        "好" * 80,
        "我的预订",  # a confirmation word after 的 names a thing: the traveller's bookings
        "你的订单",
    ],
)
def test_anything_with_new_content_or_a_question_is_no_answer(text):
    assert confirmation_answer(text) is None
