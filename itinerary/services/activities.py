"""Activity search, recommendation and detail: the catalogue use cases of both chat channels.

Each takes the authenticated user (their interest profile personalises the order and their known facts filter what
they may join, see `itinerary.matching`) and returns the rows shown with the query as it was actually run, so the
reply can say which conditions were used.
"""

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field

from core.envelope import Code
from core.errors import ApplicationError
from itinerary.matching import Viewer, interest_reason, personalised, viewer_for
from itinerary.models import Activity
from itinerary.selectors import ActivityQuery, activity_get_published, activity_search

DEFAULT_LIMIT = 6


class ActivityError(ApplicationError):
    """A catalogue request the code refuses (no place to search, an activity that is not published)."""


@dataclass(frozen=True)
class ActivityKinds:
    """What kind of activity a search or a plan asks for beyond place, dates and budget: system tags wanted (any of
    them) and avoided, who comes along (`itinerary.tagging.AUDIENCES`), the dearest first."""

    interests: tuple[str, ...] = ()
    avoid_interests: tuple[str, ...] = ()
    audience: str | None = None
    priciest_first: bool = False

    def query_arguments(self) -> dict:
        return {
            "interests": self.interests,
            "avoid_interests": self.avoid_interests,
            "audience": self.audience,
            "priciest_first": self.priciest_first,
        }


@dataclass(frozen=True)
class ActivitySearchResult:
    """The activities to show (personalised), how many the traveller may join in all, and the query as run."""

    activities: list[Activity]
    total: int
    query: ActivityQuery
    place: str  # the place as the reply names it: the keywords, else the city, else the province
    province: str | None = None  # the province as asked (a wider place to suggest when nothing is found)
    city: str | None = None  # the city as asked
    reasons: dict[int, str] = field(default_factory=dict)  # activity id → the interest it was suggested for

    @property
    def shown(self) -> int:
        return len(self.activities)


@dataclass(frozen=True)
class ActivityRecommendation:
    activities: list[Activity]
    query: ActivityQuery
    asked_dates: bool  # the traveller named the dates (else: the next 30 days)
    reasons: dict[int, str] = field(default_factory=dict)  # activity id → the interest it was suggested for


def place_label(*, keywords: Sequence[str] = (), city: str | None = None, province: str | None = None) -> str:
    return "、".join(k for k in keywords if k) or city or province or ""


def activity_search_for(
    *,
    user,
    today: dt.date,
    keywords: Sequence[str] | None = None,
    province: str | None = None,
    city: str | None = None,
    date_start: dt.date | None = None,
    date_end: dt.date | None = None,
    max_price: int | None = None,
    exclude_places: Sequence[str] | None = None,
    cheapest_first: bool = False,
    kinds: ActivityKinds | None = None,
    limit: int = DEFAULT_LIMIT,
) -> ActivitySearchResult:
    """Published activities of a place (keywords match title, city, province or tags; without keywords the city or
    the province), none of the excluded places, overlapping the dates (default: the next 30 days), within the
    budget, of the kinds asked (`kinds`: interests, kinds avoided, who comes along, the dearest first), that `user`
    may join; their interests first, or the cheapest first when asked. Places excluded alone
    ("不想去三亚") search everywhere else. Raises ActivityError (INVALID_PARAM) without any place or exclusion."""
    keywords = [k for k in (keywords or []) if k]
    excluded = [p for p in (exclude_places or []) if p]
    # A place the traveller excluded is never searched for, however it came back into the slots.
    keywords = [k for k in keywords if k not in excluded]
    province = None if province in excluded else province
    city = None if city in excluded else city
    if not (keywords or province or city or excluded):
        raise ActivityError(Code.INVALID_PARAM, "give a place: keywords, a city or a province")
    query = ActivityQuery.build(
        today=today,
        keywords=keywords,
        # A keyword names the place precisely; the province or city beside it would only hide matches.
        province=province if not keywords else None,
        city=city if not keywords else None,
        date_start=date_start,
        date_end=date_end,
        max_price=max_price,
        exclude_places=excluded,
        cheapest_first=cheapest_first,
        **(kinds or ActivityKinds()).query_arguments(),
    )
    shown, total, viewer = _shown(query, user=user, today=today, limit=limit)
    return ActivitySearchResult(
        activities=shown,
        total=total,
        query=query,
        place=place_label(keywords=keywords, city=city, province=province),
        province=province or None,
        city=city or None,
        reasons=_reasons(shown, viewer),
    )


def activity_recommend(
    *,
    user,
    today: dt.date,
    date_start: dt.date | None = None,
    date_end: dt.date | None = None,
    exclude_places: Sequence[str] | None = None,
    cheapest_first: bool = False,
    max_price: int | None = None,
    kinds: ActivityKinds | None = None,
    limit: int = DEFAULT_LIMIT,
) -> ActivityRecommendation:
    """The most popular published activities open in the window (default: the next 30 days) that `user` may join,
    none of the excluded places; their interests first, or the cheapest first when asked."""
    query = ActivityQuery.build(
        today=today,
        date_start=date_start,
        date_end=date_end,
        exclude_places=[p for p in (exclude_places or []) if p],
        cheapest_first=cheapest_first,
        max_price=max_price,
        **(kinds or ActivityKinds()).query_arguments(),
    )
    shown, _, viewer = _shown(query, user=user, today=today, limit=limit, count=False)
    return ActivityRecommendation(
        activities=shown, query=query, asked_dates=date_start is not None, reasons=_reasons(shown, viewer)
    )


def _shown(
    query: ActivityQuery, *, user, today: dt.date, limit: int, count: bool = True
) -> tuple[list[Activity], int | None, Viewer]:
    """The activities to show, how many the traveller may join (None without `count`), and who was looking: their
    interests first among the catalogue's most popular, or (cheapest first) the cheapest ones in price order."""
    viewer = viewer_for(user=user, today=today)
    found = activity_search(query, counted=count)
    if query.priciest_first:  # in price order, the dearest first: no re-ranking by interests
        shown = list(found[:limit])
        return shown, (found.count() if count else None), viewer
    if not query.cheapest_first:
        shown, total = personalised(found, viewer=viewer, limit=limit, count=count)
        return shown, total, viewer
    shown, total = personalised(found, viewer=viewer, limit=limit, window=limit, count=count)
    return sorted(shown, key=lambda a: (a.price, a.pk)), total, viewer


def _reasons(shown: list[Activity], viewer: Viewer) -> dict[int, str]:
    """Why each activity shown was suggested to this traveller, where their interests tell (none for anyone else)."""
    found = {activity.pk: interest_reason(activity, viewer) for activity in shown}
    return {pk: tag for pk, tag in found.items() if tag}


def activity_detail(*, user, activity_id: int) -> Activity:
    """One published activity, the same for every traveller (eligibility is checked when someone signs up).
    Raises ActivityError (NOT_FOUND) for an unknown or unpublished id."""
    activity = activity_get_published(activity_id)
    if activity is None:
        raise ActivityError(Code.NOT_FOUND, f"no published activity {activity_id}", {"activity_id": activity_id})
    return activity
