"""Fixtures of the security tests: the demo data, a victim with rows of every kind, and a snapshot of them."""

import datetime as dt
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone

from aftersale.models import BizOrder, HitlTicket, OrderEvent, TicketAction, TicketEvent, TicketKind, TicketStatus
from bookings.models import BookingEvent, BookingRecord
from bookings.services.recording import booking_record_from_platform
from itinerary.models import Activity

GUARDED = [BookingRecord, BookingEvent, BizOrder, OrderEvent, HitlTicket, TicketEvent, Activity]


def snapshot() -> dict[str, list[dict]]:
    """Every guarded row as plain values (users without last_login, which a login legitimately touches)."""
    rows = {model.__name__: list(model.objects.order_by("pk").values()) for model in GUARDED}
    rows["User"] = list(get_user_model().objects.order_by("pk").values())
    for row in rows["User"]:
        row.pop("last_login", None)
    return rows


@pytest.fixture
def demo(db, settings):
    """The demo users, activities, policies and orders ORD-001…ORD-008 (alice owns 001, carol owns 003)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("seed_demo", verbosity=0)
    users = get_user_model().objects
    return {name: users.get(username=name) for name in ("alice", "bob", "carol", "approver", "admin")}


@pytest.fixture
def alice(demo):
    return demo["alice"]


@pytest.fixture
def carol(demo):
    return demo["carol"]


def rows_of(user, *, hotel_order: str, guest: str, total: int, order_id: str, ticket_no: str) -> dict:
    """A traveller's own rows: a hotel booking (guest named `guest`) and a pending refund ticket on `order_id`."""
    booking = booking_record_from_platform(
        user=user,
        biz_type="HOTEL",
        external_order_no=hotel_order,
        arguments={
            "hotelId": "HDL001",
            "checkInDate": "2026-12-10",
            "checkOutDate": "2026-12-12",
            "guests": [{"name": guest}],
        },
        response={"orderNo": hotel_order, "totalPrice": total},
    )
    order = BizOrder.objects.get(order_id=order_id)
    ticket = HitlTicket.objects.create(
        ticket_no=ticket_no,
        kind=TicketKind.WORKFLOW,
        idempotency_key=f"wfa:REFUND:{order_id}",
        action=TicketAction.REFUND,
        requested_by=user,
        order=order,
        entity=order.order_id,
        amount=order.amount or Decimal("1"),
        status=TicketStatus.PENDING,
        deadline=timezone.now() + dt.timedelta(hours=48),
    )
    return {"booking": booking, "order": order, "ticket": ticket}


@pytest.fixture
def carols(carol):
    """Carol's rows that alice must neither see nor touch: a booking, an order and a pending ticket."""
    return rows_of(
        carol, hotel_order="HTCAROL9", guest="卡萝尔秘密", total=777, order_id="ORD-003", ticket_no="TKCAROL0001"
    )


def secrets_of(carols) -> list[str]:
    """Strings that would reveal carol's rows to alice (not the ids alice herself typed, which a refusal may echo)."""
    return ["HTCAROL9", "卡萝尔秘密", carols["ticket"].ticket_no, "carol"]
