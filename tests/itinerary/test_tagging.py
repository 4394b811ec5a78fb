"""system_tags_for: Chinese titles and tags mapped to the fixed English vocabulary."""

from demo.catalogue import demo_activity_data
from itinerary.tagging import SYSTEM_TAGS, system_tags_for


def test_given_a_lake_cycling_day_when_tagging_then_it_is_cycling_lake_and_nature():
    assert system_tags_for("赛里木湖环湖骑行一日游", ["骑行", "湖泊", "户外"]) == ["cycling", "lake", "nature"]


def test_given_a_ski_trip_when_tagging_then_it_is_skiing_and_snow():
    assert system_tags_for("亚布力滑雪三日游", ["滑雪", "多日游"]) == ["skiing", "snow"]


def test_given_words_only_in_the_title_when_tagging_then_the_title_counts():
    assert system_tags_for("凤凰古城沱江夜游", []) == ["ancient_town", "nightlife"]


def test_given_a_night_market_when_tagging_then_one_word_gives_several_tags():
    assert system_tags_for("告庄夜市", []) == ["food", "nightlife", "shopping"]


def test_given_a_tag_already_in_the_vocabulary_when_tagging_then_it_is_kept_lower_cased():
    assert system_tags_for("Some tour", ["Beach", "hiking"]) == ["hiking", "beach"]


def test_given_words_the_vocabulary_does_not_know_when_tagging_then_there_are_no_tags():
    assert system_tags_for("一日游", ["多日游", "自驾"]) == []
    assert system_tags_for("", []) == []


def test_tags_come_out_in_vocabulary_order_without_duplicates():
    tags = system_tags_for("黄山温泉徒步摄影", ["徒步", "摄影", "温泉", "登山"])

    assert tags == ["hiking", "photography", "hot_spring"]
    assert tags == [t for t in SYSTEM_TAGS if t in tags]


def test_every_demo_activity_gets_at_least_one_system_tag():
    for entry in demo_activity_data():
        assert system_tags_for(entry["title"], entry["tags"]), entry["title"]
