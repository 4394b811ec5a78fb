"""Supplier platform calls through the client: search, book and cancel flights on the sandbox supplier.

    .venv/bin/python bench/platform_calls.py [--n 100]

Every call is what production does: `bookings.platform.platform_call` spawning the platform program (the sandbox,
`python -m bookings.sandbox`) with an argv list and a minimal environment, parsing and unwrapping its JSON. The
store is a fresh temporary file. The baseline, measured in the same run, is spawning `python -c pass` with the same
environment: the floor of any subprocess call, so the ratio says what the supplier program and the client add.
No database is used (Django is set up with default settings only for the client's settings).
"""

import argparse
import datetime as dt
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, percentile, summary  # noqa: E402

CONTACT = {"name": "张三", "mobile": "13800000000"}
ROUTES = [("上海", "杭州"), ("北京", "三亚"), ("广州", "成都"), ("上海", "乌鲁木齐"), ("大理", "北京")]


def timed(fn, *args, **kwargs):
    started = time.perf_counter()
    result = fn(*args, **kwargs)
    return result, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=100, help="calls of each kind (default 100)")
    args = parser.parse_args()

    store_dir = tempfile.TemporaryDirectory(prefix="tripdesk-bench-supplier-")
    os.environ["SANDBOX_SUPPLIER_STORE"] = str(Path(store_dir.name) / "supplier.sqlite3")
    os.environ.pop("SANDBOX_SUPPLIER_FAULTS", None)
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    import django

    django.setup()
    from bookings.platform import PlatformCommand, child_environment, cli_prefix, order_number, platform_call

    key = "sbx_bench-key-000000000000"
    env = child_environment(key)
    platform_call(
        PlatformCommand("flight", "search", {"from": "上海", "to": "杭州", "date": "2026-12-05"}), api_key=key
    )

    baseline = []
    for _ in range(args.n):
        _, seconds = timed(subprocess.run, [sys.executable, "-c", "pass"], env=env, cwd=ROOT, capture_output=True)
        baseline.append(seconds)

    searches, bookings, cancels, numbers = [], [], [], []
    for i in range(args.n):
        origin, destination = ROUTES[i % len(ROUTES)]
        date = (dt.date(2026, 12, 1) + dt.timedelta(days=i % 28)).isoformat()
        found, seconds = timed(
            platform_call,
            PlatformCommand("flight", "search", {"from": origin, "to": destination, "date": date}),
            api_key=key,
        )
        searches.append(seconds)
        flight = found["flights"][i % len(found["flights"])]
        booked, seconds = timed(
            platform_call,
            PlatformCommand(
                "flight", "saveOrder", {"flightNo": flight["flightNo"], "date": date, "contactTourist": CONTACT}
            ),
            api_key=key,
        )
        bookings.append(seconds)
        numbers.append(order_number(booked))
    for number in numbers:
        _, seconds = timed(platform_call, PlatformCommand("flight", "cancelOrder", {"orderId": number}), api_key=key)
        cancels.append(seconds)

    counts = subprocess.run(
        [*cli_prefix(), "stats"], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    floor = percentile(baseline, 50)
    print(
        f"platform_calls: {args.n} of each, program {' '.join(cli_prefix())}, store {os.environ['SANDBOX_SUPPLIER_STORE']}"
    )
    print(summary("baseline python -c pass", baseline))
    for name, seconds in (("flight search", searches), ("flight saveOrder", bookings), ("flight cancelOrder", cancels)):
        print(f"{summary(name, seconds)}  p50 = {percentile(seconds, 50) / floor:4.1f}x baseline")
    print(f"supplier store after the run: {counts}")
    store_dir.cleanup()


if __name__ == "__main__":
    main()
