"""Both chat channels do the same things: the same traveller request through channel 1 (understand → dispatch →
handler) and through channel 2 (`ASSISTANT_AGENT_ENABLED`: the rules provider replaying channel 1's flow) shows the same
cards and makes the same database changes.

Each channel runs on the same fresh demo data (`seed_demo`, then a savepoint rolled back after the channel's turns)
with its own empty sandbox supplier store. A request may go on for more turns in the same conversation (a write is
a confirmation card, then "确认"; a refund request without a reason is asked why first): the cards of every turn and
the changes after the last one are compared. Cards are compared without what is new on every run (plan, booking and
ticket numbers, timestamps); database changes are the rows added, changed or removed in bookings, booking events,
tickets and orders, compared the same way.
"""

import datetime as dt
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import transaction

from aftersale.models import BizOrder, HitlTicket
from assistant.services import chat_turn
from bookings.accounts import supplier_account_ensure
from bookings.models import BookingEvent, BookingRecord
from bookings.platform import PlatformCommand, order_number, platform_call
from bookings.services.recording import booking_record_from_platform
from tests.assistant.conftest import TODAY

pytestmark = pytest.mark.django_db

# Keys whose values are new on every run (or name such a value), left out of cards and rows before comparing.
VOLATILE = {
    "plan_id",
    "booking_id",
    "ticket_no",
    "created_at",
    "updated_at",
    "deadline",
    "decided_at",
    "executed_at",
    "execution_started_at",
    "cancel_claimed_until",
    "external_order_no",
    "order_no",
    "orderId",
    "orderNo",
    "mainOrderNo",
    "raw_payload",
    "id",
    "booking",
    "ticket",
    "pending_id",
    "confirmed_action",  # the ticket's record of the confirmed card: its pending action's id, and when
    "confirmed_at",
    "expires_at",
    "expires_label",
    "pay_deadline",
    "pay_deadline_label",
    "paid_at",
    "rebooked_from",
    "trace_id",  # one per turn (core.tracing)
}


def _flight_booked(user) -> dict:
    """A flight booked on the platform and recorded, as a booking made earlier would be: {"booking_id": …}."""
    api_key = supplier_account_ensure(user=user).api_key
    found = platform_call(
        PlatformCommand("flight", "search", {"from": "上海", "to": "杭州", "date": "2026-12-05"}), api_key=api_key
    )
    flight = min(found["flights"], key=lambda f: f["price"])
    arguments = {
        "flightNo": flight["flightNo"],
        "date": "2026-12-05",
        "contactTourist": {"name": "张三", "mobile": "13800000000"},
    }
    saved = platform_call(PlatformCommand("flight", "saveOrder", arguments), api_key=api_key)
    booking = booking_record_from_platform(
        user=user, biz_type="FLIGHT", external_order_no=order_number(saved), arguments=arguments, response=saved
    )
    return {"booking_id": booking.booking_id}


def _flight_booked_for_the_19th(user) -> dict:
    """A flight booked as `book_option` books it after a confirmation (route and times in its details)."""
    from bookings.options import BookingWants
    from bookings.services.create import booking_create
    from bookings.services.search import booking_options

    found = booking_options(
        user=user, biz_type="FLIGHT", origin="上海", destination="成都", city=None, date=dt.date(2026, 12, 19),
        check_out=None, wants=BookingWants(), passengers=1,
    )  # fmt: skip
    passengers = [{"name": "张三", "mobile": "13800000000"}]
    booking = booking_create(user=user, option_ref=found["options"][0]["ref"], passengers=passengers, scope="setup")
    return {"booking_id": booking.booking_id}


def _refund_asked(user) -> dict:
    from aftersale.services.workflow import aftersale_request_submit
    from assistant.llm.factory import get_llm_port

    aftersale_request_submit(user=user, order_id="ORD-001", action="REFUND", port=get_llm_port("rules"), today=TODAY)
    return {}


@dataclass(frozen=True)
class Request:
    name: str
    message: str  # formatted with what `setup` returns
    setup: Callable[..., dict] | None = None
    then: tuple[str, ...] = ()  # the next messages of the same conversation
    writes: str = "bookings"  # the table the request's write changes, once the traveller confirmed it

    def __str__(self) -> str:
        return self.name


REQUESTS = [
    Request("search", "大理有什么活动"),
    Request("recommend", "推荐点好玩的"),
    Request("weather", "大理这周末天气怎么样"),
    Request("travel plan", "帮我安排三天丽江行程"),
    Request("round trip", "下周五从上海去北京，下周日回来，比较一下往返方案"),
    Request("book", "帮我订12月5日上海到杭州最便宜的航班，乘机人张三 13800000000"),
    Request("book, confirmed", "帮我订12月5日上海到杭州最便宜的航班，乘机人张三 13800000000", then=("确认",)),
    Request("morning flight, confirmed", "上海飞成都 12月19号 要早上的 张三 13800000000", then=("确认",)),
    Request("hotel stay, confirmed", "帮我订大理的酒店，12月10日入住，12日退房，张三 13800000000", then=("确认",)),
    Request("second option, confirmed", "上海飞成都 12月19号的机票 张三 13800000000", then=("第二个", "确认")),
    Request("contact later", "帮我订12月19号上海飞成都的机票", then=("张三 13800000000", "确认")),
    Request("no 4-star hotel", "订个大理的酒店，12月10日入住，住两晚，四星左右，张三 13800000000", then=("第一个",)),
    Request("cancel", "取消预订 {booking_id}", _flight_booked),
    Request("cancel, confirmed", "取消预订 {booking_id}", _flight_booked, then=("确认",)),
    Request("rebook, confirmed", "把12月19号的机票改签到20号", _flight_booked_for_the_19th, then=("确认",)),
    Request("refund, why asked", "订单 ORD-001 我要退款", then=("行程有变",), writes="tickets"),
    Request("refund, confirmed", "订单 ORD-001 我要退款，行程有变", then=("确认",), writes="tickets"),
    Request("progress", "ORD-001的退款进度怎么样了", _refund_asked),
    Request("two-part", "帮我规划三天丽江行程，顺便查天气"),
]


