"""Destination tips from the local knowledge file."""

import json
import re

from assistant.knowledge import DESTINATIONS_FILE, destination_entries, tip_for
from demo.catalogue import demo_activity_data

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_given_sayram_lake_in_chinese_when_asking_for_a_tip_then_the_chinese_tip_is_returned():
    tip = tip_for(["赛里木湖"], "zh-hans")

    assert tip["destination"] == "赛里木湖"
    assert tip["language"] == "zh"
    assert tip["tip"] == tip["tip_zh"] and CJK.search(tip["tip"])
    assert "6月" in tip["best_season"]


def test_given_sayram_lake_in_english_when_asking_for_a_tip_then_the_english_tip_is_returned():
    tip = tip_for(["赛里木湖"], "en")

    assert (tip["destination"], tip["name"], tip["language"]) == ("赛里木湖", "Sayram Lake", "en")
    assert tip["tip"] == tip["tip_en"] and not CJK.search(tip["tip"])
    assert "June" in tip["best_season"]


def test_given_the_english_name_in_any_case_when_asking_for_a_tip_then_it_finds_the_same_lake():
    assert tip_for(["sayram"], "en")["destination"] == "赛里木湖"
    assert tip_for(["SAYRAM"], "zh")["destination"] == "赛里木湖"


def test_given_a_place_no_entry_knows_when_asking_for_a_tip_then_there_is_none():
    assert tip_for(["火星"], "zh") is None
    assert tip_for([], "zh") is None
    assert tip_for(["", "  ", "湖"], "zh") is None  # blank and one-character keywords match nothing


def test_given_a_longer_phrase_containing_a_keyword_when_asking_then_the_phrase_matches():
    assert tip_for(["赛里木湖环湖骑行"], "zh")["destination"] == "赛里木湖"


def test_given_several_keywords_when_asking_then_the_entry_matching_most_of_them_wins():
    assert tip_for(["新疆"], "zh")["destination"] == "赛里木湖"  # the first Xinjiang entry in the file
    assert tip_for(["新疆", "喀纳斯"], "zh")["destination"] == "喀纳斯"


def test_given_a_keyword_contained_in_two_entries_when_asking_then_the_exact_match_wins():
    # "海南" is Sanya's province and also inside 青海湖's "海南州".
    assert tip_for(["海南"], "zh")["destination"] == "三亚"
    assert tip_for(["桂林"], "zh")["destination"] == "桂林"  # also 阳朔's city


def test_given_a_returned_tip_when_it_is_changed_then_the_file_data_is_not():
    tip_for(["大理"], "zh")["keywords"].append("火星")

    assert tip_for(["火星"], "zh") is None


def test_the_knowledge_file_covers_every_catalogue_destination_with_every_field_filled():
    entries = json.loads(DESTINATIONS_FILE.read_text(encoding="utf-8"))
    fields = ["best_season_zh", "best_season_en", "bring_zh", "bring_en", "tip_zh", "tip_en"]

    assert len(entries) >= 30
    assert len(destination_entries()) == len(entries)
    assert {e["destination"] for e in entries} >= {a["destination"] for a in demo_activity_data()}
    for entry in entries:
        assert entry["destination"] in entry["keywords"]
        assert all(entry[field].strip() for field in fields), entry["destination"]
        assert all(len(keyword) >= 2 for keyword in entry["keywords"]), entry["destination"]
