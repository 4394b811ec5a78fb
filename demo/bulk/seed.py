"""How many bulk rows to hold (`BulkPlan`) and the seeding of them, kind after kind (`bulk_seed`)."""

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.utils import timezone

from demo.bulk.activities import seed_activities
from demo.bulk.bookings import seed_bookings
from demo.bulk.orders import seed_orders
from demo.bulk.tickets import seed_tickets
from demo.bulk.users import seed_users

BATCH_SIZE = 2000


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
        ("users", lambda: seed_users(plan.users, today=today, batch_size=batch_size)),
        ("activities", lambda: seed_activities(plan.activities, today=today, batch_size=batch_size)),
        ("orders", lambda: seed_orders(plan.orders, users=plan.users, now=now, batch_size=batch_size)),
        ("bookings", lambda: seed_bookings(plan.bookings, users=plan.users, today=today, batch_size=batch_size)),
        ("tickets", lambda: seed_tickets(plan.tickets, now=now, batch_size=batch_size)),
    ]
    results: dict[str, BulkCount] = {}
    for kind, step in steps:
        started = time.perf_counter()
        created, present = step()
        results[kind] = BulkCount(created=created, present=present, seconds=time.perf_counter() - started)
        if progress:
            progress(kind, results[kind])
    return results
