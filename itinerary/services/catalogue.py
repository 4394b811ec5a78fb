"""Writes to the activity catalogue.

Every save of an activity goes through `activity_save` (the admin's `save_model` too), so its `system_tags` always
follow its (Chinese) title and tags: there is no signal and no `save()` override doing it behind the caller's back. Rows
written around this service (bulk imports, old data) are brought in line by `activity_system_tags_backfill`
(`manage.py backfill_system_tags`).
"""

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from itinerary.models import Activity
from itinerary.tagging import system_tags_for
from itinerary.translation import in_catalogue_language

BACKFILL_BATCH_SIZE = 500


@transaction.atomic
def activity_save(*, activity: Activity) -> Activity:
    """Validate and save an activity (new or changed), its system tags recomputed from its title and tags.

    Raises django.core.exceptions.ValidationError when a field or a constraint is not met; nothing is written then.
    """
    activity.system_tags = system_tags_for(activity.title_zh_hans or "", activity.tags or [])
    activity.full_clean()
    activity.save()
    return activity


def activity_create(**fields) -> Activity:
    """Create an activity from its model fields (`system_tags` is computed, whatever is given); `title` and
    `description` are the Chinese ones, `title_en` and `description_en` the English."""
    fields.pop("system_tags", None)
    return activity_save(activity=Activity(**in_catalogue_language(fields)))


@dataclass(frozen=True)
class BackfillResult:
    checked: int
    changed: int


def activity_system_tags_backfill(*, dry_run: bool = False, batch_size: int = BACKFILL_BATCH_SIZE) -> BackfillResult:
    """Recompute the system tags of every activity, writing only the rows whose tags change.

    Rows are read in primary-key batches (keyset pagination: no growing OFFSET) and each batch is written with
    one `bulk_update` in its own transaction, so a large catalogue is neither loaded at once nor locked at once.
    Running it twice changes nothing the second time. `dry_run` counts without writing.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    checked = changed = 0
    last_pk = 0
    while True:
        batch = list(
            Activity.objects.filter(pk__gt=last_pk)
            .order_by("pk")
            .only("pk", "title_zh_hans", "tags", "system_tags")[:batch_size]
        )
        if not batch:
            break
        last_pk = batch[-1].pk
        checked += len(batch)
        stale = []
        for activity in batch:
            tags = system_tags_for(activity.title_zh_hans or "", activity.tags or [])
            if tags != activity.system_tags:
                activity.system_tags = tags
                stale.append(activity)
        changed += len(stale)
        if stale and not dry_run:
            now = timezone.now()
            for activity in stale:
                activity.updated_at = now
            with transaction.atomic():
                Activity.objects.bulk_update(stale, ["system_tags", "updated_at"])
    return BackfillResult(checked=checked, changed=changed)
