"""Activity titles and descriptions in Chinese and English (django-modeltranslation, itinerary/translation.py).

The existing `title` / `description` are the Chinese text: they are copied into `title_zh_hans` /
`description_zh_hans` (the English stays empty and falls back to the Chinese until written). modeltranslation
leaves the value of the original columns undetermined from now on, so the keyword index of migration 0002 is
rebuilt over the two title columns: a keyword in either language is narrowed by the bigram GIN index (PostgreSQL
only; on SQLite the index operations do nothing). Backwards: the Chinese text back into the original columns and
the index of 0002 over `title`.
"""

from django.db import migrations, models
from django.db.models import F

ACTIVITY_SEARCH_GRAMS = """
CREATE OR REPLACE FUNCTION tripdesk_activity_search_grams(
  title_zh text, title_en text, city text, province text, tags jsonb
) RETURNS text[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  -- chr(31) (unit separator) between the fields: no keyword bigram spans two fields by accident.
  s text := upper(coalesce(title_zh, '') || chr(31) || coalesce(title_en, '') || chr(31) || coalesce(city, '')
                  || chr(31) || coalesce(province, '') || chr(31) || coalesce(tags::text, ''));
  grams text[] := '{}';
BEGIN
  FOR i IN 1 .. char_length(s) - 1 LOOP
    grams := grams || substr(s, i, 2);
  END LOOP;
  RETURN grams;
END
$$
"""
CREATE_INDEX = """
CREATE INDEX IF NOT EXISTS activity_search_grams ON itinerary_activity
USING gin (tripdesk_activity_search_grams(title_zh_hans, title_en, city, province, tags))
"""
DROP_INDEX = "DROP INDEX IF EXISTS activity_search_grams"
DROP_FUNCTION = "DROP FUNCTION IF EXISTS tripdesk_activity_search_grams(text, text, text, text, jsonb)"
# Migration 0002's function over one title, and its index.
OLD_ACTIVITY_SEARCH_GRAMS = """
CREATE OR REPLACE FUNCTION tripdesk_activity_search_grams(title text, city text, province text, tags jsonb)
RETURNS text[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  s text := upper(coalesce(title, '') || chr(31) || coalesce(city, '') || chr(31) || coalesce(province, '')
                  || chr(31) || coalesce(tags::text, ''));
  grams text[] := '{}';
BEGIN
  FOR i IN 1 .. char_length(s) - 1 LOOP
    grams := grams || substr(s, i, 2);
  END LOOP;
  RETURN grams;
END
$$
"""
OLD_CREATE_INDEX = """
CREATE INDEX IF NOT EXISTS activity_search_grams ON itinerary_activity
USING gin (tripdesk_activity_search_grams(title, city, province, tags))
"""
OLD_DROP_FUNCTION = "DROP FUNCTION IF EXISTS tripdesk_activity_search_grams(text, text, text, jsonb)"


def chinese_text_to_translation_fields(apps, schema_editor):
    activity = apps.get_model("itinerary", "Activity")
    activity.objects.filter(title_zh_hans__isnull=True).update(title_zh_hans=F("title"))
    activity.objects.filter(description_zh_hans__isnull=True).update(description_zh_hans=F("description"))


def chinese_text_to_original_fields(apps, schema_editor):
    activity = apps.get_model("itinerary", "Activity")
    activity.objects.exclude(title_zh_hans__isnull=True).exclude(title_zh_hans="").update(title=F("title_zh_hans"))
    activity.objects.exclude(description_zh_hans__isnull=True).update(description=F("description_zh_hans"))


def index_both_titles(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for statement in (DROP_INDEX, OLD_DROP_FUNCTION, ACTIVITY_SEARCH_GRAMS, CREATE_INDEX):
        schema_editor.execute(statement)


def index_original_title(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for statement in (DROP_INDEX, DROP_FUNCTION, OLD_ACTIVITY_SEARCH_GRAMS, OLD_CREATE_INDEX):
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [
        ("itinerary", "0006_cover_url_validated"),
    ]

    operations = [
        migrations.AddField(
            model_name="activity",
            name="description_en",
            field=models.TextField(blank=True, null=True, verbose_name="description"),
        ),
        migrations.AddField(
            model_name="activity",
            name="description_zh_hans",
            field=models.TextField(blank=True, null=True, verbose_name="description"),
        ),
        migrations.AddField(
            model_name="activity",
            name="title_en",
            field=models.CharField(max_length=200, null=True, verbose_name="title"),
        ),
        migrations.AddField(
            model_name="activity",
            name="title_zh_hans",
            field=models.CharField(max_length=200, null=True, verbose_name="title"),
        ),
        migrations.AlterField(
            model_name="activity",
            name="title",
            field=models.CharField(max_length=200, verbose_name="title"),
        ),
        migrations.AlterField(
            model_name="activity",
            name="description",
            field=models.TextField(blank=True, verbose_name="description"),
        ),
        migrations.RunPython(chinese_text_to_translation_fields, chinese_text_to_original_fields, elidable=False),
        migrations.RunPython(index_both_titles, index_original_title, elidable=False),
    ]
