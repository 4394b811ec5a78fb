"""System tags follow an activity's title and tags: set by the save service (and so by the admin), and brought
in line for old rows by the backfill command."""

import datetime as dt
import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.urls import reverse

from itinerary.models import Activity
from itinerary.services import activity_create, activity_save, activity_system_tags_backfill
from tests.factories import ActivityFactory

pytestmark = pytest.mark.django_db

START = dt.date(2026, 12, 1)


def fields(**overrides) -> dict:
    data = {
        "title": "黄山日出徒步",
        "city": "黄山",
        "province": "安徽",
        "price": Decimal("580"),
        "start_date": START,
        "end_date": START + dt.timedelta(days=30),
        "tags": ["户外"],
    }
    return {**data, **overrides}


def backfill(*args) -> str:
    out = StringIO()
    call_command("backfill_system_tags", *args, stdout=out)
    return out.getvalue().strip()


# --- the service ---------------------------------------------------------------------------------------------------


def test_creating_an_activity_sets_its_system_tags_from_title_and_tags():
    activity = activity_create(**fields())

    activity.refresh_from_db()
    assert activity.system_tags == ["hiking", "photography", "nature"]


def test_system_tags_given_to_create_are_ignored_for_the_computed_ones():
    activity = activity_create(**fields(system_tags=["beach"]))

    assert activity.system_tags == ["hiking", "photography", "nature"]


def test_saving_a_changed_activity_recomputes_its_system_tags():
    activity = activity_create(**fields())
    activity.title_zh_hans = "黄山温泉"
    activity.tags = []

    activity_save(activity=activity)

    activity.refresh_from_db()
    assert activity.system_tags == ["hot_spring"]


def test_an_invalid_activity_is_refused_and_nothing_is_written():
    with pytest.raises(ValidationError):
        activity_create(**fields(end_date=START - dt.timedelta(days=1)))

    assert not Activity.objects.exists()


# --- the admin -----------------------------------------------------------------------------------------------------


def admin_form(**overrides) -> dict:
    data = {
        "title_zh_hans": "洱海环湖骑行",
        "title_en": "",
        "city": "大理",
        "province": "云南",
        "description_zh_hans": "",
        "description_en": "",
        "price": "199",
        "start_date": "2026-12-01",
        "end_date": "2026-12-31",
        "tags": json.dumps(["骑行"], ensure_ascii=False),
        "min_age": "",
        "max_age": "",
        "gender_restriction": "NONE",
        "cover_image_url": "",
        "is_published": "on",
        "popularity": "0",
    }
    return {**data, **overrides}


def test_adding_an_activity_in_the_admin_sets_its_system_tags(admin_client):
    response = admin_client.post(reverse("admin:itinerary_activity_add"), admin_form())

    assert response.status_code == 302, response.content.decode()[:2000]
    assert Activity.objects.get().system_tags == ["cycling", "lake"]


def test_changing_an_activity_in_the_admin_recomputes_its_system_tags(admin_client):
    activity = activity_create(**fields())

    response = admin_client.post(
        reverse("admin:itinerary_activity_change", args=[activity.pk]),
        admin_form(title_zh_hans="丽江古城美食之旅", tags="[]", system_tags='["beach"]'),
    )

    assert response.status_code == 302, response.content.decode()[:2000]
    activity.refresh_from_db()
    assert activity.system_tags == ["food", "ancient_town"]


# --- the backfill --------------------------------------------------------------------------------------------------


@pytest.fixture
def stale_rows():
    """Five activities written around the service: three with stale system tags, two already right."""
    return [
        ActivityFactory(title="亚布力滑雪", tags=[], system_tags=[]),
        ActivityFactory(title="三亚海岛潜水", tags=[], system_tags=["hiking"]),
        ActivityFactory(title="西湖夜游", tags=["文化"], system_tags=["culture"]),
        ActivityFactory(title="普通一日游", tags=[], system_tags=[]),
        ActivityFactory(title="长城徒步", tags=[], system_tags=["hiking", "culture"]),
    ]


def test_the_backfill_recomputes_every_stale_row_and_a_second_run_changes_nothing(stale_rows):
    assert backfill("--batch-size", "2") == "5 activities checked, 3 changed."

    tags = dict(Activity.objects.values_list("title_zh_hans", "system_tags"))
    assert tags["亚布力滑雪"] == ["skiing", "snow"]
    assert tags["三亚海岛潜水"] == ["beach", "adventure"]
    assert tags["西湖夜游"] == ["culture", "lake", "nightlife"]
    assert backfill() == "5 activities checked, 0 changed."


def test_a_dry_run_counts_the_changes_and_writes_nothing(stale_rows):
    before = dict(Activity.objects.values_list("pk", "system_tags"))

    assert backfill("--dry-run") == "5 activities checked, 3 would change."

    assert dict(Activity.objects.values_list("pk", "system_tags")) == before


def test_the_backfill_writes_in_batches(stale_rows, django_assert_max_num_queries):
    # 5 rows in batches of 2: 4 reads (the last one empty) and at most one bulk update per batch.
    with django_assert_max_num_queries(4 + 3 * 3):
        result = activity_system_tags_backfill(batch_size=2)

    assert (result.checked, result.changed) == (5, 3)


def test_an_empty_catalogue_backfills_nothing():
    assert backfill() == "0 activities checked, 0 changed."
