"""The sandbox supplier's command line.

    python -m bookings.sandbox call <product> <action> -a '<json object>'
    python -m bookings.sandbox stats

Environment:
- `SUPPLIER_API_KEY`: the caller's key (must start with `sbx_`); orders belong to the key that created them.
- `SANDBOX_SUPPLIER_STORE`: the SQLite file (default `<repo>/var/sandbox-supplier.sqlite3`).
- `SANDBOX_SUPPLIER_FAULTS`: injected faults, e.g. `flight.cancelOrder=fail,order.refund=timeout,*=garbage`;
  a rule is `product.action`, `product.*` or `*`, the most specific wins. `fail`: a `PLATFORM_ERROR` answer,
  `timeout`: sleep `SANDBOX_SUPPLIER_FAULT_SLEEP` seconds (default 3600) first, then carry on like a slow
  supplier (with `SANDBOX_SUPPLIER_FAULT_RELEASE=<file>`: until that file exists, at most that long);
  `garbage`: non-JSON text with exit code 0. `fail` and `garbage` change nothing in the store.

saveOrder, cancelOrder and refund take an idempotency key, `requestId`: a repeat answers the first answer.

Exit codes: 0 with a JSON answer on stdout; 1 with `{"success": false, "errorCode", "errorMessage"}` on stdout;
2 for a command line outside the grammar (usage on stderr).
"""

import argparse
import datetime as dt
import hashlib
import json
import os
import sys
import time
import traceback

PRODUCTS = ["flight", "hotel", "train", "order"]
ACTIONS = ["search", "saveOrder", "cancelOrder", "queryOrder", "refund"]
FAULT_MODES = {"fail", "timeout", "garbage"}
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


def _answer(payload: dict) -> None:
    sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")


def _error(code: str, message: str) -> int:
    _answer({"success": False, "errorCode": code, "errorMessage": message})
    return 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="supplier", description="The TripDesk sandbox supplier platform.")
    commands = parser.add_subparsers(dest="command", required=True)
    call = commands.add_parser("call", help="run one platform command")
    call.add_argument("product", choices=PRODUCTS)
    call.add_argument("action", choices=ACTIONS)
    call.add_argument("-a", "--args", dest="arguments", default="{}", help="the arguments, one JSON object")
    commands.add_parser("stats", help="print counts of orders and refunds (no key needed)")
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

    from bookings.sandbox import store, supplier

    if (product, action) not in supplier.COMMANDS:
        return _error("UNSUPPORTED_ACTION", f"{product} has no action {action}")
    ctx = supplier.Context(hashlib.sha256(key.encode()).hexdigest(), dt.datetime.now().astimezone())
    try:
        with store.transaction() as conn:
            payload = supplier.run(conn, ctx, product, action, arguments)
    except supplier.SupplierError as exc:
        return _error(exc.code, exc.message)
    _answer(payload)
    return 0


def main(argv: list[str] | None = None) -> int:
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(encoding="utf-8")
    ns = _parser().parse_args(argv)
    try:
        if ns.command == "stats":
            from bookings.sandbox import store

            with store.transaction() as conn:
                _answer(store.stats(conn))
            return 0
        return call(ns.product, ns.action, ns.arguments)
    except UsageError as exc:
        sys.stderr.write(f"supplier: {exc}\n")
        return 2
    except Exception as exc:  # the answer of a supplier that broke: an error, details on stderr
        traceback.print_exc()
        return _error("PLATFORM_ERROR", f"internal error ({type(exc).__name__})")
