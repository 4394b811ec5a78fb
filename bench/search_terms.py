"""The catalogue keyword search with huge keywords, against a normal one, on PostgreSQL (issue 12).

    .venv/bin/python bench/search_terms.py [--runs 5] [--sizes 10000,40000,200000] [--before-max 40000]

Uses a database of its own (`BENCH_DATABASE_URL`, default `postgresql://postgres@127.0.0.1:5432/tripdesk_bench_search`,
created if absent), migrated, with the demo catalogue.

"after" is what every caller runs now: `activity_search(ActivityQuery.build(keywords=[term]))`, whose query cuts
each keyword to MAX_TERM_CHARS characters. "before" is the expression the selector ran until issue 12, rebuilt
here: the same conditions with the whole keyword, so PostgreSQL's `tripdesk_search_bigrams` (an array append per
character, quadratic) expands all of it. "before" runs only up to --before-max characters (200,000 would take
minutes); the ratio is each median to the normal keyword's median, in the same run.
"""

import argparse
import datetime as dt
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import setup_django  # noqa: E402

DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/tripdesk_bench_search"
NORMAL = "大理"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="timed runs per input (the median is shown)")
    parser.add_argument("--sizes", default="10000,40000,200000", help="keyword lengths, in characters")
    parser.add_argument("--before-max", type=int, default=40_000, help="longest keyword timed the old way")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]

    setup_django(database_url=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE_URL))
    from django.db import connection
    from django.db.models import Q
    from django.utils import timezone

    from itinerary import selectors
    from itinerary.models import Activity
    from itinerary.selectors import MAX_TERM_CHARS, ActivityQuery, activity_search

    if connection.vendor != "postgresql":
        sys.exit("bench/search_terms.py measures PostgreSQL: set BENCH_DATABASE_URL to a postgresql:// URL")
    today = timezone.localdate()

    def after(term: str) -> int:
        return len(list(activity_search(ActivityQuery.build(today=today, keywords=[term]))[:50]))

    def before(term: str) -> int:
        """The selector's query before the bound: the same conditions over the whole keyword."""
        end = today + dt.timedelta(days=selectors.DEFAULT_WINDOW_DAYS)
        match = (
            selectors._title_contains(term)
            | Q(city__icontains=term)
            | Q(province__icontains=term)
            | Q(tags__icontains=term)
        )
        rows = selectors._narrowed(Activity.objects.filter(is_published=True).filter(match), [term])
        rows = rows.filter(start_date__lte=end, end_date__gte=today).order_by("-popularity", "price", "id")
        return len(list(rows[:50]))

    def median_seconds(search, term: str, runs: int) -> float:
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            search(term)
            times.append(time.perf_counter() - started)
        return statistics.median(times)

    for search in (after, before):  # warm-up: connection, plan caches
        search(NORMAL)
    normal = {
        "after": median_seconds(after, NORMAL, args.runs * 4),
        "before": median_seconds(before, NORMAL, args.runs),
    }

    total = Activity.objects.filter(is_published=True).count()
    print(
        f"keyword search: {total} published activities, PostgreSQL {connection.settings_dict['NAME']}, "
        f"median of {args.runs} runs; keywords cut to {MAX_TERM_CHARS} characters"
    )
    print(f"{'keyword':<22} {'after':>10} {'× normal':>9}   {'before':>10} {'× normal':>9}")
    print(
        f"{'normal ' + NORMAL!r:<22} {normal['after'] * 1000:8.2f} ms {1:8.1f}x   "
        f"{normal['before'] * 1000:8.2f} ms {1:8.1f}x"
    )
    for size in sizes:
        term = ("大" + "x" * (size - 1))[:size]
        took = median_seconds(after, term, args.runs)
        line = f"{f'{size:,} chars':<22} {took * 1000:8.2f} ms {took / normal['after']:8.1f}x   "
        if size <= args.before_max:
            old = median_seconds(before, term, 1 if size > 20_000 else args.runs)
            line += f"{old * 1000:8.0f} ms {old / normal['before']:8.0f}x"
        else:
            line += f"{'(skipped: quadratic, minutes)':>20}"
        print(line)


if __name__ == "__main__":
    main()
