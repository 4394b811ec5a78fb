"""The language a user chose, remembered per user (`LanguagePreference`), and the middleware that applies it.

    language_preference_set(user=u, language="en")     # when they pick it with the switcher
    language_preference_of(user=u)                      # "en", or None: the browser's Accept-Language decides

The switcher posts to Django's `set_language` view, which sets the language cookie for this browser; the
middleware then saves the choice for the signed-in user. On a browser without the cookie (another device, a fresh
login) the saved choice applies and the cookie is set, so every page after it is in that language.
"""

import re
from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils import translation
from django.utils.translation import get_language, get_language_info

from core.models import LanguagePreference

_HAN = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")


def _supported(language: object) -> str | None:
    codes = {code for code, _name in settings.LANGUAGES}
    return language if isinstance(language, str) and language in codes else None


def language_preference_set(*, user, language: str) -> None:
    """Remember `language` for `user`; an unsupported code changes nothing."""
    chosen = _supported(language)
    if chosen and getattr(user, "is_authenticated", False):
        LanguagePreference.objects.update_or_create(user=user, defaults={"language": chosen})


def language_preference_of(*, user) -> str | None:
    if not getattr(user, "is_authenticated", False):
        return None
    found = LanguagePreference.objects.filter(user=user).values_list("language", flat=True).first()
    return _supported(found)


class UserLanguageMiddleware:
    """After authentication: a signed-in user's saved language when this browser has not chosen one; and a choice
    made with the switcher is saved for the user."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        cookie = settings.LANGUAGE_COOKIE_NAME
        saved = None
        if cookie not in request.COOKIES and getattr(request.user, "is_authenticated", False):
            saved = self._saved(request)
            if saved:
                translation.activate(saved)
                request.LANGUAGE_CODE = saved
        response = self.get_response(request)
        if request.method == "POST" and request.path == reverse("set_language"):
            language_preference_set(user=request.user, language=request.POST.get("language"))
            if hasattr(request, "session"):
                request.session.pop(SESSION_KEY, None)  # read again by the next request without the cookie
        elif saved:
            response.set_cookie(cookie, saved, max_age=settings.LANGUAGE_COOKIE_AGE, samesite="Lax")
        return response

    @staticmethod
    def _saved(request) -> str | None:
        """The user's saved language, read once per session (an API client sends no language cookie: every call
        would read it again) and kept in the session, which every request loads anyway."""
        session = getattr(request, "session", None)
        if session is None:
            return language_preference_of(user=request.user)
        if SESSION_KEY not in session:
            session[SESSION_KEY] = language_preference_of(user=request.user) or ""
        return _supported(session[SESSION_KEY])


# Where a session keeps its user's saved language ("" for none) once read.
SESSION_KEY = "tripdesk_saved_language"


def reads_han() -> bool:
    """Whether the active language is written in Han characters, asked of the language itself (its own name),
    never of its code: a reader of such a language reads the Chinese half of bilingual content."""
    info = get_language_info(get_language() or settings.LANGUAGE_CODE)
    return bool(_HAN.search(info.get("name_local") or ""))


def bilingual(text: Any) -> str:
    """The reader's half of content written in both languages, as the demo policies are: a title "中文 / English",
    a text whose Chinese comes first and English after. Text in one language is returned as it is."""
    text = str(text or "").strip()
    parts = [part.strip() for part in text.split(" / ")]
    if len(parts) == 2 and all(parts) and bool(_HAN.search(parts[0])) != bool(_HAN.search(parts[1])):
        han, latin = parts if _HAN.search(parts[0]) else parts[::-1]
        return han if reads_han() else latin
    last_han = max((match.end() for match in _HAN.finditer(text)), default=0)
    han, latin = text[:last_han].strip(), text[last_han:].strip()
    if not han or not re.search(r"[A-Za-z]{3,}", latin):
        return text
    return han if reads_han() else latin
