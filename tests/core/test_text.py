"""Text a database can store: lone surrogates and NUL characters found (with where they are) or made storable."""

import pytest

from core.text import storable, storable_text, unstorable_in

SURROGATE, NUL = "\ud800", "\x00"


@pytest.mark.parametrize(
    ("value", "where"),
    [
        ({"reason": f"坏了{SURROGATE}"}, "reason"),
        ({"reason": f"坏了{NUL}"}, "reason"),
        ({"passengers": [{"name": "张三"}, {"name": f"李四{NUL}"}]}, "passengers/1/name"),
        ({"ok": "text", f"k{SURROGATE}": "v"}, "k\ufffd"),
        ("\udfff alone", "(the value itself)"),
        ({"pair": "\ud83d\ude00"}, "pair"),  # two surrogates are no emoji in a Python string
    ],
    ids=["surrogate", "nul", "nested", "key", "top level", "surrogate pair"],
)
def test_a_string_a_database_cannot_store_is_found_with_where_it_is(value, where):
    found = unstorable_in(value)

    assert found == where
    found.encode("utf-8")  # the place itself can be told to the model


def test_text_a_database_stores_is_not_flagged():
    value = {"name": "张三 😀", "notes": ["tab\tand newline\n", "e\u0301", "\u202eRTL"], "n": 3, "none": None}

    assert unstorable_in(value) is None


def test_a_deep_value_costs_no_recursion():
    deep: list = [f"x{NUL}"]
    for _ in range(100_000):
        deep = [deep]

    assert unstorable_in(deep).endswith("/0")


def test_surrogates_become_the_replacement_character_and_nuls_are_dropped():
    assert storable_text(f"坏{SURROGATE}了{NUL}") == "坏\ufffd了"
    assert storable_text("干净的文字 😀") == "干净的文字 😀"


def test_a_value_made_storable_keeps_its_shape_and_its_other_types():
    value = {f"k{SURROGATE}": [f"a{NUL}", 1, None, ("t", 2.5)], "ok": True}

    made = storable(value)

    assert made == {"k\ufffd": ["a", 1, None, ("t", 2.5)], "ok": True}
    assert unstorable_in(made) is None
    assert value == {f"k{SURROGATE}": [f"a{NUL}", 1, None, ("t", 2.5)], "ok": True}  # the original is untouched