class _RolledBack(Exception):  # noqa: N818 - not an error: how a channel's changes are undone
    pass


@dataclass
class Seen:
    cards: list
    changes: dict
    reply: str
    outcome: str


# Numbers new on every run that a text or a card row names (booking numbers, supplier order numbers).
VOLATILE_IN_TEXT = re.compile(r"\bBK\d{8,}|\b[A-Z]{2}\d{12,}\b")


def _without_volatile(value):
    if isinstance(value, str):
        return VOLATILE_IN_TEXT.sub("#", value)
    if isinstance(value, dict):
        return {k: _without_volatile(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_without_volatile(v) for v in value]
    return value


def _rows() -> dict[str, Counter]:
    """Every row of the compared tables, as comparable JSON without volatile values (a multiset per table)."""
    tables = {
        "bookings": BookingRecord.objects.values(),
        "booking_events": BookingEvent.objects.values(
            "booking__biz_type", "booking__user_id", "from_status", "to_status", "actor_id", "reason"
        ),
        "tickets": HitlTicket.objects.values(),
        "orders": BizOrder.objects.values(),
    }
    return {
        name: Counter(
            json.dumps(_without_volatile(row), sort_keys=True, ensure_ascii=False, default=str) for row in rows
        )
        for name, rows in tables.items()
    }


def _changes(before: dict[str, Counter], after: dict[str, Counter]) -> dict:
    return {
        name: {
            "added": sorted((after[name] - before[name]).elements()),
            "gone": sorted((before[name] - after[name]).elements()),
        }
        for name in before
    }


def _through(channel: int, request: Request, user, settings, sandbox, store) -> Seen:
    """One request through one channel on the seeded data; everything it wrote in the database is rolled back."""
    settings.ASSISTANT_AGENT_ENABLED = channel == 2
    settings.ASSISTANT_LLM_PROVIDER = "rules"
    sandbox._monkeypatch.setenv("SANDBOX_SUPPLIER_STORE", str(store))
    cache.clear()  # memory, rate limit and stored plans start empty for each channel
    seen = None
    try:
        with transaction.atomic():
            facts = request.setup(user) if request.setup else {}
            before = _rows()
            turn = chat_turn(user=user, message=request.message.format(**facts), today=TODAY, fresh=True)
            turns = [turn]
            for message in request.then:
                turns.append(chat_turn(user=user, message=message, conversation_id=turn.conversation_id, today=TODAY))
            cards = [_without_volatile(t.cards) for t in turns]
            seen = Seen(cards, _changes(before, _rows()), turns[-1].reply, turns[-1].outcome)
            raise _RolledBack
    except _RolledBack:
        pass
    return seen


@pytest.mark.parametrize("request_", REQUESTS, ids=str)
def test_the_same_request_shows_the_same_cards_and_makes_the_same_changes_in_both_channels(
    request_, settings, supplier_sandbox, tmp_path, django_user_model
):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("seed_demo", verbosity=0)
    alice = django_user_model.objects.get(username="alice")

    one = _through(1, request_, alice, settings, supplier_sandbox, tmp_path / "channel-1.sqlite3")
    two = _through(2, request_, alice, settings, supplier_sandbox, tmp_path / "channel-2.sqlite3")

    assert one.cards[-1], f"channel 1 showed no card: {one.outcome} {one.reply!r}"
    assert two.cards == one.cards, f"channel 2: {two.outcome} {two.reply!r}\nchannel 1: {one.outcome} {one.reply!r}"
    assert two.changes == one.changes
    # a booking (a refund request's ticket) changes only once the traveller confirmed it, in both channels alike
    changed = one.changes[request_.writes]["added"] or one.changes[request_.writes]["gone"]
    assert bool(changed) == (request_.then[-1:] == ("确认",)), one.changes[request_.writes]


def test_in_channel_1_a_question_of_the_main_part_is_the_whole_reply_and_the_other_part_waits(traveller):
    turn = chat_turn(user=traveller, message="帮我订张机票，顺便查下大理天气", today=TODAY)

    assert turn.intent["intent"] == "BOOK" and turn.intent["also"] == ["QUERY_WEATHER"]
    assert turn.outcome == "CLARIFY" and turn.cards == []


def test_in_channel_1_a_booking_asked_after_a_question_is_the_task_that_goes_on(traveller):
    from assistant.memory import memory_load

    turn = chat_turn(user=traveller, message="大理这周末天气怎么样，顺便帮我订个酒店", today=TODAY)

    assert turn.intent["intent"] == "QUERY_WEATHER" and turn.intent["also"] == ["BOOK"]
    # the weather first; the booking part shows its options and asks for the guest, nothing is prepared
    assert [card["type"] for card in turn.cards][0] == "weather"
    assert "confirmation" not in [card["type"] for card in turn.cards]
    # the booking's question is the one awaited: the next message answers it (docs/conversation.md)
    memory = memory_load(turn.conversation_id)
    assert memory.task == "BOOK" and memory.awaiting == "booking"
