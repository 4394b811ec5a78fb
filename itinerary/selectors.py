"""Reads of the activity catalogue."""

import datetime as dt
import operator
from dataclasses import dataclass, field
from decimal import Decimal
from functools import reduce

from django.db import connection
from django.db.models import F, Func, Q, QuerySet, TextField, Value
from django.db.models.lookups import PostgresOperatorLookup

from itinerary.models import Activity
from itinerary.tagging import AUDIENCES, SYSTEM_TAGS

DEFAULT_WINDOW_DAYS = 30

# On PostgreSQL a keyword is first looked up in a GIN index of character bigrams (migrations itinerary 0002, 0007):
# pg_trgm cannot serve 2-character Chinese patterns such as '%大理%', bigrams can. Both SQL functions upper-case
# their text the way ILIKE does, so every row whose titles, city, province or tags contain the keyword holds all
# of its bigrams: the bigram test only narrows the rows; the icontains conditions still decide.
MIN_INDEXED_KEYWORD = 2
# Every way in is bounded here, whatever called: a keyword, city or province is cut to MAX_TERM_CHARS (as the intent
# schema and the tools do; no place name is longer) and at most MAX_KEYWORDS keywords are kept, so a search costs
# at most MAX_KEYWORDS × (MAX_TERM_CHARS - 1) bigrams. Unbounded, a 40,000-character keyword took 8 s (the SQL
# bigram function appends to an array, quadratic in the keyword's length).
MAX_TERM_CHARS = 50
MAX_KEYWORDS = 5


def bounded_term(value: str | None) -> str | None:
    """A search term as the query uses it: without NUL (no PostgreSQL text holds one, so no row matches it) and
    surrounding blanks, at most MAX_TERM_CHARS characters."""
    if not isinstance(value, str):
        return None
    return value.replace("\x00", "").strip()[:MAX_TERM_CHARS].strip() or None


@dataclass(frozen=True)
class ActivityQuery:
    """The conditions of one catalogue search; what was actually used is shown back to the user."""

    keywords: tuple[str, ...] = ()
    province: str | None = None
    city: str | None = None
    date_start: dt.date | None = None
    date_end: dt.date | None = None
    max_price: int | None = None
    exclude_places: tuple[str, ...] = ()  # places the traveller does not want (city, province or title)
    cheapest_first: bool = False
    priciest_first: bool = False  # the dearest first ("贵一点的"); cheapest_first wins when both are set
    interests: tuple[str, ...] = ()  # system tags: an activity has at least one of them ("换成摄影类的")
    avoid_interests: tuple[str, ...] = ()  # system tags it has none of ("不要徒步")
    audience: str | None = None  # who comes along (`itinerary.tagging.AUDIENCES`): what suits them
    defaulted_window: bool = field(default=False, compare=False)

    def __post_init__(self):
        # However the query was made, its terms are bounded (and keywords unique, blanks dropped).
        keywords = dict.fromkeys(k for k in map(bounded_term, self.keywords) if k)
        object.__setattr__(self, "keywords", tuple(keywords)[:MAX_KEYWORDS])
        excluded = dict.fromkeys(k for k in map(bounded_term, self.exclude_places) if k)
        object.__setattr__(self, "exclude_places", tuple(excluded)[:MAX_KEYWORDS])
        object.__setattr__(self, "province", bounded_term(self.province))
        object.__setattr__(self, "city", bounded_term(self.city))
        object.__setattr__(self, "interests", tuple(t for t in dict.fromkeys(self.interests) if t in SYSTEM_TAGS))
        avoided = tuple(t for t in dict.fromkeys(self.avoid_interests) if t in SYSTEM_TAGS and t not in self.interests)
        object.__setattr__(self, "avoid_interests", avoided)
        object.__setattr__(self, "audience", self.audience if self.audience in AUDIENCES else None)

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
        exclude_places: list[str] | tuple[str, ...] = (),
        cheapest_first: bool = False,
        priciest_first: bool = False,
        interests: list[str] | tuple[str, ...] = (),
        avoid_interests: list[str] | tuple[str, ...] = (),
        audience: str | None = None,
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
            keywords=tuple(keywords),
            province=province,
            city=city,
            date_start=date_start,
            date_end=date_end,
            max_price=max_price,
            exclude_places=tuple(exclude_places),
            cheapest_first=cheapest_first,
            priciest_first=priciest_first and not cheapest_first,
            interests=tuple(interests),
            avoid_interests=tuple(avoid_interests),
            audience=audience,
            defaulted_window=defaulted,
        )


# The catalogue's orders spelled as the indexes activity_popular / activity_cheapest are (itinerary.models): only a
# read that needs no count uses them.
WALKED_POPULAR = (F("popularity").desc(nulls_last=True), F("price"), F("id"))
WALKED_CHEAPEST = (F("price").asc(nulls_first=True), F("popularity").desc(nulls_last=True), F("id"))


