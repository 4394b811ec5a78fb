"""Booking a compared plan from its card: one confirmation card listing every part and the total, nothing booked
before the traveller's yes, every part booked exactly once after it, and a failure that says which parts were booked.

The chat is driven as the page drives it: the plan card's button sends its message with the plan it shows
(`choice`); the supplier is the real sandbox CLI, whose own order store tells what was really booked.
"""

import pytest
from django.core.cache import cache

from assistant.models import PendingAction
from assistant.services import chat_turn
from bookings.models import BookingRecord
from itinerary.round_trip.store import plan_key
from tests.assistant.conftest import TODAY

pytestmark = pytest.mark.django_db

COMPARE = "12月5号从上海去杭州，12月7号回来，帮我比较一下交通和酒店方案"
CONTACT = "出行人张三 13800000000"


def compare(user, message: str = COMPARE, conversation_id=None):
    result = chat_turn(user=user, message=message, today=TODAY, conversation_id=conversation_id)
    cards = [c for c in result.cards if c["type"] == "plan_comparison"]
    assert len(cards) == 1, result.reply
    return result, cards[0]


def plan_of(card: dict, name: str) -> dict:
    return next(p for p in card["plans"] if p["name"] == name)


def choice_of(card: dict, plan: dict) -> str:
    """The plan the card's book button names (its hidden `choice` field)."""
    return f"{card['plan_id']}|{plan['name']}"


def press_book(user, result, plan: dict):
    """What the plan card's button sends: its message and the plan it shows."""
    card = next(c for c in result.cards if c["type"] == "plan_comparison")
    return chat_turn(
        user=user,
        message=plan["book_message"],
        choice=choice_of(card, plan),
        conversation_id=result.conversation_id,
        today=TODAY,
    )


def say(user, result, message: str, **extra):
    return chat_turn(user=user, message=message, conversation_id=result.conversation_id, today=TODAY, **extra)


def confirmation(result) -> dict:
    cards = [c for c in result.cards if c["type"] == "confirmation"]
    assert len(cards) == 1, result.reply
    return cards[0]


def supplier_orders(sandbox) -> dict:
    return sandbox.stats()["orders"]


def booked_with_contact(user, sandbox):
    """A comparison whose traveller named who travels, and the cheapest plan's button pressed."""
    compared, card = compare(user)
    say(user, compared, CONTACT)
    plan = plan_of(card, "cheapest")
    return compared, plan, press_book(user, compared, plan)


def test_booking_a_plan_shows_one_card_with_every_part_and_the_total_and_books_nothing(alice, supplier_sandbox):
    _compared, plan, pressed = booked_with_contact(alice, supplier_sandbox)

    card = confirmation(pressed)
    assert card["tool"] == "book_plan" and card["status"] == "PENDING"
    labels = [row[0] for row in card["rows"]]
    assert labels == ["去程", "酒店", "回程", "出行人"]
    rows = dict(card["rows"])
    assert plan["outbound"]["number"] in rows["去程"] and plan["return"]["number"] in rows["回程"]
    assert plan["hotel"]["name"] in rows["酒店"] and "12月5日入住、12月7日退房" in rows["酒店"]
    assert "张三" in rows["出行人"]
    assert float(card["amount"]) == pytest.approx(plan["total_price"])  # one traveller: legs + hotel × nights
    assert "确认前不会执行任何操作" in pressed.reply
    # Nothing booked: no record of ours, no order on the supplier.
    assert BookingRecord.objects.count() == 0
    assert supplier_orders(supplier_sandbox)["total"] == 0


def test_yes_books_every_part_once_and_a_replayed_yes_books_nothing_more(alice, supplier_sandbox):
    compared, plan, pressed = booked_with_contact(alice, supplier_sandbox)
    pending_id = confirmation(pressed)["pending_id"]

    done = say(alice, compared, "确认")

    bookings = list(BookingRecord.objects.filter(user=alice).order_by("created_at"))
    assert [b.biz_type for b in bookings] == [plan["outbound"]["mode"], "HOTEL", plan["return"]["mode"]]
    numbers = [b.details["number"] for b in bookings]
    assert numbers == [plan["outbound"]["number"], plan["hotel"]["hotel_id"], plan["return"]["number"]]
    assert all(b.details["plan"]["name"] == "cheapest" for b in bookings)
    assert sum(float(b.amount) for b in bookings) == pytest.approx(plan["total_price"])
    assert [c["booking_id"] for c in done.cards if c["type"] == "booking"] == [b.booking_id for b in bookings]
    assert "已预订方案的全部项目" in done.reply and all(b.booking_id in done.reply for b in bookings)
    orders = supplier_orders(supplier_sandbox)
    assert orders["total"] == 3

    replay = say(alice, compared, "确认", action_id=pending_id)

    assert BookingRecord.objects.filter(user=alice).count() == 3
    assert supplier_orders(supplier_sandbox) == orders
    assert "已经" in replay.reply  # said to be done already, the same bookings shown
    assert PendingAction.objects.get(pk=pending_id).status == "EXECUTED"


