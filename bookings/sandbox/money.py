"""The sandbox supplier's money commands: `order pay` (a booking paid once, under its idempotency key) and
`order refund` (of a booking, or of a business order `ORD-…` as a payment system refunds it: within what was paid,
against the total its first refund recorded). Imports nothing of the site."""

import sqlite3

from bookings.sandbox.orders import (
    BUSINESS_ORDER_PREFIX,
    PAID,
    Context,
    SupplierError,
    _amount,
    _check_move,
    _load,
    _order_id,
    _request_id,
    invalid,
)
from bookings.sandbox.store import new_number


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


def business_order_query(conn: sqlite3.Connection, ctx: "Context", order_id: str) -> dict:
    """A merchant's own order (`ORD-…`), not a booking: what this key refunded on it (how an executor checks a past
    try), and the total its first refund recorded."""
    rows = conn.execute(
        "SELECT refund_no, amount, request_id, created_at FROM refunds WHERE order_id = ? AND key_hash = ? ORDER BY id",
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
