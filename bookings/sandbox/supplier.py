"""The sandbox supplier's commands (search, saveOrder, cancelOrder, queryOrder, pay, refund) and its own events.

Answers vary in shape like real suppliers', but always the same way for a given product and action:

| command | answer |
| --- | --- |
| flight search | MCP content: `{"content": [{"type": "text", "text": "{\"flights\": […]}"}]}` |
| flight saveOrder | MCP content around the order, number under `orderId` |
| flight cancelOrder / queryOrder | `{"success": true, "data": {order, number under orderId}}` |
| hotel search | plain `{"hotels": […]}` |
| hotel saveOrder / queryOrder | plain order, number under `orderNo` (queryOrder: MCP content) |
| hotel cancelOrder | error `HOTEL_NO_ONLINE_CANCEL` |
| train search | `{"success": true, "data": {"trains": […]}}` |
| train saveOrder / cancelOrder | `{"success": true, "data": {order, number under mainOrderNo}}` |
| train queryOrder | plain order, number under `mainOrderNo` |
| order queryOrder | `{"order": {…}}` with the product's own number key; for a business order (`ORD-…`): |
| | `{"orderId": "ORD-…", "total": …, "refunds": [{"refundId", "amount", "requestId", "createdAt"}]}`, the |
| | caller's refunds and the total its first refund recorded (null before one); |
| | without an orderId: `{"orders": [{…}, …]}`, the caller's orders, newest first, at most 200 |
| order pay | plain `{"paymentId": "PY…", "orderId", "product", "status": "PAID", "amount", "paidAt", "requestId"}` |
| order refund | plain `{"refundId": "RF…", "status": "REFUNDED", "amount": …, "orderId": …, "requestId": …}` |
| | (a business order's also carries `"total"`) |

An order (`{…}` above) also carries `payDeadline`, `paidAt`, `cancelledBy` (`customer`, `supplier` or null) and
`scheduleChange` (null, or `{"previousDepartTime", "previousArriveTime", "changedAt"}` once a flight's or train's
times moved; `departTime` and `arriveTime` are then the new ones, in their own `YYYY-MM-DDTHH:MM` form, and the
previous ones are those before this change), and the English names of what it books that its search gave
(`airlineEn`, `cabinEn`, `fromEn`, `toEn`; `nameEn`, `cityEn`, `addressEn`; `trainType`, `trainTypeEn`, and
`seatTypeEn` in a train's resources). Its status is one of PENDING_PAYMENT, PAID, CANCELLED and EXPIRED: it
is payable until `payDeadline` (created + `SANDBOX_SUPPLIER_PAY_MINUTES`), and an unpaid order past it becomes
EXPIRED in the store as soon as any command loads it (the list too), even one that then answers an error.

An error is `{"success": false, "errorCode": "…", "errorMessage": "…"}` (raised here as `SupplierError`). Paying
answers ORDER_EXPIRED, ORDER_CANCELLED or ALREADY_PAID for an order past PENDING_PAYMENT; cancelOrder answers
ORDER_EXPIRED for an expired order and `alreadyCancelled: true` for a cancelled one.

Refunding a business order (`ORD-…`, the merchant's own order, which this supplier never sold) works like a payment
system's refund API (WeChat Pay's takes the refund's amount and the order's total): the refund carries `amount` and
`total`, what the order was paid, both required. The first refund of an order records its total; a refund whose
total disagrees with the recorded one is refused (REFUND_TOTAL_MISMATCH), and so is one that would take the order's
refunds (by this caller's key) above its total (REFUND_EXCEEDS_PAID). Either refusal changes nothing and is not
remembered under its requestId. A refund of any other number is recorded as asked (no total is known for it).

The supplier's own events (`python -m bookings.sandbox event …`, for tests and demos, no key) cancel an order
from its side, move a flight's or train's times, or put a payment deadline in the past; they answer
`{"order": {…}}`, as `order queryOrder` does.

Idempotency, as real payment and supplier APIs have it: saveOrder, cancelOrder, pay and refund take a `requestId`; a
repeat of a caller's requestId is answered with the first answer and changes nothing (see `run`). Only answers are
remembered: an error changed nothing (but the expiry of an overdue order it loaded), so a repeat after one is
processed afresh. Paying an order paid under another requestId answers ALREADY_PAID: one order, one payment.
"""

