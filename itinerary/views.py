"""Catalogue pages: the activity detail page that cards link to.

Besides the facts and the cover picture, the page offers what a traveller can do next, as messages to the
assistant (a plain form post to the chat: the same turn as typing them): plan a trip there in the activity's
window, see the weather of those days, see what else there is; and "ask the assistant about this", which opens the
chat with a question drafted for the traveller to finish.
"""

import datetime as dt
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from core.languages import reads_han
from itinerary.models import Activity
from itinerary.services import ActivityError
from itinerary.services import activity_detail as activity_detail_get
from itinerary.words import activity_title, english_place_name

PLAN_DAYS = 3  # the trip the page offers to plan around an activity
WEATHER_DAYS = 3


def _place(activity: Activity) -> str:
    """The activity's city as the page's language names it, plainly (its English name when one is known): the
    messages to the assistant that the page offers carry it."""
    if reads_han():
        return activity.city
    return english_place_name(activity.city) or activity.city


def _day(value: dt.date) -> str:
    return date_format(value, "MONTH_DAY_FORMAT")


def activity_actions(activity: Activity, *, today: dt.date) -> list[dict]:
    """What a traveller can ask next about this activity, each a message the assistant understands (in the
    page's language): plan a trip in its window, the weather of those days, the other activities there."""
    start = max(today, activity.start_date)
    last_weather_day = min(start + dt.timedelta(days=WEATHER_DAYS - 1), max(activity.end_date, start))
    place = _place(activity)
    words = {"place": place, "days": PLAN_DAYS, "start": _day(start), "end": _day(last_weather_day)}
    return [
        {
            "name": "plan",
            "label": _("Plan a %(days)s-day trip around it") % words,
            "message": _("Plan a %(days)s-day trip to %(place)s from %(start)s") % words,
        },
        {
            "name": "weather",
            "label": _("Weather on those days") % words,
            "message": _("Weather in %(place)s from %(start)s to %(end)s") % words,
        },
        {
            "name": "more",
            "label": _("More to do in %(place)s") % words,
            "message": _("Activities in %(place)s") % words,
        },
    ]


def ask_url(activity: Activity) -> str:
    """The chat, with a question about this activity drafted in the box for the traveller to finish and send."""
    draft = _('About "%(title)s" (%(city)s): ') % {
        "title": activity_title(activity, get_language()),
        "city": activity.city,
    }
    return f"{reverse('assistant:chat')}?{urlencode({'ask': draft})}"


@login_required
def activity_detail(request, activity_id: int):
    try:
        activity = activity_detail_get(user=request.user, activity_id=activity_id)
    except ActivityError:
        raise Http404("No such activity") from None
    context = {
        "activity": activity,
        "actions": activity_actions(activity, today=timezone.localdate()),
        "ask_url": ask_url(activity),
    }
    return render(request, "itinerary/activity_detail.html", context)
