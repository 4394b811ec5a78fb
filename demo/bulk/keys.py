"""The natural keys of the bulk rows (a `BULK-` marker and a sequence number) and the helpers every kind of bulk row
shares: which numbers are present or missing, batches, a random source per row, the bulk users."""

import random
import re
from collections.abc import Iterable, Iterator
from decimal import Decimal
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection, transaction

MARKER = "BULK-"
SEED_REASON = "Bulk data created by seed_bulk."

USERNAME_PREFIX = "bulk-user-"
APPROVER_USERNAME = "bulk-approver"
TITLE_SUFFIX = f" · {MARKER}"
ORDER_PREFIX = f"ORD-{MARKER}"
BOOKING_PREFIX = f"BK-{MARKER}"
TICKET_PREFIX = f"T-{MARKER}"

# Sequence numbers of each natural key.
USERNAME_RE = re.compile(rf"^{re.escape(USERNAME_PREFIX)}(\d+)$")
TITLE_RE = re.compile(rf"{re.escape(TITLE_SUFFIX)}(\d+)$")
ORDER_RE = re.compile(rf"^{re.escape(ORDER_PREFIX)}(\d+)$")
BOOKING_RE = re.compile(rf"^{re.escape(BOOKING_PREFIX)}(\d+)$")
TICKET_RE = re.compile(rf"^{re.escape(TICKET_PREFIX)}(\d+)$")


def username_for(seq: int) -> str:
    return f"{USERNAME_PREFIX}{seq:06d}"


def order_id_for(seq: int) -> str:
    return f"{ORDER_PREFIX}{seq:07d}"


def booking_id_for(seq: int) -> str:
    return f"{BOOKING_PREFIX}{seq:07d}"


def ticket_no_for(seq: int) -> str:
    return f"{TICKET_PREFIX}{seq:07d}"


def present_numbers(values: Iterable[str], pattern: re.Pattern) -> set[int]:
    return {int(m.group(1)) for value in values if (m := pattern.search(value))}


def missing_numbers(wanted: int, present: set[int]) -> list[int]:
    return [seq for seq in range(1, wanted + 1) if seq not in present]


def chunks(items: list, size: int) -> Iterator[list]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def analyze(*models) -> None:
    """Fresh planner statistics after a bulk load (PostgreSQL; SQLite plans without them)."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        for model in models:
            cursor.execute(f'ANALYZE "{model._meta.db_table}"')


def row_random(kind: str, seq: int) -> random.Random:
    """The random source of one row: the same row content for the same kind and number, on every run."""
    return random.Random(f"{kind}:{seq}")  # a str seed is hashed with SHA-512: stable across runs and processes


def bulk_users_by_seq() -> dict[int, int]:
    """{sequence number: user pk} of the bulk users."""
    rows = get_user_model().objects.filter(username__startswith=USERNAME_PREFIX).values_list("username", "pk")
    return {int(m.group(1)): pk for username, pk in rows if (m := USERNAME_RE.match(username))}


def user_for(seq: int, users: dict[int, int], wanted_users: int, rng: random.Random) -> int:
    """A bulk user for a row: one of the first `wanted_users` when present, else any present one."""
    if wanted_users:
        pk = users.get(rng.randint(1, wanted_users))
        if pk is not None:
            return pk
    ordered = sorted(users)
    return users[ordered[seq % len(ordered)]]


def weighted(rng: random.Random, choices) -> Any:
    values, weights = zip(*choices, strict=True)
    return rng.choices(values, weights=weights)[0]


def money(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


def create_with_events(rows: list, event_model, *, owner: str, batch_size: int) -> list:
    """Insert `rows` (one model) and, for each, the one event row saying the seed created it in its status, in one
    transaction; `owner` is the event's field that points at its row. Returns the rows as created."""
    if not rows:
        return []
    with transaction.atomic():
        made = type(rows[0]).objects.bulk_create(rows, batch_size=batch_size)
        event_model.objects.bulk_create(
            [event_model(**{owner: row}, from_status="", to_status=row.status, reason=SEED_REASON) for row in made],
            batch_size=batch_size,
        )
    return made