import datetime as dt
import hashlib
import json
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

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


# --- commands ----------------------------------------------------------------------------------------------------


def flight_search(conn, ctx, args):
    origin, destination, date = _route(args)
    found = inventory.flights(origin, destination, date)
    _remember(conn, "flight", [(f["flightNo"], date.isoformat(), origin, destination) for f in found], ctx.now)
    return mcp({"flights": found})


def flight_save(conn, ctx, args):
    number, date = _text(args, "flightNo").upper(), _date(args, "date")
    contact = _person(args.get("contactTourist"), "contactTourist", mobile_required=True)
    passengers = _people(args["passengers"], "passengers") if "passengers" in args else [contact]
    origin, destination = _where(conn, args, "flight", number, date)
    flight = next((f for f in inventory.flights(origin, destination, date) if f["flightNo"] == number), None)
    if flight is None:
        raise invalid(f"unknown flight: {number} from {origin} to {destination} on {date.isoformat()}")
    details = {
        **{k: flight[k] for k in ("flightNo", "airline", "from", "to", "departTime", "arriveTime", "cabin")},
        "date": date.isoformat(),
        "unitPrice": flight["price"],
        "passengers": [p["name"] for p in passengers],
        **_english(flight, "airlineEn", "cabinEn", "fromEn", "toEn"),
    }
    order = _create_order(
        conn, ctx, product="flight", total=flight["price"] * len(passengers), details=details, contact=contact
    )
    return mcp(order)


def hotel_search(conn, ctx, args):
    city = _text(args, "city")
    check_in, check_out = _stay(args)
    found = inventory.hotels(city, check_in, check_out)
    _remember(conn, "hotel", [(h["hotelId"], "", city, "") for h in found], ctx.now)
    return {"hotels": found}


def hotel_save(conn, ctx, args):
    hotel_id = _text(args, "hotelId").upper()
    check_in, check_out = _stay(args)
    guests = _people(args.get("guests"), "guests")
    city = args.get("city").strip() if isinstance(args.get("city"), str) and args["city"].strip() else None
    if city is None:
        found = _recall(conn, "hotel", hotel_id, "")
        city = found[0] if found else None
    hotel = (
        next((h for h in inventory.hotels(city, check_in, check_out) if h["hotelId"] == hotel_id), None)
        if city
        else None
    )
    if hotel is None:
        raise invalid(f"unknown hotel: {hotel_id} (search the city first, or give city)")
    rooms = args.get("rooms", 1)
    if not isinstance(rooms, int) or isinstance(rooms, bool) or not 1 <= rooms <= MAX_PASSENGERS:
        raise invalid("rooms must be a whole number from 1 to 9")
    details = {
        **{k: hotel[k] for k in ("hotelId", "name", "city", "star", "checkInDate", "checkOutDate", "nights")},
        "pricePerNight": hotel["pricePerNight"],
        "rooms": rooms,
        "guests": [g["name"] for g in guests],
        **_english(hotel, "nameEn", "cityEn", "addressEn"),
    }
    return _create_order(
        conn, ctx, product="hotel", total=hotel["totalPrice"] * rooms, details=details, contact=guests[0]
    )


def train_search(conn, ctx, args):
    origin, destination, date = _route(args)
    found = inventory.trains(origin, destination, date)
    _remember(conn, "train", [(t["trainNo"], date.isoformat(), origin, destination) for t in found], ctx.now)
    return wrapped({"trains": found})


