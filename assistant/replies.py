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

LANGUAGES = ("zh-hans", "en")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]{2,}")
# Order, booking, flight and train numbers (ORD-002, BK2026…, MU5101) say nothing about the language.
_CODES = re.compile(r"\b[A-Za-z]{1,4}-?\d[\w-]*")


def reply_language(message: str, page_language: str) -> str:
    """Answer in the language the user wrote in; the page's language when the message does not tell."""
    if _CJK.search(message):
        return "zh-hans"
    if _LATIN.search(_CODES.sub(" ", message)):
        return "en"
    return page_language if page_language in LANGUAGES else "zh-hans"


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
