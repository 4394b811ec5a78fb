"""The error pages: 403, 404 and 500 (and Django's CSRF failure) are TripDesk's own pages in the visitor's language,
with a way back, under the Content-Security-Policy; the 500 page renders with the database down.

This module is also the URLconf of its tests: the site's, plus views that fail on purpose.
"""

import re
from unittest import mock

import pytest
from django.core.exceptions import PermissionDenied
from django.db import OperationalError
from django.db.backends.base.base import BaseDatabaseWrapper
from django.test import Client
from django.urls import path

from config import urls as site_urls


def fails(request):
    raise RuntimeError("a failure nobody foresaw")


def reads_the_database(request):
    from django.contrib.auth import get_user_model

    get_user_model().objects.exists()
    raise AssertionError("unreachable: the database is down in these tests")


def refuses(request):
    raise PermissionDenied("internal reason, never shown")


urlpatterns = [
    path("test-errors/fails/", fails),
    path("test-errors/database/", reads_the_database),
    path("test-errors/refuses/", refuses),
    path("api/v1/test-errors/fails/", fails),
    *site_urls.urlpatterns,
]
handler400 = site_urls.handler400
handler404 = site_urls.handler404
handler500 = site_urls.handler500

pytestmark = [pytest.mark.urls(__name__)]

ZH, EN = "zh-hans", "en"
CJK = re.compile(r"[\u3400-\u9fff\uff01-\uff60\u3000-\u303f]")
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def visitor(language: str, user=None) -> Client:
    """A browser that asks for `language` (Accept-Language, as a first visit does) and sees failures as pages."""
    client = Client(raise_request_exception=False, headers={"Accept-Language": language})
    if user is not None:
        client.force_login(user)
    return client


def main_text(response) -> str:
    """The visible text of the page's <main>, tags and whitespace runs removed."""
    html = response.content.decode()
    main = re.search(r"<main>(.*)</main>", html, re.S)
    assert main, html[:500]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", main.group(1))).strip()


def assert_in_one_language(response, language: str) -> None:
    """The page declares its language and its own text is all in it: no Latin word on the Chinese page (its number
    aside), no Chinese character on the English one, and nothing escaped twice."""
    html = response.content.decode()
    assert f'<html lang="{language}">' in html
    text = main_text(response)
    if language == ZH:
        assert LATIN_WORD.findall(text) == [], text
    else:
        assert CJK.findall(text) == [], text
    assert "&amp;#" not in html and "&#x27;" not in text


def assert_under_the_policy(response) -> None:
    """Served with the CSP and holding nothing it blocks: no inline script, no inline style."""
    html = response.content.decode()
    assert "script-src 'self'" in response["Content-Security-Policy"]
    assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", html) == []
    assert "<style" not in html and " style=" not in html


# -- 404 -------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "heading"), [(ZH, "找不到这个页面"), (EN, "We could not find that page")], ids=[ZH, EN]
)
def test_a_missing_page_is_the_styled_404_in_the_visitors_language(db, language, heading):
    response = visitor(language).get("/no-such-page/")

    assert response.status_code == 404
    assert heading in main_text(response)
    assert 'data-error-page="404"' in response.content.decode()
    assert 'href="/"' in response.content.decode()  # the way back: the assistant
    assert_in_one_language(response, language)
    assert_under_the_policy(response)


def test_a_signed_in_traveller_gets_the_404_page_with_their_links(alice):
    response = visitor(EN, alice).get("/no-such-page/")

    assert response.status_code == 404
    assert "We could not find that page" in main_text(response)
    assert 'href="/bookings/"' in response.content.decode()
    assert_in_one_language(response, EN)


def test_a_missing_api_url_still_answers_the_one_error_body_not_the_page(db):
    response = visitor(EN).get("/api/v1/no-such-thing/")

    assert response.status_code == 404
    assert response.json()["code"] == "NOT_FOUND"


# -- 403 -------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "heading", "advice"),
    [
        (ZH, "你无权打开这个页面", "你的账号没有这项权限。"),
        (EN, "You may not open this page", "Your account does not have"),
    ],
    ids=[ZH, EN],
)
def test_a_refused_page_is_the_styled_403_in_the_visitors_language(alice, language, heading, advice):
    response = visitor(language, alice).get("/test-errors/refuses/")

    assert response.status_code == 403
    assert heading in main_text(response) and advice in main_text(response)
    assert "internal reason" not in response.content.decode()
    assert_in_one_language(response, language)
    assert_under_the_policy(response)


def test_the_403_page_offers_an_anonymous_visitor_the_login_page(db):
    response = visitor(EN).get("/test-errors/refuses/")

    assert response.status_code == 403
    assert 'href="/accounts/login/?next=/test-errors/refuses/"' in response.content.decode()
    assert_in_one_language(response, EN)


@pytest.mark.parametrize(("language", "heading"), [(ZH, "表单已过期"), (EN, "This form has expired")], ids=[ZH, EN])
def test_a_form_sent_without_its_csrf_token_gets_the_expired_form_page_and_changes_nothing(alice, language, heading):
    from assistant.models import Turn

    client = Client(enforce_csrf_checks=True, headers={"Accept-Language": language})
    client.force_login(alice)

    response = client.post("/chat/send", {"message": "大理有什么活动"})

    assert response.status_code == 403
    assert heading in main_text(response)
    assert_in_one_language(response, language)
    assert_under_the_policy(response)
    assert not Turn.objects.exists()


# -- 500 -------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "heading"), [(ZH, "我们这边出了问题"), (EN, "Something went wrong on our side")], ids=[ZH, EN]
)
def test_a_failure_is_the_styled_500_page_in_the_visitors_language(db, settings, language, heading):
    settings.DEBUG = False

    response = visitor(language).get("/test-errors/fails/")

    assert response.status_code == 500
    assert heading in main_text(response)
    assert 'data-error-page="500"' in response.content.decode()
    assert 'href="/"' in response.content.decode() and 'href="/bookings/"' in response.content.decode()
    assert_in_one_language(response, language)
    assert_under_the_policy(response)


def test_the_500_page_renders_with_the_database_down_for_a_signed_in_traveller(alice, settings):
    settings.DEBUG = False
    client = visitor(EN, alice)  # a session row exists; reading it now fails like everything else
    down = OperationalError("the database is unreachable")

    with (
        mock.patch.object(BaseDatabaseWrapper, "cursor", side_effect=down) as cursor,
        mock.patch.object(BaseDatabaseWrapper, "chunked_cursor", side_effect=down),
    ):
        response = client.get("/test-errors/database/")

    assert cursor.called, "the view did try the database"
    assert response.status_code == 500
    assert "Something went wrong on our side" in main_text(response)
    assert alice.get_username() not in response.content.decode(), "nobody is looked up on the 500 page"
    assert_in_one_language(response, EN)


def test_the_500_pages_language_switcher_carries_a_csrf_token(db, settings):
    settings.DEBUG = False

    response = visitor(ZH).get("/test-errors/fails/")

    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', response.content.decode())
    assert token and len(token.group(1)) >= 32


def test_a_failure_under_the_api_is_the_one_error_body_not_the_page(db, settings):
    settings.DEBUG = False

    response = visitor(EN).get("/api/v1/test-errors/fails/")

    assert response.status_code == 500
    assert response.json()["code"] == "INTERNAL_ERROR"
