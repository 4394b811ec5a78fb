"""The sandbox supplier's command line.

    python -m bookings.sandbox call <product> <action> -a '<json object>'
    python -m bookings.sandbox event <cancel|change|expire> <orderNo> [--delay-minutes N]
    python -m bookings.sandbox stats
    python -m bookings.sandbox traces

`call` is the supplier platform's grammar (products flight, hotel, train, order; actions search, saveOrder,
cancelOrder, queryOrder, pay, refund).

`event` runs supplier-side events (the fault setting for what a real supplier does on its own side), for tests and
demos, with no key, on any caller's order: `cancel` cancels an unpaid or paid order (cancelledBy "supplier");
`change` moves a flight's or train's departTime and arriveTime by N minutes (`--delay-minutes`, default 90,
negative for earlier), records the times before this change in scheduleChange and keeps the status; `expire` puts an
unpaid order's payment deadline one second in the past, so the next command that loads it expires it (the event's
own answer still shows it unpaid). It answers `{"order": {…}}`, or an error: ORDER_NOT_FOUND, INVALID_PARAM for a
hotel's change, ORDER_CANCELLED / ORDER_EXPIRED / ALREADY_PAID when the order's status rules the event out.

`stats` prints counts of orders (by status and product), refunds, cancels, payments and idempotency keys, with no key.

`traces` prints the commands run under each trace id (`byTraceId`, from the caller's TRIPDESK_TRACE_ID), with no key.

Environment:
- `SUPPLIER_API_KEY`: the caller's key (must start with `sbx_`); orders belong to the key that created them.
- `TRIPDESK_TRACE_ID`, `TRACEPARENT`: the trace of the turn or task that runs the command; recorded with it.
- `TRIPDESK_CLOCK_OFFSET`: seconds to move the supplier's clock by, as its caller's (set by the test suite only:
  core/clock.py).
- `SANDBOX_SUPPLIER_STORE`: the SQLite file (default `<repo>/var/sandbox-supplier.sqlite3`).
- `SANDBOX_SUPPLIER_PAY_MINUTES`: how long a new order may be paid before it expires, in minutes (default 30; a
  fraction like 0.5 is fine). Anything but a positive number is a usage error, as a bad fault rule is.
- `SANDBOX_SUPPLIER_FAULTS`: injected faults, e.g. `flight.cancelOrder=fail,order.refund=timeout,*=garbage`;
  a rule is `product.action`, `product.*` or `*`, the most specific wins. `fail`: a `PLATFORM_ERROR` answer,
  `timeout`: sleep `SANDBOX_SUPPLIER_FAULT_SLEEP` seconds (default 3600) first, then carry on like a slow
  supplier (with `SANDBOX_SUPPLIER_FAULT_RELEASE=<file>`: until that file exists, at most that long);
  `garbage`: non-JSON text with exit code 0. `fail` and `garbage` change nothing in the store.

saveOrder, cancelOrder, pay and refund take an idempotency key, `requestId`: a repeat answers the first answer.

`order refund` on a business order (`ORD-…`) takes the order's `total` beside the refund's `amount`, as a payment
system's refund does: `{"orderId": "ORD-004", "amount": 258, "total": 258, "requestId": "refund:ORD-004"}`. The
supplier never refunds such an order above its total: a refund that would take the order's refunds above it answers
REFUND_EXCEEDS_PAID, a total other than the one the order's first refund gave answers REFUND_TOTAL_MISMATCH (exit 1,
nothing changes, and the requestId is not used up).

Exit codes: 0 with a JSON answer on stdout; 1 with `{"success": false, "errorCode", "errorMessage"}` on stdout;
2 for a command line outside the grammar (usage on stderr).
"""

import argparse
import functools
import hashlib
import io
import json
import os
import sqlite3
import sys
import time
import traceback
from collections.abc import Callable

from core import clock

PRODUCTS = ["flight", "hotel", "train", "order"]
ACTIONS = ["search", "saveOrder", "cancelOrder", "queryOrder", "pay", "refund"]
EVENTS = ["cancel", "change", "expire"]
FAULT_MODES = {"fail", "timeout", "garbage"}
MAX_PAY_MINUTES = 366 * 24 * 60  # a year: enough for any test, far from a date overflow
KEY_PREFIX = "sbx_"
GARBAGE = "<html><head><title>502 Bad Gateway</title></head><body>upstream timed out</body></html>"


