"""Supplier platform calls through the client: search, book and cancel flights on the sandbox supplier, cold and warm.

    .venv/bin/python bench/platform_calls.py [--n 100] [--rounds 20]

Every call is what production does: `bookings.platform.platform_call` running the platform program (the sandbox)
with an argv list and a minimal environment, parsing and unwrapping its JSON; each kind of call twice, interleaved so
both see the same load: cold (PLATFORM_WARM off: a new `python -m bookings.sandbox` per call) and warm (the default:
a child forked from a process that has already imported the sandbox CLI). Then a round trip's five searches
(outbound flight and train, return flight and train, hotels), serial (one after another) and parallel (at once,
`platform_call_many`). The store is a fresh temporary file. The baseline, measured in the same run, is spawning
`python -c pass` with the same environment: the floor of any new process, so the ratio says what the supplier
program and the client add.
No database is used (Django is set up with default settings only for the client's settings).
"""

import argparse
import datetime as dt
import json
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
ROUND_TRIP = [
    ("flight", {"from": "上海", "to": "杭州", "date": "2026-12-05"}),
    ("train", {"from": "上海", "to": "杭州", "date": "2026-12-05"}),
    ("flight", {"from": "杭州", "to": "上海", "date": "2026-12-07"}),
    ("train", {"from": "杭州", "to": "上海", "date": "2026-12-07"}),
    ("hotel", {"city": "杭州", "checkInDate": "2026-12-05", "checkOutDate": "2026-12-07"}),
]


def timed(fn, *args, **kwargs):
    started = time.perf_counter()
    result = fn(*args, **kwargs)
    return result, time.perf_counter() - started


MODES = ("cold", "warm")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=100, help="calls of each kind and mode (default 100)")
    parser.add_argument("--rounds", type=int, default=20, help="round trips of each kind and mode (default 20)")
    args = parser.parse_args()

    store_dir = tempfile.TemporaryDirectory(prefix="tripdesk-bench-supplier-")
    os.environ["SANDBOX_SUPPLIER_STORE"] = str(Path(store_dir.name) / "supplier.sqlite3")
    os.environ.pop("SANDBOX_SUPPLIER_FAULTS", None)
    os.environ.setdefault("LOG_LEVEL", "ERROR")  # no database: each call's audit row is skipped with a warning
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    import django

    django.setup()
    from django.conf import settings

    from bookings.platform import PlatformCommand, order_number, platform_call, platform_call_many
    from bookings.supplier_program import child_environment, cli_prefix

    key = "sbx_bench-key-000000000000"
    env = child_environment(key)

    def in_mode(mode: str, fn, *fn_args, **kwargs):
        settings.PLATFORM_WARM = mode == "warm"
        return timed(fn, *fn_args, **kwargs)

    for mode in MODES:  # the first call of each: the warm process starts, files are cached
        in_mode(mode, platform_call, PlatformCommand("flight", "search", ROUND_TRIP[0][1]), api_key=key)

    baseline = []
    for _ in range(args.n):
        _, seconds = timed(subprocess.run, [sys.executable, "-c", "pass"], env=env, cwd=ROOT, capture_output=True)
        baseline.append(seconds)

    kinds = ("flight search", "flight saveOrder", "flight cancelOrder")
    times = {(kind, mode): [] for kind in kinds for mode in MODES}
    numbers = []
    for i in range(args.n):
        origin, destination = ROUTES[i % len(ROUTES)]
        date = (dt.date(2026, 12, 1) + dt.timedelta(days=i % 28)).isoformat()
        for mode in MODES:
            search = PlatformCommand("flight", "search", {"from": origin, "to": destination, "date": date})
            found, seconds = in_mode(mode, platform_call, search, api_key=key)
            times["flight search", mode].append(seconds)
            flight = found["flights"][i % len(found["flights"])]
            booking = {"flightNo": flight["flightNo"], "date": date, "contactTourist": CONTACT}
            booked, seconds = in_mode(mode, platform_call, PlatformCommand("flight", "saveOrder", booking), api_key=key)
            times["flight saveOrder", mode].append(seconds)
            numbers.append((mode, order_number(booked)))
    for mode, number in numbers:
        cancel = PlatformCommand("flight", "cancelOrder", {"orderId": number})
        times["flight cancelOrder", mode].append(in_mode(mode, platform_call, cancel, api_key=key)[1])

    round_trip = [PlatformCommand(product, "search", arguments) for product, arguments in ROUND_TRIP]
    trips = {(how, mode): [] for how in ("serial", "parallel") for mode in MODES}
    for _ in range(args.rounds):
        for mode in MODES:
            one_by_one, seconds = in_mode(mode, lambda: [platform_call(c, api_key=key) for c in round_trip])
            trips["serial", mode].append(seconds)
            together, seconds = in_mode(mode, platform_call_many, round_trip, api_key=key)
            trips["parallel", mode].append(seconds)
            assert together == one_by_one  # the same answers, in the same order

    counts = json.loads(
        subprocess.run([*cli_prefix(), "stats"], env=env, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    )
    floor = percentile(baseline, 50)
    print(f"platform_calls: {args.n} of each kind and mode, {args.rounds} round trips of each, {os.cpu_count()} cores")
    print(summary("baseline python -c pass", baseline))
    for kind in kinds:
        cold, warm = (percentile(times[kind, mode], 50) for mode in MODES)
        for mode in MODES:
            p50 = percentile(times[kind, mode], 50)
            print(f"{summary(f'{kind} {mode}', times[kind, mode])}  p50 = {p50 / floor:4.2f}x baseline")
        print(f"{'':<28} cold / warm p50 = {cold / warm:4.1f}x")
    for mode in MODES:
        serial, parallel = (percentile(trips[how, mode], 50) for how in ("serial", "parallel"))
        for how in ("serial", "parallel"):
            print(summary(f"round trip {mode} {how}", trips[how, mode]))
        print(f"{'':<28} serial / parallel p50 = {serial / parallel:4.1f}x")
    print(f"supplier store after the run: orders {counts['orders']}, cancels {counts['cancels']['total']}")
    store_dir.cleanup()


if __name__ == "__main__":
    main()