def activity_search(query: ActivityQuery, *, counted: bool = True) -> QuerySet[Activity]:
    """Published activities matching every condition: a keyword (the Chinese or English title, city, province or
    tag), the place, a window that overlaps the dates, a price within the budget, none of the excluded places (as
    city, province or in a title). Most popular first, then cheapest; or cheapest first when asked. `counted=False`: the caller
    reads only the first rows and no count (a recommendation): the same order, spelled so PostgreSQL walks an index
    in that order and stops early."""
    qs = Activity.objects.filter(is_published=True)
    if query.keywords:
        match = Q()
        for word in query.keywords:
            match |= _title_contains(word) | Q(city__icontains=word) | Q(province__icontains=word)
            match |= Q(tags__icontains=word)
        qs = _narrowed(qs.filter(match), query.keywords)
    if query.province:
        qs = qs.filter(province=query.province)
    if query.city:
        qs = _narrowed(qs.filter(Q(city=query.city) | _title_contains(query.city)), [query.city])
    if query.date_start and query.date_end:
        qs = qs.filter(start_date__lte=query.date_end, end_date__gte=query.date_start)
    if query.max_price is not None:
        qs = qs.filter(price__lte=Decimal(query.max_price))
    for place in query.exclude_places:
        qs = qs.exclude(Q(city__icontains=place) | Q(province__icontains=place) | _title_contains(place))
    qs = _of_kinds(qs, query)
    if query.priciest_first:
        return qs.order_by("-price", "-popularity", "id")
    if not counted:
        return qs.order_by(*(WALKED_CHEAPEST if query.cheapest_first else WALKED_POPULAR))
    if query.cheapest_first:
        return qs.order_by("price", "-popularity", "id")
    return qs.order_by("-popularity", "price", "id")


def _title_contains(word: str) -> Q:
    """An activity whose Chinese or English title contains `word`. The fields are named: modeltranslation would
    read `title__icontains` in the active language only, and a search must not depend on who asks."""
    return Q(title_zh_hans__icontains=word) | Q(title_en__icontains=word)


def _has_tag(tag: str) -> Q:
    """An activity whose system tags hold `tag` (a list of fixed words: its JSON text holds the quoted word, on
    SQLite and PostgreSQL alike)."""
    return Q(system_tags__icontains=f'"{tag}"')


def _of_kinds(qs: QuerySet[Activity], query: ActivityQuery) -> QuerySet[Activity]:
    """The kinds of activity asked (one of the interests), none of those avoided, and what suits who comes along
    (`itinerary.tagging.AUDIENCES`: its kinds and an age the activity admits)."""
    wanted, avoided = list(query.interests), list(query.avoid_interests)
    suits = AUDIENCES.get(query.audience or "")
    if suits is not None:
        avoided += [tag for tag in suits.avoids if tag not in wanted]
        if suits.wants_one_of:
            qs = qs.filter(reduce(operator.or_, map(_has_tag, suits.wants_one_of)))
        if suits.age is not None:
            qs = qs.filter(Q(min_age__isnull=True) | Q(min_age__lte=suits.age))
            qs = qs.filter(Q(max_age__isnull=True) | Q(max_age__gte=suits.age))
    if wanted:
        qs = qs.filter(reduce(operator.or_, map(_has_tag, wanted)))
    for tag in dict.fromkeys(avoided):
        qs = qs.exclude(_has_tag(tag))
    return qs


class _BigramsContain(PostgresOperatorLookup):
    lookup_name = "bigrams_contain"
    postgres_operator = "@>"


def _narrowed(rows: QuerySet[Activity], words) -> QuerySet[Activity]:
    """`rows` (already filtered by substring matches of `words`, any of them) also filtered, on PostgreSQL, by the
    bigram test those matches imply, which the GIN index answers: the same rows, found without reading the whole
    table. The test is one condition beside the matches, not repeated inside each: a bitmap scan of the index then
    needs no per-row recheck of it (computing a row's bigrams again took half of a two-keyword search's time). A
    word too short for the index leaves the rows as they are (no index could narrow that OR)."""
    if connection.vendor != "postgresql" or any(len(word) < MIN_INDEXED_KEYWORD for word in words):
        return rows
    row_bigrams = Func(
        F("title_zh_hans"),
        F("title_en"),
        F("city"),
        F("province"),
        F("tags"),
        function="tripdesk_activity_search_grams",
        output_field=TextField(),
    )
    test = Q()
    for word in words:
        word_bigrams = Func(Value(word), function="tripdesk_search_bigrams", output_field=TextField())
        test |= Q(_BigramsContain(row_bigrams, word_bigrams))
    return rows.filter(test)


def activity_get_published(activity_id: int) -> Activity | None:
    return Activity.objects.filter(pk=activity_id, is_published=True).first()


def catalogue_place_names() -> list[str]:
    """Every city and province the published catalogue names: places the understanding engine must know."""
    rows = Activity.objects.filter(is_published=True).values_list("city", "province").distinct()
    return sorted({name for row in rows for name in row if name})
