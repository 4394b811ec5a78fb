"""A traveller's conversation history: the chat page lists their conversations (titled by the first message, the
most recently active first), reopens one with its turns and cards (the next message continues it) and deletes one
after asking; the API does the same. Someone else's conversation answers exactly like an unknown id, on the pages
and the API, and nothing changes."""

import datetime as dt
import re
import uuid

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from assistant.memory import Memory, memory_load, memory_save
from assistant.models import Conversation, LLMCall, PendingAction, Turn
from assistant.selectors import conversations_for_user
from assistant.views import SESSION_KEY

pytestmark = pytest.mark.django_db

# What differs between two renderings of the same page on purpose: the masked CSRF token and CSP nonces.
PER_REQUEST = re.compile(r'(csrfmiddlewaretoken" value="|"X-CSRFToken": "|nonce=")[^"]*')
ITEM = re.compile(r'<li class="history-item[^"]*" data-conversation="([0-9a-f-]{36})"')
LONG = "帮我规划一下下个月去云南大理和丽江的七天行程，预算一万块，想看洱海、玉龙雪山和泸沽湖，住得舒服一点"


def conversation(user, *messages: str, at: dt.datetime | None = None) -> Conversation:
    """A conversation of `user` with one answered turn per message, last active at `at`."""
    found = Conversation.objects.create(user=user)
    for message in messages:
        Turn.objects.create(conversation=found, user=user, message=message, reply=f"答：{message}", outcome="ANSWERED")
    if at is not None:  # its last activity is its latest turn
        Turn.objects.filter(conversation=found).update(created_at=at)
        Conversation.objects.filter(pk=found.pk).update(created_at=at)
    return found


def listed(page: str) -> list[str]:
    """The conversation ids the page's history lists, in order."""
    return ITEM.findall(page)


def everything() -> dict[str, list[dict]]:
    """Every conversation, turn, model-call audit row and pending action, as plain values."""
    models = (Conversation, Turn, LLMCall, PendingAction)
    return {model.__name__: list(model.objects.order_by("pk").values()) for model in models}


def without(rows: dict[str, list[dict]], conversation_id) -> dict[str, list[dict]]:
    """`rows` as they must be once that conversation is deleted: it, its turns and actions gone, its calls kept."""
    turns = {t["id"] for t in rows["Turn"] if t["conversation_id"] == conversation_id}
    return {
        "Conversation": [c for c in rows["Conversation"] if c["id"] != conversation_id],
        "Turn": [t for t in rows["Turn"] if t["id"] not in turns],
        "LLMCall": [{**c, "turn_id": None if c["turn_id"] in turns else c["turn_id"]} for c in rows["LLMCall"]],
        "PendingAction": [a for a in rows["PendingAction"] if a["conversation_id"] != conversation_id],
    }


@pytest.fixture
def bob(user_factory):
    return user_factory("bob")


@pytest.fixture
def page(alice):
    client = Client()
    client.force_login(alice)
    return client


@pytest.fixture
def api(alice):
    client = APIClient()
    client.force_authenticate(alice)
    return client


@pytest.fixture
def histories(alice, bob):
    """Alice's three conversations (active an hour, a day and a week ago), an empty one of hers, and bob's."""
    now = timezone.now()
    return {
        "hour": conversation(alice, "大理有什么活动", "那边天气怎么样", at=now - dt.timedelta(hours=1)),
        "week": conversation(alice, "上海到成都的机票", at=now - dt.timedelta(days=7)),
        "day": conversation(alice, LONG, at=now - dt.timedelta(days=1)),
        "empty": conversation(alice, at=now),
        "bobs": conversation(bob, "鲍勃的秘密行程", at=now),
    }


# -- the list ------------------------------------------------------------------------------------------------------


