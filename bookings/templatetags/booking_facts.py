"""`{{ booking|facts }}`: what was booked (`bookings.selectors.booking_facts`), for the pages."""

from django import template

from bookings.selectors import booking_facts

register = template.Library()


@register.filter
def facts(booking) -> dict:
    return booking_facts(booking)
