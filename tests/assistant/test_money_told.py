"""Money told before it moves, through the chat API in both channels with the real sandbox supplier: a rebooking's
confirmation card says what happens to what was paid (the old booking's refund under its fare rules, the new fare,
the difference, what is to pay; for an unpaid booking that nothing was paid), and after the "yes" the booking rows,
their events and the reply agree with the card. A cancel waits for an approver only where money is at stake: an
unpaid booking above the approval amount is cancelled on the traveller's confirmation alone, from the chat, the
My bookings page and the API alike."""

from decimal import Decimal

import pytest
from django.test import Client
from rest_framework.test import APIClient

from aftersale.models import HitlTicket
from assistant.models import PendingAction
from bookings.formatting import yuan
from bookings.models import BookingEvent, BookingRecord, BookingStatus
from bookings.refund_rules import refund_estimate
from bookings.services.pay import booking_pay
from tests.assistant.conftest import Chat
from tests.bookings.test_booking_life import DEPARTS, book_flight

pytestmark = [pytest.mark.django_db]


@pytest.fixture
def chat(alice, channel, supplier_sandbox):
    return Chat(alice)


def confirmation(answer: dict) -> dict:
    found = [c for c in answer["cards"] if c["type"] == "confirmation"]
    assert len(found) == 1, f"no confirmation card: {answer['reply']!r}"
    return found[0]


def card_text(card: dict) -> str:
    return " ".join([card["title"], *(f"{label} {value}" for label, value in card["rows"]), card.get("terms", "")])


def subject_of(card: dict) -> dict:
    """What the card's pending action will do, as the service previewed it (kept server-side with the card)."""
    return PendingAction.objects.get(pk=card["pending_id"]).preview["subject"]


def money_of(card: dict) -> dict:
    return subject_of(card)["money"]


def rows() -> list[tuple]:
    return list(BookingRecord.objects.order_by("id").values_list("booking_id", "status", "amount"))


def yes(sentence: str) -> str:
    """The traveller's yes in the language of their sentence."""
    return "yes" if sentence.isascii() else "确认"


def paid_flight(user) -> BookingRecord:
    booking = book_flight(user)
    return booking_pay(user=user, booking_id=booking.booking_id).booking


# -- rebooking a paid booking ----------------------------------------------------------------------------------------

NEW_DAY = DEPARTS.replace(day=DEPARTS.day + 1)
REBOOK_PAID = [
    (f"把我的机票改签到{NEW_DAY.month}月{NEW_DAY.day}号", ("已付", "退款", "新票价", "差额", "待付"), "已退"),
    (f"我那张机票能改到{NEW_DAY.month}月{NEW_DAY.day}日吗", ("已付", "退款", "新票价", "差额", "待付"), "已退"),
    (
        f"move my flight to {NEW_DAY:%b} {NEW_DAY.day}",
        ("Paid", "Refund", "New fare", "Difference", "To pay"),
        "refunded",
    ),
    (
        f"change my flight to {NEW_DAY:%B} {NEW_DAY.day}",
        ("Paid", "Refund", "New fare", "Difference", "To pay"),
        "refunded",
    ),
]


@pytest.mark.parametrize(("sentence", "labels", "done_word"), REBOOK_PAID)
def test_rebooking_a_paid_booking_tells_the_refund_the_difference_and_what_to_pay_before_and_after(
    chat, alice, sentence, labels, done_word
):
    old = paid_flight(alice)
    expected_refund = refund_estimate(old).amount
    before = rows()

    asked = chat.say(sentence)

    card = confirmation(asked)
    money = money_of(card)
    text = card_text(card)
    assert all(label in text for label in labels), text
    assert Decimal(money["paid"]) == old.amount and Decimal(money["refund"]) == expected_refund
    assert money["share"] == "95"  # three weeks ahead: 95 % under the flight fare rules
    new_fare = Decimal(money["new_amount"])
    assert Decimal(money["difference"]) == new_fare - expected_refund and Decimal(money["to_pay"]) == new_fare
    assert yuan(expected_refund) in text and money["waits_for_approver"] is False
    assert rows() == before  # nothing moved before the yes

    done = chat.say(yes(sentence))

    old.refresh_from_db()
    new = BookingRecord.objects.exclude(pk=old.pk).get(user=alice)
    assert old.status == BookingStatus.CANCELLED and new.status == BookingStatus.PENDING_PAYMENT
    assert new.amount == new_fare and new.details["rebooked_from"] == old.booking_id
    assert old.details["refund"]["refund"] == money["refund"] and old.details["refund"]["paid"] == money["paid"]
    cancelled = BookingEvent.objects.get(booking=old, to_status="CANCELLED")
    assert f"Refund ¥{expected_refund} of ¥{old.amount}" in cancelled.reason
    assert yuan(expected_refund) in done["reply"] and done_word in done["reply"], done["reply"]
    assert yuan(new_fare) in done["reply"]
    assert not HitlTicket.objects.exists()


