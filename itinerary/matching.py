"""Matching: who may join an activity (hard filters) and what a traveller likes first (re-ranking).

Between the catalogue query and the reply:

    viewer = viewer_for(user=request.user, today=today)          # one query: the interest profile
    shown, total = personalised(activity_search(query), viewer=viewer, limit=6)

**Hard filters** use only facts the traveller gave (`InterestProfile.birth_date`, `gender`):
- an activity for ages 18–25 is hidden from someone who is 41 (or 17); one for women only from a man;
- a fact that is unknown filters nothing: an anonymous visitor, or someone who never gave a birth date, still
  sees the age-restricted activities. A search is discovery, not enrolment: hiding every restricted activity
  from everyone we know nothing about would make the catalogue look emptier than it is, and eligibility is
  checked again where it matters, when someone actually signs up. Known facts are never overridden.

The filters run in the database (`eligible`), so counts stay exact; `is_eligible` is the same rule in Python.

**Re-ranking** scores an activity by the sum of the profile's scores for its `system_tags` and sorts by that
score, highest first; the sort is stable, so ties keep the catalogue's order (popularity, price, id). Only the
first `window` rows of the catalogue order are re-ranked: a much less popular activity does not jump over the
whole catalogue. With no profile, or a profile without scores, the order is exactly the unpersonalised one.

**The reason** a card gives ("为什么推给你：你常选徒步") is `interest_reason`: the traveller's strongest interest
among the activity's system tags, from the same profile scores, said only when it is a clear one.
"""

import contextlib
import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from django.core.cache import cache
from django.db.models import Count, Q, QuerySet, Window

from itinerary.models import Activity, GenderRestriction, InterestProfile

# How many rows of the catalogue order are read and re-ranked to fill one reply.
RERANK_WINDOW = 50

A = TypeVar("A", bound=Activity)


@dataclass(frozen=True)
class Viewer:
    """What matching knows about the person looking: their age and gender if given, and their interest scores."""

    age: int | None = None
    gender: str | None = None  # "FEMALE" | "MALE" | None (not given)
    scores: Mapping[str, float] = field(default_factory=dict)

    @property
    def is_anonymous(self) -> bool:
        return self.age is None and self.gender is None and not self.scores


ANONYMOUS = Viewer()


def age_on(birth_date: dt.date, today: dt.date) -> int:
    """Whole years between a birth date and today (a birthday counts from its day)."""
    return today.year - birth_date.year - ((today.month, today.day) < (birth_date.month, birth_date.day))


def viewer_from_profile(profile: InterestProfile | None, *, today: dt.date) -> Viewer:
    """The viewer of a profile (None → anonymous). Scores that are not numbers are ignored."""
    if profile is None:
        return ANONYMOUS
    scores = {
        str(tag): float(value)
        for tag, value in (profile.scores or {}).items()
        if isinstance(value, int | float) and not isinstance(value, bool)
    }
    age = age_on(profile.birth_date, today) if profile.birth_date else None
    gender = profile.gender if profile.gender in (GenderRestriction.FEMALE, GenderRestriction.MALE) else None
    return Viewer(age=age, gender=gender, scores=scores)


# A user's profile facts are kept in the cache between their searches (a search then reads only the catalogue);
# saving or deleting a profile drops them (`profile_forget`, on the model's signals). A write that skips the signals
# (a bulk seed) is seen after this long at most.
PROFILE_CACHE_SECONDS = 600
NO_PROFILE = "none"


def _profile_key(user_id: int) -> str:
    return f"itinerary:profile:{user_id}"


def viewer_for(*, user, today: dt.date) -> Viewer:
    """The viewer of a user: their interest profile, from the cache or one query; anonymous (or no profile) →
    `ANONYMOUS`. The cache being down only costs the query."""
    if user is None or not getattr(user, "is_authenticated", False) or user.pk is None:
        return ANONYMOUS
    key = _profile_key(user.pk)
    try:
        kept = cache.get(key)
    except Exception:
        kept = None
    if kept is None:
        profile = InterestProfile.objects.filter(user_id=user.pk).only("scores", "birth_date", "gender").first()
        kept = NO_PROFILE if profile is None else (profile.scores, profile.birth_date, profile.gender)
        with contextlib.suppress(Exception):
            cache.set(key, kept, timeout=PROFILE_CACHE_SECONDS)
    if kept == NO_PROFILE:
        return ANONYMOUS
    scores, birth_date, gender = kept
    return viewer_from_profile(InterestProfile(scores=scores, birth_date=birth_date, gender=gender), today=today)


