"""One chat turn end to end, through the rules engine, the catalogue and the reply templates."""

import datetime as dt
import logging
from decimal import Decimal

import pytest

from assistant.knowledge import tip_for
from assistant.models import LLMCall, Turn
from assistant.services import InvalidMessage, chat_turn
from tests.assistant.conftest import TODAY
from tests.factories import ActivityFactory

pytestmark = pytest.mark.django_db

WEEKEND = (dt.date(2026, 12, 5), dt.date(2026, 12, 6))


def sayram(title, price, start, end, **extra):
    return ActivityFactory(
        title=title, city="博乐", province="新疆", price=Decimal(price), start_date=start, end_date=end, **extra
    )


def card_titles(result):
    return [c["title"] for c in result.cards]


def test_a_search_with_a_destination_answers_with_its_activities_within_budget_and_a_tip(alice):
    sayram("赛里木湖环湖骑行", 800, TODAY, TODAY + dt.timedelta(days=40))
    sayram("赛里木湖星空摄影团", 1900, TODAY, TODAY + dt.timedelta(days=40))
    sayram("赛里木湖豪华七日游", 5200, TODAY, TODAY + dt.timedelta(days=40))
    ActivityFactory(title="大理洱海骑行", city="大理", province="云南", start_date=TODAY, end_date=TODAY)

    result = chat_turn(user=alice, message="想去赛里木湖，预算2000", today=TODAY)

    assert result.outcome == "ANSWERED"
    assert sorted(card_titles(result)) == ["赛里木湖星空摄影团", "赛里木湖环湖骑行"]
    assert all(Decimal(c["price"]) <= 2000 for c in result.cards)
    assert result.cards[0]["url"].startswith("/activities/")
    tip = tip_for(["赛里木湖"], "zh-hans")
    assert tip and tip["tip_zh"] in result.reply
    assert "2000" in result.reply  # the conditions used are said back


def test_unpublished_and_past_activities_are_never_shown(alice):
    sayram("赛里木湖已下架团", 500, TODAY, TODAY + dt.timedelta(days=40), is_published=False)
    sayram("赛里木湖去年的团", 500, TODAY - dt.timedelta(days=90), TODAY - dt.timedelta(days=60))
    sayram("赛里木湖环湖骑行", 500, TODAY, TODAY + dt.timedelta(days=40))

    result = chat_turn(user=alice, message="赛里木湖有什么活动", today=TODAY)

    assert card_titles(result) == ["赛里木湖环湖骑行"]


def test_a_search_without_a_place_asks_one_question_and_the_answer_completes_it(alice):
    sayram("赛里木湖周末骑行", 1500, WEEKEND[0], WEEKEND[1])
    sayram("赛里木湖周末豪华团", 2500, WEEKEND[0], WEEKEND[1])
    sayram("赛里木湖下月摄影团", 800, TODAY + dt.timedelta(days=20), TODAY + dt.timedelta(days=25))

    first = chat_turn(user=alice, message="本周末，预算2000", today=TODAY)
    assert first.outcome == "CLARIFY"
    assert first.cards == []
    assert "哪里" in first.reply

    second = chat_turn(user=alice, message="赛里木湖", conversation_id=first.conversation_id, today=TODAY)

    assert second.conversation_id == first.conversation_id
    assert second.outcome == "ANSWERED"
    assert card_titles(second) == ["赛里木湖周末骑行"]
    assert second.intent["date_start"] == "2026-12-05" and second.intent["date_end"] == "2026-12-06"
    assert second.intent["max_price"] == 2000


def test_a_fresh_turn_forgets_what_the_conversation_remembered(alice):
    sayram("赛里木湖豪华团", 2500, TODAY, TODAY + dt.timedelta(days=40))
    first = chat_turn(user=alice, message="赛里木湖，预算1000", today=TODAY)
    assert first.outcome == "EMPTY"

    again = chat_turn(
        user=alice, message="赛里木湖有什么活动", conversation_id=first.conversation_id, today=TODAY, fresh=True
    )

    assert card_titles(again) == ["赛里木湖豪华团"]


def test_out_of_scope_is_refused_with_what_the_assistant_can_do(alice):
    result = chat_turn(user=alice, message="帮我写一首关于秋天的诗", today=TODAY)

    assert result.outcome == "REFUSED"
    assert result.cards == []
    assert "活动" in result.reply and "退款" in result.reply
    assert result.suggestions


