"""Demo catalogue: the activities of `itinerary/demo_data/activities.json`, dated from the day of seeding.

Dates in the file are relative (`start_offset_days` from the seed day, `duration_days` the length of the
availability window, so 1 means a single day), which keeps a freshly seeded site full of upcoming activities
whatever day it is. Seeding fills what is absent (by title) and never touches a row that already exists.
"""

import json
from datetime import date, timedelta
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from itinerary.models import Activity, GenderRestriction
from itinerary.tagging import system_tags_for

ACTIVITIES_FILE = Path(__file__).resolve().parent / "demo_data" / "activities.json"


@cache
def demo_activity_data() -> tuple[dict[str, Any], ...]:
    """The activity entries of the demo file, as written (relative dates)."""
    with ACTIVITIES_FILE.open(encoding="utf-8") as handle:
        return tuple(json.load(handle))


def activity_fields(entry: dict[str, Any], *, today: date) -> dict[str, Any]:
    """The model fields of one demo entry, with its relative window turned into dates from `today`."""
    start = today + timedelta(days=entry["start_offset_days"])
    return {
        "title": entry["title"],
        "city": entry["city"],
        "province": entry["province"],
        "description": entry["description"],
        "price": Decimal(str(entry["price"])),
        "start_date": start,
        "end_date": start + timedelta(days=max(entry["duration_days"], 1) - 1),
        "tags": list(entry["tags"]),
        "system_tags": system_tags_for(entry["title"], entry["tags"]),
        "min_age": entry.get("min_age"),
        "max_age": entry.get("max_age"),
        "gender_restriction": entry.get("gender_restriction") or GenderRestriction.NONE,
        "cover_image_url": entry.get("cover_image_url", ""),
        "popularity": entry.get("popularity", 0),
        "is_published": entry.get("is_published", True),
    }


@transaction.atomic
def seed_demo_activities(*, today: date | None = None) -> dict[str, tuple[int, int]]:
    """Create the demo activities that are missing (matched by title); return {"activities": (created, present)}."""
    today = today or timezone.localdate()
    existing = set(Activity.objects.values_list("title", flat=True))
    missing = [entry for entry in demo_activity_data() if entry["title"] not in existing]
    Activity.objects.bulk_create([Activity(**activity_fields(entry, today=today)) for entry in missing])
    return {"activities": (len(missing), len(demo_activity_data()) - len(missing))}
