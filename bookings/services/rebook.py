"""Rebooking: change a booking to another option — the new booking first (same passengers), then the old one
cancelled through `booking_cancel`; its card and what it does with the money."""

import logging
from dataclasses import dataclass
from decimal import Decimal

from django.utils import translation
from django.utils.translation import gettext as _

from bookings.formatting import rebook_money_rows, rebook_money_text, times_text
from bookings.models import CLOSED_STATUSES, BookingRecord
from bookings.options import OptionRef
from bookings.selectors import booking_facts
from bookings.services.cancel import booking_cancel, booking_cancel_needs_approval, refund_record
from bookings.services.create import booking_create, booking_option_preview
from bookings.services.errors import BookingError, booking_closed_error
from bookings.services.passengers import booking_travellers
from bookings.services.search import option_ref_checked
from bookings.services.transitions import booking_of_user
from core.envelope import Code

logger = logging.getLogger(__name__)


@dataclass
class RebookOutcome:
    new: BookingRecord
    old: BookingRecord
    old_cancelled: bool
    cancel_error: str | None = None
    cancel_code: str | None = None
    money: dict | None = None  # `rebook_money`, with the refund the old booking's cancel recorded


def _rebookable(*, user, booking_id: object, option_ref: object) -> tuple[BookingRecord, OptionRef]:
    old = booking_of_user(user=user, booking_id=booking_id)
    if old.status in CLOSED_STATUSES:
        raise booking_closed_error(old, doing="change")
    ref = option_ref_checked(option_ref)
    if ref.biz_type != old.biz_type:
        raise BookingError(
            Code.INVALID_PARAM, f"booking {old.booking_id} is a {old.biz_type.lower()}, not a {ref.biz_type.lower()}"
        )
    if (old.details or {}).get("ref") == option_ref:
        raise BookingError(Code.INVALID_PARAM, f"booking {old.booking_id} is already this option")
    return old, ref


def booking_rebook_preview(*, user, booking_id: object, option_ref: object, language: str = "zh-hans") -> dict:
    """The confirmation card of a rebooking: the booking now, the new option, and what happens in which order."""
    old, _ref_ = _rebookable(user=user, booking_id=booking_id, option_ref=option_ref)
    preview = booking_option_preview(
        user=user, option_ref=option_ref, passengers=booking_travellers(old), language=language
    )
    facts = booking_facts(old)
    with translation.override(language):
        now = " ".join(
            p
            for p in (
                old.booking_id,
                facts["number"],
                facts["date"] or "",
                times_text(facts["depart"], facts["arrive"]) if facts["depart"] else "",
            )
            if p
        )
        order = _(
            "The new booking is made first, then %(old)s is cancelled; if that cancel fails, both stay and you are told."
        ) % {"old": old.booking_id}
        money = rebook_money(old, new_amount=Decimal(preview["amount"]))
        return {
            **preview,
            "title": _("Change to %(title)s") % {"title": preview["title"]},
            "rows": [[_("Booking now"), now], *preview["rows"], *rebook_money_rows(money)],
            "terms": " ".join((order, rebook_money_text(money), preview["terms"])),
            "subject": {**preview["subject"], "action": "rebook", "booking_id": old.booking_id, "money": money},
        }


def rebook_money(old: BookingRecord, *, new_amount: Decimal) -> dict:
    """What a rebooking does with the money, told on its card before anything moves and again after it: what the
    old booking was paid (None: not paid), its refund under the fare rules (`refund_record`, the same rule and
    record as any cancel; None: the supplier's or hotel's own rule), the new fare, the difference (new fare minus
    refund) and what is to pay (the new booking is a new order, paid in full). `waits_for_approver`: the old
    booking's cancel, and so its refund, waits for an approver."""
    refund = refund_record(old)
    refund_amount = None if refund is None or refund["refund"] is None else Decimal(refund["refund"])
    if refund is None:
        difference = new_amount
    elif refund_amount is None:
        difference = None
    else:
        difference = new_amount - refund_amount
    return {
        "paid": None if refund is None else refund["paid"],
        "refund": None if refund_amount is None else str(refund_amount),
        "share": None if refund is None else refund["share"],
        "new_amount": str(new_amount),
        "difference": None if difference is None else str(difference),
        "to_pay": str(new_amount),
        "waits_for_approver": booking_cancel_needs_approval(old),
        "old_booking_id": old.booking_id,
    }


def booking_rebook(*, user, booking_id: object, option_ref: object, scope: str | None = None) -> RebookOutcome:
    """Change a booking to another option: book the new one first (same passengers), then cancel the old one
    through `booking_cancel`. When the cancel fails (supplier down, an approver needed) both bookings stay and the
    outcome says why: nothing is lost. Repeating it (same scope) books nothing more.

    Raises BookingError like `booking_create` (then nothing changed), BOOKING_NOT_FOUND, INVALID_TRANSITION (the
    old booking is cancelled already).
    """
    old, _ref_ = _rebookable(user=user, booking_id=booking_id, option_ref=option_ref)
    new = booking_create(
        user=user,
        option_ref=option_ref,
        passengers=booking_travellers(old),
        scope=scope,
        reason=f"Rebooked from {old.booking_id} after the traveller confirmed.",
        extra_details={"rebooked_from": old.booking_id},
    )
    money = rebook_money(old, new_amount=new.amount)
    try:
        outcome = booking_cancel(user=user, booking_id=old.booking_id)
    except BookingError as exc:
        logger.warning(
            "rebook: the old booking was not cancelled", extra={"booking_id": old.booking_id, "code": exc.code}
        )
        old.refresh_from_db()
        return RebookOutcome(
            new=new,
            old=old,
            old_cancelled=False,
            cancel_error=exc.message,
            cancel_code=str(exc.code),
            money={**money, "refunded": False},
        )
    recorded = outcome.refund  # what the cancel recorded (the same rule as the card, at the moment it ran)
    if recorded is not None and recorded.get("refund") is not None:
        refund = Decimal(recorded["refund"])
        money = {**money, "refund": str(refund), "share": recorded["share"], "difference": str(new.amount - refund)}
    return RebookOutcome(new=new, old=outcome.booking, old_cancelled=True, money={**money, "refunded": True})
