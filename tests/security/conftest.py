"""Fixtures of the security tests: the demo data, a victim with rows of every kind, and a snapshot of them."""

import datetime as dt
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone

from aftersale.models import BizOrder, HitlTicket, OrderEvent, TicketAction, TicketEvent, TicketKind, TicketStatus
from bookings.models import BookingEvent, BookingRecord
from bookings.services import booking_record_from_platform
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


@pytest.fixture
def carols(carol):
    """Carol's rows that alice must neither see nor touch: a booking, an order and a pending ticket."""
    booking = booking_record_from_platform(
        user=carol,
        biz_type="HOTEL",
        external_order_no="HTCAROL9",
        arguments={
            "hotelId": "HDL001",
            "checkInDate": "2026-12-10",
            "checkOutDate": "2026-12-12",
            "guests": [{"name": "卡萝尔秘密"}],
        },
        response={"orderNo": "HTCAROL9", "totalPrice": 777},
    )
    order = BizOrder.objects.get(order_id="ORD-003")
    ticket = HitlTicket.objects.create(
        ticket_no="TKCAROL0001",
        kind=TicketKind.WORKFLOW,
        idempotency_key="wfa:REFUND:ORD-003",
        action=TicketAction.REFUND,
        requested_by=carol,
        order=order,
        entity=order.order_id,
        amount=order.amount or Decimal("1"),
        status=TicketStatus.PENDING,
        deadline=timezone.now() + dt.timedelta(hours=48),
    )
    return {"booking": booking, "order": order, "ticket": ticket}


def secrets_of(carols) -> list[str]:
    """Strings that would reveal carol's rows to alice (not the ids alice herself typed, which a refusal may echo)."""
    return ["HTCAROL9", "卡萝尔秘密", carols["ticket"].ticket_no, "carol"]
