"""`{{ booking|facts }}`: what was booked (`bookings.selectors.booking_facts`), for the pages; `{{ f|names:biz_type }}`:
its airline or hotel, route, city and seat in the page's language (`bookings.vocabulary.names_shown`)."""

from django import template
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from bookings.selectors import booking_facts
from bookings.vocabulary import names_shown

register = template.Library()


@register.filter
def facts(booking) -> dict:
    return booking_facts(booking)


@register.filter
def names(facts, biz_type) -> dict:
    return names_shown(facts or {}, str(biz_type or ""))


@register.filter
def time_left(deadline) -> str:
    """`{{ booking.pay_deadline|time_left }}`: "29:59", the minutes and seconds left to pay, as the page's countdown
    (static/js/tripdesk.js) then says each second, so the first paint already shows it; "" once the time is up."""
    if isinstance(deadline, str):
        deadline = parse_datetime(deadline) if deadline else None
    if deadline is None:
        return ""
    left = int((deadline - timezone.now()).total_seconds())
    if left <= 0:
        return ""
    return f"{left // 60}:{left % 60:02d}"
