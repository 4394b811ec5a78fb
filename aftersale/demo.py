"""Demo after-sale data: the policies and the eight orders ORD-001…ORD-008, dated from the moment of seeding.

Each order is built to exercise one path of the after-sale workflow (see `DEMO_ORDERS`). Seeding fills what is
absent (policies by title, orders by order_id) and never touches an existing row. A new order gets one event row
saying the seed created it in its status, so every order's history starts somewhere.
"""

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from aftersale.models import BizOrder, OrderCategory, OrderEvent, OrderStatus, Policy
from core.transitions import record_creation
from itinerary.models import Activity

SEED_REASON = "Demo data created by seed_demo."


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


DEMO_ORDERS: tuple[DemoOrder, ...] = (
    DemoOrder(
        order_id="ORD-001",
        username="alice",
        category=OrderCategory.ACTIVITY,
        status=OrderStatus.PAID,
        purpose="Refundable: the activity starts in 20 days, well over 48 hours away.",
        paid_days_ago=6,
        activity_title="赛里木湖环湖骑行一日游",
        service_in_days=20,
    ),
    DemoOrder(
        order_id="ORD-002",
        username="alice",
        category=OrderCategory.GOODS,
        status=OrderStatus.DELIVERED,
        purpose="Not returnable: delivered 15 days ago, past the 7-day no-reason window.",
        paid_days_ago=18,
        items=({"name": "登山鞋", "name_en": "Hiking boots", "qty": 1, "price": 599},),
        delivered_days_ago=15,
    ),
    DemoOrder(
        order_id="ORD-003",
        username="carol",
        category=OrderCategory.GOODS,
        status=OrderStatus.DELIVERED,
        purpose="Carol's order: when alice asks about it, it is someone else's order.",
        paid_days_ago=5,
        items=({"name": "冲锋衣", "name_en": "Waterproof shell jacket", "qty": 1, "price": 899},),
        delivered_days_ago=2,
    ),
    DemoOrder(
        order_id="ORD-004",
        username="alice",
        category=OrderCategory.GOODS,
        status=OrderStatus.DELIVERED,
        purpose="Returnable: delivered 3 days ago, inside the 7-day window.",
        paid_days_ago=6,
        items=({"name": "登山杖", "name_en": "Trekking pole", "qty": 2, "price": 129},),
        delivered_days_ago=3,
    ),
    DemoOrder(
        order_id="ORD-005",
        username="alice",
        category=OrderCategory.ACTIVITY,
        status=OrderStatus.PAID,
        purpose="Not refundable: the activity is tomorrow, within 48 hours.",
        paid_days_ago=3,
        activity_title="大理古城与苍山索道一日游",
        service_in_days=1,
    ),
    DemoOrder(
        order_id="ORD-006",
        username="bob",
        category=OrderCategory.ACTIVITY,
        status=OrderStatus.PAID,
        purpose="Refundable: bob's activity in 30 days.",
        paid_days_ago=2,
        activity_title="黄山日出云海两日游",
        service_in_days=30,
    ),
    DemoOrder(
        order_id="ORD-007",
        username="alice",
        category=OrderCategory.ACTIVITY,
        status=OrderStatus.REFUNDED,
        purpose="Already refunded: nothing more to refund.",
        paid_days_ago=12,
        activity_title="西湖夜游与龙井茶园",
        service_in_days=10,
    ),
    DemoOrder(
        order_id="ORD-008",
        username="bob",
        category=OrderCategory.GOODS,
        status=OrderStatus.DELIVERED,
        purpose="Returnable: bob's gear delivered yesterday.",
        paid_days_ago=4,
        items=(
            {"name": "速干T恤", "name_en": "Quick-dry T-shirt", "qty": 2, "price": 169},
            {"name": "户外头灯", "name_en": "Headlamp", "qty": 1, "price": 129},
        ),
        delivered_days_ago=1,
    ),
)


DEMO_POLICIES: tuple[dict[str, Any], ...] = (
    {
        "title": "7天无理由退货 / 7-day no-reason return for goods",
        "category": OrderCategory.GOODS,
        "tags": ["退货", "无理由", "7天", "商品", "return"],
        "text": "商品自签收之日起7天内（含第7天），在商品未使用、吊牌和包装完好、不影响二次销售的前提下，"
        "可申请无理由退货；超过7天不再受理无理由退货。退货运费由买家承担。"
        " Goods may be returned without giving a reason within 7 days of delivery if they are unused, with tags "
        "and packaging intact; after 7 days no-reason returns are not accepted, and the buyer pays return shipping.",
    },
    {
        "title": "质量问题退换货 / Returns for quality problems",
        "category": OrderCategory.GOODS,
        "tags": ["质量问题", "退货", "换货", "15天", "商品", "return"],
        "text": "商品存在质量问题（如开胶、断裂、破损、与描述不符）的，自签收之日起15天内可申请退货或换货，"
        "需提供问题照片，运费由平台承担；超过15天的质量问题按厂家保修处理。"
        " Goods with a quality problem (defects, breakage, not as described) may be returned or exchanged within "
        "15 days of delivery with photos of the problem, and the platform pays shipping; after 15 days the "
        "manufacturer's warranty applies.",
    },
    {
        "title": "商品退款到账时间 / Refund timing for goods",
        "category": OrderCategory.GOODS,
        "tags": ["退款", "到账", "原路退回", "商品", "refund"],
        "text": "退货商品经仓库签收并检验合格后，退款原路退回至原支付账户，一般3至5个工作日到账。"
        " Once the warehouse has received and checked the returned goods, the refund goes back to the original "
        "payment method, usually within 3–5 working days.",
    },
    {
        "title": "活动门票退款规则 / Activity ticket refunds",
        "category": OrderCategory.ACTIVITY,
        "tags": ["退款", "活动", "门票", "48小时", "refund"],
        "text": "活动门票在活动开始前48小时以上申请退款的，全额退款；距活动开始不足48小时的，不予退款。"
        "活动开始时间以订单上的服务日期当天0点计。"
        " Activity tickets are refunded in full when the request is made more than 48 hours before the start; "
        "within 48 hours of the start no refund is given. The start is 00:00 on the order's service date.",
    },
    {
        "title": "已使用或已完成订单不退款 / Used or completed orders",
        "category": OrderCategory.ACTIVITY,
        "tags": ["退款", "已使用", "已完成", "活动", "refund"],
        "text": "已核销使用的活动门票、已完成的订单以及已经退款的订单，不再受理退款申请。"
        " Tickets that have been used, orders that are completed and orders already refunded cannot be refunded.",
    },
    {
        "title": "活动取消全额退款 / Activities cancelled by the organiser",
        "category": OrderCategory.ACTIVITY,
        "tags": ["退款", "活动取消", "天气", "不可抗力", "refund"],
        "text": "因天气、自然灾害、景区关闭或主办方原因取消的活动，不受48小时限制，全额退款，平台将主动通知并原路退回。"
        " When an activity is cancelled because of weather, natural hazards, a closed site or the organiser, it is "
        "refunded in full whatever the time left, and the platform notifies the traveller and refunds automatically.",
    },
    {
        "title": "活动退款到账时间 / Refund timing for activities",
        "category": OrderCategory.ACTIVITY,
        "tags": ["退款", "到账", "原路退回", "活动", "refund"],
        "text": "活动退款审核通过后原路退回至原支付账户，一般3至5个工作日到账。"
        " Once an activity refund is approved it goes back to the original payment method, usually within 3–5 "
        "working days.",
    },
)


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