def train_save(conn, ctx, args):
    number, date = _text(args, "trainNo").upper(), _date(args, "date")
    resources = args.get("resources")
    if not isinstance(resources, list) or not resources:
        raise invalid("resources must be a non-empty list of {seatType, adultPrice, passengers}")
    origin, destination = _where(conn, args, "train", number, date)
    train = next((t for t in inventory.trains(origin, destination, date) if t["trainNo"] == number), None)
    if train is None:
        raise invalid(f"unknown train: {number} from {origin} to {destination} on {date.isoformat()}")
    prices = {s["seatType"]: s["price"] for s in train["seats"]}
    seats_en = {s["seatType"]: s["seatTypeEn"] for s in train["seats"] if s.get("seatTypeEn")}
    total, lines, everyone = 0.0, [], []
    for i, resource in enumerate(resources):
        if not isinstance(resource, dict):
            raise invalid(f"resources[{i}] must be an object")
        seat = _text(resource, "seatType")
        if seat not in prices:
            raise invalid(f"{number} has no {seat}; seats: {', '.join(prices)}")
        asked = resource.get("adultPrice")
        if not isinstance(asked, int | float) or isinstance(asked, bool):
            raise invalid(f"resources[{i}].adultPrice is required (a number)")
        if abs(asked - prices[seat]) > 0.001:
            raise SupplierError("PRICE_CHANGED", f"the {seat} price of {number} is {prices[seat]}, not {asked}")
        passengers = _people(resource.get("passengers"), f"resources[{i}].passengers")
        total += prices[seat] * len(passengers)
        everyone += passengers
        line = {"seatType": seat, "adultPrice": prices[seat], "passengers": [p["name"] for p in passengers]}
        lines.append(line | ({"seatTypeEn": seats_en[seat]} if seat in seats_en else {}))
    if len(everyone) > MAX_PASSENGERS:
        raise invalid(f"at most {MAX_PASSENGERS} passengers per order")
    contact = (
        _person(args["contact"], "contact", mobile_required=True) if args.get("contact") is not None else everyone[0]
    )
    details = {
        **{k: train[k] for k in ("trainNo", "from", "to", "departTime", "arriveTime")},
        "date": date.isoformat(),
        "resources": lines,
        **_english(train, "trainType", "trainTypeEn", "fromEn", "toEn"),
    }
    return wrapped(_create_order(conn, ctx, product="train", total=total, details=details, contact=contact))


def _cancel(conn, ctx, args, product: str) -> dict:
    row = _load(conn, ctx, _order_id(args), product)
    already = row["status"] == CANCELLED
    if not already:
        _check_move(row, CANCELLED)
        conn.execute(
            "UPDATE orders SET status = ?, cancelled_by = ?, updated_at = ? WHERE id = ?",
            (CANCELLED, CUSTOMER, ctx.now, row["id"]),
        )
    conn.execute(
        "INSERT INTO cancellations (order_no, already_cancelled, created_at) VALUES (?, ?, ?)",
        (row["order_no"], int(already), ctx.now),
    )
    view = _order_view(_load(conn, ctx, row["order_no"], product))
    return {**view, "alreadyCancelled": already}


def flight_cancel(conn, ctx, args):
    return wrapped(_cancel(conn, ctx, args, "flight"))


def train_cancel(conn, ctx, args):
    return wrapped(_cancel(conn, ctx, args, "train"))


def hotel_cancel(conn, ctx, args):
    raise SupplierError("HOTEL_NO_ONLINE_CANCEL", "hotel orders cannot be cancelled online; please call the hotel")


def flight_query(conn, ctx, args):
    return wrapped(_order_view(_load(conn, ctx, _order_id(args), "flight")))


def hotel_query(conn, ctx, args):
    return mcp(_order_view(_load(conn, ctx, _order_id(args), "hotel")))


def train_query(conn, ctx, args):
    return _order_view(_load(conn, ctx, _order_id(args), "train"))


