"""The database itself refuses rows that would break the model's rules."""

import datetime as dt
from decimal import Decimal

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from aftersale.models import BizOrder, HitlTicket, OrderCategory, TicketKind, TicketStatus
from bookings.models import BookingRecord
from itinerary.models import Activity

pytestmark = pytest.mark.django_db


def make_order(user, order_id="ORD-900", **extra):
    values = dict(
        order_id=order_id, user=user, category=OrderCategory.GOODS, amount=Decimal("100"), paid_at=timezone.now()
    )
    values.update(extra)
    return BizOrder.objects.create(**values)


def make_activity(**extra):
    values = dict(
        title="西湖夜游",
        city="杭州",
        province="浙江",
        price=Decimal("120"),
        start_date=dt.date(2026, 12, 1),
        end_date=dt.date(2026, 12, 31),
    )
    values.update(extra)
    return Activity.objects.create(**values)


def test_a_second_order_with_the_same_order_id_is_refused(traveller):
    make_order(traveller)
    with pytest.raises(IntegrityError), transaction.atomic():
        make_order(traveller)
    assert BizOrder.objects.count() == 1


def test_an_order_with_an_unknown_status_is_refused(traveller):
    with pytest.raises(IntegrityError), transaction.atomic():
        make_order(traveller, status="LOST")
    assert not BizOrder.objects.exists()


def test_an_existing_order_cannot_be_moved_to_an_unknown_status(traveller):
    order = make_order(traveller)
    with pytest.raises(IntegrityError), transaction.atomic():
        BizOrder.objects.filter(pk=order.pk).update(status="SHIPPED")
    order.refresh_from_db()
    assert order.status == "PAID"


def test_an_activity_with_a_negative_price_is_refused():
    with pytest.raises(IntegrityError), transaction.atomic():
        make_activity(price=Decimal("-1"))
    assert not Activity.objects.exists()


def test_an_activity_that_ends_before_it_starts_is_refused():
    with pytest.raises(IntegrityError), transaction.atomic():
        make_activity(start_date=dt.date(2026, 12, 10), end_date=dt.date(2026, 12, 1))
    assert not Activity.objects.exists()


def test_an_activity_with_an_inverted_age_range_is_refused():
    with pytest.raises(IntegrityError), transaction.atomic():
        make_activity(min_age=30, max_age=18)
    assert not Activity.objects.exists()


def test_a_booking_with_an_unknown_status_or_negative_amount_is_refused(traveller):
    base = dict(user=traveller, biz_type="FLIGHT", external_order_no="X1", amount=Decimal("500"))
    with pytest.raises(IntegrityError), transaction.atomic():
        BookingRecord.objects.create(booking_id="BK20261201001", status="PAID", **base)
    with pytest.raises(IntegrityError), transaction.atomic():
        BookingRecord.objects.create(booking_id="BK20261201002", **{**base, "amount": Decimal("-5")})
    assert not BookingRecord.objects.exists()


def make_ticket(user, status=TicketStatus.PENDING, ticket_no="T1"):
    return HitlTicket.objects.create(
        ticket_no=ticket_no,
        kind=TicketKind.WORKFLOW,
        idempotency_key="wfa:REFUND:ORD-001",
        action="REFUND",
        requested_by=user,
        entity="ORD-001",
        status=status,
        deadline=timezone.now() + dt.timedelta(days=2),
    )


def test_only_one_live_ticket_may_hold_an_idempotency_key(traveller):
    make_ticket(traveller)
    with pytest.raises(IntegrityError), transaction.atomic():
        make_ticket(traveller, ticket_no="T2")
    assert HitlTicket.objects.count() == 1


def test_a_rejected_or_timed_out_ticket_frees_its_key_for_a_new_one(traveller):
    make_ticket(traveller, status=TicketStatus.REJECTED, ticket_no="T1")
    make_ticket(traveller, status=TicketStatus.TIMEOUT, ticket_no="T2")
    make_ticket(traveller, ticket_no="T3")
    assert HitlTicket.objects.filter(idempotency_key="wfa:REFUND:ORD-001").count() == 3
