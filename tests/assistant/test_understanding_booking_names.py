"""The rules reader tells a booking the traveller has from a new trip: a payment that names a booking (我的…, 订单,
my … booking) is the payment of that booking, its place a hint of which; 最新的 / the last one I booked names the
newest made, never the latest departure of a new search."""

import pytest


@pytest.mark.parametrize(
    ("text", "ordinal"),
    [
        ("支付最新的那个三亚酒店订单", "NEWEST"),
        ("pay for my latest booking", "NEWEST"),
        ("取消最近订的那张机票", "NEWEST"),
        ("cancel the last one I booked", "NEWEST"),
        ("取消第一个订的机票", "OLDEST"),
        ("cancel the first one I booked", "OLDEST"),
    ],
)
def test_a_booking_named_by_when_it_was_made_is_no_order_of_options_nor_a_pick(rules_port, text, ordinal):
    intent = rules_port.understand(text).intent

    assert intent.booking_ordinal == ordinal
    assert intent.sort is None and intent.pick is None


@pytest.mark.parametrize(
    "text", ["支付我的三亚酒店订单", "pay for my Sanya hotel booking", "支付最新的那个三亚酒店订单"]
)
def test_a_payment_naming_a_booking_with_its_place_pays_it(rules_port, text):
    intent = rules_port.understand(text).intent

    assert (intent.intent, intent.pay, intent.city) == ("BOOK", True, "三亚")


@pytest.mark.parametrize("text", ["pay for a hotel in Dali", "帮我订三亚的酒店"])
def test_a_new_trip_with_a_place_is_no_payment(rules_port, text):
    assert rules_port.understand(text).intent.pay is False


def test_the_last_train_of_a_new_search_stays_an_order_of_options(rules_port):
    intent = rules_port.understand("最晚一班回上海的火车").intent

    assert intent.sort == "LATEST" and intent.booking_ordinal is None
