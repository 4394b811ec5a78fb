"""Cover pictures of activities: shipped illustrations (static/img/covers/<theme>.svg), one per kind of place.

`Activity.cover_image_url` holds an absolute http(s) URL (a picture hosted elsewhere) or the name of a picture
shipped with the site (`img/covers/lake.svg`); `validate_cover_url` refuses anything else where staff enter it (the
admin, `activity_save`), and `cover_url` turns a value into what a page links to. An activity without a cover, or
with a value that is neither (written before the check, or by an `.update()`), gets the illustration of its kind of
place, chosen from its system tags: one bad row costs one card its picture, never a page or a search.
"""

import functools
import logging
from pathlib import PurePosixPath

from django.contrib.staticfiles import finders
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.templatetags.static import static
from django.utils.translation import gettext_lazy as _

logger = logging.getLogger("itinerary.covers")

COVERS_DIR = "img/covers"
THEMES = (
    "lake",
    "mountain",
    "karst",
    "beach",
    "snow",
    "desert",
    "grassland",
    "ancient-town",
    "water-town",
    "countryside",
    "temple",
    "city",
    "forest",
    "great-wall",
    "default",
)
# The demo catalogue's destinations → their kind of place (demo/data/activities.json uses these).
DESTINATION_THEMES = {
    "赛里木湖": "lake",
    "喀纳斯": "lake",
    "天山天池": "lake",
    "青海湖": "lake",
    "西湖": "lake",
    "九寨沟": "lake",
    "黄山": "mountain",
    "峨眉山": "mountain",
    "泰山": "mountain",
    "武夷山": "mountain",
    "稻城亚丁": "mountain",
    "长白山": "snow",
    "哈尔滨": "snow",
    "张家界": "karst",
    "桂林": "karst",
    "阳朔": "karst",
    "三亚": "beach",
    "鼓浪屿": "beach",
    "敦煌": "desert",
    "呼伦贝尔": "grassland",
    "大理": "ancient-town",
    "丽江": "ancient-town",
    "凤凰古城": "ancient-town",
    "乌镇": "water-town",
    "婺源": "countryside",
    "香格里拉": "temple",
    "拉萨": "temple",
    "西安": "temple",
    "长城": "great-wall",
    "上海": "city",
    "成都": "city",
    "西双版纳": "forest",
}
# An activity without a cover: the first of its system tags found here picks the illustration.
TAG_THEMES = (
    ("beach", "beach"),
    ("snow", "snow"),
    ("skiing", "snow"),
    ("lake", "lake"),
    ("ancient_town", "ancient-town"),
    ("hiking", "mountain"),
    ("nature", "forest"),
    ("culture", "temple"),
    ("food", "city"),
    ("nightlife", "city"),
    ("shopping", "city"),
)


def theme_file(theme: str) -> str:
    """The static file name of a theme's illustration (`img/covers/lake.svg`)."""
    return f"{COVERS_DIR}/{theme if theme in THEMES else 'default'}.svg"


def theme_for_tags(system_tags) -> str:
    tags = set(system_tags or ())
    return next((theme for tag, theme in TAG_THEMES if tag in tags), "default")


# What a shipped cover may be: a picture file (a stylesheet or a script is no cover).
PICTURE_SUFFIXES = frozenset({".svg", ".png", ".jpg", ".jpeg", ".webp", ".gif", ".avif"})
_absolute_url = URLValidator(schemes=["http", "https"])

NOT_A_COVER = _(
    "Enter an absolute address of a picture (https://…) or a picture shipped with the site, such as "
    "img/covers/lake.svg."
)
NOT_SHIPPED = _(
    "“%(value)s” is not a picture shipped with the site. Enter an absolute address (https://…) or a shipped "
    "picture, such as img/covers/lake.svg."
)


def is_absolute_url(value: str) -> bool:
    """Whether `value` is an absolute http or https URL with a host (what a page may link to as it is)."""
    try:
        _absolute_url(value)
    except ValidationError:
        return False
    return True


def _looks_like_a_path(value: str) -> bool:
    """A relative path inside the static files: no scheme, no leading or backward slash, no `..`, a picture's
    suffix."""
    if not value or ":" in value or "\\" in value or value.startswith("/") or any(c.isspace() for c in value):
        return False
    path = PurePosixPath(value)
    return ".." not in path.parts and path.suffix.lower() in PICTURE_SUFFIXES


@functools.lru_cache(maxsize=512)
def is_shipped_picture(value: str) -> bool:
    """Whether `value` names a picture file shipped with the site (found by the static files finders). Cached: the
    shipped files change only with a deploy."""
    if not _looks_like_a_path(value):
        return False
    try:
        return bool(finders.find(value))
    except Exception:  # a name the finders refuse (SuspiciousFileOperation) is no shipped file
        return False


def validate_cover_url(value: str) -> None:
    """A cover is an absolute http(s) URL or a picture shipped with the site: the admin form and `activity_save`
    (full_clean) refuse anything else with a message saying which."""
    value = str(value or "").strip()
    if not value or is_absolute_url(value) or is_shipped_picture(value):
        return
    if _looks_like_a_path(value):
        raise ValidationError(NOT_SHIPPED, code="cover_not_shipped", params={"value": value})
    raise ValidationError(NOT_A_COVER, code="cover_not_a_url")


def cover_url(activity) -> str:
    """The URL of an activity's cover: its own (an absolute URL, or a shipped picture), else the illustration of its
    kind of place. Never raises: a value that is neither (or a shipped file the deployed static files lack) is
    logged once and costs the card its own picture only."""
    value = str(getattr(activity, "cover_image_url", "") or "").strip()
    if value and is_absolute_url(value):
        return value
    if value and is_shipped_picture(value):
        try:
            return static(value)
        except ValueError:  # not in the deployed manifest (collectstatic ran before the file was added)
            _unusable(value)
    elif value:
        _unusable(value)
    return _illustration(theme_for_tags(getattr(activity, "system_tags", ())))


@functools.lru_cache(maxsize=256)
def _unusable(value: str) -> None:
    """Say once per process which stored cover cannot be shown (staff correct it in the admin)."""
    logger.warning("activity cover is not a picture we can show; using the illustration", extra={"cover": value})


def _illustration(theme: str) -> str:
    try:
        return static(theme_file(theme))
    except ValueError:  # the deployed static files lack even the illustrations: no picture rather than an error
        logger.error("cover illustration missing from the static files", extra={"theme": theme})
        return ""
