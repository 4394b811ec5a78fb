"""What the agent may call about the catalogue. Read-only; envelopes carry activity ids and facts from rows."""

import datetime as dt
from typing import Annotated

from django.utils import timezone
from pydantic import Field

from core.envelope import Code, fail, ok
from core.tools import Risk, ToolContext, tool
from itinerary.matching import personalised, viewer_for
from itinerary.selectors import ActivityQuery, activity_popular, activity_search

MAX_RESULTS = 6


def _summaries(activities) -> list[dict]:
    return [
        {
            "id": a.pk,
            "title": a.title,
            "city": a.city,
            "province": a.province,
            "price": str(a.price),
            "start_date": a.start_date.isoformat(),
            "end_date": a.end_date.isoformat(),
        }
        for a in activities
    ]


def _date(value: str | None, name: str) -> dt.date | None:
    if not value:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{name} must be YYYY-MM-DD") from None


@tool(risk=Risk.READ, tags=("activities",))
def search_activities(
    context: ToolContext,
    destination: Annotated[str | None, Field(max_length=40, description="Place or keyword, e.g. 赛里木湖")] = None,
    province: Annotated[str | None, Field(max_length=20, description="Short province name, e.g. 云南")] = None,
    date_start: Annotated[str | None, Field(max_length=10, description="YYYY-MM-DD")] = None,
    date_end: Annotated[str | None, Field(max_length=10, description="YYYY-MM-DD")] = None,
    max_price: Annotated[int | None, Field(ge=1, le=10_000_000)] = None,
) -> dict:
    """Search the published activity catalogue by place, dates (default: the next 30 days) and budget."""
    try:
        start, end = _date(date_start, "date_start"), _date(date_end, "date_end")
    except ValueError as exc:
        return fail(Code.INVALID_PARAM, str(exc))
    if not destination and not province:
        return fail(Code.INVALID_PARAM, "give a destination or a province")
    query = ActivityQuery.build(
        today=context.today or timezone.localdate(),
        keywords=[destination] if destination else [],
        province=province if not destination else None,
        date_start=start,
        date_end=end,
        max_price=max_price,
    )
    today = context.today or timezone.localdate()
    found, _ = personalised(
        activity_search(query), viewer=viewer_for(user=context.user, today=today), limit=MAX_RESULTS
    )
    return ok({"activity_ids": [a.pk for a in found], "activities": _summaries(found)}, f"{len(found)} found")


@tool(risk=Risk.READ, tags=("activities",))
def recommend_activities(
    context: ToolContext,
    date_start: Annotated[str | None, Field(max_length=10, description="YYYY-MM-DD")] = None,
    date_end: Annotated[str | None, Field(max_length=10, description="YYYY-MM-DD")] = None,
) -> dict:
    """The most popular published activities open in the window (default: the next 30 days)."""
    try:
        start, end = _date(date_start, "date_start"), _date(date_end, "date_end")
    except ValueError as exc:
        return fail(Code.INVALID_PARAM, str(exc))
    today = context.today or timezone.localdate()
    popular = activity_popular(today=today, date_start=start, date_end=end)
    found, _ = personalised(popular, viewer=viewer_for(user=context.user, today=today), limit=MAX_RESULTS)
    return ok({"activity_ids": [a.pk for a in found], "activities": _summaries(found)}, f"{len(found)} found")


TOOLS = [search_activities, recommend_activities]
