"""The supplier's and the catalogue's words (their data is Chinese) as a traveller reads them in the active language:
airline names, seat classes, activity tags and place names, and the catalogue's own titles and descriptions in the
reader's language. Words without an entry are shown as they were written."""

from collections.abc import Mapping

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext, gettext_noop
from modeltranslation import settings as mt_settings
from modeltranslation.utils import build_localized_fieldname

from bookings import vocabulary
from bookings.vocabulary import airline_name, english_place, seat_name
from itinerary.weather.normals import climate_table


def airline_label(name: str) -> str:
    """An airline in the active language (`bookings.vocabulary`, the one list of the supplier's airlines)."""
    return airline_name(name)


def seat_label(name: str) -> str:
    """A seat or cabin in the active language (`bookings.vocabulary`, the one list of the supplier's seats)."""
    return seat_name(name)


# The catalogue's tags as people wrote them: msgids in Chinese, worded for English readers by locale/en.
TAGS = (
    gettext_noop("多日游"),
    gettext_noop("文化"),
    gettext_noop("一日游"),
    gettext_noop("徒步"),
    gettext_noop("摄影"),
    gettext_noop("户外"),
    gettext_noop("湖泊"),
    gettext_noop("古镇"),
    gettext_noop("夜游"),
    gettext_noop("雪山"),
    gettext_noop("亲子"),
    gettext_noop("美食"),
    gettext_noop("骑行"),
    gettext_noop("冰雪"),
    gettext_noop("海岛"),
    gettext_noop("演出"),
    gettext_noop("自然"),
    gettext_noop("自驾"),
    gettext_noop("温泉"),
    gettext_noop("滑雪"),
    gettext_noop("茶文化"),
    gettext_noop("漂流"),
    gettext_noop("沙漠"),
    gettext_noop("草原"),
    gettext_noop("峡谷"),
    gettext_noop("游船"),
    gettext_noop("露营"),
    gettext_noop("古村"),
    gettext_noop("手工"),
    gettext_noop("音乐节"),
    gettext_noop("购物"),
    gettext_noop("潜水"),
    gettext_noop("派对"),
    gettext_noop("梯田"),
    gettext_noop("攀岩"),
    gettext_noop("乐园"),
)


def tag_label(word: str) -> str:
    """An activity's tag in the active language (the catalogue's word when it is not one we know)."""
    text = str(word or "")
    return gettext(text) if text in TAGS else text


def english_place_name(place: str) -> str | None:
    """The usual English name of a Chinese place (杭州 → Hangzhou): the place list's, else the weather table's
    station's; None when neither knows one or the place is written in English already."""
    text = str(place or "").strip()
    if not text or text.isascii():
        return None
    station = climate_table().stations.get(text)
    return english_place(text) or (station.en if station else None)


def place_name(place: str, language: str) -> str:
    """A place inside a name, a title, a route or a chip's message, in `language`: its English name alone in English
    ("Activities in Lijiang"), as written in Chinese or when no English name is known (`bookings.vocabulary`'s
    place_name, the weather stations' English names known too)."""
    with translation.override(language):
        return vocabulary.place_name(place, english_place_name(place) or "")


def place_label(place: str, language: str, english: str | None = None) -> str:
    """The place a sentence is about, as a reply names it: in English by its English name with the Chinese in brackets
    ("Hangzhou (杭州)"), in Chinese as written; as written too when no English name is known. `english`: a name
    the caller knows better (the catalogue's own)."""
    english = english or english_place_name(place)
    if not english or english == place:
        return place
    with translation.override(language):
        return gettext("%(english)s (%(chinese)s)") % {"english": english, "chinese": place}


def _catalogue_text(activity, field: str, language: str) -> str:
    """An activity's `field` (title, description) in `language`, from a row (`title_zh_hans`, `title_en`) or from
    its facts (`title` the Chinese, `title_en`: `itinerary.tools.activity_facts`); "" when it has none in it."""
    try:
        language = translation.get_supported_language_variant(language or settings.LANGUAGE_CODE)
    except LookupError:
        language = settings.LANGUAGE_CODE
    name = build_localized_fieldname(field, language)
    if isinstance(activity, Mapping):
        # The facts name the catalogue's own (default) language without a suffix, as the original field does.
        name = field if language == mt_settings.DEFAULT_LANGUAGE else name
        return str(activity.get(name) or "")
    return str(getattr(activity, name, "") or "")


def activity_title(activity, language: str) -> str:
    """An activity's title as a reader of `language` reads it, from a row or its facts: its title in that language;
    without one, the catalogue's Chinese title once with the place in the reader's language beside it
    ("大理古城一日游 (Dali)"). Reads the fields by name, whatever language is active."""
    title = _catalogue_text(activity, "title", language)
    if title:
        return title
    chinese = _catalogue_text(activity, "title", mt_settings.DEFAULT_LANGUAGE)
    if not chinese:  # no catalogue text at all but another language's (the admin requires the Chinese)
        texts = (_catalogue_text(activity, "title", other) for other in mt_settings.AVAILABLE_LANGUAGES)
        return next(filter(None, texts), "")
    city = activity.get("city") if isinstance(activity, Mapping) else getattr(activity, "city", "")
    english = english_place_name(city or "")
    if not english:
        return chinese
    with translation.override(language):
        return gettext("%(title)s (%(place)s)") % {"title": chinese, "place": english}


def activity_description(activity, language: str) -> str:
    """An activity's description in `language`, else the catalogue's Chinese one."""
    return _catalogue_text(activity, "description", language) or _catalogue_text(
        activity, "description", mt_settings.DEFAULT_LANGUAGE
    )