def test_an_unknown_contact_is_asked_for_and_the_answer_prepares_the_same_plan(alice, supplier_sandbox):
    compared, card = compare(alice)
    plan = plan_of(card, "fastest")

    asked = press_book(alice, compared, plan)

    assert asked.outcome == "CLARIFY" and "姓名和手机号" in asked.reply
    assert not PendingAction.objects.exists()

    answered = say(alice, compared, "张三 13800000000")

    rows = dict(confirmation(answered)["rows"])
    assert plan["outbound"]["number"] in rows["去程"] and plan["return"]["number"] in rows["回程"]
    assert BookingRecord.objects.count() == 0 and supplier_orders(supplier_sandbox)["total"] == 0


def test_a_part_the_supplier_refuses_stops_the_rest_and_the_reply_says_what_was_booked(alice, supplier_sandbox):
    compared, plan, _pressed = booked_with_contact(alice, supplier_sandbox)
    supplier_sandbox.fault("hotel.saveOrder=fail")

    done = say(alice, compared, "确认")

    bookings = list(BookingRecord.objects.filter(user=alice))
    assert [b.biz_type for b in bookings] == [plan["outbound"]["mode"]]
    assert done.outcome == "DEGRADED"
    assert "方案只预订了一部分" in done.reply
    assert f"去程：已预订，预订号 {bookings[0].booking_id}" in done.reply
    assert "酒店：没有预订" in done.reply and "回程：没有预订" in done.reply
    assert [s["message"] for s in done.suggestions] == [f"取消预订 {bookings[0].booking_id}"]
    supplier_sandbox.heal()
    assert supplier_orders(supplier_sandbox)["total"] == 1


def test_an_expired_comparison_is_not_booked_and_says_compare_again(alice, supplier_sandbox):
    compared, plan, _ = booked_with_contact(alice, supplier_sandbox)
    PendingAction.objects.all().delete()
    cache.delete(plan_key(next(c for c in compared.cards if c["type"] == "plan_comparison")["plan_id"]))

    pressed = press_book(alice, compared, plan)

    assert "过期" in pressed.reply and "重新比较" in pressed.reply
    assert not PendingAction.objects.exists()
    assert BookingRecord.objects.count() == 0 and supplier_orders(supplier_sandbox)["total"] == 0


def test_another_travellers_plan_cannot_be_booked(alice, user_factory, supplier_sandbox):
    compared, card = compare(alice)
    bob = user_factory("bob")
    theirs, _ = compare(bob)

    pressed = chat_turn(
        user=bob,
        message="预订方案1",
        choice=choice_of(card, plan_of(card, "cheapest")),  # alice's plan
        conversation_id=theirs.conversation_id,
        today=TODAY,
    )

    assert "过期" in pressed.reply
    assert not PendingAction.objects.exists() and BookingRecord.objects.count() == 0


def test_the_plan_button_books_in_english_too(alice, supplier_sandbox):
    compared, card = compare(
        alice, "Compare round trips from Shanghai to Hangzhou, Dec 5 to Dec 7, Zhang San 13800000000"
    )
    plan = plan_of(card, "best_overall")

    pressed = press_book(alice, compared, plan)

    card = confirmation(pressed)
    assert [row[0] for row in card["rows"]] == ["Outbound", "Hotel", "Return journey", "Travellers"]
    assert "check-in Dec 5, check-out Dec 7, 2 nights" in dict(card["rows"])["Hotel"]
    assert card["title"].startswith("Book this plan")


def test_the_model_can_book_a_plan_too_and_it_waits_for_the_same_confirmation(alice, supplier_sandbox):
    """Channel 2: the model calls `book_plan` with the comparison's plan id; the registry turns it into the same
    pending confirmation, and nothing is booked."""
    from assistant.agent import default_registry
    from core.tools import Risk, ToolContext

    compared, card = compare(alice)
    tool = default_registry().get("book_plan")
    assert tool.risk == Risk.WRITE and set(tool.parameters["properties"]) == {"plan_id", "plan", "passengers"}
    context = ToolContext(
        user=alice, conversation_id=compared.conversation_id, language="zh-hans", request_text="订最便宜的方案"
    )

    answer = default_registry().call(
        "book_plan",
        {"plan_id": card["plan_id"], "plan": "cheapest", "passengers": [{"name": "张三", "mobile": "13800000000"}]},
        context,
    )

    assert answer["code"] == "CONFIRMATION_REQUIRED" and answer["data"]["tool"] == "book_plan"
    assert [row[0] for row in answer["data"]["preview"]["rows"]] == ["去程", "酒店", "回程", "出行人"]
    assert PendingAction.objects.get().status == "PENDING"
    assert BookingRecord.objects.count() == 0 and supplier_orders(supplier_sandbox)["total"] == 0
