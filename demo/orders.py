"""Demo after-sale data: the policies and the eight orders ORD-001…ORD-008 (demo/data/), dated from the moment of
seeding.

Each order is built to exercise one path of the after-sale workflow (its `purpose` in demo/data/orders.json).
Seeding fills what is absent (policies by title, orders by order_id) and never touches an existing row. A new order
gets one event row saying the seed created it in its status, so every order's history starts somewhere.
"""

import json
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from aftersale.models import BizOrder, OrderEvent, Policy
from aftersale.reasons import SEED_REASON
from core.transitions import record_creation
from itinerary.models import Activity


@dataclass(frozen=True)
class DemoOrder:
    """One demo order, with times relative to the seed moment.

    An activity order names its activity by title: its one item and its amount are that activity's price as
    stored, so the order the workflow reads and the activity row a reconciliation reads always agree.
    """

    order_id: str
    username: str
    category: str
    status: str
    purpose: str
    paid_days_ago: int
    items: tuple[dict[str, Any], ...] = ()
    activity_title: str | None = None
    service_in_days: int | None = None
    delivered_days_ago: int | None = None


DATA = Path(__file__).resolve().parent / "data"


def _read(name: str) -> list[dict[str, Any]]:
    with (DATA / name).open(encoding="utf-8") as handle:
        return json.load(handle)


# The orders (demo/data/orders.json: each entry's `purpose` says which path it exercises) and the policies the
# after-sale checks quote (demo/data/policies.json; aftersale/policy.py holds their rules as code).
DEMO_ORDERS: tuple[DemoOrder, ...] = tuple(
    DemoOrder(**{**entry, "items": tuple(entry.get("items", ()))}) for entry in _read("orders.json")
)
DEMO_POLICIES: tuple[dict[str, Any], ...] = tuple(_read("policies.json"))


def _money(value: Decimal) -> int | float:
    """A price as a JSON number: whole yuan stay integers."""
    return int(value) if value == value.to_integral_value() else float(value)


def order_fields(spec: DemoOrder, *, now: datetime, today: date) -> dict[str, Any]:
    """The model fields of one demo order (its user excepted), from the seed moment and the stored activity."""
    activity = None
    items = [dict(item) for item in spec.items]
    if spec.activity_title is not None:
        activity = Activity.objects.filter(title_zh_hans=spec.activity_title).order_by("id").first()
        if activity is None:
            raise LookupError(f"Demo activity {spec.activity_title!r} is missing: seed the activities first")
        english = activity.title_en  # the catalogue's English title beside the Chinese one (itinerary.translation)
        items = [{"name": activity.title_zh_hans, **({"name_en": english} if english else {}), "qty": 1}]
        items[0]["price"] = _money(activity.price)
    amount = sum((Decimal(str(item["price"])) * item["qty"] for item in items), Decimal("0"))
    return {
        "category": spec.category,
        "status": spec.status,
        "items": items,
        "amount": amount,
        "activity": activity,
        "service_date": today + timedelta(days=spec.service_in_days) if spec.service_in_days is not None else None,
        "paid_at": now - timedelta(days=spec.paid_days_ago),
        "delivered_at": now - timedelta(days=spec.delivered_days_ago) if spec.delivered_days_ago is not None else None,
    }


@transaction.atomic
def seed_demo_policies() -> dict[str, tuple[int, int]]:
    """Create the missing demo policies (matched by title); return {"policies": (created, present)}."""
    created = 0
    for policy in DEMO_POLICIES:
        _, was_created = Policy.objects.get_or_create(
            title=policy["title"],
            defaults={key: value for key, value in policy.items() if key != "title"},
        )
        created += was_created
    return {"policies": (created, len(DEMO_POLICIES) - created)}


@transaction.atomic
def seed_demo_orders(*, now: datetime | None = None) -> dict[str, tuple[int, int]]:
    """Create the missing demo orders (matched by order_id); return {"orders": (created, present)}.

    Needs the demo users and activities: seed them first.
    """
    now = now or timezone.now()
    today = timezone.localdate(now)
    user_model = get_user_model()
    existing = set(
        BizOrder.objects.filter(order_id__in=[o.order_id for o in DEMO_ORDERS]).values_list("order_id", flat=True)
    )
    created = 0
    for spec in DEMO_ORDERS:
        if spec.order_id in existing:
            continue
        user = user_model.objects.get(username=spec.username)
        order = BizOrder.objects.create(order_id=spec.order_id, user=user, **order_fields(spec, now=now, today=today))
        record_creation(order, event_model=OrderEvent, reason=SEED_REASON)
        created += 1
    return {"orders": (created, len(DEMO_ORDERS) - created)}
