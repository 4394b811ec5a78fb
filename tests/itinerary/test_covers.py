"""Covers that are served: every demo activity points at a shipped illustration, every illustration exists and is
an SVG picture, and the migration moved the covers that pointed at a host that does not exist. A cover is checked
where it is entered (an absolute http(s) URL or a shipped picture); one stored before that, which the deployed
static files cannot serve, costs its card the picture (the illustration instead), never the page or the search."""

import datetime as dt
import importlib
import re
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone

from assistant.selectors import catalogue_places_forget
from demo.catalogue import demo_activity_data
from itinerary.covers import DESTINATION_THEMES, THEMES, cover_url, theme_file, validate_cover_url
from itinerary.models import Activity
from tests.assistant.conftest import Chat
from tests.factories import ActivityFactory

COVERS = Path(settings.BASE_DIR) / "static"
migration = importlib.import_module("itinerary.migrations.0003_local_cover_images")


@pytest.mark.parametrize("theme", THEMES)
def test_every_theme_has_a_shipped_svg_illustration(theme):
    picture = (COVERS / theme_file(theme)).read_text(encoding="utf-8")

    assert (
        picture.startswith("<svg")
        and "<title" in picture
        and "http" not in picture.replace("http://www.w3.org/2000/svg", "")
    )  # self-contained: nothing fetched from elsewhere


def test_every_demo_activity_uses_a_shipped_cover():
    for entry in demo_activity_data():
        assert entry["cover_image_url"] == theme_file(DESTINATION_THEMES[entry["destination"]]), entry["title"]
        assert (COVERS / entry["cover_image_url"]).is_file()


@pytest.mark.django_db
def test_the_migration_moves_covers_off_the_dead_host_and_leaves_others_alone():
    dead = ActivityFactory(title="凤凰古城夜游沱江", cover_image_url="https://images.example.com/activities/x.jpg")
    elsewhere = ActivityFactory(title="大理古城漫游", cover_image_url="https://pictures.example.org/dali.jpg")
    unknown = ActivityFactory(title="无名小镇一日游", cover_image_url="https://images.example.com/activities/y.jpg")

    migration.local_covers(apps, None)

    for row in (dead, elsewhere, unknown):
        row.refresh_from_db()
    assert dead.cover_image_url == "img/covers/ancient-town.svg"
    assert elsewhere.cover_image_url == "https://pictures.example.org/dali.jpg"
    assert unknown.cover_image_url == "img/covers/default.svg"
    assert cover_url(dead) == "/static/img/covers/ancient-town.svg"
    assert cover_url(elsewhere) == "https://pictures.example.org/dali.jpg"


# --- what staff may enter --------------------------------------------------------------------------------------------

BAD_COVERS = [
    "img/covers/nope.svg",  # a shipped picture that does not exist
    "covers/dali.jpg",
    "javascript:alert(1)",
    "//pictures.example.org/dali.jpg",  # another host, without saying how
    "/uploads/dali.jpg",
    "ftp://pictures.example.org/dali.jpg",
    "https://",
    "img/../../config/settings/base.py",
    "css/tripdesk.css",  # shipped, but no picture
    "dali picture.jpg",
]


@pytest.mark.parametrize("value", BAD_COVERS)
def test_a_cover_that_is_neither_an_absolute_url_nor_a_shipped_picture_is_refused(value):
    with pytest.raises(ValidationError):
        validate_cover_url(value)


@pytest.mark.parametrize("value", ["", "https://pictures.example.org/dali.jpg", "http://a.example/x.png?s=640"])
def test_an_absolute_url_or_no_cover_is_accepted(value):
    validate_cover_url(value)


@pytest.mark.parametrize("theme", THEMES)
def test_every_shipped_illustration_is_accepted_as_a_cover(theme):
    validate_cover_url(theme_file(theme))


