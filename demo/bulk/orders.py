"""Bulk orders (`ORD-BULK-0000001` …): activities of the bulk catalogue or goods, each with its one event row."""

import datetime as dt
from decimal import Decimal
from typing import Any

from aftersale.models import BizOrder, OrderCategory, OrderEvent, OrderStatus
from demo.bulk.keys import (
    ORDER_PREFIX,
    ORDER_RE,
    TITLE_SUFFIX,
    analyze,
    bulk_users_by_seq,
    chunks,
    create_with_events,
    missing_numbers,
    money,
    order_id_for,
    present_numbers,
    row_random,
    user_for,
    weighted,
)
from itinerary.models import Activity

GOODS = (
    ("登山鞋", "Hiking boots", 599),
    ("冲锋衣", "Waterproof shell jacket", 899),
    ("登山杖", "Trekking pole", 129),
    ("速干T恤", "Quick-dry T-shirt", 169),
    ("户外头灯", "Headlamp", 129),
    ("睡袋", "Sleeping bag", 459),
)
ACTIVITY_ORDER_STATUSES = (
    (OrderStatus.PAID, 45),
    (OrderStatus.COMPLETED, 30),
    (OrderStatus.REFUNDED, 15),
    (OrderStatus.CANCELLED, 10),
)
GOODS_ORDER_STATUSES = (
    (OrderStatus.PAID, 15),
    (OrderStatus.DELIVERED, 30),
    (OrderStatus.COMPLETED, 35),
    (OrderStatus.RETURNED, 10),
    (OrderStatus.REFUNDED, 10),
)


def seed_orders(wanted: int, *, users: int, now: dt.datetime, batch_size: int) -> tuple[int, int]:
    ids = BizOrder.objects.filter(order_id__startswith=ORDER_PREFIX).values_list("order_id", flat=True)
    present = present_numbers(ids, ORDER_RE)
    missing = missing_numbers(wanted, present)
    if missing:
        user_pks = bulk_users_by_seq()
        catalogue = list(
            Activity.objects.filter(title_zh_hans__contains=TITLE_SUFFIX)
            .order_by("pk")
            .values_list("pk", "title_zh_hans", "price", "start_date", "end_date")
        )
        for batch in chunks(missing, batch_size):
            orders = [_order(seq, users=user_pks, wanted_users=users, catalogue=catalogue, now=now) for seq in batch]
            create_with_events(orders, OrderEvent, owner="order", batch_size=batch_size)
        analyze(BizOrder, OrderEvent)
    return len(missing), len(present & set(range(1, wanted + 1)))


def _order(seq: int, *, users: dict[int, int], wanted_users: int, catalogue: list, now: dt.datetime) -> BizOrder:
    rng = row_random("order", seq)
    paid_at = now - dt.timedelta(days=rng.randint(0, 120), seconds=rng.randint(0, 86399))
    fields: dict[str, Any] = {"order_id": order_id_for(seq), "user_id": user_for(seq, users, wanted_users, rng)}
    if catalogue and rng.random() < 0.7:
        pk, title, price, start, end = catalogue[rng.randrange(len(catalogue))]
        qty = rng.choice((1, 1, 1, 2, 3))
        span = max((end - start).days, 0)
        fields |= {
            "category": OrderCategory.ACTIVITY,
            "activity_id": pk,
            "items": [{"name": title, "qty": qty, "price": money(price)}],
            "amount": price * qty,
            "status": weighted(rng, ACTIVITY_ORDER_STATUSES),
            "service_date": start + dt.timedelta(days=rng.randint(0, span)),
        }
    else:
        picked = rng.sample(GOODS, rng.randint(1, 3))
        items = [
            {"name": name, "name_en": english, "qty": rng.randint(1, 2), "price": price}
            for name, english, price in picked
        ]
        status = weighted(rng, GOODS_ORDER_STATUSES)
        delivered = status in {OrderStatus.DELIVERED, OrderStatus.COMPLETED, OrderStatus.RETURNED}
        fields |= {
            "category": OrderCategory.GOODS,
            "items": items,
            "amount": Decimal(sum(item["price"] * item["qty"] for item in items)),
            "status": status,
            "delivered_at": paid_at + dt.timedelta(days=rng.randint(1, 4)) if delivered else None,
        }
    return BizOrder(paid_at=paid_at, **fields)
