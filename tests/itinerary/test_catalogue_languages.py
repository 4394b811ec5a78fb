"""The catalogue in Chinese and English: the demo data carries both, seeding writes both, the search finds a word of
either title whatever language is active, the activity page and the admin show both, and the migration that added
the English keeps the Chinese text of the rows that were there."""

import datetime as dt
import json
import re

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import translation

from assistant.agent.registry import ToolRegistry
from core.tools import ToolContext
from demo.bulk import bulk_activity_fields
from demo.catalogue import ACTIVITIES_FILE, seed_demo_activities
from itinerary.models import Activity
from itinerary.selectors import ActivityQuery, activity_search
from itinerary.tools import TOOLS, activity_facts
from itinerary.words import activity_description, activity_title
from tests.factories import ActivityFactory

CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")
TODAY = dt.date(2026, 12, 1)


def demo_entries() -> list[dict]:
    return json.loads(ACTIVITIES_FILE.read_text(encoding="utf-8"))


# --- the demo data ---------------------------------------------------------------------------------------------------


def test_every_demo_activity_has_an_english_title_and_description_without_chinese():
    entries = demo_entries()

    assert len(entries) == 157
    for entry in entries:
        assert entry["title_en"].strip() and entry["description_en"].strip(), entry["title"]
        assert not CJK.search(entry["title_en"] + entry["description_en"]), entry["title"]


def test_every_demo_activity_has_its_own_english_title():
    titles = [entry["title_en"] for entry in demo_entries()]

    assert len(set(titles)) == len(titles)


@pytest.mark.django_db
@pytest.mark.parametrize("active", ["zh-hans", "en"])
def test_seeding_writes_both_languages_whatever_language_is_active(active):
    with translation.override(active):
        seed_demo_activities(today=TODAY)

    sayram = Activity.objects.get(title_zh_hans="赛里木湖环湖骑行一日游")
    assert sayram.title_en == "Sayram Lake cycling day trip"
    assert sayram.description_zh_hans.startswith("沿环湖公路骑行约90公里")
    assert sayram.description_en.startswith("Ride about 90 km on the lakeside road")
    assert not Activity.objects.filter(title_en__isnull=True).exists()


@pytest.mark.django_db
def test_seeding_again_gives_english_to_demo_rows_seeded_without_it_and_keeps_english_written_since():
    seed_demo_activities(today=TODAY)
    Activity.objects.filter(title_zh_hans="赛里木湖环湖骑行一日游").update(title_en=None, description_en=None)
    Activity.objects.filter(title_zh_hans="赛里木湖日出摄影团").update(title_en="Sunrise at Sayram Lake")

    created, present = seed_demo_activities(today=TODAY)["activities"]

    assert (created, present) == (0, 157)
    assert Activity.objects.get(title_zh_hans="赛里木湖环湖骑行一日游").title_en == "Sayram Lake cycling day trip"
    assert Activity.objects.get(title_zh_hans="赛里木湖日出摄影团").title_en == "Sunrise at Sayram Lake"


def test_a_bulk_activity_has_an_english_title_and_description_from_the_same_words():
    for seq in range(1, 60):
        fields = bulk_activity_fields(seq, today=TODAY)

        assert fields["title_en"].endswith(f" · BULK-{seq:07d}"), fields
        assert fields["title_en"] != fields["title_zh_hans"]
        assert not CJK.search(fields["title_en"] + fields["description_en"]), fields


# --- reading a title ------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_title_is_read_in_the_language_asked_from_a_row_or_its_facts_whatever_is_active():
    activity = ActivityFactory(title="洱海骑行", title_en="Erhai Lake cycling", city="大理")

    for active in ("zh-hans", "en"):
        with translation.override(active):
            facts = activity_facts(activity)
            assert (facts["title"], facts["title_en"]) == ("洱海骑行", "Erhai Lake cycling")
            for source in (activity, facts):
                assert activity_title(source, "en") == "Erhai Lake cycling"
                assert activity_title(source, "zh-hans") == "洱海骑行"


@pytest.mark.django_db
def test_an_activity_without_english_is_named_in_chinese_once_with_the_place_in_english_beside_it():
    activity = ActivityFactory(title="大理古城漫游", description="古城里走走。", city="大理")

    assert activity_title(activity, "en") == "大理古城漫游 (Dali)"
    assert activity_title(activity_facts(activity), "en") == "大理古城漫游 (Dali)"
    assert activity_title(activity, "zh-hans") == "大理古城漫游"
    assert activity_description(activity, "en") == "古城里走走。"


# --- the search -----------------------------------------------------------------------------------------------------


