"""Bulk data for load and query-plan work: `manage.py seed_bulk --activities 100000`.

Rows are derived from the demo catalogue's destinations (`itinerary/demo_data/activities.json`): varied titles
(in Chinese and English, from the same words),
prices, availability windows over the coming months, tags and system tags. Every row has a deterministic natural
key carrying a `BULK-` marker and its sequence number, and its content is a pure function of that number (and of
the seed day, like the demo data), so seeding is idempotent: it reads which sequence numbers are present, creates
only the absent ones, and running it twice adds nothing; asking for more adds the difference.

| rows | natural key |
| --- | --- |
| users | `bulk-user-000001` (unusable password, an interest profile) and `bulk-approver` |
| activities | a title ending in ` · BULK-0000001` |
| orders | `ORD-BULK-0000001` (and one event row) |
| bookings | `BK-BULK-0000001` (and one event row) |
| tickets | `T-BULK-0000001` about order (or, for every tenth, booking) number 1 (and one event row) |

Rows are written with `bulk_create` in batches, each batch in its own transaction, so an interrupted run keeps what
it wrote and the next run completes it. On PostgreSQL the tables are ANALYZEd afterwards, so the planner sees the
new sizes at once. This module is a tool for benchmarks and capacity checks, not a product path: it writes around
the services on purpose (like a bulk import) and gives each row the single event saying the seed created it.
"""

import datetime as dt
import random
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import connection, transaction
from django.utils import timezone

from aftersale.models import (
    BizOrder,
    HitlTicket,
    OrderCategory,
    OrderEvent,
    OrderStatus,
    TicketAction,
    TicketEvent,
    TicketKind,
    TicketStatus,
    Verdict,
)
from bookings.models import BizType, BookingEvent, BookingRecord, BookingStatus
from itinerary.demo import demo_activity_data
from itinerary.models import Activity, GenderRestriction, InterestProfile
from itinerary.tagging import SYSTEM_TAGS, system_tags_for
from itinerary.words import english_place_name

MARKER = "BULK-"
BATCH_SIZE = 2000
SEED_REASON = "Bulk data created by seed_bulk."

USERNAME_PREFIX = "bulk-user-"
APPROVER_USERNAME = "bulk-approver"
TITLE_SUFFIX = f" · {MARKER}"
ORDER_PREFIX = f"ORD-{MARKER}"
BOOKING_PREFIX = f"BK-{MARKER}"
TICKET_PREFIX = f"T-{MARKER}"

# Sequence numbers of each natural key.
_USERNAME_RE = re.compile(rf"^{re.escape(USERNAME_PREFIX)}(\d+)$")
_TITLE_RE = re.compile(rf"{re.escape(TITLE_SUFFIX)}(\d+)$")
_ORDER_RE = re.compile(rf"^{re.escape(ORDER_PREFIX)}(\d+)$")
_BOOKING_RE = re.compile(rf"^{re.escape(BOOKING_PREFIX)}(\d+)$")
_TICKET_RE = re.compile(rf"^{re.escape(TICKET_PREFIX)}(\d+)$")


def username_for(seq: int) -> str:
    return f"{USERNAME_PREFIX}{seq:06d}"


def order_id_for(seq: int) -> str:
    return f"{ORDER_PREFIX}{seq:07d}"


def booking_id_for(seq: int) -> str:
    return f"{BOOKING_PREFIX}{seq:07d}"


def ticket_no_for(seq: int) -> str:
    return f"{TICKET_PREFIX}{seq:07d}"


@dataclass(frozen=True)
class BulkCount:
    """What one kind of row came to: how many were created, how many were there already, and how long it took."""

    created: int
    present: int
    seconds: float


