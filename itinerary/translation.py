"""The catalogue's text in every language of settings.LANGUAGES (django-modeltranslation).

`title_zh_hans` / `description_zh_hans` hold the catalogue's own Chinese text, `title_en` / `description_en` the
English; a blank English falls back to the Chinese. modeltranslation reads `activity.title` and rewrites
`title__…` lookups in the active language, so code that must not depend on it names the fields itself: see
`itinerary.words.activity_title` (what a reader sees) and `itinerary.selectors.activity_search` (both languages).
"""

from modeltranslation import settings as mt_settings
from modeltranslation.translator import TranslationOptions, register
from modeltranslation.utils import build_localized_fieldname

from itinerary.models import Activity


@register(Activity)
class ActivityTranslationOptions(TranslationOptions):
    fields = ("title", "description")


def in_catalogue_language(fields: dict) -> dict:
    """Model fields where `title` / `description` name the catalogue's Chinese text (as every caller meant before
    the catalogue had two languages), renamed to their Chinese fields: modeltranslation would otherwise store them in
    whichever language is active. A field already named in a language wins."""
    fields = dict(fields)
    for name in ActivityTranslationOptions.fields:
        if name in fields:
            fields.setdefault(build_localized_fieldname(name, mt_settings.DEFAULT_LANGUAGE), fields[name])
            del fields[name]
    return fields
