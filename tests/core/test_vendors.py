"""The vendor lexicon: each word in one place, airlines found by their code, and vendors found in a vendor's name."""

from collections import Counter

import pytest

from core.vendors import airline_by_code, airline_codes, vendors, vendors_named_in


def test_every_word_names_one_vendor_once():
    words = Counter(word.casefold() for vendor in vendors() for word in vendor.words)

    assert [word for word, count in words.items() if count > 1] == []


def test_every_vendor_is_named_once_and_its_name_is_no_other_vendors_word():
    names = [vendor.name for vendor in vendors()]
    named_by = {word.casefold(): vendor.name for vendor in vendors() for word in vendor.words}

    assert len(set(names)) == len(names)
    assert all(named_by.get(name.casefold(), name) == name for name in names)


def test_airlines_have_one_code_each_and_hotel_brands_none():
    airlines, hotels = vendors("FLIGHT"), vendors("HOTEL")
    codes = [airline.iata for airline in airlines]

    assert airlines and hotels and len(airlines) + len(hotels) == len(vendors())
    assert all(codes) and len(set(codes)) == len(codes)
    assert all(hotel.iata is None for hotel in hotels)
    assert set(codes) < airline_codes()


@pytest.mark.parametrize(
    ("code", "name"), [("MU", "东方航空"), ("CA", "中国国际航空"), ("3U", "四川航空"), ("9C", "春秋航空")]
)
def test_an_airline_is_found_by_its_code(code, name):
    assert airline_by_code(code).name == name


def test_a_code_of_an_airline_without_names_is_a_code_but_names_no_airline():
    assert "CX" in airline_codes()
    assert airline_by_code("CX") is None


@pytest.mark.parametrize(
    ("name", "found"),
    [
        ("东航", ["东方航空"]),
        ("China Eastern Airlines", ["东方航空"]),
        ("东方航空公司", ["东方航空"]),
        ("海南航空", ["海南航空"]),  # not the 南航 inside it
        ("Hainan", ["海南航空"]),  # a province in a sentence, the airline inside a vendor's name
        ("春秋", ["春秋航空"]),
        ("国航或南航", ["中国国际航空", "南方航空"]),
        ("大理湖畔酒店", []),
    ],
)
def test_the_airlines_a_vendor_name_says_are_found_longest_word_first(name, found):
    assert [vendor.name for vendor in vendors_named_in(name, "FLIGHT")] == found


def test_a_hotel_brand_is_found_among_hotels_only():
    assert [vendor.name for vendor in vendors_named_in("Hilton", "HOTEL")] == ["希尔顿"]
    assert vendors_named_in("Hilton", "FLIGHT") == []


def test_a_kind_without_vendors_finds_none():
    assert vendors_named_in("G101 高铁", "TRAIN") == []
