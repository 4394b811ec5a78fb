"""The language follows the user's choice: the switcher's choice is remembered per user and applies on any device;
without a choice the browser's Accept-Language decides."""

import pytest
from django.test import Client

from core.models import LanguagePreference

pytestmark = pytest.mark.django_db


def lang_of(response) -> str:
    html = response.content.decode()
    return html.split('<html lang="', 1)[1].split('"', 1)[0]


def test_without_a_choice_the_browser_decides(alice):
    client = Client(HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9")
    client.force_login(alice)

    english = client.get("/")
    chinese = Client(HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9")
    chinese.force_login(alice)

    assert english.status_code == 200 and lang_of(english) == "en"
    assert lang_of(chinese.get("/")) == "zh-hans"
    assert not LanguagePreference.objects.exists()


def test_the_choice_is_remembered_for_the_user_on_another_device(alice):
    laptop = Client(HTTP_ACCEPT_LANGUAGE="zh-CN")
    laptop.force_login(alice)

    chosen = laptop.post("/i18n/setlang/", {"language": "en", "next": "/"})

    assert chosen.status_code == 302 and lang_of(laptop.get("/")) == "en"
    assert LanguagePreference.objects.get(user=alice).language == "en"
    phone = Client(HTTP_ACCEPT_LANGUAGE="zh-CN")  # no cookie of its own
    phone.force_login(alice)
    page = phone.get("/")
    assert lang_of(page) == "en" and page.cookies["django_language"].value == "en"
    assert lang_of(phone.get("/bookings/")) == "en"  # the cookie carries it on


def test_an_unknown_language_is_not_remembered(alice):
    client = Client()
    client.force_login(alice)

    client.post("/i18n/setlang/", {"language": "xx", "next": "/"})

    assert not LanguagePreference.objects.exists() and client.get("/").status_code == 200


def test_someone_signed_out_choosing_a_language_saves_nothing():
    client = Client()

    client.post("/i18n/setlang/", {"language": "en", "next": "/accounts/login/"})

    assert not LanguagePreference.objects.exists()
    assert lang_of(client.get("/accounts/login/")) == "en"
