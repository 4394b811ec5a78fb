"""What every command of the sandbox supplier shares: an order's life (its statuses and moves, loading it up to
date, its view in an answer), the error it answers, the answer shapes, the argument checks, the search index that
keeps what a search offered, and the `Context` of a command (who calls, and when). Imports nothing of the site."""

import datetime as dt
import json
import re
import sqlite3

from bookings.sandbox import inventory, store
from bookings.sandbox.store import new_number

DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
MOBILE_RE = re.compile(r"^1\d{10}$")
ORDER_PREFIX = {"flight": "FL", "hotel": "HT", "train": "TR"}
NUMBER_KEY = {"flight": "orderId", "hotel": "orderNo", "train": "mainOrderNo"}
PENDING_PAYMENT, PAID, CANCELLED, EXPIRED = "PENDING_PAYMENT", "PAID", "CANCELLED", "EXPIRED"
# The order's life: each status an order can move to, and the statuses it can move there from.
TRANSITIONS = {
    PAID: {PENDING_PAYMENT},
    CANCELLED: {PENDING_PAYMENT, PAID},
    EXPIRED: {PENDING_PAYMENT},
}
LIVE = TRANSITIONS[CANCELLED]  # orders still to be travelled on: they can be cancelled, or rescheduled by the supplier
CUSTOMER, SUPPLIER = "customer", "supplier"  # who cancelled an order
SCHEDULED_PRODUCTS = frozenset({"flight", "train"})  # the products with times a schedule change moves
MAX_SCHEDULE_SHIFT_MINUTES = 7 * 24 * 60
MAX_LISTED_ORDERS = 200
BUSINESS_ORDER_PREFIX = "ORD-"  # TripDesk's own orders (refunded through `order refund`), not supplier bookings
MAX_PASSENGERS = 9
# The commands that change something: each takes an idempotency key.
IDEMPOTENT_ACTIONS = frozenset({"saveOrder", "cancelOrder", "pay", "refund"})
REQUEST_ID = "requestId"
MAX_REQUEST_ID_CHARS = 128


class SupplierError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def invalid(message: str) -> SupplierError:
    return SupplierError("INVALID_PARAM", message)


# --- answer shapes -----------------------------------------------------------------------------------------------


def mcp(payload: dict) -> dict:
    return {"content": [{"type": "text", "text": json.dumps(payload, ensure_ascii=False)}]}


def wrapped(payload: dict) -> dict:
    return {"success": True, "data": payload}


# --- argument checks ---------------------------------------------------------------------------------------------


def _text(args: dict, name: str) -> str:
    value = args.get(name)
    if not isinstance(value, str) or not value.strip():
        raise invalid(f"{name} is required (a non-empty string)")
    return value.strip()


def _date(args: dict, name: str) -> dt.date:
    value = _text(args, name)
    if not DATE_RE.match(value):
        raise invalid(f"{name} must be a date like 2026-12-05, got {value!r}")
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise invalid(f"{name} is not a real date: {value!r}")


def _route(args: dict) -> tuple[str, str, dt.date]:
    origin, destination, date = _text(args, "from"), _text(args, "to"), _date(args, "date")
    if origin == destination:
        raise invalid("from and to must be different cities")
    return origin, destination, date


def _stay(args: dict) -> tuple[dt.date, dt.date]:
    check_in, check_out = _date(args, "checkInDate"), _date(args, "checkOutDate")
    if check_out <= check_in:
        raise invalid("checkOutDate must be after checkInDate")
    if (check_out - check_in).days > inventory.MAX_NIGHTS:
        raise invalid(f"at most {inventory.MAX_NIGHTS} nights per booking")
    return check_in, check_out


def _person(value: object, what: str, *, mobile_required: bool) -> dict:
    if not isinstance(value, dict):
        raise invalid(f"{what} must be an object with name and mobile")
    name = value.get("name")
    if not isinstance(name, str) or not name.strip():
        raise invalid(f"{what}.name is required")
    person = {"name": name.strip()}
    mobile = value.get("mobile")
    if mobile is not None or mobile_required:
        mobile = str(mobile or "").strip()
        if not MOBILE_RE.match(mobile):
            raise invalid(f"{what}.mobile must be 11 digits starting with 1")
        person["mobile"] = mobile
    return person


def _people(value: object, what: str) -> list[dict]:
    if not isinstance(value, list) or not value:
        raise invalid(f"{what} must be a non-empty list")
    if len(value) > MAX_PASSENGERS:
        raise invalid(f"at most {MAX_PASSENGERS} {what} per order")
    return [_person(p, f"{what}[{i}]", mobile_required=False) for i, p in enumerate(value)]


def _order_id(args: dict) -> str:
    return _text(args, "orderId").upper()


def _request_id(args: dict) -> str | None:
    value = args.get(REQUEST_ID)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_REQUEST_ID_CHARS:
        raise invalid(f"{REQUEST_ID} must be a non-empty string of at most {MAX_REQUEST_ID_CHARS} characters")
    return value.strip()


# --- the search index --------------------------------------------------------------------------------------------


def _remember(conn: sqlite3.Connection, kind: str, items: list[tuple[str, str, str, str]], now: str) -> None:
    conn.executemany(
        "INSERT INTO searched (kind, item_no, day, origin, destination, searched_at) VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (kind, item_no, day) DO UPDATE SET origin = excluded.origin, "
        "destination = excluded.destination, searched_at = excluded.searched_at",
        [(kind, *item, now) for item in items],
    )


def _recall(conn: sqlite3.Connection, kind: str, item_no: str, day: str) -> tuple[str, str] | None:
    row = conn.execute(
        "SELECT origin, destination FROM searched WHERE kind = ? AND item_no = ? AND day = ?", (kind, item_no, day)
    ).fetchone()
    return (row["origin"], row["destination"]) if row else None


