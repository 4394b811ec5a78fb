"""Reply texts, composed from template files (templates/assistant/replies/<name>.txt) in the reply's language.

The model never writes what the user reads: every reply is one of these templates filled with real rows. A template
is plain text in English with `{% translate %}` / `{% blocktranslate %}`, rendered under the reply's language, so its
Chinese comes from the one .po file like every other string. Plain text: the `text` template engine escapes
nothing; the page escapes a reply once, where it shows it.
"""

import datetime as dt
import re

from django.template import TemplateDoesNotExist, engines
from django.utils import timezone, translation
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from assistant.llm.places import places_in

LANGUAGES = ("zh-hans", "en")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]{2,}")
# Order, booking, flight and train numbers (ORD-002, BK2026…, MU5101) say nothing about the language, also when
# Chinese touches them ("订单ORD-001我要退款": no word boundary there, and the Chinese after it is no part of it).
_CODES = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{1,4}-?\d[A-Za-z0-9-]*")


def reply_language(message: str, page_language: str, *, conversation_language: str | None = None) -> str:
    """Answer in the language the user wrote in. A place named in the other script says nothing about it ("What's
    the weather in 北京 tomorrow?" is English, "去Paris玩" Chinese); a sentence truly in both ("帮我 book a flight to
    北京") gets the page's language; one with no words of either but place names or codes ("上海" answering "from
    where?", a mobile) the conversation's, else the script its places are written in, else the page's."""
    page = page_language if page_language in LANGUAGES else "zh-hans"
    text = _CODES.sub(" ", message)
    places = [m for m in places_in(text) if m.place.name]
    chinese = _without(text, [m for m in places if _CJK.search(text[m.start : m.end])])
    latin = _without(text, [m for m in places if not _CJK.search(text[m.start : m.end])])
    has_chinese, has_latin = bool(_CJK.search(chinese)), bool(_LATIN.search(latin))
    if has_chinese and has_latin:
        return page
    if has_chinese or has_latin:
        return "zh-hans" if has_chinese else "en"
    if conversation_language in LANGUAGES:  # only place names or codes ("上海" answering "from where?")
        return conversation_language
    if _CJK.search(text):  # a first message of place names alone: the script they were written in
        return "zh-hans"
    if _LATIN.search(text):
        return "en"
    return page


def _without(text: str, spans) -> str:
    """The text with these spans blanked out."""
    for match in sorted(spans, key=lambda m: m.start, reverse=True):
        text = text[: match.start] + " " * (match.end - match.start) + text[match.end :]
    return text


def compose(name: str, language: str, **context) -> str:
    """Render one reply template in `language`; blank lines the template leaves are dropped."""
    language = language if language in LANGUAGES else "zh-hans"
    engine = engines["text"]
    try:
        template = engine.get_template(f"{name}.txt")
    except TemplateDoesNotExist:  # not yet one template for both languages: the language's own file
        template = engine.get_template(f"{language}/{name}.txt")
    with translation.override(language):
        text = template.render({**context, "language": language})
    return "\n".join(line.rstrip() for line in text.strip().splitlines() if line.strip())


def format_day(day: dt.date, language: str) -> str:
    """A day as a reply says it: 12月2日 / Dec 2 (the language's MONTH_DAY_FORMAT, config/formats)."""
    with translation.override(language):
        return date_format(day, "MONTH_DAY_FORMAT")


def format_moment(moment: dt.datetime, language: str) -> str:
    """A local time as a reply says it: 12月2日 17:00 / Dec 2, 17:00."""
    with translation.override(language):
        return date_format(timezone.localtime(moment), "SHORT_DATETIME_FORMAT")


def format_range(start: dt.date | None, end: dt.date | None, language: str) -> str:
    if not start:
        return ""
    if not end or end == start:
        return format_day(start, language)
    with translation.override(language):
        return _("%(start)s – %(end)s") % {"start": format_day(start, language), "end": format_day(end, language)}