def test_recommend_shows_popular_upcoming_activities_most_popular_first(alice):
    ActivityFactory(
        title="大理古城漫游",
        city="大理",
        province="云南",
        popularity=50,
        start_date=TODAY,
        end_date=TODAY + dt.timedelta(days=9),
    )
    ActivityFactory(
        title="黄山日出",
        city="黄山",
        province="安徽",
        popularity=90,
        start_date=TODAY,
        end_date=TODAY + dt.timedelta(days=9),
    )
    ActivityFactory(
        title="三亚潜水",
        city="三亚",
        province="海南",
        popularity=99,
        start_date=TODAY + dt.timedelta(days=200),
        end_date=TODAY + dt.timedelta(days=209),
    )

    result = chat_turn(user=alice, message="有什么好玩的推荐吗", today=TODAY)

    assert result.outcome == "ANSWERED"
    assert card_titles(result) == ["黄山日出", "大理古城漫游"]


def test_nothing_found_says_the_conditions_and_how_to_widen_them_not_a_refusal(alice):
    sayram("赛里木湖豪华七日游", 5200, TODAY, TODAY + dt.timedelta(days=40))

    result = chat_turn(user=alice, message="赛里木湖 500以内", today=TODAY)

    assert result.outcome == "EMPTY"
    assert result.cards == []
    assert "500" in result.reply and "赛里木湖" in result.reply
    assert "预算" in result.reply  # a concrete way to widen: the budget
    assert any(chip["fresh"] for chip in result.suggestions)


def test_a_known_place_without_activities_is_empty_not_refused(alice):
    result = chat_turn(user=alice, message="漠河有什么好玩的", today=TODAY)

    assert result.outcome == "EMPTY"
    assert "漠河" in result.reply


def test_an_english_message_gets_an_english_answer(alice):
    ActivityFactory(
        title="西湖夜游",
        title_en="West Lake by night",
        city="杭州",
        province="浙江",
        price=Decimal("300"),
        start_date=TODAY,
        end_date=TODAY + dt.timedelta(days=30),
    )

    result = chat_turn(user=alice, message="show me tours to West Lake, budget 2k", today=TODAY)

    assert card_titles(result) == ["West Lake by night"]
    assert result.reply.startswith("I found 1 activity")


def test_every_turn_leaves_an_audit_row_and_a_log_line(alice, caplog):
    caplog.set_level(logging.INFO, logger="assistant.turn")

    result = chat_turn(user=alice, message="大理有什么活动", today=TODAY)

    turn = Turn.objects.get(pk=result.meta["turn_id"])
    assert (turn.user, turn.intent, turn.provider, turn.model) == (alice, "SEARCH_ACTIVITIES", "rules", "rules-v1")
    assert turn.outcome == result.outcome
    assert LLMCall.objects.filter(turn=turn, purpose="understand", outcome="OK").count() == 1
    assert any(r.message == "turn" and r.intent == "SEARCH_ACTIVITIES" for r in caplog.records)


@pytest.mark.parametrize("bad", ["", "   ", "\x00\x01", "x" * 2001, None])
def test_an_empty_or_oversized_message_is_refused_and_records_nothing(alice, bad):
    with pytest.raises(InvalidMessage):
        chat_turn(user=alice, message=bad, today=TODAY)
    assert not Turn.objects.exists()
    assert not LLMCall.objects.exists()


def test_the_daily_limit_stops_turns_with_a_clear_message_and_no_model_call(alice, settings):
    settings.ASSISTANT_DAILY_TURN_LIMIT = 2
    chat_turn(user=alice, message="大理有什么活动", today=TODAY)
    chat_turn(user=alice, message="丽江有什么活动", today=TODAY)

    third = chat_turn(user=alice, message="三亚有什么活动", today=TODAY)

    assert third.outcome == "RATE_LIMITED"
    assert "2" in third.reply
    assert LLMCall.objects.count() == 2
    # Refused before it became a turn: nothing of it is recorded (the limit's counter is what moved).
    assert Turn.objects.count() == 2 and not Turn.objects.filter(outcome="RATE_LIMITED").exists()


def test_the_limit_counts_each_user_apart(alice, settings, user_factory):
    settings.ASSISTANT_DAILY_TURN_LIMIT = 1
    chat_turn(user=alice, message="大理有什么活动", today=TODAY)

    bob_turn = chat_turn(user=user_factory("bob"), message="大理有什么活动", today=TODAY)

    assert bob_turn.outcome != "RATE_LIMITED"


def test_someone_elses_conversation_id_starts_a_new_conversation(alice, user_factory):
    mine = chat_turn(user=alice, message="本周末，预算2000", today=TODAY)

    theirs = chat_turn(
        user=user_factory("mallory"), message="赛里木湖", conversation_id=mine.conversation_id, today=TODAY
    )

    assert theirs.conversation_id != mine.conversation_id
    assert theirs.intent.get("max_price") is None  # nothing of alice's conversation leaked into it
