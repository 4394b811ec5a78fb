"""Matching: hard filters by the traveller's known age and gender, then re-ranking by their interests,
through the real search path (a chat turn) and at unit level."""

import datetime as dt
from decimal import Decimal

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test.utils import CaptureQueriesContext

from assistant.dispatcher import dispatch
from assistant.llm.schema import Intent
from assistant.services import chat_turn
from assistant.turn import TurnContext
from demo.users import birth_date_for_age
from itinerary.matching import (
    ANONYMOUS,
    Viewer,
    age_on,
    eligible,
    interest_score,
    is_eligible,
    personalised,
    reranked,
    viewer_for,
)
from itinerary.models import Activity, GenderRestriction, InterestProfile
from itinerary.selectors import ActivityQuery, activity_search
from itinerary.tagging import system_tags_for
from tests.assistant.conftest import TODAY
from tests.factories import ActivityFactory, UserFactory

pytestmark = pytest.mark.django_db

HIKER = {"hiking": 0.9, "photography": 0.4}


def hangzhou(title: str, popularity: int, tags: list[str], **extra) -> Activity:
    """A Hangzhou activity open around TODAY, its system tags set as the service sets them."""
    return ActivityFactory(
        title=title,
        city="杭州",
        province="浙江",
        price=Decimal("300"),
        start_date=TODAY,
        end_date=TODAY + dt.timedelta(days=40),
        tags=tags,
        system_tags=system_tags_for(title, tags),
        popularity=popularity,
        **extra,
    )


@pytest.fixture
def catalogue():
    """Most popular first: food, culture, hiking. The hiking one is the least popular."""
    return [
        hangzhou("河坊街美食夜市", 30, ["美食"]),
        hangzhou("灵隐寺文化之旅", 20, ["文化"]),
        hangzhou("九溪十八涧徒步", 10, ["徒步"]),
    ]


def profile(user, *, scores=None, age=None, gender=InterestProfile.Gender.UNKNOWN) -> InterestProfile:
    birth_date = birth_date_for_age(age, today=TODAY) if age is not None else None
    return InterestProfile.objects.create(user=user, scores=scores or {}, birth_date=birth_date, gender=gender)


def titles(result) -> list[str]:
    return [card["title"] for card in result.cards]


def search(user, message="杭州有什么活动"):
    return chat_turn(user=user, message=message, today=TODAY)


# --- through a chat turn -------------------------------------------------------------------------------------------


def test_a_hiking_lover_sees_the_hiking_activity_first(alice, catalogue):
    profile(alice, scores=HIKER)

    result = search(alice)

    assert result.outcome == "ANSWERED"
    assert titles(result) == ["九溪十八涧徒步", "河坊街美食夜市", "灵隐寺文化之旅"]


def test_a_traveller_with_an_empty_profile_sees_the_catalogue_order(alice, catalogue):
    profile(alice)

    result = search(alice)

    assert titles(result) == ["河坊街美食夜市", "灵隐寺文化之旅", "九溪十八涧徒步"]


def test_a_traveller_without_a_profile_sees_the_catalogue_order(alice, catalogue):
    result = search(alice)

    expected = [a.title for a in activity_search(ActivityQuery.build(today=TODAY, keywords=["杭州"]))]
    assert titles(result) == expected == ["河坊街美食夜市", "灵隐寺文化之旅", "九溪十八涧徒步"]


def test_an_anonymous_visitor_sees_the_catalogue_order_and_every_restricted_activity(catalogue):
    hangzhou("西湖青年徒步营", 5, ["徒步"], min_age=18, max_age=25)
    hangzhou("女生专属茶园之旅", 4, ["茶"], gender_restriction=GenderRestriction.FEMALE)
    context = TurnContext(
        intent=Intent(intent="SEARCH_ACTIVITIES", destination_keywords=["杭州"]),
        user=AnonymousUser(),
        today=TODAY,
        language="zh-hans",
    )

    reply = dispatch(context)

    assert [c["title"] for c in reply.cards] == [
        "河坊街美食夜市",
        "灵隐寺文化之旅",
        "九溪十八涧徒步",
        "西湖青年徒步营",
        "女生专属茶园之旅",
    ]


