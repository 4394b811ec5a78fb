"""Reply texts, composed from template files per language (templates/assistant/replies/<lang>/<name>.txt).

The model never writes what the user reads: every reply is one of these templates filled with real rows.
"""

import datetime as dt
import re

from django.template.loader import render_to_string

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
    """Render one reply template; blank lines the template leaves are dropped."""
    language = language if language in LANGUAGES else "zh-hans"
    text = render_to_string(f"assistant/replies/{language}/{name}.txt", context)
    return "\n".join(line.rstrip() for line in text.strip().splitlines() if line.strip())


def format_day(day: dt.date, language: str) -> str:
    return f"{day.month}月{day.day}日" if language == "zh-hans" else day.strftime("%b %-d")


def format_range(start: dt.date | None, end: dt.date | None, language: str) -> str:
    if not start:
        return ""
    if not end or end == start:
        return format_day(start, language)
    dash = "至" if language == "zh-hans" else " – "
    return f"{format_day(start, language)}{dash}{format_day(end, language)}"
