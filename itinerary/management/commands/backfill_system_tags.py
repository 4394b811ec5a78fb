"""Recompute every activity's system tags from its title and tags: `manage.py backfill_system_tags [--dry-run]`."""

from django.core.management.base import BaseCommand, CommandError

from itinerary.services import BACKFILL_BATCH_SIZE, activity_system_tags_backfill


class Command(BaseCommand):
    help = "Recompute the system tags of all activities (in batches) and print how many changed."

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run", action="store_true", help="count the activities that would change; write nothing"
        )
        parser.add_argument("--batch-size", type=int, default=BACKFILL_BATCH_SIZE, help="rows read and written at once")

    def handle(self, *args, dry_run: bool = False, batch_size: int = BACKFILL_BATCH_SIZE, **options):
        if batch_size < 1:
            raise CommandError("--batch-size must be at least 1")
        result = activity_system_tags_backfill(dry_run=dry_run, batch_size=batch_size)
        verb = "would change" if dry_run else "changed"
        self.stdout.write(f"{result.checked} activities checked, {result.changed} {verb}.")
