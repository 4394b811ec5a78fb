"""The catalogue's Chinese words in the page's language: `{{ tag|tag_label }}`, `{{ city|place_label }}`
("Altay (阿勒泰)" on an English page, 阿勒泰 on a Chinese one), `{{ city|place_name }}` (Altay alone, in a title),
`{{ activity|activity_title }}`. The words live in `itinerary.words`."""

from django import template
from django.utils.translation import get_language

from itinerary import words

register = template.Library()


@register.filter
def tag_label(word: str) -> str:
    return words.tag_label(word)


@register.filter
def place_name(place: str) -> str:
    return words.place_name(str(place or ""), get_language())


@register.filter
def place_label(place: str) -> str:
    return words.place_label(str(place or ""), get_language())


@register.filter
def activity_title(activity) -> str:
    """`{{ activity|activity_title }}`: its title in the page's language (`itinerary.words.activity_title`)."""
    return words.activity_title(activity, get_language())


@register.filter
def activity_description(activity) -> str:
    return words.activity_description(activity, get_language())
