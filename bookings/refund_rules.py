"""What cancelling a paid booking gives back: the share of the fare by how long before departure it is cancelled.

    estimate = refund_estimate(booking)      # RefundEstimate(paid=True, amount=Decimal("1528.00"), share=…)

One place for the fare rules, read by the cancel's confirmation card (what the traveller is told before they
confirm). Flights follow the usual airline fare rules, trains the railway's (8 days, 48 hours, 24 hours); a hotel's
refund is the hotel's own rule (not known here), and a booking that was never paid gives back nothing because
nothing was charged.
"""

import datetime as dt
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from django.utils import timezone
from django.utils.translation import gettext as _

from bookings.models import BizType, BookingRecord, BookingStatus
from bookings.selectors import booking_facts

# (at least this long before departure, share of the fare given back), longest first; the last band starts at 0.
FLIGHT_SHARES = (
    (dt.timedelta(days=7), Decimal("0.95")),
    (dt.timedelta(hours=24), Decimal("0.80")),
    (dt.timedelta(0), Decimal("0.50")),
)
TRAIN_SHARES = (
    (dt.timedelta(days=8), Decimal("1.00")),
    (dt.timedelta(hours=48), Decimal("0.95")),
    (dt.timedelta(hours=24), Decimal("0.90")),
    (dt.timedelta(0), Decimal("0.80")),
)


@dataclass(frozen=True)
class RefundEstimate:
    """What a cancel gives back: nothing (not paid), a share of the fare in its band, or unknown here (None)."""

    paid: bool
    amount: Decimal | None = None
    share: Decimal | None = None
    at_least: dt.timedelta | None = None  # the band: cancelled at least this long before departure
    below: dt.timedelta | None = None  # … and less than this long (None: the longest band)

    @property
    def percent(self) -> str:
        return f"{(self.share or 0) * 100:.0f}"

    @property
    def band_text(self) -> str:
        """The band in words, in the active language ("at least 7 days before departure")."""
        if self.at_least is None:
            return _("after departure")
        if self.below is not None and self.at_least == dt.timedelta(0):
            return _("less than %(span)s before departure") % {"span": _span(self.below)}
        return _("at least %(span)s before departure") % {"span": _span(self.at_least)}


def _span(delta: dt.timedelta) -> str:
    hours = int(delta.total_seconds() // 3600)
    if hours % 24 == 0 and hours >= 24 * 7:
        return _("%(n)s days") % {"n": hours // 24}
    return _("%(n)s hours") % {"n": hours}


def refund_estimate(booking: BookingRecord, *, now: dt.datetime | None = None) -> RefundEstimate:
    """The refund a cancel of `booking` would bring now under its fare rules."""
    if booking.status != BookingStatus.CONFIRMED:
        return RefundEstimate(paid=False)
    depart = _departure(booking)
    if booking.biz_type == BizType.HOTEL or depart is None:
        return RefundEstimate(paid=True)
    ahead = depart - (now or timezone.now())
    if ahead < dt.timedelta(0):
        return RefundEstimate(paid=True, amount=Decimal("0.00"), share=Decimal("0"))
    shares = FLIGHT_SHARES if booking.biz_type == BizType.FLIGHT else TRAIN_SHARES
    index = next(i for i, (least, _share) in enumerate(shares) if ahead >= least)
    least, share = shares[index]
    amount = (booking.amount * share).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    below = shares[index - 1][0] if index > 0 else None
    return RefundEstimate(paid=True, amount=amount, share=share, at_least=least, below=below)


def _departure(booking: BookingRecord) -> dt.datetime | None:
    raw = booking_facts(booking).get("depart")
    try:
        moment = dt.datetime.fromisoformat(str(raw)) if raw else None
    except ValueError:
        return None
    if moment is not None and timezone.is_naive(moment):
        moment = timezone.make_aware(moment)
    return moment