def test_an_activity_for_ages_18_to_25_is_hidden_from_a_41_year_old_and_the_count_says_so(catalogue):
    hangzhou("西湖青年徒步营", 50, ["徒步"], min_age=18, max_age=25)
    bob = UserFactory(username="bob")
    profile(bob, age=41, gender=InterestProfile.Gender.MALE)

    result = search(bob)

    assert "西湖青年徒步营" not in titles(result)
    assert len(result.cards) == 3
    assert "找到 3 个" in result.reply


def test_an_activity_for_ages_18_to_25_is_shown_to_a_23_year_old(alice, catalogue):
    hangzhou("西湖青年徒步营", 50, ["徒步"], min_age=18, max_age=25)
    profile(alice, age=23)

    result = search(alice)

    assert titles(result)[0] == "西湖青年徒步营"
    assert "找到 4 个" in result.reply


def test_a_women_only_activity_is_hidden_from_a_man_and_shown_to_a_woman(alice, catalogue):
    hangzhou("女生专属茶园之旅", 50, ["茶"], gender_restriction=GenderRestriction.FEMALE)
    bob = UserFactory(username="bob")
    profile(bob, gender=InterestProfile.Gender.MALE)
    profile(alice, gender=InterestProfile.Gender.FEMALE)

    assert "女生专属茶园之旅" not in titles(search(bob))
    assert titles(search(alice))[0] == "女生专属茶园之旅"


def test_recommendations_are_filtered_and_reranked_too(alice, catalogue):
    hangzhou("女生专属茶园之旅", 50, ["茶"], gender_restriction=GenderRestriction.FEMALE)
    bob = UserFactory(username="bob")
    profile(bob, scores=HIKER, age=41, gender=InterestProfile.Gender.MALE)

    result = chat_turn(user=bob, message="推荐热门活动", today=TODAY)

    assert result.outcome == "ANSWERED"
    assert titles(result) == ["九溪十八涧徒步", "河坊街美食夜市", "灵隐寺文化之旅"]


def test_when_every_match_is_restricted_the_search_answers_empty(catalogue):
    Activity.objects.all().delete()
    hangzhou("女生专属茶园之旅", 50, ["茶"], gender_restriction=GenderRestriction.FEMALE)
    bob = UserFactory(username="bob")
    profile(bob, gender=InterestProfile.Gender.MALE)

    result = search(bob)

    assert result.outcome == "EMPTY"
    assert result.cards == []


# --- unit level ----------------------------------------------------------------------------------------------------


@pytest.mark.redis
def test_the_viewer_is_read_with_one_query_then_from_the_cache_until_the_profile_changes(
    alice, django_assert_num_queries
):
    kept = profile(alice, scores=HIKER, age=23, gender=InterestProfile.Gender.FEMALE)

    with django_assert_num_queries(1):
        viewer = viewer_for(user=alice, today=TODAY)
    assert viewer == Viewer(age=23, gender="FEMALE", scores=HIKER)
    with django_assert_num_queries(0):
        assert viewer_for(user=alice, today=TODAY) == viewer

    kept.scores = {"food": 0.8}
    kept.save()
    with django_assert_num_queries(1):
        assert viewer_for(user=alice, today=TODAY) == Viewer(age=23, gender="FEMALE", scores={"food": 0.8})
    kept.delete()
    assert viewer_for(user=alice, today=TODAY) == ANONYMOUS