def order_query(conn, ctx, args):
    if args.get("orderId") is None:
        rows = conn.execute(
            "SELECT * FROM orders WHERE key_hash = ? ORDER BY id DESC LIMIT ?", (ctx.key_hash, MAX_LISTED_ORDERS)
        ).fetchall()
        return {"orders": [_order_view(_up_to_date(conn, ctx, row)) for row in rows]}
    order_id = _order_id(args)
    if order_id.startswith(BUSINESS_ORDER_PREFIX):
        # A merchant's own order, not a booking: what this key refunded on it (how an executor checks a past try).
        rows = conn.execute(
            "SELECT refund_no, amount, request_id, created_at FROM refunds WHERE order_id = ? AND key_hash = ? "
            "ORDER BY id",
            (order_id, ctx.key_hash),
        ).fetchall()
        refunds = [
            {
                "refundId": row["refund_no"],
                "amount": _amount(row["amount"]),
                "requestId": row["request_id"],
                "createdAt": row["created_at"],
            }
            for row in rows
        ]
        total, _ = _refunds_of(conn, ctx, order_id)
        return {"orderId": order_id, "total": None if total is None else _amount(total), "refunds": refunds}
    return {"order": _order_view(_load(conn, ctx, order_id, None))}


def order_pay(conn, ctx, args):
    """Pay the caller's order in full: PENDING_PAYMENT before its deadline becomes PAID, with one payment."""
    row = _load(conn, ctx, _order_id(args), None)
    _check_move(row, PAID)
    # A repeated requestId never gets here: `run` answers it with the first payment.
    request_id = _request_id(args)
    number = new_number(conn, "payments", "payment_no", "PY", ctx.today)
    conn.execute(
        "UPDATE orders SET status = ?, paid_at = ?, updated_at = ? WHERE id = ?", (PAID, ctx.now, ctx.now, row["id"])
    )
    conn.execute(
        "INSERT INTO payments (payment_no, order_no, amount, request_id, key_hash, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (number, row["order_no"], row["total_price"], request_id, ctx.key_hash, ctx.now),
    )
    return {
        "paymentId": number,
        "orderId": row["order_no"],
        "product": row["product"],
        "status": PAID,
        "amount": _amount(row["total_price"]),
        "paidAt": ctx.now,
        "requestId": request_id,
    }


MAX_MONEY = 1_000_000


def _money(args: dict, name: str) -> float:
    value = args.get(name)
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 < value <= MAX_MONEY:
        raise invalid(f"{name} must be a positive number")
    return float(value)


def _cents(value: float) -> int:
    return round(value * 100)


def _yuan(cents: int) -> str:
    return f"{cents / 100:.2f}"


def _refunds_of(conn: sqlite3.Connection, ctx: "Context", order_id: str) -> tuple[float | None, int]:
    """A business order's recorded total (None before its first refund) and what this caller refunded on it, in
    cents (refunds recorded before totals existed count too)."""
    row = conn.execute(
        "SELECT COALESCE(SUM(amount), 0) AS refunded, "
        "(SELECT order_total FROM refunds WHERE order_id = ? AND key_hash = ? AND order_total IS NOT NULL "
        "ORDER BY id LIMIT 1) AS total FROM refunds WHERE order_id = ? AND key_hash = ?",
        (order_id, ctx.key_hash, order_id, ctx.key_hash),
    ).fetchone()
    return row["total"], _cents(row["refunded"])


def _within_paid(conn: sqlite3.Connection, ctx: "Context", order_id: str, amount: float, total: float) -> None:
    """Refuse a refund of a business order that gives another total than its first refund did, or that would take
    its refunds above what it was paid."""
    recorded, refunded = _refunds_of(conn, ctx, order_id)
    if recorded is not None and _cents(recorded) != _cents(total):
        raise SupplierError(
            "REFUND_TOTAL_MISMATCH",
            f"order {order_id} was paid {_yuan(_cents(recorded))} (its first refund said so), not {_yuan(_cents(total))}",
        )
    if refunded + _cents(amount) > _cents(total):
        raise SupplierError(
            "REFUND_EXCEEDS_PAID",
            f"refunding {_yuan(_cents(amount))} on order {order_id} would bring its refunds to "
            f"{_yuan(refunded + _cents(amount))}, above the {_yuan(_cents(total))} paid "
            f"({_yuan(refunded)} refunded already)",
        )