def test_the_chat_page_lists_my_conversations_newest_first_titled_by_their_first_message(page, histories):
    html = page.get("/").content.decode()

    assert 'id="history"' in html
    assert listed(html) == [str(histories[k].pk) for k in ("hour", "day", "week")]
    assert "大理有什么活动" in html and "上海到成都的机票" in html
    assert "那边天气怎么样" not in html  # the title is the first message only
    assert f"{LONG[:39]}…" in html and LONG not in html  # cut to 40 characters
    assert "2 条消息" in html and "1 条消息" in html


def test_the_list_leaves_out_empty_conversations_and_other_travellers(page, histories):
    html = page.get("/").content.decode()

    assert 'id="history"' in html
    assert str(histories["empty"].pk) not in listed(html)
    assert str(histories["bobs"].pk) not in html and "鲍勃的秘密行程" not in html


def test_the_current_conversation_is_marked(page, histories):
    page.post(f"/chat/{histories['day'].pk}/open")

    html = page.get("/").content.decode()

    marked = re.findall(r'data-conversation="([0-9a-f-]{36})" aria-current="true"', html)
    assert marked == [str(histories["day"].pk)]
    assert "当前" in html


def test_a_conversation_shows_its_last_activity_in_local_time_in_the_pages_language(page, alice):
    conversation(alice, "大理有什么活动", at=dt.datetime(2026, 12, 1, 2, 30, tzinfo=dt.UTC))  # 10:30 in Shanghai

    chinese = page.get("/").content.decode()
    english = page.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()

    assert ">12月1日 10:30</time>" in chinese
    assert ">Dec 1, 10:30</time>" in english
    assert "Your conversations" in english and "1 message" in english


def test_a_traveller_without_conversations_sees_the_chat_without_a_history(page):
    html = page.get("/").content.decode()

    assert 'id="chat-form"' in html
    assert 'id="history"' not in html


def test_the_list_is_read_in_one_query_with_titles_and_counts(alice, histories, django_assert_num_queries):
    with django_assert_num_queries(1):
        rows = [(c.pk, c.title, c.turn_count) for c in conversations_for_user(user=alice)[:30]]

    assert rows == [
        (histories["hour"].pk, "大理有什么活动", 2),
        (histories["day"].pk, f"{LONG[:39]}…", 1),
        (histories["week"].pk, "上海到成都的机票", 1),
    ]


def test_a_title_keeps_a_message_of_exactly_forty_characters_and_puts_line_breaks_on_one_line(alice):
    forty = "一" * 40
    conversation(alice, forty)
    conversation(alice, "大理\n有什么活动")

    titles = {c.title for c in conversations_for_user(user=alice)}

    assert titles == {forty, "大理 有什么活动"}


# -- reopening -----------------------------------------------------------------------------------------------------


def test_reopening_shows_that_conversations_turns_and_cards(page, dali):
    page.post("/chat/send", {"message": "大理有什么活动"})
    older = Conversation.objects.get()
    page.post("/chat/new")
    page.post("/chat/send", {"message": "你好"})
    assert "大理古城漫游" not in page.get("/").content.decode()

    response = page.post(f"/chat/{older.pk}/open", follow=True)

    html = response.content.decode()
    assert response.redirect_chain == [("/", 302)]
    assert page.session[SESSION_KEY] == str(older.pk)
    assert 'class="bubble user">大理有什么活动<' in html
    assert 'data-card="activity"' in html and f'href="/activities/{dali.pk}/"' in html
    assert 'class="bubble user">你好<' not in html


def test_the_next_message_after_reopening_continues_that_conversation(page, dali, channel):
    page.post("/chat/send", {"message": "大理有什么活动"})
    older = Conversation.objects.get()
    page.post("/chat/new")
    page.post("/chat/send", {"message": "你好"})
    newer = Conversation.objects.exclude(pk=older.pk).filter(turns__isnull=False).get()

    page.post(f"/chat/{older.pk}/open")
    page.post("/chat/send", {"message": "推荐热门活动"}, HTTP_HX_REQUEST="true")

    assert list(older.turns.values_list("message", flat=True)) == ["大理有什么活动", "推荐热门活动"]
    assert list(newer.turns.values_list("message", flat=True)) == ["你好"]
    assert listed(page.get("/").content.decode())[0] == str(older.pk)  # now the most recently active