# --- a bad value already stored ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def collected_static(tmp_path_factory):
    """The site's static files collected under content-hashed names, as `run.sh --prod` serves them."""
    root = tmp_path_factory.mktemp("staticfiles")
    with override_settings(STATIC_ROOT=root, STORAGES=HASHED_STORAGES):
        call_command("collectstatic", "--noinput", verbosity=0)
    return root


HASHED_STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"},
}
# The illustration of an old town, under its hashed name (a picture the deployed site serves).
ANCIENT_TOWN = re.compile(r"^/static/img/covers/ancient-town\.[0-9a-f]{12}\.svg$")


@pytest.fixture
def hashed_static(settings, collected_static):
    """Static files as production serves them: a name missing from the manifest raises where it is rendered."""
    settings.STATIC_ROOT = collected_static
    settings.STORAGES = HASHED_STORAGES


@pytest.fixture
def old_town(db):
    """Two activities in 大理; the first has a cover that was stored before covers were checked."""
    catalogue_places_forget()
    today = timezone.localdate()
    window = {"start_date": today, "end_date": today + dt.timedelta(days=30), "city": "大理", "province": "云南"}
    bad = ActivityFactory(title="大理古城漫游", tags=["古镇"], system_tags=["ancient_town"], popularity=50, **window)
    good = ActivityFactory(title="大理洱海骑行", tags=["骑行"], popularity=10, cover_image_url=HOSTED_PICTURE, **window)
    Activity.objects.filter(pk=bad.pk).update(cover_image_url="covers/dali.jpg")
    bad.refresh_from_db()
    yield bad, good
    catalogue_places_forget()


HOSTED_PICTURE = "https://pictures.example.org/erhai.jpg"


@pytest.mark.parametrize("value", BAD_COVERS)
def test_a_stored_bad_cover_shows_the_illustration_of_its_kind_of_place(value, hashed_static):
    activity = Activity(title="大理古城漫游", system_tags=["ancient_town"], cover_image_url=value)

    assert ANCIENT_TOWN.match(cover_url(activity))


def test_a_shipped_picture_the_deployed_files_lack_shows_the_illustration(hashed_static, monkeypatch):
    # Shipped after the last collectstatic: found in the source, missing from the manifest.
    monkeypatch.setattr("itinerary.covers.is_shipped_picture", lambda value: True)
    activity = Activity(title="大理古城漫游", system_tags=["ancient_town"], cover_image_url="img/covers/new-one.svg")

    assert ANCIENT_TOWN.match(cover_url(activity))


def test_the_page_of_an_activity_with_a_bad_stored_cover_answers_with_the_illustration(
    client, alice, old_town, hashed_static
):
    bad, _good = old_town
    client.force_login(alice)

    page = client.get(f"/activities/{bad.pk}/")

    assert page.status_code == 200
    picture = re.search(r'<figure class="activity-cover"><img src="([^"]+)"', page.content.decode()).group(1)
    assert ANCIENT_TOWN.match(picture)
    assert Activity.objects.get(pk=bad.pk).cover_image_url == "covers/dali.jpg"  # the row is left for staff


@pytest.mark.parametrize("agent", [False, True], ids=["channel-1", "channel-2"])
def test_a_search_that_finds_an_activity_with_a_bad_stored_cover_answers_with_every_card(
    alice, old_town, hashed_static, settings, agent
):
    settings.ASSISTANT_AGENT_ENABLED = agent
    settings.ASSISTANT_LLM_PROVIDER = "rules"
    bad, good = old_town

    answer = Chat(alice).say("大理有什么活动")

    cards = {card["id"]: card for card in answer["cards"] if card["type"] == "activity"}
    assert set(cards) == {bad.pk, good.pk}, answer
    assert ANCIENT_TOWN.match(cards[bad.pk]["cover_image_url"])
    assert cards[good.pk]["cover_image_url"] == HOSTED_PICTURE
    assert answer["reply"].startswith("为你找到 2 个大理的活动")
