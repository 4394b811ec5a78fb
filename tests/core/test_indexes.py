"""An index in an ORDER BY's order is created on every database, NULLS placement spelled where it can be indexed."""

import pytest
from django.db import connection
from django.db.models import F

from core.indexes import OrderedIndex
from itinerary.models import Activity


def _create_sql(index: OrderedIndex) -> str:
    editor = connection.SchemaEditorClass(connection, collect_sql=True)  # only renders SQL: nothing is executed
    return str(index.create_sql(Activity, editor))


@pytest.mark.django_db
def test_the_popularity_order_index_is_created_in_its_order_on_this_database():
    index = next(i for i in Activity._meta.indexes if i.name == "activity_popular")

    sql = _create_sql(index)

    assert '"popularity" DESC' in sql and 'WHERE "is_published"' in sql
    if connection.vendor == "postgresql":
        assert '"popularity" DESC NULLS LAST' in sql  # what the recommendation's ORDER BY spells
    else:
        assert "NULLS" not in sql  # SQLite refuses it in CREATE INDEX; its own rule puts NULL last when descending


@pytest.mark.django_db
def test_both_order_indexes_exist_after_migrating():
    with connection.cursor() as cursor:
        names = {
            name
            for name, info in connection.introspection.get_constraints(cursor, Activity._meta.db_table).items()
            if info["index"]
        }

    assert {"activity_popular", "activity_cheapest"} <= names


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor == "postgresql", reason="PostgreSQL indexes any NULLS placement")
def test_a_placement_the_database_cannot_index_is_refused_with_a_clear_error():
    nulls_first_descending = OrderedIndex(F("popularity").desc(nulls_first=True), name="popular_nulls_first")

    with pytest.raises(ValueError, match="only be indexed on PostgreSQL"):
        _create_sql(nulls_first_descending)
