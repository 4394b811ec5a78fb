"""Fixtures of the after-sale tests."""

import datetime as dt
import itertools
import uuid
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.utils import timezone

_ticket_numbers = itertools.count(1)


@pytest.fixture
def demo_seeded(db, settings):
    """The demo users (alice, bob, carol, approver, admin), activities, policies and orders ORD-001…ORD-008."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # five users: hash them fast
    call_command("seed_demo", verbosity=0)


@pytest.fixture
def demo_approver(demo_seeded, django_user_model):
    """The demo approver: staff in the 'approvers' group, with `aftersale.decide_ticket`."""
    return django_user_model.objects.get(username="approver")


@pytest.fixture
def ticket_for():
    """Build a workflow ticket straight in the table for an order: `ticket_for(order, status=…, amount=…)`. Like
    every request the workflow files, it records the traveller's confirmation (a confirmed chat card) unless the
    test gives its own `evidence`."""
    from aftersale.models import HitlTicket, TicketAction, TicketKind, TicketStatus

    def make(order, *, action=TicketAction.REFUND, status=TicketStatus.PENDING, **fields):
        defaults = {
            "ticket_no": f"TT{next(_ticket_numbers):06d}{timezone.now():%H%M%S%f}",
            "kind": TicketKind.WORKFLOW,
            "idempotency_key": f"wfa:{action}:{order.order_id}",
            "action": action,
            "requested_by": order.user,
            "order": order,
            "entity": order.order_id,
            "amount": order.amount,
            "status": status,
            "deadline": timezone.now() + dt.timedelta(hours=48),
            "evidence": {"request": {"confirmed_via": "chat", "confirmed_action": str(uuid.uuid4())}},
        }
        return HitlTicket.objects.create(**{**defaults, **fields})

    return make


@pytest.fixture
def demo_alice(demo_seeded, django_user_model):
    """The demo traveller alice: ORD-001, 002, 004, 005 and 007 are hers."""
    return django_user_model.objects.get(username="alice")


@pytest.fixture
def demo_carol(demo_seeded, django_user_model):
    """The demo traveller carol: ORD-003 is hers (someone else's order when alice asks)."""
    return django_user_model.objects.get(username="carol")


@pytest.fixture
def english():
    """Code that words things for people (policy reasons, messages) speaks English in this test; the site's default
    language is Chinese."""
    from django.utils import translation

    with translation.override("en"):
        yield


@pytest.fixture
def rules_port():
    """The deterministic `rules` adapter of the LLM port (its verdict is the policy engine)."""
    from assistant.llm.factory import get_llm_port

    return get_llm_port("rules")


def paid_flight(user):
    """A confirmed ¥2380 flight 上海→成都 (BK20261201002, MU5101 on Dec 19, 张三): one whose cancel waits for an
    approver above ¥1000, as the console's pages show it."""
    from bookings.models import BizType, BookingRecord, BookingStatus

    return BookingRecord.objects.create(
        booking_id="BK20261201002",
        user=user,
        biz_type=BizType.FLIGHT,
        external_order_no="FL261201000002",
        status=BookingStatus.CONFIRMED,
        amount=Decimal("2380.00"),
        details={
            "number": "MU5101",
            "name": "东方航空",
            "origin": "上海",
            "destination": "成都",
            "depart": "2026-12-19T18:45",
            "arrive": "2026-12-20T03:55",
            "passengers": ["张三"],
        },
    )
