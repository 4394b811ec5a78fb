"""Catalogue pages: the activity detail page that cards link to."""

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render

from itinerary.services import ActivityError
from itinerary.services import activity_detail as activity_detail_get


@login_required
def activity_detail(request, activity_id: int):
    try:
        activity = activity_detail_get(user=request.user, activity_id=activity_id)
    except ActivityError:
        raise Http404("No such activity") from None
    return render(request, "itinerary/activity_detail.html", {"activity": activity})
