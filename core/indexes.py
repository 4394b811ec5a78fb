"""Indexes whose SQL each database can create."""

from django.db import models
from django.db.models.expressions import OrderBy


class OrderedIndex(models.Index):
    """An index in the order of one ORDER BY, NULLS placement included.

    PostgreSQL indexes `NULLS FIRST` / `NULLS LAST` and uses the index only for an ORDER BY that spells the same
    placement. SQLite orders by them but refuses them in CREATE INDEX; there the placement is left to its own rule
    (NULL sorts first ascending, last descending), so each expression must spell exactly that rule: the index then
    orders rows the same way on both. The migration and `Meta.indexes` stay one description for every database.
    """

    def create_sql(self, model, schema_editor, using="", **kwargs):
        if schema_editor.connection.vendor == "postgresql":
            return super().create_sql(model, schema_editor, using=using, **kwargs)
        plain = self.clone()
        plain.expressions = tuple(_database_nulls(expression) for expression in self.expressions)
        return models.Index.create_sql(plain, model, schema_editor, using=using, **kwargs)


def _database_nulls(expression):
    if not isinstance(expression, OrderBy) or not (expression.nulls_first or expression.nulls_last):
        return expression
    # SQLite's own placement: first when ascending, last when descending. Anything else cannot be indexed there.
    if bool(expression.nulls_last) != expression.descending:
        raise ValueError(f"{expression!r}: this NULLS placement can only be indexed on PostgreSQL")
    return OrderBy(expression.expression, descending=expression.descending)