def _where(conn: sqlite3.Connection, args: dict, kind: str, item_no: str, date: dt.date) -> tuple[str, str]:
    """The route of a flight or train: given in the arguments, or found among recent searches."""
    if args.get("from") or args.get("to"):
        origin, destination, _ = _route({**args, "date": date.isoformat()})
        return origin, destination
    found = _recall(conn, kind, item_no, date.isoformat())
    if found is None:
        raise invalid(f"unknown {kind}: {item_no} on {date.isoformat()} (search it first, or give from and to)")
    return found


def _english(item: dict, *names: str) -> dict:
    """The English names an order keeps of what it books (those the searched item has)."""
    return {name: item[name] for name in names if item.get(name)}


# --- orders ------------------------------------------------------------------------------------------------------


def _create_order(
    conn: sqlite3.Connection, ctx: "Context", *, product: str, total: float, details: dict, contact: dict
) -> dict:
    number = new_number(conn, "orders", "order_no", ORDER_PREFIX[product], ctx.today)
    conn.execute(
        "INSERT INTO orders (order_no, product, key_hash, status, total_price, details, contact, created_at, "
        "updated_at, pay_deadline) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            number,
            product,
            ctx.key_hash,
            PENDING_PAYMENT,
            total,
            json.dumps(details, ensure_ascii=False),
            json.dumps(contact, ensure_ascii=False),
            ctx.now,
            ctx.now,
            store.pay_deadline(ctx.moment, ctx.pay_minutes),
        ),
    )
    return _order_view(_load(conn, ctx, number, product))


def _load(conn: sqlite3.Connection, ctx: "Context", number: str, product: str | None) -> sqlite3.Row:
    """The caller's own order as of now (see `_up_to_date`); another key's order does not exist for them. The
    supplier's own events (no key) see every order."""
    if ctx.key_hash is None:
        row = conn.execute("SELECT * FROM orders WHERE order_no = ?", (number,)).fetchone()
    else:
        row = conn.execute(
            "SELECT * FROM orders WHERE order_no = ? AND key_hash = ?", (number, ctx.key_hash)
        ).fetchone()
    if row is None or (product is not None and row["product"] != product):
        raise SupplierError("ORDER_NOT_FOUND", f"no order {number}")
    return _up_to_date(conn, ctx, row)


def _reload(conn: sqlite3.Connection, row: sqlite3.Row) -> sqlite3.Row:
    return conn.execute("SELECT * FROM orders WHERE id = ?", (row["id"],)).fetchone()


def _up_to_date(conn: sqlite3.Connection, ctx: "Context", row: sqlite3.Row) -> sqlite3.Row:
    """The order as of the supplier's now: an unpaid order past its payment deadline becomes EXPIRED in the store
    first (remembered in `ctx`, so a command's error does not undo it). Compared as instants, not as text: two
    processes may write their times with different offsets."""
    if row["status"] != PENDING_PAYMENT or dt.datetime.fromisoformat(row["pay_deadline"]) >= ctx.moment:
        return row
    _expire(conn, ctx, row["id"])
    ctx.expired.append(row["id"])
    return _reload(conn, row)


def _expire(conn: sqlite3.Connection, ctx: "Context", order_id: int) -> None:
    conn.execute(
        "UPDATE orders SET status = ?, updated_at = ? WHERE id = ? AND status = ?",
        (EXPIRED, ctx.now, order_id, PENDING_PAYMENT),
    )


def _check_move(row: sqlite3.Row, status: str) -> None:
    """Refuse to move an order to `status` from where it is, with the error its present status calls for."""
    if row["status"] not in TRANSITIONS[status]:
        raise _refusal(row)


def _refusal(row: sqlite3.Row) -> SupplierError:
    """Why an order past PENDING_PAYMENT cannot make a move, saying when or by whom, as a caller needs to tell."""
    number, status = row["order_no"], row["status"]
    if status == PAID:
        return SupplierError("ALREADY_PAID", f"order {number} was already paid at {row['paid_at']}")
    if status == CANCELLED:
        return SupplierError("ORDER_CANCELLED", f"order {number} was cancelled by the {row['cancelled_by']}")
    return SupplierError(
        "ORDER_EXPIRED", f"order {number} expired unpaid at its payment deadline {row['pay_deadline']}"
    )


def _amount(value: float) -> int | float:
    return int(value) if float(value).is_integer() else round(value, 2)


def _order_view(row: sqlite3.Row) -> dict:
    return {
        NUMBER_KEY[row["product"]]: row["order_no"],
        "product": row["product"],
        "status": row["status"],
        "totalPrice": _amount(row["total_price"]),
        "currency": "CNY",
        **json.loads(row["details"]),
        "contact": {"name": json.loads(row["contact"]).get("name", "")},
        "createdAt": row["created_at"],
        "updatedAt": row["updated_at"],
        "payDeadline": row["pay_deadline"],
        "paidAt": row["paid_at"],
        "cancelledBy": row["cancelled_by"],
        "scheduleChange": json.loads(row["schedule_change"]) if row["schedule_change"] else None,
    }


class Context:
    """Who calls (the hash of their key; None for the supplier's own events) and when, how long a new order may be
    paid, and the overdue orders this command expired."""

    def __init__(
        self, key_hash: str | None, now: dt.datetime, *, pay_minutes: float = store.DEFAULT_PAY_MINUTES
    ) -> None:
        self.key_hash = key_hash
        self.pay_minutes = pay_minutes
        self.moment = now.replace(microsecond=0)
        self.now = self.moment.isoformat(timespec="seconds")
        self.today = now.strftime("%y%m%d")
        self.expired: list[int] = []
