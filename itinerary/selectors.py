"""Reads of the activity catalogue."""

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Q, QuerySet

from itinerary.models import Activity

DEFAULT_WINDOW_DAYS = 30


@dataclass(frozen=True)
class ActivityQuery:
    """The conditions of one catalogue search; what was actually used is shown back to the user."""

    keywords: tuple[str, ...] = ()
    province: str | None = None
    city: str | None = None
    date_start: dt.date | None = None
    date_end: dt.date | None = None
    max_price: int | None = None
    defaulted_window: bool = field(default=False, compare=False)

    @classmethod
    def build(
        cls,
        *,
        today: dt.date,
        keywords: list[str] | tuple[str, ...] = (),
        province: str | None = None,
        city: str | None = None,
        date_start: dt.date | None = None,
        date_end: dt.date | None = None,
        max_price: int | None = None,
    ) -> "ActivityQuery":
        """Fill the date window: a single day stays a day; no dates → the next 30 days."""
        defaulted = False
        if date_start is None and date_end is None:
            date_start, date_end, defaulted = today, today + dt.timedelta(days=DEFAULT_WINDOW_DAYS), True
        elif date_start is None:
            date_start = min(today, date_end)
        elif date_end is None:
            date_end = date_start
        if date_end < date_start:
            date_start, date_end = date_end, date_start
        return cls(
            keywords=tuple(dict.fromkeys(k for k in keywords if k)),
            province=province or None,
            city=city or None,
            date_start=date_start,
            date_end=date_end,
            max_price=max_price,
            defaulted_window=defaulted,
        )


def activity_search(query: ActivityQuery) -> QuerySet[Activity]:
    """Published activities matching every condition: a keyword (title, city, province or tag), the place,
    a window that overlaps the dates, and a price within the budget. Most popular first, then cheapest."""
    qs = Activity.objects.filter(is_published=True)
    if query.keywords:
        match = Q()
        for word in query.keywords:
            match |= (
                Q(title__icontains=word)
                | Q(city__icontains=word)
                | Q(province__icontains=word)
                | Q(tags__icontains=word)
            )
        qs = qs.filter(match)
    if query.province:
        qs = qs.filter(province=query.province)
    if query.city:
        qs = qs.filter(Q(city=query.city) | Q(title__icontains=query.city))
    if query.date_start and query.date_end:
        qs = qs.filter(start_date__lte=query.date_end, end_date__gte=query.date_start)
    if query.max_price is not None:
        qs = qs.filter(price__lte=Decimal(query.max_price))
    return qs.order_by("-popularity", "price", "id")


def activity_popular(*, today: dt.date, date_start: dt.date | None = None, date_end: dt.date | None = None):
    """Popular published activities still available in the window (default: the next 30 days)."""
    query = ActivityQuery.build(today=today, date_start=date_start, date_end=date_end)
    return activity_search(query)


def activity_get_published(activity_id: int) -> Activity | None:
    return Activity.objects.filter(pk=activity_id, is_published=True).first()


def catalogue_place_names() -> list[str]:
    """Every city and province the published catalogue names: places the understanding engine must know."""
    rows = Activity.objects.filter(is_published=True).values_list("city", "province").distinct()
    return sorted({name for row in rows for name in row if name})
