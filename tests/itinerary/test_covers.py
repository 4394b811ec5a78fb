"""Covers that are served: every demo activity points at a shipped illustration, every illustration exists and is
an SVG picture, and the migration moved the covers that pointed at a host that does not exist."""

import importlib
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings

from itinerary.covers import DESTINATION_THEMES, THEMES, cover_url, theme_file
from itinerary.demo import demo_activity_data
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