def order_refund(conn, ctx, args):
    """Refund money on an order. A business order (`ORD-…`) also needs its `total`, and is never refunded above it
    (see the module docstring)."""
    order_id = _order_id(args)
    amount = _money(args, "amount")
    request_id = args.get("requestId")
    if request_id is not None and not isinstance(request_id, str):
        raise invalid("requestId must be a string")
    total = None
    if order_id.startswith(BUSINESS_ORDER_PREFIX):
        if args.get("total") is None:
            raise invalid(f"total is required to refund {order_id}: what the order was paid (a positive number)")
        total = _money(args, "total")
        _within_paid(conn, ctx, order_id, amount, total)
    # A repeated requestId never gets here: `run` answers it with the first refund.
    number = new_number(conn, "refunds", "refund_no", "RF", ctx.today)
    conn.execute(
        "INSERT INTO refunds (refund_no, order_id, amount, request_id, key_hash, created_at, order_total) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (number, order_id, amount, request_id, ctx.key_hash, ctx.now, total),
    )
    answer = {
        "refundId": number,
        "status": "REFUNDED",
        "amount": _amount(amount),
        "orderId": order_id,
        "requestId": request_id,
    }
    if total is not None:
        answer["total"] = _amount(total)
    return answer


COMMANDS = {
    ("flight", "search"): flight_search,
    ("flight", "saveOrder"): flight_save,
    ("flight", "cancelOrder"): flight_cancel,
    ("flight", "queryOrder"): flight_query,
    ("hotel", "search"): hotel_search,
    ("hotel", "saveOrder"): hotel_save,
    ("hotel", "cancelOrder"): hotel_cancel,
    ("hotel", "queryOrder"): hotel_query,
    ("train", "search"): train_search,
    ("train", "saveOrder"): train_save,
    ("train", "cancelOrder"): train_cancel,
    ("train", "queryOrder"): train_query,
    ("order", "queryOrder"): order_query,
    ("order", "pay"): order_pay,
    ("order", "refund"): order_refund,
}


# --- the supplier's own events -----------------------------------------------------------------------------------


def event_cancel(conn, ctx, row):
    """The supplier cancels an unpaid or paid order on its side."""
    _check_move(row, CANCELLED)
    conn.execute(
        "UPDATE orders SET status = ?, cancelled_by = ?, updated_at = ? WHERE id = ?",
        (CANCELLED, SUPPLIER, ctx.now, row["id"]),
    )


def event_change(conn, ctx, row, delay_minutes):
    """A live flight's or train's times move by `delay_minutes` (negative: earlier); the order keeps its status and
    records the times before this change. The travel `date` stays the booked one, as a delayed flight keeps its
    flight date."""
    if row["product"] not in SCHEDULED_PRODUCTS:
        raise invalid(f"order {row['order_no']} is a {row['product']} order: only flights and trains have times")
    if row["status"] not in LIVE:
        raise _refusal(row)
    if delay_minutes == 0 or abs(delay_minutes) > MAX_SCHEDULE_SHIFT_MINUTES:
        raise invalid(f"a schedule change moves the times by 1 to {MAX_SCHEDULE_SHIFT_MINUTES} minutes either way")
    details = json.loads(row["details"])
    change = {
        "previousDepartTime": details["departTime"],
        "previousArriveTime": details["arriveTime"],
        "changedAt": ctx.now,
    }
    shift = dt.timedelta(minutes=delay_minutes)
    for name in ("departTime", "arriveTime"):
        details[name] = (dt.datetime.fromisoformat(details[name]) + shift).isoformat(timespec="minutes")
    conn.execute(
        "UPDATE orders SET details = ?, schedule_change = ?, updated_at = ? WHERE id = ?",
        (json.dumps(details, ensure_ascii=False), json.dumps(change, ensure_ascii=False), ctx.now, row["id"]),
    )


