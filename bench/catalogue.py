"""The catalogue query at 100k activities: p50/p95 of each search the chat runs, on PostgreSQL.

    .venv/bin/python bench/catalogue.py [--activities 100000] [--runs 200] [--seed 20261201] [--explain]

Uses a database of its own (`BENCH_DATABASE_URL`, default `postgresql://postgres@127.0.0.1:5432/tripdesk_bench_catalogue`,
created if absent), migrated, with the demo data and `seed_bulk --activities N` (idempotent: a second run adds
nothing), then VACUUM ANALYZE, as autovacuum would leave a table that has settled.

Each variant runs --runs times with varied inputs (destinations, cities, provinces, budgets and date windows drawn
with a fixed seed) and times what a chat turn reads from the catalogue: `personalised(activity_search(query))` for
6 cards, that is the first 50 rows in the catalogue's order, each with the count of every match (one query). The personalised
variant also reads the viewer's interest profile (`viewer_for`) of a traveller with scores, an age and a gender, so
the hard filters (age, gender) run in the query and the rows are re-ranked.

Baseline, measured in the same run on the same connection: `SELECT 1` (a round trip) and an activity read by its
primary key. The ratio says how many round trips a search costs. Target: p95 < 25 ms for every variant. Last,
for comparison, the keyword searches once more with the bigram test switched off (`MIN_INDEXED_KEYWORD`): the plain
ILIKE conditions, as before migration itinerary 0002.
"""

import argparse
import datetime as dt
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import percentile, setup_django, summary  # noqa: E402

DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/tripdesk_bench_catalogue"
TARGET_P95_MS = 25.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--activities", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--explain", action="store_true", help="print EXPLAIN ANALYZE of one input per variant")
    args = parser.parse_args()

    setup_django(database_url=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE_URL))
    from django.db import connection
    from django.utils import timezone

    from demo.bulk import BulkPlan, bulk_seed
    from demo.catalogue import demo_activity_data
    from itinerary import selectors
    from itinerary.matching import ANONYMOUS, personalised, viewer_for
    from itinerary.models import Activity
    from itinerary.selectors import ActivityQuery, activity_search

    if connection.vendor != "postgresql":
        sys.exit("bench/catalogue.py measures PostgreSQL: set BENCH_DATABASE_URL to a postgresql:// URL")

    started = time.perf_counter()
    seeded = bulk_seed(BulkPlan.for_activities(args.activities))
    seed_seconds = time.perf_counter() - started
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE itinerary_activity")
        cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'itinerary_activity' ORDER BY indexname")
        indexes = [row[0] for row in cursor.fetchall()]

    today = timezone.localdate()
    rng = random.Random(args.seed)
    entries = demo_activity_data()
    destinations = sorted({e["destination"] for e in entries})
    cities = sorted({e["city"] for e in entries})
    provinces = sorted({e["province"] for e in entries})
    viewer = _bench_viewer(today=today)
    min_indexed = selectors.MIN_INDEXED_KEYWORD
    sample_ids = list(Activity.objects.order_by("?").values_list("pk", flat=True)[: args.runs])

    def budget() -> int:
        return rng.choice((300, 500, 800, 1000, 1500, 2000, 3000, 5000))

    def window() -> dict:
        start = today + dt.timedelta(days=rng.randint(0, 120))
        return {"date_start": start, "date_end": start + dt.timedelta(days=rng.randint(0, 6))}

    variants: dict[str, Callable[[], dict]] = {
        "keyword": lambda: {"keywords": [rng.choice(destinations)]},
        "city": lambda: {"city": rng.choice(cities)},
        "keyword + price": lambda: {"keywords": [rng.choice(destinations)], "max_price": budget()},
        "keyword + dates": lambda: {"keywords": [rng.choice(destinations)], **window()},
        "province + price + dates": lambda: {"province": rng.choice(provinces), "max_price": budget(), **window()},
    }

    def read(query_args: dict, *, personal: bool = False, counted: bool = True) -> None:
        query = ActivityQuery.build(today=today, **query_args)
        seen_by = viewer_for(user=viewer, today=today) if personal else ANONYMOUS
        found = activity_search(query, counted=counted)
        shown, _total = personalised(found, viewer=seen_by, limit=6, count=counted)

    # Warm-up: connection, imports, plan caches, the table's pages in shared buffers.
    for make in variants.values():
        for _ in range(10):
            read(make())

    timings: dict[str, list[float]] = {}
    timings["baseline SELECT 1"] = _timed(args.runs, lambda: _select_one(connection))
    ids = iter(sample_ids * 2)
    timings["baseline pk lookup"] = _timed(args.runs, lambda: Activity.objects.filter(pk=next(ids)).first())
    for name, make in variants.items():
        inputs = [make() for _ in range(args.runs)]
        feed = iter(inputs)
        timings[name] = _timed(args.runs, lambda feed=feed: read(next(feed)))
    personal_inputs = iter([{"keywords": [rng.choice(destinations)], **window()} for _ in range(args.runs)])
    timings["personalised keyword+dates"] = _timed(args.runs, lambda: read(next(personal_inputs), personal=True))
    # A recommendation (no place) reads no count and walks the order index (activity_popular); counted, the same
    # read is what it cost before: every row of the 30-day window read and sorted.
    timings["popular (no place, 30 days)"] = _timed(args.runs, lambda: read({}, counted=False))
    timings["popular, counted (as before)"] = _timed(args.runs, lambda: read({}))
    # What the bigram index buys: the keyword searches again, with the bigram test switched off (plain ILIKE).
    plain_inputs = iter([{"keywords": [rng.choice(destinations)]} for _ in range(args.runs)])
    selectors.MIN_INDEXED_KEYWORD = 10**6
    try:
        timings["keyword, plain ILIKE"] = _timed(args.runs, lambda: read(next(plain_inputs)))
    finally:
        selectors.MIN_INDEXED_KEYWORD = min_indexed

    db = connection.settings_dict
    total = Activity.objects.count()
    print(
        f"catalogue: {total} activities ({seeded['activities'].created} added in {seed_seconds:.1f} s), "
        f"PostgreSQL {db['NAME']}, {args.runs} runs per variant, seed {args.seed}"
    )
    print(f"indexes on itinerary_activity: {', '.join(indexes)}")
    for name, seconds in timings.items():
        print(summary(name, seconds))
    round_trip = percentile(timings["baseline SELECT 1"], 50)
    print(
        "p50 ratio to SELECT 1: "
        + ", ".join(
            f"{name} {percentile(seconds, 50) / round_trip:.1f}x"
            for name, seconds in timings.items()
            if not name.startswith("baseline SELECT")
        )
    )
    searches = {name: s for name, s in timings.items() if not name.startswith("baseline") and "plain" not in name}
    worst = max(searches, key=lambda name: percentile(searches[name], 95))
    worst_ms = percentile(searches[worst], 95) * 1000
    verdict = "met" if worst_ms < TARGET_P95_MS else "NOT met"
    print(f"target p95 < {TARGET_P95_MS:.0f} ms: {verdict} (worst: {worst}, p95 {worst_ms:.2f} ms)")

    if args.explain:
        for name, make in variants.items():
            query = activity_search(ActivityQuery.build(today=today, **make()))
            print(f"\n-- {name}\n{query[:50].explain(analyze=True)}")


def _timed(runs: int, call: Callable[[], object]) -> list[float]:
    seconds = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - started)
    return seconds


def _select_one(connection) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def _bench_viewer(*, today: dt.date):
    """A traveller with interest scores, a birth date (34 years old) and a gender: every matching rule applies."""
    from django.contrib.auth import get_user_model

    from itinerary.models import InterestProfile

    user, _ = get_user_model().objects.get_or_create(username="bench-catalogue-viewer")
    InterestProfile.objects.update_or_create(
        user=user,
        defaults={
            "scores": {"hiking": 0.9, "photography": 0.7, "lake": 0.6, "food": 0.3},
            "birth_date": today - dt.timedelta(days=34 * 365 + 9),
            "gender": InterestProfile.Gender.FEMALE,
        },
    )
    return user


if __name__ == "__main__":
    main()