def profile_forget(user_id: int) -> None:
    """Drop the cached profile facts of a user (their profile was saved or deleted)."""
    with contextlib.suppress(Exception):
        cache.delete(_profile_key(user_id))


# --- hard filters --------------------------------------------------------------------------------------------------


def eligibility_q(viewer: Viewer) -> Q:
    """The hard filters as a condition on Activity; empty (everything) when no fact is known."""
    condition = Q()
    if viewer.age is not None:
        condition &= Q(min_age__isnull=True) | Q(min_age__lte=viewer.age)
        condition &= Q(max_age__isnull=True) | Q(max_age__gte=viewer.age)
    if viewer.gender is not None:
        condition &= Q(gender_restriction__in=[GenderRestriction.NONE, viewer.gender])
    return condition


def eligible(activities: QuerySet[A], *, viewer: Viewer) -> QuerySet[A]:
    """The activities the viewer may join, as far as their known facts tell; the order is kept."""
    condition = eligibility_q(viewer)
    return activities.filter(condition) if condition else activities


def is_eligible(activity: Activity, viewer: Viewer) -> bool:
    """The rule of `eligibility_q` for one activity in memory."""
    if viewer.age is not None:
        if activity.min_age is not None and viewer.age < activity.min_age:
            return False
        if activity.max_age is not None and viewer.age > activity.max_age:
            return False
    return viewer.gender is None or activity.gender_restriction in (GenderRestriction.NONE, viewer.gender)


# --- re-ranking ----------------------------------------------------------------------------------------------------


def interest_score(activity: Activity, viewer: Viewer) -> float:
    """The sum of the viewer's scores for the activity's system tags (each tag counted once)."""
    if not viewer.scores:
        return 0.0
    return sum(viewer.scores.get(tag, 0.0) for tag in dict.fromkeys(activity.system_tags or []))


# An interest is said as the reason an activity was suggested from this profile score up (scores are 0..1).
REASON_MIN_SCORE = 0.5


def interest_reason(activity: Activity, viewer: Viewer) -> str | None:
    """Why the activity was suggested to this viewer, as the system tag behind it: their highest-scored interest
    among its tags when that interest is a clear one (REASON_MIN_SCORE and up), else None (nothing personal)."""
    scored = [(viewer.scores.get(tag, 0.0), tag) for tag in dict.fromkeys(activity.system_tags or [])]
    best = max(scored, default=(0.0, None), key=lambda pair: pair[0])
    return best[1] if best[0] >= REASON_MIN_SCORE else None


def reranked(activities: Iterable[A], viewer: Viewer) -> list[A]:
    """Highest interest first; ties (and a viewer without scores) keep the given order."""
    items = list(activities)
    if not viewer.scores:
        return items
    return sorted(items, key=lambda activity: -interest_score(activity, viewer))  # sorted() is stable


def personalised(
    activities: QuerySet[A], *, viewer: Viewer, limit: int, window: int = RERANK_WINDOW, count: bool = True
) -> tuple[list[A], int | None]:
    """(the `limit` activities to show, how many the viewer may join in all).

    One query: the first `window` eligible rows in the catalogue's order, each carrying the count of every eligible
    row (`COUNT(*) OVER ()`, computed by the same scan that finds them). Without `count` (a recommendation, which
    says no total) the count is left out, so an index in the catalogue's order lets the database stop after
    `window` rows instead of reading the whole date window; the total is then None.
    """
    allowed = eligible(activities, viewer=viewer)
    # Without interest scores the order is the catalogue's: the first `limit` rows are the ones shown.
    window = max(window, limit) if viewer.scores else limit
    if not count:
        return reranked(allowed[:window], viewer)[:limit], None
    head = list(allowed.annotate(eligible_total=Window(Count("pk")))[:window])
    total = head[0].eligible_total if head else 0
    return reranked(head, viewer)[:limit], total