class UsageError(Exception):
    pass


def parse_faults(spec: str) -> dict[str, str]:
    rules = {}
    for part in filter(None, (p.strip() for p in spec.split(","))):
        target, _, mode = part.partition("=")
        target, mode = target.strip(), mode.strip()
        if mode not in FAULT_MODES or not target:
            raise UsageError(f"SANDBOX_SUPPLIER_FAULTS: bad rule {part!r} (want product.action=fail|timeout|garbage)")
        rules[target] = mode
    return rules


def fault_for(product: str, action: str) -> str | None:
    rules = parse_faults(os.environ.get("SANDBOX_SUPPLIER_FAULTS", ""))
    for target in (f"{product}.{action}", f"{product}.*", "*"):
        if target in rules:
            return rules[target]
    return None


def pay_minutes() -> float:
    """`SANDBOX_SUPPLIER_PAY_MINUTES`: refused when it is not a positive number (a typo silently turned into the default
    would make a test of expiry pass or fail for the wrong reason)."""
    from bookings.sandbox.store import DEFAULT_PAY_MINUTES

    raw = os.environ.get("SANDBOX_SUPPLIER_PAY_MINUTES", "").strip()
    if not raw:
        return DEFAULT_PAY_MINUTES
    try:
        minutes = float(raw)
        if not 0 < minutes <= MAX_PAY_MINUTES:  # nan and inf too
            raise ValueError(raw)
    except ValueError:
        raise UsageError(f"SANDBOX_SUPPLIER_PAY_MINUTES: want minutes above 0 (e.g. 30 or 0.5), got {raw!r}")
    return minutes


def _answer(payload: dict) -> None:
    sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")


def _error(code: str, message: str) -> int:
    _answer({"success": False, "errorCode": code, "errorMessage": message})
    return 1


@functools.cache  # built once: the warm sandbox's zygote builds it before it forks (argparse is ~5 ms per build)
def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="supplier", description="The TripDesk sandbox supplier platform.")
    commands = parser.add_subparsers(dest="command", required=True)
    call = commands.add_parser("call", help="run one platform command")
    call.add_argument("product", choices=PRODUCTS)
    call.add_argument("action", choices=ACTIONS)
    call.add_argument("-a", "--args", dest="arguments", default="{}", help="the arguments, one JSON object")
    event = commands.add_parser("event", help="the supplier acts on an order on its side (no key needed)")
    event.add_argument("kind", choices=EVENTS)
    event.add_argument("order_no", metavar="orderNo")
    event.add_argument("--delay-minutes", type=int, help="change only: minutes the times move (default 90)")
    commands.add_parser("stats", help="print counts of orders, refunds, cancels and payments (no key needed)")
    commands.add_parser("traces", help="print the commands run under each trace id (no key needed)")
    return parser


def _hang(seconds: float) -> None:
    """A slow supplier: sleep `seconds`, or, with SANDBOX_SUPPLIER_FAULT_RELEASE naming a file, until that file
    exists (at most `seconds`), so a test decides when the call goes on instead of racing a clock."""
    release = os.environ.get("SANDBOX_SUPPLIER_FAULT_RELEASE", "").strip()
    deadline = time.monotonic() + seconds
    if not release:
        time.sleep(seconds)
        return
    while not os.path.exists(release) and time.monotonic() < deadline:
        time.sleep(0.05)


