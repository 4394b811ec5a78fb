"""Typed cards: what a reply shows besides its text, built from real rows only.

Each card is a JSON-ready dict with a `type`; the page renders `assistant/partials/card_<type>.html`, the API
returns the dict as it is.
"""

from django.urls import reverse

from itinerary.models import Activity


def activity_card(activity: Activity) -> dict:
    return {
        "type": "activity",
        "id": activity.pk,
        "title": activity.title,
        "city": activity.city,
        "province": activity.province,
        "price": str(activity.price),
        "start_date": activity.start_date.isoformat(),
        "end_date": activity.end_date.isoformat(),
        "tags": list(activity.tags or [])[:5],
        "url": reverse("itinerary:activity-detail", args=[activity.pk]),
        "cover_image_url": activity.cover_image_url,
    }