@dataclass(frozen=True)
class BulkPlan:
    """How many rows of each kind the bulk data should hold (the counts of the `BULK-` rows, not of the tables)."""

    activities: int
    users: int
    orders: int
    bookings: int
    tickets: int

    @classmethod
    def for_activities(
        cls,
        activities: int,
        *,
        users: int | None = None,
        orders: int | None = None,
        bookings: int | None = None,
        tickets: int | None = None,
    ) -> "BulkPlan":
        """Counts in proportion to the catalogue unless given: per 100k activities, 2.5k users, 20k orders,
        10k bookings and 5k tickets."""
        orders = activities // 5 if orders is None else orders
        bookings = activities // 10 if bookings is None else bookings
        tickets = min(activities // 20, orders) if tickets is None else tickets
        needs_users = orders or bookings or tickets
        users = (max(activities // 40, 1 if needs_users else 0)) if users is None else users
        plan = cls(activities=activities, users=users, orders=orders, bookings=bookings, tickets=tickets)
        plan.check()
        return plan

    def check(self) -> None:
        if min(self.activities, self.users, self.orders, self.bookings, self.tickets) < 0:
            raise ValueError("counts cannot be negative")
        if (self.orders or self.bookings) and not self.users:
            raise ValueError("orders and bookings need at least one bulk user")
        if self.tickets > self.orders:
            raise ValueError("each bulk ticket is about a bulk order of the same number: --tickets ≤ --orders")


def bulk_seed(
    plan: BulkPlan,
    *,
    today: dt.date | None = None,
    now: dt.datetime | None = None,
    batch_size: int = BATCH_SIZE,
    progress: Callable[[str, BulkCount], None] | None = None,
) -> dict[str, BulkCount]:
    """Create the absent bulk rows of `plan` (users, activities, orders, bookings, tickets, in that order).

    Returns {kind: BulkCount}. Idempotent: rows are matched by natural key, existing rows are never changed.
    """
    plan.check()
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    now = now or timezone.now()
    today = today or timezone.localdate(now)
    steps: list[tuple[str, Callable[[], tuple[int, int]]]] = [
        ("users", lambda: _seed_users(plan.users, today=today, batch_size=batch_size)),
        ("activities", lambda: _seed_activities(plan.activities, today=today, batch_size=batch_size)),
        ("orders", lambda: _seed_orders(plan.orders, users=plan.users, now=now, batch_size=batch_size)),
        ("bookings", lambda: _seed_bookings(plan.bookings, users=plan.users, today=today, batch_size=batch_size)),
        ("tickets", lambda: _seed_tickets(plan.tickets, now=now, batch_size=batch_size)),
    ]
    results: dict[str, BulkCount] = {}
    for kind, step in steps:
        started = time.perf_counter()
        created, present = step()
        results[kind] = BulkCount(created=created, present=present, seconds=time.perf_counter() - started)
        if progress:
            progress(kind, results[kind])
    return results


# -- helpers --------------------------------------------------------------------------------------------------------


def _present(values: Iterable[str], pattern: re.Pattern) -> set[int]:
    return {int(m.group(1)) for value in values if (m := pattern.search(value))}


def _missing(wanted: int, present: set[int]) -> list[int]:
    return [seq for seq in range(1, wanted + 1) if seq not in present]


def _chunks(items: list, size: int) -> Iterator[list]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _analyze(*models) -> None:
    """Fresh planner statistics after a bulk load (PostgreSQL; SQLite plans without them)."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        for model in models:
            cursor.execute(f'ANALYZE "{model._meta.db_table}"')


def _rng(kind: str, seq: int) -> random.Random:
    """The random source of one row: the same row content for the same kind and number, on every run."""
    return random.Random(f"{kind}:{seq}")  # a str seed is hashed with SHA-512: stable across runs and processes


def _bulk_users_by_seq() -> dict[int, int]:
    """{sequence number: user pk} of the bulk users."""
    rows = get_user_model().objects.filter(username__startswith=USERNAME_PREFIX).values_list("username", "pk")
    return {int(m.group(1)): pk for username, pk in rows if (m := _USERNAME_RE.match(username))}


def _user_for(seq: int, users: dict[int, int], wanted_users: int, rng: random.Random) -> int:
    """A bulk user for a row: one of the first `wanted_users` when present, else any present one."""
    if wanted_users:
        pk = users.get(rng.randint(1, wanted_users))
        if pk is not None:
            return pk
    ordered = sorted(users)
    return users[ordered[seq % len(ordered)]]


# -- users ----------------------------------------------------------------------------------------------------------


def _seed_users(wanted: int, *, today: dt.date, batch_size: int) -> tuple[int, int]:
    user_model = get_user_model()
    present = set(_bulk_users_by_seq())
    missing = _missing(wanted, present)
    unusable = make_password(None)  # nobody logs in as a bulk user
    for batch in _chunks(missing, batch_size):
        with transaction.atomic():
            users = user_model.objects.bulk_create(
                [user_model(username=username_for(seq), password=unusable, is_active=True) for seq in batch],
                batch_size=batch_size,
            )
            InterestProfile.objects.bulk_create(
                [_profile(user, seq, today=today) for user, seq in zip(users, batch, strict=True)],
                batch_size=batch_size,
            )
    if wanted and not user_model.objects.filter(username=APPROVER_USERNAME).exists():
        user_model.objects.create(username=APPROVER_USERNAME, password=unusable, is_staff=True)
    if missing:
        _analyze(user_model, InterestProfile)
    return len(missing), len(present & set(range(1, wanted + 1)))


def _profile(user, seq: int, *, today: dt.date) -> InterestProfile:
    rng = _rng("profile", seq)
    liked = rng.sample(SYSTEM_TAGS, rng.randint(2, 5))
    age = rng.randint(16, 72)
    birth_date = today - dt.timedelta(days=age * 365 + rng.randint(0, 364)) if rng.random() < 0.85 else None
    gender = rng.choice([InterestProfile.Gender.FEMALE, InterestProfile.Gender.MALE, InterestProfile.Gender.UNKNOWN])
    return InterestProfile(
        user=user,
        scores={tag: round(rng.uniform(0.1, 1.0), 2) for tag in liked},
        birth_date=birth_date,
        gender=gender,
    )


# -- activities -----------------------------------------------------------------------------------------------------

# Title styles: a demo title with a qualifier in front, or a destination + theme + format of our own.
QUALIFIERS = ("", "精品", "小团", "私享", "深度", "轻奢", "经济", "亲子", "周末", "秋冬", "摄影师带队")
# The same words for the English title, as an English travel site would put them before a title.
QUALIFIERS_EN = {
    "": "",
    "精品": "Premium",
    "小团": "Small-group",
    "私享": "Private",
    "深度": "In-depth",
    "轻奢": "Boutique",
    "经济": "Budget",
    "亲子": "Family",
    "周末": "Weekend",
    "秋冬": "Autumn and winter",
    "摄影师带队": "Photographer-led",
}
THEMES = (  # (the title's word, its tag, the English title's word)
    ("徒步", "徒步", "hiking"),
    ("骑行", "骑行", "cycling"),
    ("摄影", "摄影", "photography"),
    ("美食", "美食", "food"),
    ("温泉", "温泉", "hot spring"),
    ("露营", "露营", "camping"),
    ("夜游", "夜游", "night"),
    ("亲子", "亲子", "family"),
    ("古镇漫步", "古镇", "old town walking"),
    ("文化探访", "文化", "culture"),
    ("自然探索", "自然", "nature"),
    ("星空观测", "摄影", "stargazing"),
    ("非遗手工", "手工", "folk craft"),
    ("自驾", "自驾", "self-drive"),
)
FORMATS = (  # (the title's word, its tag, days, the English title's words)
    ("半日游", "一日游", 1, "half-day trip"),
    ("一日游", "一日游", 1, "day trip"),
    ("两日游", "多日游", 2, "trip, 2 days"),
    ("三日游", "多日游", 3, "trip, 3 days"),
    ("四日游", "多日游", 4, "trip, 4 days"),
    ("五日游", "多日游", 5, "trip, 5 days"),
    ("周末营", "多日游", 2, "weekend camp"),
    ("体验课", "一日游", 1, "class"),
    ("深度之旅", "多日游", 6, "tour in depth, 6 days"),
)
WINDOW_DAYS = (1, 2, 3, 7, 14, 21, 30, 45, 60, 90, 120)


def bulk_activity_fields(seq: int, *, today: dt.date) -> dict[str, Any]:
    """The model fields of bulk activity number `seq` (a pure function of `seq` and the seed day)."""
    rng = _rng("activity", seq)
    entries = demo_activity_data()
    base = entries[rng.randrange(len(entries))]
    tags = list(base["tags"])
    if rng.random() < 0.5:
        qualifier = rng.choice(QUALIFIERS)
        title = qualifier + base["title"]
        title_en = " ".join(w for w in (QUALIFIERS_EN[qualifier], base["title_en"]) if w)
    else:
        theme, theme_tag, theme_en = rng.choice(THEMES)
        fmt, fmt_tag, _, fmt_en = rng.choice(FORMATS)
        title = f"{base['destination']}{theme}{fmt}"
        place_en = english_place_name(base["destination"]) or english_place_name(base["city"]) or base["destination"]
        title_en = f"{place_en} {theme_en} {fmt_en}"
        tags = [theme_tag, fmt_tag, *(t for t in tags if t not in {"一日游", "多日游"})]
        tags = list(dict.fromkeys(tags))[:6]
    title = f"{title}{TITLE_SUFFIX}{seq:07d}"
    title_en = f"{title_en}{TITLE_SUFFIX}{seq:07d}"
    start = today + dt.timedelta(days=rng.randint(-45, 180))
    window = rng.choice(WINDOW_DAYS)
    price = max(Decimal("50"), Decimal(round(base["price"] * rng.uniform(0.55, 1.7) / 10) * 10))
    min_age = max_age = None
    roll = rng.random()
    if roll < 0.04:
        min_age, max_age = 18, 25
    elif roll < 0.08:
        min_age = rng.choice((6, 8, 10, 12, 14, 16))
    elif roll < 0.11:
        max_age = rng.choice((55, 60, 65, 70))
    roll = rng.random()
    gender = (
        GenderRestriction.FEMALE if roll < 0.03 else GenderRestriction.MALE if roll < 0.04 else GenderRestriction.NONE
    )
    return {
        # Both languages by name: `title=` alone would be read in whichever language is active (modeltranslation).
        "title_zh_hans": title,
        "title_en": title_en,
        "city": base["city"],
        "province": base["province"],
        "description_zh_hans": base["description"],
        "description_en": base["description_en"],
        "price": price,
        "start_date": start,
        "end_date": start + dt.timedelta(days=window - 1),
        "tags": tags,
        "system_tags": _system_tags(title, tuple(tags)),
        "min_age": min_age,
        "max_age": max_age,
        "gender_restriction": gender,
        "cover_image_url": base.get("cover_image_url", ""),
        "is_published": rng.random() < 0.97,
        "popularity": int(rng.paretovariate(1.2) * 40) if rng.random() < 0.9 else 0,
    }


def _system_tags(title: str, tags: tuple[str, ...]) -> list[str]:
    # The marker adds no vocabulary word, so the tags of the title without it are the same (and cacheable).
    return list(_system_tags_cached(title.split(TITLE_SUFFIX, 1)[0], tags))


_SYSTEM_TAG_CACHE: dict[tuple[str, tuple[str, ...]], tuple[str, ...]] = {}


def _system_tags_cached(title: str, tags: tuple[str, ...]) -> tuple[str, ...]:
    key = (title, tags)
    if key not in _SYSTEM_TAG_CACHE:
        _SYSTEM_TAG_CACHE[key] = tuple(system_tags_for(title, list(tags)))
    return _SYSTEM_TAG_CACHE[key]


def _seed_activities(wanted: int, *, today: dt.date, batch_size: int) -> tuple[int, int]:
    titles = Activity.objects.filter(title_zh_hans__contains=TITLE_SUFFIX).values_list("title_zh_hans", flat=True)
    present = _present(titles, _TITLE_RE)
    missing = _missing(wanted, present)
    for batch in _chunks(missing, batch_size):
        with transaction.atomic():
            Activity.objects.bulk_create(
                [Activity(**bulk_activity_fields(seq, today=today)) for seq in batch], batch_size=batch_size
            )
    if missing:
        _analyze(Activity)
    return len(missing), len(present & set(range(1, wanted + 1)))


# -- orders ---------------------------------------------------------------------------------------------------------

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


def _weighted(rng: random.Random, choices) -> Any:
    values, weights = zip(*choices, strict=True)
    return rng.choices(values, weights=weights)[0]


def _money(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


def _seed_orders(wanted: int, *, users: int, now: dt.datetime, batch_size: int) -> tuple[int, int]:
    ids = BizOrder.objects.filter(order_id__startswith=ORDER_PREFIX).values_list("order_id", flat=True)
    present = _present(ids, _ORDER_RE)
    missing = _missing(wanted, present)
    if missing:
        user_pks = _bulk_users_by_seq()
        catalogue = list(
            Activity.objects.filter(title_zh_hans__contains=TITLE_SUFFIX)
            .order_by("pk")
            .values_list("pk", "title_zh_hans", "price", "start_date", "end_date")
        )
        for batch in _chunks(missing, batch_size):
            with transaction.atomic():
                orders = BizOrder.objects.bulk_create(
                    [_order(seq, users=user_pks, wanted_users=users, catalogue=catalogue, now=now) for seq in batch],
                    batch_size=batch_size,
                )
                OrderEvent.objects.bulk_create(
                    [OrderEvent(order=o, from_status="", to_status=o.status, reason=SEED_REASON) for o in orders],
                    batch_size=batch_size,
                )
        _analyze(BizOrder, OrderEvent)
    return len(missing), len(present & set(range(1, wanted + 1)))


def _order(seq: int, *, users: dict[int, int], wanted_users: int, catalogue: list, now: dt.datetime) -> BizOrder:
    rng = _rng("order", seq)
    paid_at = now - dt.timedelta(days=rng.randint(0, 120), seconds=rng.randint(0, 86399))
    fields: dict[str, Any] = {"order_id": order_id_for(seq), "user_id": _user_for(seq, users, wanted_users, rng)}
    if catalogue and rng.random() < 0.7:
        pk, title, price, start, end = catalogue[rng.randrange(len(catalogue))]
        qty = rng.choice((1, 1, 1, 2, 3))
        span = max((end - start).days, 0)
        fields |= {
            "category": OrderCategory.ACTIVITY,
            "activity_id": pk,
            "items": [{"name": title, "qty": qty, "price": _money(price)}],
            "amount": price * qty,
            "status": _weighted(rng, ACTIVITY_ORDER_STATUSES),
            "service_date": start + dt.timedelta(days=rng.randint(0, span)),
        }
    else:
        picked = rng.sample(GOODS, rng.randint(1, 3))
        items = [
            {"name": name, "name_en": english, "qty": rng.randint(1, 2), "price": price}
            for name, english, price in picked
        ]
        status = _weighted(rng, GOODS_ORDER_STATUSES)
        delivered = status in {OrderStatus.DELIVERED, OrderStatus.COMPLETED, OrderStatus.RETURNED}
        fields |= {
            "category": OrderCategory.GOODS,
            "items": items,
            "amount": Decimal(sum(item["price"] * item["qty"] for item in items)),
            "status": status,
            "delivered_at": paid_at + dt.timedelta(days=rng.randint(1, 4)) if delivered else None,
        }
    return BizOrder(paid_at=paid_at, **fields)


# -- bookings -------------------------------------------------------------------------------------------------------

ROUTES = (
    ("北京", "成都"),
    ("上海", "三亚"),
    ("广州", "昆明"),
    ("杭州", "西安"),
    ("深圳", "乌鲁木齐"),
    ("南京", "拉萨"),
)
HOTELS = ("洱海边客栈", "西湖畔酒店", "亚龙湾度假酒店", "古城精品民宿", "雪山观景酒店", "市中心商务酒店")
BOOKING_STATUSES = ((BookingStatus.CONFIRMED, 60), (BookingStatus.PENDING_PAYMENT, 15), (BookingStatus.CANCELLED, 25))


def _seed_bookings(wanted: int, *, users: int, today: dt.date, batch_size: int) -> tuple[int, int]:
    ids = BookingRecord.objects.filter(booking_id__startswith=BOOKING_PREFIX).values_list("booking_id", flat=True)
    present = _present(ids, _BOOKING_RE)
    missing = _missing(wanted, present)
    if missing:
        user_pks = _bulk_users_by_seq()
        for batch in _chunks(missing, batch_size):
            with transaction.atomic():
                bookings = BookingRecord.objects.bulk_create(
                    [_booking(seq, users=user_pks, wanted_users=users, today=today) for seq in batch],
                    batch_size=batch_size,
                )
                BookingEvent.objects.bulk_create(
                    [BookingEvent(booking=b, from_status="", to_status=b.status, reason=SEED_REASON) for b in bookings],
                    batch_size=batch_size,
                )
        _analyze(BookingRecord, BookingEvent)
    return len(missing), len(present & set(range(1, wanted + 1)))


def _booking(seq: int, *, users: dict[int, int], wanted_users: int, today: dt.date) -> BookingRecord:
    rng = _rng("booking", seq)
    biz_type = rng.choice((BizType.FLIGHT, BizType.FLIGHT, BizType.HOTEL, BizType.TRAIN))
    origin, destination = rng.choice(ROUTES)
    day = today + dt.timedelta(days=rng.randint(-30, 120))
    if biz_type == BizType.HOTEL:
        nights = rng.randint(1, 5)
        details = {
            "hotel": rng.choice(HOTELS),
            "city": destination,
            "check_in": day.isoformat(),
            "check_out": (day + dt.timedelta(days=nights)).isoformat(),
            "rooms": 1,
        }
        amount = Decimal(rng.randint(25, 120) * 10 * nights)
    else:
        details = {"from": origin, "to": destination, "date": day.isoformat(), "passengers": rng.randint(1, 3)}
        amount = Decimal(rng.randint(30, 250) * 10 * details["passengers"])
    return BookingRecord(
        booking_id=booking_id_for(seq),
        user_id=_user_for(seq, users, wanted_users, rng),
        biz_type=biz_type,
        external_order_no=f"SBX-{MARKER}{seq:07d}",
        status=_weighted(rng, BOOKING_STATUSES),
        amount=amount,
        details=details,
        remark=SEED_REASON,
    )


# -- tickets --------------------------------------------------------------------------------------------------------

OPEN_TICKET_STATUSES = (
    (TicketStatus.PENDING, 45),
    (TicketStatus.REJECTED, 20),
    (TicketStatus.TIMEOUT, 15),
    (TicketStatus.APPROVED, 5),
    (TicketStatus.FAILED, 5),
    (TicketStatus.EXECUTED, 10),
)


def _seed_tickets(wanted: int, *, now: dt.datetime, batch_size: int) -> tuple[int, int]:
    numbers = HitlTicket.objects.filter(ticket_no__startswith=TICKET_PREFIX).values_list("ticket_no", flat=True)
    present = _present(numbers, _TICKET_RE)
    missing = _missing(wanted, present)
    if missing:
        approver = get_user_model().objects.filter(username=APPROVER_USERNAME).values_list("pk", flat=True).first()
        for batch in _chunks(missing, batch_size):
            orders = {o.order_id: o for o in BizOrder.objects.filter(order_id__in=[order_id_for(s) for s in batch])}
            bookings = {
                b.booking_id: b
                for b in BookingRecord.objects.filter(booking_id__in=[booking_id_for(s) for s in batch if s % 10 == 0])
            }
            tickets = [
                t
                for seq in batch
                if (t := _ticket(seq, orders=orders, bookings=bookings, approver=approver, now=now)) is not None
            ]
            with transaction.atomic():
                tickets = HitlTicket.objects.bulk_create(tickets, batch_size=batch_size)
                TicketEvent.objects.bulk_create(
                    [TicketEvent(ticket=t, from_status="", to_status=t.status, reason=SEED_REASON) for t in tickets],
                    batch_size=batch_size,
                )
        _analyze(HitlTicket, TicketEvent)
    return len(missing), len(present & set(range(1, wanted + 1)))


def _ticket(seq: int, *, orders: dict, bookings: dict, approver: int | None, now: dt.datetime) -> HitlTicket | None:
    rng = _rng("ticket", seq)
    booking = bookings.get(booking_id_for(seq)) if seq % 10 == 0 else None
    order = orders.get(order_id_for(seq))
    if booking is not None:
        fields: dict[str, Any] = {
            "kind": TicketKind.CHECKPOINT,
            "action": TicketAction.CANCEL_BOOKING,
            "idempotency_key": f"hitl:{TicketAction.CANCEL_BOOKING}:{booking.booking_id}",
            "requested_by_id": booking.user_id,
            "entity": booking.booking_id,
            "amount": booking.amount,
            "arguments": {"tool": "cancel_booking", "arguments": {"booking_id": booking.booking_id}},
            "evidence": {"booking": {"booking_id": booking.booking_id, "amount": str(booking.amount)}},
        }
        status = _weighted(rng, OPEN_TICKET_STATUSES)
    elif order is not None:
        action = (
            TicketAction.RETURN if order.category == OrderCategory.GOODS and rng.random() < 0.6 else TicketAction.REFUND
        )
        done = {OrderStatus.REFUNDED, OrderStatus.RETURNED}
        status = TicketStatus.EXECUTED if order.status in done else _weighted(rng, OPEN_TICKET_STATUSES[:-1])
        verdict = rng.choice((Verdict.PASS, Verdict.PASS, Verdict.UNCERTAIN, Verdict.REJECTED))
        fields = {
            "kind": TicketKind.WORKFLOW,
            "action": action,
            "idempotency_key": f"wfa:{action}:{order.order_id}",
            "requested_by_id": order.user_id,
            "order": order,
            "entity": order.order_id,
            "amount": order.amount,
            "verdict": verdict,
            "verdict_reason": "Seeded verdict.",
            "flagged": verdict == Verdict.UNCERTAIN or rng.random() < 0.05,
            "evidence": {
                "summary": f"{action} of {order.order_id}",
                "order": {"order_id": order.order_id, "status": order.status, "amount": str(order.amount)},
            },
        }
    else:
        return None
    decided = status not in {TicketStatus.PENDING, TicketStatus.TIMEOUT}
    if status == TicketStatus.PENDING:
        # Asked within the last two days; a tenth are past their deadline (the "overdue" filter has work to show).
        overdue = rng.random() < 0.1
        asked = now - dt.timedelta(hours=rng.randint(49, 60) if overdue else rng.randint(0, 47))
    else:
        asked = now - dt.timedelta(hours=rng.randint(48, 24 * 60))
    fields |= {
        "ticket_no": ticket_no_for(seq),
        "status": status,
        "deadline": asked + dt.timedelta(hours=48),
        "decided_by_id": approver if decided else None,
        "decided_at": asked + dt.timedelta(hours=rng.randint(1, 40)) if decided else None,
        "decision_reason": SEED_REASON if decided else "",
        "attempts": 1 if status in {TicketStatus.EXECUTED, TicketStatus.FAILED} else 0,
        "executed_at": asked + dt.timedelta(hours=41) if status == TicketStatus.EXECUTED else None,
    }
    return HitlTicket(**fields)
