"""Cards a traveller can read (issue 15): plans by names, times with +1, durations in words, check-in and check-out,
why each plan is shown instead of the engine's scores, which plan two titles share; activity cards with a picture
the site serves and, when personalised, why they were suggested. In Chinese and in English."""

import datetime as dt
import re
from decimal import Decimal

import pytest
from django.template.loader import render_to_string
from django.utils import timezone

from assistant.presenters.plans import comparison_card
from assistant.selectors import catalogue_places_forget
from assistant.services import chat_turn
from itinerary.models import InterestProfile
from tests.assistant.conftest import TODAY
from tests.factories import ActivityFactory

pytestmark = pytest.mark.django_db

COMPARE = {
    "zh-hans": "12月5号从上海去成都，12月9号回来，帮我比较一下交通和酒店方案",
    "en": "Compare round trips from Shanghai to Chengdu, Dec 5 to Dec 9",
}
WORDS = {
    "zh-hans": {
        "why": "为什么选它：",
        "check_in": "入住",
        "check_out": "退房",
        "shared": "是同一个方案：方案",
        "hours": "小时",
        "airline": "东方航空",
        "book": "预订这个方案",
    },
    "en": {
        "why": "Why this plan:",
        "check_in": "Check-in",
        "check_out": "Check-out",
        "shared": "are one and the same plan: plan ",
        "hours": " h",
        "airline": "China Eastern",
        "book": "Book this plan",
    },
}