@pytest.fixture
def erhai(db):
    return ActivityFactory(
        title="洱海西岸骑行一日游",
        title_en="Erhai Lake west shore cycling day trip",
        city="大理",
        province="云南",
        tags=["一日游"],
        start_date=TODAY,
        end_date=TODAY + dt.timedelta(days=20),
    )


def found(**conditions) -> list[int]:
    return list(activity_search(ActivityQuery.build(today=TODAY, **conditions)).values_list("pk", flat=True))


@pytest.mark.parametrize("active", ["zh-hans", "en"])
@pytest.mark.parametrize("word", ["cycling", "ERHAI", "西岸骑行"])
def test_a_word_of_either_title_finds_the_activity_whatever_language_is_active(erhai, active, word):
    with translation.override(active):
        assert found(keywords=[word]) == [erhai.pk]


@pytest.mark.parametrize("active", ["zh-hans", "en"])
def test_a_word_of_no_title_finds_nothing_and_an_excluded_english_word_leaves_it_out(erhai, active):
    with translation.override(active):
        assert found(keywords=["kayak"]) == []
        assert found(city="大理", exclude_places=["Erhai"]) == []
        assert found(city="大理") == [erhai.pk]


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_the_search_tool_finds_an_english_word_and_gives_the_model_both_titles(erhai, alice, language):
    context = ToolContext(user=alice, conversation_id="c1", language=language, today=TODAY)

    envelope = ToolRegistry(tools=TOOLS).call("search_activities", {"keywords": ["Erhai"], "city": "大理"}, context)

    assert envelope["ok"] and envelope["data"]["activity_ids"] == [erhai.pk]
    facts = envelope["data"]["activities"][0]
    assert (facts["title"], facts["title_en"]) == ("洱海西岸骑行一日游", "Erhai Lake west shore cycling day trip")


# --- the page and the admin -----------------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "shown", "hidden"),
    [
        ("en", ["Erhai Lake cycling", "Ride along the lake."], ["洱海骑行", "沿湖骑行。"]),
        ("zh-hans", ["洱海骑行", "沿湖骑行。"], ["Erhai Lake cycling", "Ride along the lake."]),
    ],
)
def test_the_activity_page_shows_the_title_and_description_in_the_readers_language(
    client, alice, language, shown, hidden
):
    activity = ActivityFactory(
        title="洱海骑行", title_en="Erhai Lake cycling", description="沿湖骑行。", description_en="Ride along the lake."
    )
    client.force_login(alice)

    page = client.get(f"/activities/{activity.pk}/", HTTP_ACCEPT_LANGUAGE=language).content.decode()

    assert f"<h1>{shown[0]}</h1>" in page and f"<p>{shown[1]}</p>" in page
    assert not any(text in page for text in hidden)


@pytest.mark.django_db
def test_the_admin_change_page_edits_the_title_and_description_in_both_languages(client, user_factory):
    client.force_login(user_factory("catalogue-editor", is_staff=True, is_superuser=True))
    activity = ActivityFactory(title="洱海骑行", title_en="Erhai Lake cycling")
    url = f"/admin/itinerary/activity/{activity.pk}/change/"

    page = client.get(url).content.decode()
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()

    for field in ("title_zh_hans", "title_en", "description_zh_hans", "description_en"):
        assert f'name="{field}"' in page, field
    assert 'value="洱海骑行"' in page and 'value="Erhai Lake cycling"' in page
    assert all(label in page for label in ("标题（中文）", "标题（英文）", "描述（中文）", "描述（英文）"))
    assert all(label in english for label in ("Title (Chinese)", "Title (English)", "Description (English)"))


# --- the migration --------------------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_the_chinese_text_of_existing_rows_and_gives_it_back_when_reversed():
    before, after = [("itinerary", "0006_cover_url_validated")], [("itinerary", "0007_activity_text_in_both_languages")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps.get_model("itinerary", "Activity")
    row = old.objects.create(
        title="洱海骑行",
        description="沿湖骑行。",
        city="大理",
        province="云南",
        price=1,
        start_date=TODAY,
        end_date=TODAY,
    )
    try:
        executor = MigrationExecutor(connection)
        executor.migrate(after)
        new = executor.loader.project_state(after).apps.get_model("itinerary", "Activity")
        moved = new.objects.get(pk=row.pk)
        assert (moved.title_zh_hans, moved.description_zh_hans, moved.title_en) == ("洱海骑行", "沿湖骑行。", None)

        new.objects.filter(pk=row.pk).update(title="Erhai Lake cycling", title_zh_hans="洱海环湖骑行")
        executor = MigrationExecutor(connection)
        executor.migrate(before)
        assert old.objects.get(pk=row.pk).title == "洱海环湖骑行"
    finally:
        MigrationExecutor(connection).migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