# -- deleting ------------------------------------------------------------------------------------------------------


def test_deleting_a_conversation_removes_it_and_its_turns_and_nothing_else(page, histories):
    LLMCall.objects.create(
        turn=histories["week"].turns.get(),
        user=histories["week"].user,
        purpose="understand",
        provider="rules",
        model="rules",
        outcome="OK",
    )
    before = everything()

    response = page.post(f"/chat/{histories['week'].pk}/delete", follow=True)

    html = response.content.decode()
    assert response.status_code == 200 and "对话已删除。" in html
    assert '<details class="history" id="history" open>' in html  # what is left, shown
    assert listed(html) == [str(histories["hour"].pk), str(histories["day"].pk)]
    assert everything() == without(before, histories["week"].pk)
    assert LLMCall.objects.filter(turn__isnull=True).count() == 1  # the model call's audit row stays


def test_deleting_a_conversation_drops_its_memory_once_committed(page, histories, django_capture_on_commit_callbacks):
    week = str(histories["week"].pk)
    memory_save(week, Memory(task="BOOK", slots={"origin": "上海"}))
    memory_save(str(histories["day"].pk), Memory(task="PLAN_ITINERARY"))

    with django_capture_on_commit_callbacks(execute=True):
        page.post(f"/chat/{week}/delete")

    assert memory_load(week) == Memory()
    assert memory_load(str(histories["day"].pk)).task == "PLAN_ITINERARY"


def test_deleting_the_current_conversation_starts_a_fresh_view(page, histories):
    page.post(f"/chat/{histories['hour'].pk}/open")
    assert "那边天气怎么样" in page.get("/").content.decode()

    html = page.post(f"/chat/{histories['hour'].pk}/delete", follow=True).content.decode()

    assert "welcome" in html and 'id="chat-form"' in html
    assert "那边天气怎么样" not in html
    fresh = Conversation.objects.get(pk=page.session[SESSION_KEY])
    assert fresh.user == histories["hour"].user and not fresh.turns.exists()
    assert not Conversation.objects.filter(pk=histories["hour"].pk).exists()


def test_deleting_another_conversation_keeps_the_current_one(page, histories):
    page.post(f"/chat/{histories['hour'].pk}/open")

    html = page.post(f"/chat/{histories['week'].pk}/delete", follow=True).content.decode()

    assert page.session[SESSION_KEY] == str(histories["hour"].pk)
    assert 'class="bubble user">那边天气怎么样<' in html


def test_the_page_asks_before_deleting(page, histories):
    html = page.get("/").content.decode()

    confirm = html[html.index(f'action="/chat/{histories["week"].pk}/delete"') :]
    assert "删除这段对话及其 1 条消息？删除后无法恢复。" in confirm[:600]
    assert "保留" in confirm[:800]


def test_opening_or_deleting_needs_a_post(page, histories):
    before = everything()

    assert page.get(f"/chat/{histories['week'].pk}/delete").status_code == 405
    assert page.get(f"/chat/{histories['week'].pk}/open").status_code == 405
    assert everything() == before


# -- someone else's conversation -----------------------------------------------------------------------------------


def page_answer(response, conversation_id) -> tuple:
    """What the traveller gets, apart from the per-request tokens and the address they typed (the 404 page's
    language switcher returns to it)."""
    html = PER_REQUEST.sub(r"\1…", response.content.decode()).replace(str(conversation_id), "ID")
    return response.status_code, response.get("Content-Type"), html


