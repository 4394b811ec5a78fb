"""Display text of bookings in the active language: durations, times, an option's title and card rows, amounts, the
terms of booking, cancelling and rebooking. Words only: every rule it states is decided in `bookings.services`."""

from decimal import Decimal

from django.utils.translation import gettext as _

from bookings import conf
from bookings.models import BizType, BookingRecord
from bookings.options import overnight_days
from bookings.platform import mask_mobiles
from bookings.refund_rules import refund_estimate
from bookings.vocabulary import names_shown, seat_name


def _masked(person: dict) -> str:
    mobile = person.get("mobile")
    return f"{person['name']} {mask_mobiles(mobile)}" if mobile else person["name"]


def _clock(moment: str | None) -> str:
    return str(moment or "")[11:16]


def duration_text(minutes: object) -> str:
    """2小时35分 / 2 h 35 min (through the translations)."""
    if not isinstance(minutes, int) or minutes <= 0:
        return ""
    hours, rest = divmod(minutes, 60)
    if not hours:
        return _("%(minutes)d min") % {"minutes": rest}
    if not rest:
        return _("%(hours)d h") % {"hours": hours}
    return _("%(hours)d h %(minutes)d min") % {"hours": hours, "minutes": rest}


def times_text(depart: str | None, arrive: str | None) -> str:
    """07:10 – 09:45, with +1 when it arrives the next day."""
    days = overnight_days(depart, arrive)
    text = f"{_clock(depart)} – {_clock(arrive)}" if arrive else _clock(depart)
    return f"{text} (+{days})" if days else text


def option_title(option: dict) -> str:
    """东方航空 MU5101 上海→成都 / G101 北京→天津 / 大理古城客栈 4★, in the active language (China Eastern MU5101
    Shanghai→Chengdu: `bookings.vocabulary.names_shown`)."""
    return names_shown(option, option["biz_type"])["title"]


def cancel_terms(biz_type: str, *, needs_approval: bool) -> str:
    """What booking it means for cancelling later; `needs_approval`: `cancel_needs_approval` of it once paid."""
    if biz_type == BizType.HOTEL:
        terms = _("Hotels cannot be cancelled online: to cancel, you call the hotel.")
    else:
        terms = _("It can be cancelled online later; the refund follows the supplier's rules.")
    if needs_approval:
        terms += " " + _(
            "Once it is paid, cancelling a booking above ¥%(limit)s needs an approver's decision; unpaid, it is "
            "cancelled on your confirmation."
        ) % {"limit": conf.cancel_approval_above()}
    return terms


def option_rows(option: dict, people: list[dict]) -> list[list[str]]:
    if option["biz_type"] == BizType.HOTEL:
        return [
            [_("Hotel"), option_title(option)],
            [_("Check-in"), option["check_in"]],
            [_("Check-out"), option["check_out"]],
            [_("Nights"), str(option["nights"])],
            [_("Guests"), "、".join(_masked(p) for p in people)],
            [_("Per night"), f"¥{option['unit_price']}"],
        ]  # the total is the card's own line (`amount`), not a row
    seat_label = _("Cabin") if option["biz_type"] == BizType.FLIGHT else _("Seat")
    rows = [
        [_("Date"), str(option["depart"])[:10]],
        [_("Departs – arrives"), times_text(option["depart"], option["arrive"])],
        [_("Duration"), duration_text(option.get("duration_minutes"))],
        [seat_label, seat_name(option["seat_class"], option.get("seat_class_en"))],
        [_("Passengers"), "、".join(_masked(p) for p in people)],
        [_("Price per person"), f"¥{option['unit_price']}"],
    ]
    return [row for row in rows if row[1]]


def yuan(value: str | Decimal) -> str:
    """An amount as cards and replies write it: ¥390, ¥370.50."""
    return f"¥{Decimal(value):.2f}".replace(".00", "")


def rebook_money_rows(money: dict) -> list[list[str]]:
    """The card's money rows of a rebooking, in the active language."""
    if money["paid"] is None:
        rows = [[_("Paid for the booking now"), _("nothing (not paid yet)")]]
    else:
        refund = (
            _("%(amount)s (%(share)s%% under its fare rules)")
            % {"amount": yuan(money["refund"]), "share": money["share"]}
            if money["refund"] is not None
            else _("by the supplier's own rules")
        )
        rows = [[_("Paid for the booking now"), yuan(money["paid"])], [_("Refund of it"), refund]]
    rows.append([_("New fare"), yuan(money["new_amount"])])
    if money["difference"] is not None and money["paid"] is not None:
        difference = Decimal(money["difference"])
        sign = "+" if difference >= 0 else "−"
        rows.append([_("Difference"), f"{sign}{yuan(abs(difference))}"])
    rows.append([_("To pay for the new booking"), yuan(money["to_pay"])])
    return rows


def rebook_money_text(money: dict) -> str:
    """What a rebooking does with the money, in a sentence or two of the active language (the card's terms)."""
    facts = {
        "old": money["old_booking_id"],
        "paid": yuan(money["paid"]) if money["paid"] is not None else "",
        "refund": yuan(money["refund"]) if money["refund"] is not None else "",
        "share": money["share"] or "",
        "new": yuan(money["new_amount"]),
        "to_pay": yuan(money["to_pay"]),
    }
    if money["paid"] is None:
        return (
            _(
                "Nothing was paid for %(old)s, so nothing is refunded; the new booking (%(new)s) is to pay, by its "
                "payment deadline."
            )
            % facts
        )
    if money["refund"] is None:
        text = (
            _(
                "%(old)s was paid %(paid)s: cancelling it refunds under the supplier's own rules. The new booking "
                "(%(new)s) is a new order: %(to_pay)s is to pay."
            )
            % facts
        )
    else:
        difference = Decimal(money["difference"])
        text = (
            _(
                "%(old)s was paid %(paid)s: cancelling it refunds %(refund)s (%(share)s%% under its fare rules) to how "
                "you paid. The new booking (%(new)s) is a new order: %(to_pay)s is to pay."
            )
            % facts
        )
        if difference > 0:
            text += " " + _("With the refund, the change costs you %(diff)s more.") % {"diff": yuan(difference)}
        elif difference < 0:
            text += " " + _("With the refund, you get back %(diff)s more than the new fare.") % {
                "diff": yuan(-difference)
            }
        else:
            text += " " + _("With the refund, the change costs nothing more.")
    if money["waits_for_approver"]:
        text += " " + _(
            "It is paid and above ¥%(limit)s, so cancelling %(old)s (and its refund) waits for an approver; until "
            "then you hold both bookings."
        ) % {"limit": conf.cancel_approval_above(), "old": money["old_booking_id"]}
    return text


def refund_terms(booking: BookingRecord) -> str:
    """What cancelling a flight or train gives back, under its fare rules (`bookings.refund_rules`)."""
    estimate = refund_estimate(booking)
    if not estimate.paid:
        return _("It is cancelled on the supplier platform. It is not paid yet, so nothing is charged or refunded.")
    if estimate.amount is None:
        return _("It is cancelled on the supplier platform; the refund follows the supplier's rules.")
    return _(
        "It is cancelled on the supplier platform. Refund under its fare rules: ¥%(refund)s of the ¥%(paid)s paid "
        "(%(share)s%%: cancelled %(band)s)."
    ) % {"refund": estimate.amount, "paid": booking.amount, "share": estimate.percent, "band": estimate.band_text}
