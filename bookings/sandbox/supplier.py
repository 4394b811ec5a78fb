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
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from bookings.sandbox import inventory, store
from bookings.sandbox.money import business_order_query, order_pay, order_refund
from bookings.sandbox.orders import (
    BUSINESS_ORDER_PREFIX,
    CANCELLED,
    CUSTOMER,
    EXPIRED,
    IDEMPOTENT_ACTIONS,
    LIVE,
    MAX_LISTED_ORDERS,
    MAX_PASSENGERS,
    MAX_SCHEDULE_SHIFT_MINUTES,
    REQUEST_ID,
    SCHEDULED_PRODUCTS,
    SUPPLIER,
    Context,
    SupplierError,
    _check_move,
    _create_order,
    _date,
    _english,
    _expire,
    _load,
    _order_id,
    _order_view,
    _people,
    _person,
    _recall,
    _refusal,
    _reload,
    _remember,
    _request_id,
    _route,
    _stay,
    _text,
    _up_to_date,
    _where,
    invalid,
    mcp,
    wrapped,
)

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
        return business_order_query(conn, ctx, order_id)
    return {"order": _order_view(_load(conn, ctx, order_id, None))}


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
