"""The supplier's own words for seats and cabins, which it answers in Chinese whatever the reader's language.

They are msgids as the supplier writes them; English readers get them from locale/en (any other language keeps the
supplier's word), so "二等座" reads "second class" in an English reply and stays 二等座 in a Chinese one.

    seat_name("二等座")   # "second class" under English, "二等座" under Chinese
"""

from django.utils.translation import gettext, gettext_noop

SEATS = (
    gettext_noop("经济舱"),
    gettext_noop("公务舱"),
    gettext_noop("商务舱"),
    gettext_noop("头等舱"),
    gettext_noop("二等座"),
    gettext_noop("一等座"),
    gettext_noop("商务座"),
    gettext_noop("软卧"),
    gettext_noop("硬卧"),
    gettext_noop("动卧"),
    gettext_noop("硬座"),
    gettext_noop("无座"),
)


def seat_name(word: object) -> str:
    """A seat or cabin as the active language says it (the supplier's word when it is not one we know)."""
    text = str(word or "")
    return gettext(text) if text in SEATS else text
