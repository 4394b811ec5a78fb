"""Cover pictures of activities: shipped illustrations (static/img/covers/<theme>.svg), one per kind of place.

`Activity.cover_image_url` holds an absolute URL (a picture hosted elsewhere) or the name of a shipped static file
(`img/covers/lake.svg`); `cover_url` turns either into what a page links to. An activity without a cover gets the
illustration of its kind of place, chosen from its system tags, so every card and page has a picture that is
actually served.
"""

from django.templatetags.static import static

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
# The demo catalogue's destinations → their kind of place (demo_data/activities.json uses these).
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


def cover_url(activity) -> str:
    """The URL of an activity's cover: its own (absolute, or a shipped static file), else the illustration of its
    kind of place."""
    value = str(getattr(activity, "cover_image_url", "") or "").strip()
    if value.startswith(("http://", "https://", "/")):
        return value
    return static(value or theme_file(theme_for_tags(getattr(activity, "system_tags", ()))))
