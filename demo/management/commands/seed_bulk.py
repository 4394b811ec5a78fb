"""`manage.py seed_bulk --activities 100000 [--users N --orders N --bookings N --tickets N]`: bulk data for load
and query-plan work (see `demo.bulk`). Idempotent: it adds only the `BULK-` rows that are absent."""

import time

from django.core.management.base import BaseCommand, CommandError

from demo.bulk import BATCH_SIZE, BulkCount, BulkPlan, bulk_seed


class Command(BaseCommand):
    help = (
        "Create bulk users, activities, orders, bookings and tickets (BULK- natural keys) that are absent. "
        "Counts default in proportion to --activities: 1/40 users, 1/5 orders, 1/10 bookings, 1/20 tickets."
    )

    def add_arguments(self, parser):
        parser.add_argument("--activities", type=int, default=100_000, help="bulk activities (default 100000)")
        parser.add_argument("--users", type=int, default=None, help="bulk users (default activities/40)")
        parser.add_argument("--orders", type=int, default=None, help="bulk orders (default activities/5)")
        parser.add_argument("--bookings", type=int, default=None, help="bulk bookings (default activities/10)")
        parser.add_argument("--tickets", type=int, default=None, help="bulk tickets (default activities/20)")
        parser.add_argument("--batch-size", type=int, default=BATCH_SIZE, help="rows per INSERT and per transaction")

    def handle(self, *args, activities: int, batch_size: int, verbosity: int = 1, **options):
        try:
            plan = BulkPlan.for_activities(
                activities,
                users=options["users"],
                orders=options["orders"],
                bookings=options["bookings"],
                tickets=options["tickets"],
            )
        except ValueError as exc:
            raise CommandError(str(exc))
        if batch_size < 1:
            raise CommandError("--batch-size must be at least 1")

        def progress(kind: str, count: BulkCount) -> None:
            if verbosity >= 1:
                self.stdout.write(
                    f"  {kind:<10} {count.created:>7} created, {count.present:>7} already present  "
                    f"({count.seconds:.2f} s)"
                )

        started = time.perf_counter()
        results = bulk_seed(plan, batch_size=batch_size, progress=progress)
        created = sum(count.created for count in results.values())
        if verbosity >= 1:
            self.stdout.write(
                self.style.SUCCESS(f"Done: {created} bulk rows created in {time.perf_counter() - started:.2f} s.")
            )
