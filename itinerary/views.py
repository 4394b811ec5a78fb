"""Catalogue pages: the activity detail page that cards link to."""

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render

from itinerary.selectors import activity_get_published


@login_required
def activity_detail(request, activity_id: int):
    activity = activity_get_published(activity_id)
    if activity is None:
        raise Http404("No such activity")
    return render(request, "itinerary/activity_detail.html", {"activity": activity})