@pytest.mark.parametrize("action", ["open", "delete"])
def test_another_travellers_conversation_answers_the_pages_404_like_an_unknown_id_and_changes_nothing(
    page, histories, action
):
    page.post(f"/chat/{histories['day'].pk}/open")
    before = everything()

    nobodys = uuid.uuid4()

    theirs = page.post(f"/chat/{histories['bobs'].pk}/{action}")
    unknown = page.post(f"/chat/{nobodys}/{action}")

    assert theirs.status_code == 404
    assert page_answer(theirs, histories["bobs"].pk) == page_answer(unknown, nobodys)
    assert "鲍勃的秘密行程" not in theirs.content.decode()
    assert everything() == before
    assert page.session[SESSION_KEY] == str(histories["day"].pk)  # still alice's current conversation
    assert 'class="bubble user">' + LONG + "<" in page.get("/").content.decode()


# -- the API -------------------------------------------------------------------------------------------------------


def test_the_api_lists_my_conversations_newest_first_with_title_times_and_turn_count(api, histories):
    response = api.get("/api/v1/assistant/conversations")

    assert response.status_code == 200
    results = response.json()["results"]
    assert [r["id"] for r in results] == [str(histories[k].pk) for k in ("hour", "day", "week")]
    first = results[0]
    assert set(first) == {"id", "title", "created_at", "updated_at", "turn_count"}
    assert first["title"] == "大理有什么活动" and first["turn_count"] == 2
    assert results[1]["title"] == f"{LONG[:39]}…"
    assert response.json()["count"] == 3


def test_the_api_shows_one_conversation_with_its_turns_and_cards(api, alice, dali):
    chat = api.post("/api/v1/assistant/chat", {"message": "大理有什么活动"}, format="json").json()

    response = api.get(f"/api/v1/assistant/conversations/{chat['session_id']}")

    assert response.status_code == 200
    body = response.json()
    assert body["id"] == chat["session_id"] and body["title"] == "大理有什么活动" and body["turn_count"] == 1
    [turn] = body["turns"]
    assert set(turn) == {"id", "message", "reply", "cards", "outcome", "created_at"}
    assert turn["message"] == "大理有什么活动" and turn["reply"] == chat["reply"]
    assert turn["outcome"] == chat["outcome"] == "ANSWERED"
    assert [c["title"] for c in turn["cards"]] == ["大理古城漫游"]


def test_the_api_deletes_one_of_my_conversations_and_nothing_else(api, histories):
    before = everything()

    response = api.delete(f"/api/v1/assistant/conversations/{histories['day'].pk}")

    assert response.status_code == 204 and response.content == b""
    assert everything() == without(before, histories["day"].pk)
    assert api.get(f"/api/v1/assistant/conversations/{histories['day'].pk}").status_code == 404


@pytest.mark.parametrize("method", ["get", "delete"])
def test_another_travellers_conversation_answers_404_like_an_unknown_id_through_the_api_and_changes_nothing(
    api, histories, method
):
    before = everything()

    theirs = getattr(api, method)(f"/api/v1/assistant/conversations/{histories['bobs'].pk}")
    unknown = getattr(api, method)(f"/api/v1/assistant/conversations/{uuid.uuid4()}")

    assert theirs.status_code == 404
    assert theirs.json() == {"ok": False, "code": "NOT_FOUND", "message": "没有这段对话。", "data": None}
    assert (theirs.status_code, theirs["Content-Type"], theirs.content) == (
        unknown.status_code,
        unknown["Content-Type"],
        unknown.content,
    )
    assert everything() == before


def test_the_api_list_never_shows_another_travellers_conversation(api, histories, bob):
    ids = [r["id"] for r in api.get("/api/v1/assistant/conversations").json()["results"]]

    assert ids and str(histories["bobs"].pk) not in ids


def test_the_schema_documents_the_conversation_endpoints_with_401_and_404(api):
    paths = api.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()["paths"]

    listing = paths["/api/v1/assistant/conversations"]["get"]
    one = paths["/api/v1/assistant/conversations/{conversation_id}"]
    assert {"200", "401", "404"} <= set(listing["responses"])
    assert {"200", "401", "404"} <= set(one["get"]["responses"])
    assert {"204", "401", "403", "404"} <= set(one["delete"]["responses"])
    assert one["get"]["parameters"][0]["schema"] == {"type": "string", "format": "uuid"}
