"""Bulk activities: varied titles in both languages from the demo catalogue's destinations, a pure function of
their number and the seed day."""

import datetime as dt
from decimal import Decimal
from typing import Any

from django.db import transaction

from demo.bulk.keys import TITLE_RE, TITLE_SUFFIX, analyze, chunks, missing_numbers, present_numbers, row_random
from demo.catalogue import demo_activity_data
from itinerary.models import Activity, GenderRestriction
from itinerary.tagging import system_tags_for
from itinerary.words import english_place_name

# Title styles: a demo title with a qualifier in front, or a destination + theme + format of our own.
QUALIFIERS = ("", "精品", "小团", "私享", "深度", "轻奢", "经济", "亲子", "周末", "秋冬", "摄影师带队")
# The same words for the English title, as an English travel site would put them before a title.
QUALIFIERS_EN = {
    "": "",
    "精品": "Premium",
    "小团": "Small-group",
    "私享": "Private",
    "深度": "In-depth",
    "轻奢": "Boutique",
    "经济": "Budget",
    "亲子": "Family",
    "周末": "Weekend",
    "秋冬": "Autumn and winter",
    "摄影师带队": "Photographer-led",
}
THEMES = (  # (the title's word, its tag, the English title's word)
    ("徒步", "徒步", "hiking"),
    ("骑行", "骑行", "cycling"),
    ("摄影", "摄影", "photography"),
    ("美食", "美食", "food"),
    ("温泉", "温泉", "hot spring"),
    ("露营", "露营", "camping"),
    ("夜游", "夜游", "night"),
    ("亲子", "亲子", "family"),
    ("古镇漫步", "古镇", "old town walking"),
    ("文化探访", "文化", "culture"),
    ("自然探索", "自然", "nature"),
    ("星空观测", "摄影", "stargazing"),
    ("非遗手工", "手工", "folk craft"),
    ("自驾", "自驾", "self-drive"),
)
FORMATS = (  # (the title's word, its tag, days, the English title's words)
    ("半日游", "一日游", 1, "half-day trip"),
    ("一日游", "一日游", 1, "day trip"),
    ("两日游", "多日游", 2, "trip, 2 days"),
    ("三日游", "多日游", 3, "trip, 3 days"),
    ("四日游", "多日游", 4, "trip, 4 days"),
    ("五日游", "多日游", 5, "trip, 5 days"),
    ("周末营", "多日游", 2, "weekend camp"),
    ("体验课", "一日游", 1, "class"),
    ("深度之旅", "多日游", 6, "tour in depth, 6 days"),
)
WINDOW_DAYS = (1, 2, 3, 7, 14, 21, 30, 45, 60, 90, 120)


def bulk_activity_fields(seq: int, *, today: dt.date) -> dict[str, Any]:
    """The model fields of bulk activity number `seq` (a pure function of `seq` and the seed day)."""
    rng = row_random("activity", seq)
    entries = demo_activity_data()
    base = entries[rng.randrange(len(entries))]
    tags = list(base["tags"])
    if rng.random() < 0.5:
        qualifier = rng.choice(QUALIFIERS)
        title = qualifier + base["title"]
        title_en = " ".join(w for w in (QUALIFIERS_EN[qualifier], base["title_en"]) if w)
    else:
        theme, theme_tag, theme_en = rng.choice(THEMES)
        fmt, fmt_tag, _, fmt_en = rng.choice(FORMATS)
        title = f"{base['destination']}{theme}{fmt}"
        place_en = english_place_name(base["destination"]) or english_place_name(base["city"]) or base["destination"]
        title_en = f"{place_en} {theme_en} {fmt_en}"
        tags = [theme_tag, fmt_tag, *(t for t in tags if t not in {"一日游", "多日游"})]
        tags = list(dict.fromkeys(tags))[:6]
    title = f"{title}{TITLE_SUFFIX}{seq:07d}"
    title_en = f"{title_en}{TITLE_SUFFIX}{seq:07d}"
    start = today + dt.timedelta(days=rng.randint(-45, 180))
    window = rng.choice(WINDOW_DAYS)
    price = max(Decimal("50"), Decimal(round(base["price"] * rng.uniform(0.55, 1.7) / 10) * 10))
    min_age = max_age = None
    roll = rng.random()
    if roll < 0.04:
        min_age, max_age = 18, 25
    elif roll < 0.08:
        min_age = rng.choice((6, 8, 10, 12, 14, 16))
    elif roll < 0.11:
        max_age = rng.choice((55, 60, 65, 70))
    roll = rng.random()
    gender = (
        GenderRestriction.FEMALE if roll < 0.03 else GenderRestriction.MALE if roll < 0.04 else GenderRestriction.NONE
    )
    return {
        # Both languages by name: `title=` alone would be read in whichever language is active (modeltranslation).
        "title_zh_hans": title,
        "title_en": title_en,
        "city": base["city"],
        "province": base["province"],
        "description_zh_hans": base["description"],
        "description_en": base["description_en"],
        "price": price,
        "start_date": start,
        "end_date": start + dt.timedelta(days=window - 1),
        "tags": tags,
        "system_tags": _system_tags(title, tuple(tags)),
        "min_age": min_age,
        "max_age": max_age,
        "gender_restriction": gender,
        "cover_image_url": base.get("cover_image_url", ""),
        "is_published": rng.random() < 0.97,
        "popularity": int(rng.paretovariate(1.2) * 40) if rng.random() < 0.9 else 0,
    }


def _system_tags(title: str, tags: tuple[str, ...]) -> list[str]:
    # The marker adds no vocabulary word, so the tags of the title without it are the same (and cacheable).
    return list(_system_tags_cached(title.split(TITLE_SUFFIX, 1)[0], tags))


_SYSTEM_TAG_CACHE: dict[tuple[str, tuple[str, ...]], tuple[str, ...]] = {}


def _system_tags_cached(title: str, tags: tuple[str, ...]) -> tuple[str, ...]:
    key = (title, tags)
    if key not in _SYSTEM_TAG_CACHE:
        _SYSTEM_TAG_CACHE[key] = tuple(system_tags_for(title, list(tags)))
    return _SYSTEM_TAG_CACHE[key]


def seed_activities(wanted: int, *, today: dt.date, batch_size: int) -> tuple[int, int]:
    titles = Activity.objects.filter(title_zh_hans__contains=TITLE_SUFFIX).values_list("title_zh_hans", flat=True)
    present = present_numbers(titles, TITLE_RE)
    missing = missing_numbers(wanted, present)
    for batch in chunks(missing, batch_size):
        with transaction.atomic():
            Activity.objects.bulk_create(
                [Activity(**bulk_activity_fields(seq, today=today)) for seq in batch], batch_size=batch_size
            )
    if missing:
        analyze(Activity)
    return len(missing), len(present & set(range(1, wanted + 1)))
