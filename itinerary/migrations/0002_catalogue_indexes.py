"""Indexes for the catalogue query at 100k+ activities (`itinerary.selectors.activity_search`).

B-tree (every database): the availability window of published activities, and province + window + budget.

PostgreSQL only: a GIN index of the character bigrams of UPPER(title, city, province, tags) for keyword search.
`title ILIKE '%大理%'` cannot use a B-tree, and pg_trgm cannot use a trigram index for a 2-character pattern (no
trigram can be taken from it: the planner falls back to reading the whole table), while most Chinese place names
have two characters. Every 2+-character keyword has bigrams, and a row whose text contains the keyword holds all of
them, so `bigrams(row) @> bigrams(keyword)` selects a small superset from the index and the ILIKE conditions decide,
unchanged (see `itinerary.selectors._narrowed`). Both functions are IMMUTABLE and use only built-ins, so the index
survives a dump and restore. On SQLite the operation does nothing: the query there runs without it.
"""

from django.db import migrations, models

SEARCH_BIGRAMS = """
CREATE OR REPLACE FUNCTION tripdesk_search_bigrams(value text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  s text := upper(value);
  grams text[] := '{}';
BEGIN
  FOR i IN 1 .. char_length(s) - 1 LOOP
    grams := grams || substr(s, i, 2);
  END LOOP;
  RETURN grams;
END
$$
"""
ACTIVITY_SEARCH_GRAMS = """
CREATE OR REPLACE FUNCTION tripdesk_activity_search_grams(title text, city text, province text, tags jsonb)
RETURNS text[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  -- chr(31) (unit separator) between the fields: no keyword bigram spans two fields by accident.
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
CREATE_INDEX = """
CREATE INDEX IF NOT EXISTS activity_search_grams ON itinerary_activity
USING gin (tripdesk_activity_search_grams(title, city, province, tags))
"""
DROP_ALL = (
    "DROP INDEX IF EXISTS activity_search_grams",
    "DROP FUNCTION IF EXISTS tripdesk_activity_search_grams(text, text, text, jsonb)",
    "DROP FUNCTION IF EXISTS tripdesk_search_bigrams(text)",
)


def create_bigram_index(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for statement in (SEARCH_BIGRAMS, ACTIVITY_SEARCH_GRAMS, CREATE_INDEX):
        schema_editor.execute(statement)


def drop_bigram_index(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for statement in DROP_ALL:
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [
        ("itinerary", "0001_initial"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="activity",
            name="activity_published_start",
        ),
        migrations.RemoveIndex(
            model_name="activity",
            name="activity_published_price",
        ),
        migrations.AddIndex(
            model_name="activity",
            index=models.Index(
                condition=models.Q(("is_published", True)),
                fields=["start_date", "end_date"],
                name="activity_published_window",
            ),
        ),
        migrations.AddIndex(
            model_name="activity",
            index=models.Index(
                condition=models.Q(("is_published", True)),
                fields=["province", "start_date", "end_date", "price"],
                name="activity_province_window",
            ),
        ),
        migrations.RunPython(create_bigram_index, drop_bigram_index, elidable=False),
    ]
