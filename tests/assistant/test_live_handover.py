"""What staff write on a hand-over reaches the traveller's open chat as it is written: their live channel
(core.live) says something changed, and the page's next ask of `chat/live` shows the message, once."""

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from assistant.handovers import handover_reply
from assistant.models import Handover
from core import live
from tests.assistant.conftest import Chat
from tests.support import fixtures
from tests.support.live_events import EventReader

pytestmark = [pytest.mark.redis]

live_events = fixtures.live_events

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def staff(user_factory):
    user = user_factory("sam", is_staff=True, first_name="Sam")
    user.user_permissions.add(Permission.objects.get(codename="answer_handover", content_type__app_label="assistant"))
    return user


def test_a_staff_reply_reaches_the_travellers_open_chat_and_is_shown_once(live_events, client, alice, staff):
    Chat(alice).say("I want to talk to a person")
    handover = Handover.objects.get(user=alice)
    client.force_login(alice)
    with EventReader(live_events.url, client.cookies["sessionid"].value) as stream:
        assert stream.next_event().event == live.CHANGED
        assert client.get(reverse("assistant:live"), **HTMX).status_code == 204

        handover_reply(handover_id=handover.pk, staff=staff, body="Hi, Sam here. Which booking is it about?")

        told = stream.next_event()
        assert (told.event, told.data) == (live.CHANGED, "")

    news = client.get(reverse("assistant:live"), HTTP_ACCEPT_LANGUAGE="en", **HTMX)
    assert news.status_code == 200
    assert "Hi, Sam here. Which booking is it about?" in news.content.decode()
    assert client.get(reverse("assistant:live"), **HTMX).status_code == 204  # shown once