def event_expire(conn, ctx, row):
    """The payment deadline of an unpaid order passes now: it expires when next loaded, so tests need no clock."""
    _check_move(row, EXPIRED)
    passed = (ctx.moment - dt.timedelta(seconds=1)).isoformat(timespec="seconds")
    conn.execute("UPDATE orders SET pay_deadline = ?, updated_at = ? WHERE id = ?", (passed, ctx.now, row["id"]))


DEFAULT_DELAY_MINUTES = 90


def run_event(
    conn: sqlite3.Connection, ctx: Context, kind: str, number: str, *, delay_minutes: int = DEFAULT_DELAY_MINUTES
) -> dict:
    """Apply one supplier event to any caller's order, in the caller's open write transaction; answer
    `{"order": {…}}` as the event left it (an order given a past deadline is answered before it is loaded again, so
    still unpaid).

    A refusal (SupplierError) is like a command's: see `_refusals_undone`."""
    with _refusals_undone(conn, ctx):
        row = _load(conn, ctx, number.strip().upper(), None)
        if kind == "cancel":
            event_cancel(conn, ctx, row)
        elif kind == "change":
            event_change(conn, ctx, row, delay_minutes)
        elif kind == "expire":
            event_expire(conn, ctx, row)
        else:
            raise ValueError(f"no supplier event {kind!r}")
        return {"order": _order_view(_reload(conn, row))}


# --- running a command, idempotently -----------------------------------------------------------------------------


def _request_id(args: dict) -> str | None:
    value = args.get(REQUEST_ID)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_REQUEST_ID_CHARS:
        raise invalid(f"{REQUEST_ID} must be a non-empty string of at most {MAX_REQUEST_ID_CHARS} characters")
    return value.strip()


def _arguments_hash(args: dict) -> str:
    rest = {k: v for k, v in args.items() if k != REQUEST_ID}
    return hashlib.sha256(json.dumps(rest, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


@contextmanager
def _refusals_undone(conn: sqlite3.Connection, ctx: Context) -> Iterator[None]:
    """Undo what a refused command wrote (it raised SupplierError), all but the expiry of the overdue orders it
    loaded: an order past its deadline stays EXPIRED whatever the command answered. The caller commits the
    transaction after a refusal too, so that expiry lasts."""
    conn.execute("SAVEPOINT command")
    try:
        yield
    except SupplierError:
        conn.execute("ROLLBACK TO command")
        for order_id in ctx.expired:
            _expire(conn, ctx, order_id)
        raise
    finally:
        conn.execute("RELEASE command")


def run(conn: sqlite3.Connection, ctx: Context, product: str, action: str, args: dict) -> dict:
    """Run one command in the caller's open write transaction (`store.transaction`, BEGIN IMMEDIATE).

    A command that changes something and carries a requestId is looked up first: a key seen before answers its
    first answer (a key reused for another command or other arguments is refused, IDEMPOTENCY_KEY_REUSED); a new
    key runs the command and records its answer in the same transaction, so the effect and the key commit together
    or not at all. The write lock is held from the look-up to the commit: two processes with one key are serialised
    and the second reads the first's answer.

    A refusal (SupplierError) has undone the command's writes but an overdue order's expiry (`_refusals_undone`):
    commit the transaction after it too.
    """
    with _refusals_undone(conn, ctx):
        command = COMMANDS.get((product, action))
        if command is None:
            raise SupplierError("UNSUPPORTED_ACTION", f"{product} has no action {action}")
        request_id = _request_id(args) if action in IDEMPOTENT_ACTIONS else None
        if request_id is None:
            return command(conn, ctx, args)
        key = {
            "key_hash": ctx.key_hash,
            "request_id": request_id,
            "command": f"{product}.{action}",
            "arguments_hash": _arguments_hash(args),
        }
        try:
            first = store.first_answer(conn, **key)
        except ValueError as exc:
            raise SupplierError("IDEMPOTENCY_KEY_REUSED", str(exc))
        if first is not None:
            return first
        answer = command(conn, ctx, args)
        store.remember_answer(conn, **key, answer=answer, now=ctx.now)
        return answer
