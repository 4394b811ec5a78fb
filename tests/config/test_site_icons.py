"""The site has its icon: every page, the console and the API reference link it (an SVG, a PNG, an apple-touch icon)
and /favicon.ico, which browsers ask for whatever a page links, leads to an image instead of a 404."""

import re

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

LINK = re.compile(r'<link rel="(icon|apple-touch-icon)" href="([^"]+)"')


def _icons(html: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for rel, href in LINK.findall(html):
        found.setdefault(rel, []).append(href)
    return found


def _assert_image(client: Client, url: str) -> None:
    answer = client.get(url, follow=True)
    assert answer.status_code == 200, (url, answer.status_code)
    assert answer.headers["Content-Type"].startswith("image/"), (url, answer.headers["Content-Type"])
    assert b"".join(answer.streaming_content if answer.streaming else [answer.content]), url


def test_favicon_ico_answers_with_an_image_for_anyone(client):
    answer = client.get("/favicon.ico")

    assert answer.status_code == 302
    _assert_image(client, "/favicon.ico")


def test_the_pages_the_console_and_the_api_reference_link_icons_that_are_served(client, alice, user_factory):
    traveller, approver = Client(), Client()
    traveller.force_login(alice)
    approver.force_login(user_factory("approver", is_staff=True, is_superuser=True))
    pages = [
        (client, "/accounts/login/"),
        (traveller, "/"),
        (traveller, "/bookings/"),
        (traveller, "/no-such-page/"),
        (traveller, "/api/v1/docs/redoc/"),
        (approver, "/admin/"),
        (client, "/admin/login/"),
    ]

    for who, path in pages:
        icons = _icons(who.get(path).content.decode())

        assert len(icons.get("icon", [])) == 2 and len(icons.get("apple-touch-icon", [])) == 1, (path, icons)
        for url in icons["icon"] + icons["apple-touch-icon"]:
            _assert_image(who, url)
