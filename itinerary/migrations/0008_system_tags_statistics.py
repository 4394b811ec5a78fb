"""Planner statistics for the system-tag filter (PostgreSQL only; on SQLite nothing happens).

A search by kind filters `UPPER(system_tags::text) LIKE '%"NATURE"%'` (itinerary.selectors._has_tag). Without
statistics on that expression PostgreSQL guesses a fixed, tiny share of rows for a LIKE with a leading wildcard, so
it gathers the whole date window through a bitmap scan and sorts it (55 ms over 100,000 activities) rather than
walk the popularity index until six match (0.15 ms). Statistics on the expression (PostgreSQL 14+) let it weigh the
pattern against the sampled values; ANALYZE fills them now, autovacuum afterwards.
"""

from django.db import migrations

CREATE = (
    "CREATE STATISTICS IF NOT EXISTS activity_system_tags_text ON (upper(system_tags::text)) FROM itinerary_activity"
)
DROP = "DROP STATISTICS IF EXISTS activity_system_tags_text"


def create_statistics(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(CREATE)
    schema_editor.execute("ANALYZE itinerary_activity")


def drop_statistics(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(DROP)


class Migration(migrations.Migration):
    dependencies = [
        ("itinerary", "0007_activity_text_in_both_languages"),
    ]

    operations = [
        migrations.RunPython(create_statistics, drop_statistics, elidable=False),
    ]
