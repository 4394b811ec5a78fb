"""Demo catalogue: the activities of `demo/data/activities.json`, dated from the day of seeding.

Each entry has its title and description in Chinese (`title`, `description`, the catalogue's own) and English
(`title_en`, `description_en`).

Dates in the file are relative (`start_offset_days` from the seed day, `duration_days` the length of the
availability window, so 1 means a single day), which keeps a freshly seeded site full of upcoming activities
whatever day it is. Seeding fills what is absent (by Chinese title) and never touches a row that already exists.
"""

import json
from datetime import date, timedelta
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from itinerary.models import Activity, GenderRestriction
from itinerary.tagging import system_tags_for

ACTIVITIES_FILE = Path(__file__).resolve().parent / "data" / "activities.json"


@cache
def demo_activity_data() -> tuple[dict[str, Any], ...]:
    """The activity entries of the demo file, as written (relative dates)."""
    with ACTIVITIES_FILE.open(encoding="utf-8") as handle:
        return tuple(json.load(handle))


def activity_fields(entry: dict[str, Any], *, today: date) -> dict[str, Any]:
    """The model fields of one demo entry, with its relative window turned into dates from `today`."""
    start = today + timedelta(days=entry["start_offset_days"])
    return {
        # Both languages by name: `title=` alone would be read in whichever language is active (modeltranslation).
        "title_zh_hans": entry["title"],
        "title_en": entry.get("title_en") or None,
        "city": entry["city"],
        "province": entry["province"],
        "description_zh_hans": entry["description"],
        "description_en": entry.get("description_en") or None,
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
    existing = set(Activity.objects.values_list("title_zh_hans", flat=True))
    missing = [entry for entry in demo_activity_data() if entry["title"] not in existing]
    Activity.objects.bulk_create([Activity(**activity_fields(entry, today=today)) for entry in missing])
    _english_filled_in(present=existing)
    return {"activities": (len(missing), len(demo_activity_data()) - len(missing))}


def _english_filled_in(*, present: set[str]) -> None:
    """The English of the demo activities seeded before the catalogue had any, where a row still has none (a text
    someone wrote in the admin stays)."""
    untranslated = set(
        Activity.objects.filter(title_zh_hans__in=present)
        .filter(Q(title_en__isnull=True) | Q(title_en=""))
        .values_list("title_zh_hans", flat=True)
    )
    for entry in demo_activity_data():
        if entry["title"] in untranslated and entry.get("title_en"):
            Activity.objects.filter(title_zh_hans=entry["title"]).filter(
                Q(title_en__isnull=True) | Q(title_en="")
            ).update(title_en=entry["title_en"], description_en=entry.get("description_en") or None)