def call(product: str, action: str, raw_arguments: str) -> int:
    minutes = pay_minutes()
    fault = fault_for(product, action)
    if fault == "fail":
        return _error("PLATFORM_ERROR", "the supplier platform failed to process the request")
    if fault == "garbage":
        sys.stdout.write(GARBAGE + "\n")
        return 0
    if fault == "timeout":
        _hang(float(os.environ.get("SANDBOX_SUPPLIER_FAULT_SLEEP") or 3600))

    key = os.environ.get("SUPPLIER_API_KEY", "")
    if not key.startswith(KEY_PREFIX) or len(key) <= len(KEY_PREFIX):
        return _error("AUTH_FAILED", "missing or invalid API key (SUPPLIER_API_KEY)")
    try:
        arguments = json.loads(raw_arguments)
    except ValueError:
        return _error("INVALID_PARAM", "-a must be one JSON object")
    if not isinstance(arguments, dict):
        return _error("INVALID_PARAM", "-a must be one JSON object")

    from bookings.sandbox import orders, supplier

    if (product, action) not in supplier.COMMANDS:
        return _error("UNSUPPORTED_ACTION", f"{product} has no action {action}")
    ctx = orders.Context(hashlib.sha256(key.encode()).hexdigest(), clock.now(), pay_minutes=minutes)

    def work(conn: sqlite3.Connection) -> dict:
        from bookings.sandbox import store

        store.remember_call(
            conn,
            command=f"{product}.{action}",
            trace_id=os.environ.get("TRIPDESK_TRACE_ID", ""),
            traceparent=os.environ.get("TRACEPARENT", ""),
            now=ctx.now,
        )
        return supplier.run(conn, ctx, product, action, arguments)

    return _answered(work)


def event(kind: str, order_no: str, delay_minutes: int | None) -> int:
    from bookings.sandbox import orders, supplier

    if delay_minutes is not None and kind != "change":
        raise UsageError("--delay-minutes goes with change only")
    ctx = orders.Context(None, clock.now())
    delay = supplier.DEFAULT_DELAY_MINUTES if delay_minutes is None else delay_minutes
    return _answered(lambda conn: supplier.run_event(conn, ctx, kind, order_no, delay_minutes=delay))


def _answered(work: Callable[[sqlite3.Connection], dict]) -> int:
    """Run `work` in one store transaction and print its answer, or its refusal. A refusal commits too: the
    supplier has undone the command's writes itself, all but an overdue order's expiry, which must last."""
    from bookings.sandbox import orders, store

    refusal = None
    with store.transaction() as conn:
        try:
            payload = work(conn)
        except orders.SupplierError as exc:
            refusal = exc
    if refusal is not None:
        return _error(refusal.code, refusal.message)
    _answer(payload)
    return 0


def main(argv: list[str] | None = None) -> int:
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(encoding="utf-8")
    ns = _parser().parse_args(argv)
    try:
        if ns.command == "event":
            return event(ns.kind, ns.order_no, ns.delay_minutes)
        if ns.command in ("stats", "traces"):
            from bookings.sandbox import store

            with store.transaction() as conn:
                _answer(store.stats(conn) if ns.command == "stats" else store.traces(conn))
            return 0
        return call(ns.product, ns.action, ns.arguments)
    except UsageError as exc:
        sys.stderr.write(f"supplier: {exc}\n")
        return 2
    except Exception as exc:  # the answer of a supplier that broke: an error, details on stderr
        traceback.print_exc()
        return _error("PLATFORM_ERROR", f"internal error ({type(exc).__name__})")


def run_captured(argv: list[str]) -> tuple[int, bytes, bytes]:
    """`main(argv)` as `python -m bookings.sandbox` would run it, its output captured: (exit code, stdout, stderr).

    For the warm sandbox (`bookings.sandbox.zygote`), which runs a command in a fork of a process that has already
    imported this module instead of in a new Python. The streams encode as the cold child's do under C.UTF-8
    (stdout strict, stderr backslashreplace); an exit (argparse's usage error: 2) and an uncaught exception (its
    traceback, 1) end as the interpreter would end them."""
    out, err = io.BytesIO(), io.BytesIO()
    streams = sys.stdout, sys.stderr
    # Held here until read: a wrapper closes its buffer when it goes away.
    captured = (
        io.TextIOWrapper(out, encoding="utf-8"),
        io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace"),
    )
    sys.stdout, sys.stderr = captured
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
        if code is not None and not isinstance(code, int):
            sys.stderr.write(f"{code}\n")
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    finally:
        sys.stdout, sys.stderr = streams
    for stream in captured:
        stream.flush()
    return (code or 0) & 0xFF, out.getvalue(), err.getvalue()
