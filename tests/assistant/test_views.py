"""The chat page: full page on GET, HTMX partial on POST, plain form post as a fallback."""

import pytest
from django.test import Client

from assistant.models import Turn

pytestmark = pytest.mark.django_db


@pytest.fixture
def logged_in(client, alice):
    client.force_login(alice)
    return client


def test_an_anonymous_visitor_is_sent_to_the_login_page(client):
    response = client.get("/")
    assert response.status_code == 302
    assert response.url.startswith("/accounts/login/")


def test_a_traveller_can_log_in_with_a_password_and_reach_the_chat(client, alice):
    response = client.post("/accounts/login/", {"username": "alice", "password": "pass-1234"}, follow=True)
    assert response.status_code == 200
    assert b'id="chat-form"' in response.content


def test_the_page_shows_the_composer_and_starter_chips(logged_in):
    page = logged_in.get("/").content.decode()
    assert 'hx-post="/chat/send"' in page
    assert "本周末，预算2000" in page
    assert "htmx" in page  # the htmx script is served


def test_an_htmx_post_returns_the_new_turn_with_its_cards(logged_in, dali):
    response = logged_in.post("/chat/send", {"message": "大理有什么活动"}, HTTP_HX_REQUEST="true")

    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in html  # a partial, not a page
    assert 'class="bubble user"' in html and "大理有什么活动" in html
    assert f'href="/activities/{dali.pk}/"' in html


def test_the_conversation_is_kept_across_reloads(logged_in, dali):
    logged_in.post("/chat/send", {"message": "大理有什么活动"}, HTTP_HX_REQUEST="true")

    page = logged_in.get("/").content.decode()

    assert "大理有什么活动" in page
    assert "大理古城漫游" in page


def test_a_plain_form_post_works_without_javascript(logged_in, dali):
    response = logged_in.post("/chat/send", {"message": "大理有什么活动"}, follow=True)

    assert response.redirect_chain[-1][0] == "/"
    assert "大理古城漫游" in response.content.decode()


def test_an_empty_message_shows_an_error_and_records_nothing(logged_in):
    response = logged_in.post("/chat/send", {"message": "  "}, HTTP_HX_REQUEST="true")

    assert 'role="alert"' in response.content.decode()
    assert not Turn.objects.exists()


def test_a_post_without_the_csrf_token_is_refused(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)

    response = client.post("/chat/send", {"message": "大理有什么活动"}, HTTP_HX_REQUEST="true")

    assert response.status_code == 403
    assert not Turn.objects.exists()


def test_a_new_conversation_starts_empty(logged_in, dali):
    logged_in.post("/chat/send", {"message": "大理有什么活动"}, HTTP_HX_REQUEST="true")

    page = logged_in.post("/chat/new", follow=True).content.decode()

    assert "大理古城漫游" not in page


def test_the_page_speaks_english_when_the_user_chooses_it(logged_in):
    logged_in.post("/i18n/setlang/", {"language": "en", "next": "/"})

    page = logged_in.get("/").content.decode()

    assert "Your travel assistant" in page
    assert "New conversation" in page


def test_the_page_speaks_chinese_by_default(logged_in):
    assert "你的旅行助手" in logged_in.get("/").content.decode()


def test_an_activity_card_links_to_its_detail_page(logged_in, dali):
    page = logged_in.get(f"/activities/{dali.pk}/").content.decode()
    assert "大理古城漫游" in page and "199" in page


def test_an_unpublished_activity_has_no_page(logged_in, dali):
    dali.is_published = False
    dali.save()
    assert logged_in.get(f"/activities/{dali.pk}/").status_code == 404