def visible(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def compared(user, language: str):
    result = chat_turn(user=user, message=COMPARE[language], today=TODAY, page_language=language)
    card = next(c for c in result.cards if c["type"] == "plan_comparison")
    return result, card, visible(render_to_string("assistant/partials/card_plan_comparison.html", {"card": card}))


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_a_plan_card_names_carriers_hotels_and_places_with_durations_and_the_stay(alice, supplier_sandbox, language):
    _result, card, text = compared(alice, language)
    words = WORDS[language]

    for plan in (p for p in card["plans"] if p["shown"]):
        assert plan["hotel"]["name"] in text
        assert f"{words['check_in']} {plan['hotel']['check_in_label']}" in text
        assert f"{words['check_out']} {plan['hotel']['check_out_label']}" in text
        for leg in (plan["outbound"], plan["return"]):
            assert f"{leg['depart_time']}–{leg['arrive_time']}" in text
            assert leg["duration"] and leg["duration"] in text and words["hours"] in leg["duration"]
    assert words["airline"] in text  # the sandbox's 东方航空 flies this route
    assert words["book"] in text
    assert not re.search(r"路上 \d+ 分钟|\d+ min in transit", text)


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_a_plan_card_says_why_in_words_and_shows_no_scores(alice, supplier_sandbox, language):
    _result, card, text = compared(alice, language)

    shown = [p for p in card["plans"] if p["shown"]]
    assert text.count(WORDS[language]["why"]) == len(shown)
    cheapest = next(p for p in card["plans"] if p["name"] == "cheapest")
    assert ("总价最低" if language == "zh-hans" else "lowest total price") in cheapest["why"]
    fastest = next(p for p in card["plans"] if p["name"] == "fastest")
    assert ("路上时间最短" if language == "zh-hans" else "least time on the way") in fastest["why"]
    for plan in card["plans"]:  # the engine's scores stay data, never words
        for score in plan["scores"].values():
            assert f" {score} " not in text
    assert not re.search(r"综合 \d|overall \d|时间 \d|price \d", text)


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_titles_won_by_one_plan_name_that_plan(alice, supplier_sandbox, language):
    result, card, _text = compared(alice, language)

    shared = [p for p in card["plans"] if p["shown"] and len(p["labels"]) > 1]
    assert shared, "the sandbox's Shanghai–Chengdu trip has one plan that is both best overall and cheapest"
    for plan in shared:
        sentence = next(line for line in result.reply.splitlines() if WORDS[language]["shared"] in line)
        assert f"{WORDS[language]['shared']}{plan['number']}" in sentence
        assert plan["outbound"]["number"] in sentence and plan["return"]["number"] in sentence
        assert plan["hotel"]["name"] in sentence


def _leg(number: str, depart: str, arrive: str, *, mode="TRAIN", price=300) -> dict:
    start, end = dt.datetime.fromisoformat(depart), dt.datetime.fromisoformat(arrive)
    return {
        "id": f"out:{mode}:{number}",
        "mode": mode,
        "number": number,
        "origin": "上海",
        "destination": "乌鲁木齐",
        "date": start.date().isoformat(),
        "depart": depart,
        "arrive": arrive,
        "depart_time": start.strftime("%H:%M"),
        "arrive_time": end.strftime("%H:%M"),
        "overnight_days": (end.date() - start.date()).days,
        "duration_minutes": int((end - start).total_seconds() // 60),
        "price": price,
        "seat_class": "二等座",
        "airline": "",
    }


def _overnight_comparison() -> dict:
    hotel = {"id": "hotel:H1", "hotel_id": "H1", "name": "乌鲁木齐站前假日酒店", "star": 4, "rating": 4.5,
             "city": "乌鲁木齐", "address": "", "check_in": "2026-12-05", "check_out": "2026-12-08",
             "price_per_night": 500, "nights": 3, "price": 1500}  # fmt: skip
    plan = {
        "labels": list(("best_overall", "cheapest", "fastest", "best_preference")),
        "outbound": _leg("Z106", "2026-12-04T18:45", "2026-12-05T03:55"),
        "hotel": hotel,
        "return": _leg("Z105", "2026-12-08T09:00", "2026-12-08T23:55"),
        "total_price": 2100,
        "transit_minutes": 550 + 895,
        "scores": {"time": 50.0, "price": 50.0, "preference": 50.0, "overall": 50.0},
        "violations": [],
    }
    plans = [{**plan, "name": name} for name in plan["labels"]]
    return {"plan_id": "6a1f4c1e-0000-4000-8000-000000000000", "origin": "上海", "destination": "乌鲁木齐",
            "depart_date": "2026-12-05", "return_date": "2026-12-08", "nights": 3, "plans": plans,
            "counts": {"combinations": 1, "legal": 1, "outbound": 1, "returns": 1, "hotels": 1}}  # fmt: skip


@pytest.mark.parametrize(("language", "duration"), [("zh-hans", "9小时10分"), ("en", "9 h 10 min")])
def test_an_overnight_leg_shows_plus_one_and_its_duration_in_hours(language, duration):
    card = comparison_card(_overnight_comparison(), language=language, stated=[], read=True)

    text = visible(render_to_string("assistant/partials/card_plan_comparison.html", {"card": card}))

    assert "18:45–03:55 +1" in text
    assert duration in text
    assert "23:55 +" not in text  # the same-day return has no +1


# --- activity cards ------------------------------------------------------------------------------------------------


@pytest.fixture
def lake_hike():
    today = timezone.localdate()
    catalogue_places_forget()  # the understanding knows the catalogue's places: this one is new
    yield ActivityFactory(
        title="赛里木湖环湖徒步",
        city="博乐",
        province="新疆",
        price=Decimal("380"),
        start_date=today,
        end_date=today + dt.timedelta(days=40),
        tags=["徒步", "湖泊"],
        system_tags=["hiking", "lake"],
        cover_image_url="img/covers/lake.svg",
        popularity=900,
    )
    catalogue_places_forget()


def test_activity_cards_show_a_local_cover_that_the_site_serves(client, alice, lake_hike):
    client.force_login(alice)

    result = chat_turn(user=alice, message="博乐有什么活动", today=timezone.localdate())

    card = next(c for c in result.cards if c["type"] == "activity" and c["id"] == lake_hike.pk)
    assert card["cover_image_url"] == "/static/img/covers/lake.svg"
    page = client.get(card["cover_image_url"])
    assert page.status_code == 200 and b"<svg" in b"".join(page.streaming_content if page.streaming else [page.content])
    html = render_to_string("assistant/partials/card_activity.html", {"card": card})
    assert 'src="/static/img/covers/lake.svg"' in html


def test_an_activity_without_a_cover_gets_the_illustration_of_its_kind_of_place(alice, lake_hike):
    lake_hike.cover_image_url = ""
    lake_hike.save()

    assert lake_hike.cover_url == "/static/img/covers/lake.svg"


@pytest.mark.parametrize(
    ("language", "message", "why"),
    [
        ("zh-hans", "推荐热门活动", "为什么推给你： 你常选徒步"),
        ("en", "Recommend popular activities", "Why for you: you often choose hiking"),
    ],
)
def test_a_personalised_card_says_why_it_was_suggested(alice, lake_hike, language, message, why):
    InterestProfile.objects.create(user=alice, scores={"hiking": 0.9, "food": 0.2})

    result = chat_turn(user=alice, message=message, today=timezone.localdate(), page_language=language)

    card = next(c for c in result.cards if c["id"] == lake_hike.pk)
    assert card["suggested_for"] == "hiking"
    assert why in visible(render_to_string("assistant/partials/card_activity.html", {"card": card}))


def test_a_card_says_nothing_personal_to_someone_without_interests(alice, lake_hike):
    result = chat_turn(user=alice, message="推荐热门活动", today=timezone.localdate())

    card = next(c for c in result.cards if c["id"] == lake_hike.pk)
    assert card["suggested_for"] is None and card["why"] == ""
    assert "为什么推给你" not in render_to_string("assistant/partials/card_activity.html", {"card": card})


# --- the activity page ---------------------------------------------------------------------------------------------


def test_the_activity_page_shows_its_cover_and_offers_to_ask_and_to_act(client, alice, lake_hike):
    client.force_login(alice)

    page = client.get(f"/activities/{lake_hike.pk}/").content.decode()

    assert 'src="/static/img/covers/lake.svg"' in page
    assert "问问助手" in page and "ask=" in page
    assert 'data-action="plan"' in page and 'data-action="weather"' in page


def test_asking_the_assistant_about_an_activity_opens_the_chat_with_the_question_drafted(client, alice, lake_hike):
    client.force_login(alice)
    page = client.get(f"/activities/{lake_hike.pk}/").content.decode()
    link = re.search(r'href="(/\?ask=[^"]+)"', page).group(1).replace("&amp;", "&")

    chat = client.get(link).content.decode()

    assert 'value="关于「赛里木湖环湖徒步」（博乐）：' in chat


def test_an_action_on_the_activity_page_becomes_a_turn_of_the_chat(client, alice, lake_hike):
    client.force_login(alice)
    page = client.get(f"/activities/{lake_hike.pk}/").content.decode()
    message = re.search(r'name="message" value="([^"]+)"><input type="hidden" name="fresh" value="1">\s*<button '
                        r'type="submit" class="secondary" data-action="plan"', page).group(1)  # fmt: skip

    response = client.post("/chat/send", {"message": message, "fresh": "1"})

    assert response.status_code == 302
    chat = client.get("/").content.decode()
    assert 'data-card="travel_plan"' in chat and "博乐" in chat