def test_an_anonymous_user_or_a_missing_profile_is_the_anonymous_viewer(alice, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert viewer_for(user=AnonymousUser(), today=TODAY) == ANONYMOUS
        assert viewer_for(user=None, today=TODAY) == ANONYMOUS
    assert viewer_for(user=alice, today=TODAY) == ANONYMOUS


def test_age_counts_whole_years_from_the_birthday():
    born = dt.date(2001, 12, 2)
    assert age_on(born, dt.date(2026, 12, 1)) == 24
    assert age_on(born, dt.date(2026, 12, 2)) == 25


def test_the_age_range_includes_both_ends():
    youth = Activity(min_age=18, max_age=25, gender_restriction=GenderRestriction.NONE)

    assert [is_eligible(youth, Viewer(age=age)) for age in (17, 18, 25, 26)] == [False, True, True, False]


def test_unknown_facts_filter_nothing_and_known_facts_filter_only_their_rule():
    youth = Activity(min_age=18, max_age=25, gender_restriction=GenderRestriction.NONE)
    women = Activity(gender_restriction=GenderRestriction.FEMALE)

    assert is_eligible(youth, ANONYMOUS) and is_eligible(women, ANONYMOUS)
    assert is_eligible(youth, Viewer(gender="MALE")) and not is_eligible(women, Viewer(gender="MALE"))
    assert is_eligible(women, Viewer(age=41)) and not is_eligible(youth, Viewer(age=41))


def test_the_database_filter_and_the_python_rule_agree():
    hangzhou("青年营", 1, [], min_age=18, max_age=25)
    hangzhou("成人营", 1, [], min_age=18)
    hangzhou("少儿营", 1, [], max_age=12)
    hangzhou("女生营", 1, [], gender_restriction=GenderRestriction.FEMALE)
    hangzhou("男生营", 1, [], gender_restriction=GenderRestriction.MALE)
    hangzhou("大众营", 1, [])
    viewers = [ANONYMOUS, *(Viewer(age=a, gender=g) for a in (None, 10, 23, 41) for g in (None, "FEMALE", "MALE"))]

    for viewer in viewers:
        in_db = set(eligible(Activity.objects.all(), viewer=viewer).values_list("title", flat=True))
        in_python = {a.title for a in Activity.objects.all() if is_eligible(a, viewer)}
        assert in_db == in_python, viewer


def test_the_interest_score_sums_the_profile_scores_of_the_system_tags():
    activity = Activity(system_tags=["hiking", "photography", "lake"])

    assert interest_score(activity, Viewer(scores=HIKER)) == pytest.approx(1.3)
    assert interest_score(activity, ANONYMOUS) == 0


def test_reranking_is_stable_for_ties_and_a_no_op_without_scores():
    a, b, c, d = (
        Activity(title=t, system_tags=tags) for t, tags in (("a", []), ("b", ["hiking"]), ("c", []), ("d", ["hiking"]))
    )

    assert [x.title for x in reranked([a, b, c, d], Viewer(scores=HIKER))] == ["b", "d", "a", "c"]
    assert [x.title for x in reranked([a, b, c, d], ANONYMOUS)] == ["a", "b", "c", "d"]
    assert [x.title for x in reranked([a, b, c, d], Viewer(age=30, scores={}))] == ["a", "b", "c", "d"]


def test_personalising_reads_one_window_with_the_count_of_every_row_in_one_query(catalogue, django_assert_num_queries):
    viewer = Viewer(age=41, gender="MALE", scores=HIKER)
    query = ActivityQuery.build(today=TODAY, keywords=["杭州"])

    with django_assert_num_queries(1):
        shown, total = personalised(activity_search(query), viewer=viewer, limit=2)
    assert [a.title for a in shown] == ["九溪十八涧徒步", "河坊街美食夜市"]
    assert total == 3

    with django_assert_num_queries(1):  # more rows than the window: the count still comes with them
        shown, total = personalised(activity_search(query), viewer=viewer, limit=1, window=2)
    assert total == 3 and len(shown) == 1

    with django_assert_num_queries(1):  # a recommendation: no count
        shown, total = personalised(activity_search(query), viewer=viewer, limit=1, window=2, count=False)
    assert total is None and len(shown) == 1


def test_without_interest_scores_only_the_rows_shown_are_read(catalogue):
    """Nothing re-ranks them, so the re-ranking window is not read: the first `limit` rows in the catalogue's order
    (with the count of all) are the answer."""
    query = ActivityQuery.build(today=TODAY, keywords=["杭州"])
    with CaptureQueriesContext(connection) as captured:
        shown, total = personalised(activity_search(query), viewer=Viewer(age=41), limit=2)

    assert [a.title for a in shown] == ["河坊街美食夜市", "灵隐寺文化之旅"] and total == 3  # the catalogue's order
    assert captured.captured_queries[-1]["sql"].endswith("LIMIT 2")
