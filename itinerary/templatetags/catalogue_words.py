"""The catalogue's Chinese words in the page's language: `{{ tag|tag_label }}`, `{{ city|place_label }}`
("Altay (阿勒泰)" on an English page, 阿勒泰 on a Chinese one), `{{ city|place_name }}` (Altay alone, in a title). The words live in `itinerary.words`."""

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