@pytest.mark.parametrize(
    ("sentence", "said"),
    [
        (f"把我的机票改签到{NEW_DAY.month}月{NEW_DAY.day}号", "没有付过款"),
        (f"move my flight to {NEW_DAY:%b} {NEW_DAY.day}", "Nothing was paid"),
    ],
)
def test_rebooking_an_unpaid_booking_says_nothing_was_paid_and_the_new_one_is_to_pay(chat, alice, sentence, said):
    old = book_flight(alice)

    card = confirmation(chat.say(sentence))

    money = money_of(card)
    assert money["paid"] is None and money["refund"] is None and said in card["terms"]
    done = chat.say(yes(sentence))

    old.refresh_from_db()
    new = BookingRecord.objects.exclude(pk=old.pk).get(user=alice)
    assert old.status == BookingStatus.CANCELLED and "refund" not in old.details
    assert new.status == BookingStatus.PENDING_PAYMENT and Decimal(money["to_pay"]) == new.amount
    assert said in done["reply"], done["reply"]


def test_rebooking_a_paid_booking_above_the_approval_amount_says_the_refund_waits_and_keeps_it_paid(
    chat, alice, settings
):
    settings.BOOKINGS_CANCEL_APPROVAL_ABOVE = 300
    old = paid_flight(alice)

    card = confirmation(chat.say(f"把我的机票改签到{NEW_DAY.month}月{NEW_DAY.day}号"))

    assert money_of(card)["waits_for_approver"] is True and "审批" in card["terms"]
    done = chat.say("确认")

    old.refresh_from_db()
    assert old.status == BookingStatus.CONFIRMED and "refund" not in old.details  # nothing refunded yet
    assert HitlTicket.objects.get().entity == old.booking_id
    assert "退款" in done["reply"] and old.booking_id in done["reply"]


# -- cancelling: an approver only where money is at stake -----------------------------------------------------------


def unpaid_4080(user) -> BookingRecord:
    """An unpaid booking of ¥4080 (above the ¥2000 approval amount): nothing charged."""
    booking = book_flight(user)
    BookingRecord.objects.filter(pk=booking.pk).update(amount=Decimal("4080.00"))
    booking.refresh_from_db()
    return booking


@pytest.mark.parametrize(
    ("sentence", "said"),
    [("取消我的机票", "已取消"), ("帮我把那张机票退掉吧", "已取消"), ("cancel my flight", "is cancelled")],
)
def test_an_unpaid_booking_above_the_amount_is_cancelled_on_the_travellers_confirmation_alone(
    chat, alice, supplier_sandbox, sentence, said
):
    booking = unpaid_4080(alice)

    card = confirmation(chat.say(sentence))

    assert subject_of(card)["needs_approver"] is False
    assert "审批" not in card["terms"] and "approver" not in card["terms"]
    assert BookingRecord.objects.get(pk=booking.pk).status == BookingStatus.PENDING_PAYMENT  # a card first
    done = chat.say(yes(sentence))

    booking.refresh_from_db()
    assert booking.status == BookingStatus.CANCELLED and "refund" not in booking.details
    assert not HitlTicket.objects.exists() and supplier_sandbox.stats()["cancels"]["total"] == 1
    assert said in done["reply"], done["reply"]
    assert not PendingAction.objects.filter(status="PENDING").exists()


def test_an_unpaid_booking_above_the_amount_is_cancelled_from_my_bookings_page_at_once(alice, supplier_sandbox):
    booking = unpaid_4080(alice)
    client = Client()
    client.force_login(alice)

    shown = client.get(f"/bookings/{booking.booking_id}/cancel")
    assert BookingRecord.objects.get(pk=booking.pk).status == BookingStatus.PENDING_PAYMENT
    assert "approver" not in shown.content.decode().lower()
    client.post(f"/bookings/{booking.booking_id}/cancel", {"confirm": "1"})

    booking.refresh_from_db()
    assert booking.status == BookingStatus.CANCELLED and not HitlTicket.objects.exists()


def test_an_unpaid_booking_above_the_amount_is_cancelled_through_the_api_at_once(alice, supplier_sandbox):
    booking = unpaid_4080(alice)
    api = APIClient()
    api.force_authenticate(alice)

    asked = api.post(f"/api/v1/bookings/{booking.booking_id}/cancel", {}, format="json")
    assert asked.status_code == 409 and asked.json()["data"]["preview"]["subject"]["needs_approver"] is False
    done = api.post(f"/api/v1/bookings/{booking.booking_id}/cancel", {"confirm": True}, format="json")

    assert done.status_code == 200 and done.json()["refund"] is None
    booking.refresh_from_db()
    assert booking.status == BookingStatus.CANCELLED and not HitlTicket.objects.exists()


@pytest.mark.parametrize(
    ("sentence", "said"), [("取消我的机票", "按票价规则退还"), ("cancel my flight", "under its fare rules")]
)
def test_a_paid_cancel_records_the_refund_the_card_told_and_says_it(chat, alice, sentence, said):
    booking = paid_flight(alice)
    refund = refund_estimate(booking).amount

    card = confirmation(chat.say(sentence))
    assert f"¥{refund}" in card["terms"]
    done = chat.say(yes(sentence))

    booking.refresh_from_db()
    assert booking.status == BookingStatus.CANCELLED and booking.details["refund"]["refund"] == str(refund)
    assert yuan(refund) in done["reply"] and said in done["reply"], done["reply"]
