"""The sandbox supplier's commands: search, saveOrder, cancelOrder, queryOrder, refund.

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
| | `{"orderId": "ORD-…", "refunds": [{"refundId", "amount", "requestId", "createdAt"}]}`, the caller's refunds |
| order refund | plain `{"refundId": "RF…", "status": "REFUNDED", "amount": …, "orderId": …, "requestId": …}` |

An error is `{"success": false, "errorCode": "…", "errorMessage": "…"}` (raised here as `SupplierError`).

Idempotency, as real payment and supplier APIs have it: saveOrder, cancelOrder and refund take a `requestId`; a
repeat of a caller's requestId is answered with the first answer and changes nothing (see `run`). Only answers are
remembered: an error changed nothing, so a repeat after one is processed afresh.
"""

import datetime as dt
import hashlib
import json
import re
import sqlite3

from bookings.sandbox import inventory, store
from bookings.sandbox.store import new_number

DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
MOBILE_RE = re.compile(r"^1\d{10}$")
ORDER_PREFIX = {"flight": "FL", "hotel": "HT", "train": "TR"}
NUMBER_KEY = {"flight": "orderId", "hotel": "orderNo", "train": "mainOrderNo"}
PENDING_PAYMENT, CANCELLED = "PENDING_PAYMENT", "CANCELLED"
BUSINESS_ORDER_PREFIX = "ORD-"  # TripDesk's own orders (refunded through `order refund`), not supplier bookings
MAX_PASSENGERS = 9
# The commands that change something: each takes an idempotency key.
IDEMPOTENT_ACTIONS = frozenset({"saveOrder", "cancelOrder", "refund"})
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


# --- orders ------------------------------------------------------------------------------------------------------


def _create_order(
    conn: sqlite3.Connection, ctx: "Context", *, product: str, total: float, details: dict, contact: dict
) -> dict:
    number = new_number(conn, "orders", "order_no", ORDER_PREFIX[product], ctx.today)
    conn.execute(
        "INSERT INTO orders (order_no, product, key_hash, status, total_price, details, contact, created_at, "
        "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
        ),
    )
    return _order_view(_load(conn, ctx, number, product))


def _load(conn: sqlite3.Connection, ctx: "Context", number: str, product: str | None) -> sqlite3.Row:
    """The caller's own order; another key's order does not exist for them."""
    row = conn.execute("SELECT * FROM orders WHERE order_no = ? AND key_hash = ?", (number, ctx.key_hash)).fetchone()
    if row is None or (product is not None and row["product"] != product):
        raise SupplierError("ORDER_NOT_FOUND", f"no order {number}")
    return row


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
    }


class Context:
    """Who calls (the hash of their key) and when."""

    def __init__(self, key_hash: str, now: dt.datetime) -> None:
        self.key_hash = key_hash
        self.now = now.isoformat(timespec="seconds")
        self.today = now.strftime("%y%m%d")


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
        lines.append({"seatType": seat, "adultPrice": prices[seat], "passengers": [p["name"] for p in passengers]})
    if len(everyone) > MAX_PASSENGERS:
        raise invalid(f"at most {MAX_PASSENGERS} passengers per order")
    contact = (
        _person(args["contact"], "contact", mobile_required=True) if args.get("contact") is not None else everyone[0]
    )
    details = {
        **{k: train[k] for k in ("trainNo", "from", "to", "departTime", "arriveTime")},
        "date": date.isoformat(),
        "resources": lines,
    }
    return wrapped(_create_order(conn, ctx, product="train", total=total, details=details, contact=contact))


def _cancel(conn, ctx, args, product: str) -> dict:
    row = _load(conn, ctx, _order_id(args), product)
    already = row["status"] == CANCELLED
    if not already:
        conn.execute("UPDATE orders SET status = ?, updated_at = ? WHERE id = ?", (CANCELLED, ctx.now, row["id"]))
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
        return {"orderId": order_id, "refunds": refunds}
    return {"order": _order_view(_load(conn, ctx, order_id, None))}


def order_refund(conn, ctx, args):
    order_id = _order_id(args)
    amount = args.get("amount")
    if not isinstance(amount, int | float) or isinstance(amount, bool) or not 0 < amount <= 1_000_000:
        raise invalid("amount must be a positive number")
    request_id = args.get("requestId")
    if request_id is not None and not isinstance(request_id, str):
        raise invalid("requestId must be a string")
    # A repeated requestId never gets here: `run` answers it with the first refund.
    number = new_number(conn, "refunds", "refund_no", "RF", ctx.today)
    conn.execute(
        "INSERT INTO refunds (refund_no, order_id, amount, request_id, key_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        (number, order_id, float(amount), request_id, ctx.key_hash, ctx.now),
    )
    return {
        "refundId": number,
        "status": "REFUNDED",
        "amount": _amount(float(amount)),
        "orderId": order_id,
        "requestId": request_id,
    }


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
    ("order", "refund"): order_refund,
}


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


def run(conn: sqlite3.Connection, ctx: Context, product: str, action: str, args: dict) -> dict:
    """Run one command in the caller's open write transaction (`store.transaction`, BEGIN IMMEDIATE).

    A command that changes something and carries a requestId is looked up first: a key seen before answers its
    first answer (a key reused for another command or other arguments is refused, IDEMPOTENCY_KEY_REUSED); a new
    key runs the command and records its answer in the same transaction, so the effect and the key commit together
    or not at all. The write lock is held from the look-up to the commit: two processes with one key are serialised
    and the second reads the first's answer.
    """
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
