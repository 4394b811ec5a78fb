"""Covers that are actually served: `cover_image_url` also takes a shipped static file (img/covers/lake.svg), and the
demo activities whose covers pointed at images.example.com (a host that does not exist) get the illustration of
their destination's kind of place. Other covers are left as they are."""

from django.db import migrations, models

DEAD_HOST = "https://images.example.com/"
# Frozen here (the demo destinations as the seed named them in their titles → their illustration).
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


def _theme(title: str) -> str:
    # The longest destination found in the title (凤凰古城 before a shorter name inside it).
    found = [name for name in DESTINATION_THEMES if name in title]
    return DESTINATION_THEMES[max(found, key=len)] if found else "default"


def local_covers(apps, schema_editor):
    activity = apps.get_model("itinerary", "Activity")
    dead = activity.objects.filter(cover_image_url__startswith=DEAD_HOST).only("pk", "title")
    by_theme: dict[str, list[int]] = {}
    for row in dead.iterator(chunk_size=2000):
        by_theme.setdefault(_theme(row.title), []).append(row.pk)
    for theme, pks in by_theme.items():
        for start in range(0, len(pks), 2000):
            activity.objects.filter(pk__in=pks[start : start + 2000]).update(cover_image_url=f"img/covers/{theme}.svg")


class Migration(migrations.Migration):
    dependencies = [("itinerary", "0002_catalogue_indexes")]

    operations = [
        migrations.AlterField(
            model_name="activity",
            name="cover_image_url",
            field=models.CharField(
                blank=True,
                help_text="https://… for a picture hosted elsewhere, or a shipped file such as img/covers/lake.svg; "
                "blank for the illustration of its kind of place.",
                max_length=300,
            ),
        ),
        migrations.RunPython(local_covers, migrations.RunPython.noop),
    ]
