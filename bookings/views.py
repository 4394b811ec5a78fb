"""My bookings: the list with what the supplier changed (notices), a refresh from the supplier, and per booking
Pay now and Cancel (HTMX swaps the row; a plain post works too).

Paying and cancelling are two steps, as everywhere (issue 13): the button shows what will be done (the exact amount
to pay, with its deadline; a cancel's refund under the fare rules, a hotel to call, an approver above the amount)
with Confirm and Back; only a POST carrying `confirm=1` goes through `booking_pay` / `booking_cancel`, like chat and
the API. The list is shown at once from our records; the page then asks for a refresh (`bookings_refresh_for_user`,
at most once per BOOKING_REFRESH_SECONDS), so a slow supplier never holds the page up.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from bookings.formatting import yuan
from bookings.selectors import bookings_for_user, notices_for_user
from bookings.services.cancel import booking_cancel, booking_cancel_preview
from bookings.services.errors import BookingError
from bookings.services.notices import booking_notices_mark_read
from bookings.services.pay import booking_pay, booking_pay_preview
from bookings.sync import bookings_refresh_for_user
from core.envelope import Code
from core.ids import normalise_booking_id

LISTED = 100
NOTICES_SHOWN = 10


@login_required
def booking_list(request):
    bookings = bookings_for_user(user=request.user)[:LISTED]
    notices = list(notices_for_user(user=request.user)[:NOTICES_SHOWN])
    booking_notices_mark_read(user=request.user, notice_ids=[n.pk for n in notices])
    return render(request, "bookings/list.html", {"bookings": bookings, "notices": notices})


@login_required
@require_GET
def booking_refresh(request):
    """The rows again after asking the supplier what changed (the page asks for it once it is shown)."""
    report = bookings_refresh_for_user(user=request.user)
    bookings = bookings_for_user(user=request.user)[:LISTED]
    notices = list(notices_for_user(user=request.user)[:NOTICES_SHOWN])
    booking_notices_mark_read(user=request.user, notice_ids=[n.pk for n in notices])
    context = {"bookings": bookings, "notices": notices, "report": report}
    if request.htmx:
        return render(request, "bookings/partials/refreshed.html", context)
    return redirect("bookings:list")


def _own(user, booking_id: str):
    bid = normalise_booking_id(booking_id)
    return bookings_for_user(user=user).filter(booking_id=bid).first() if bid else None


def _first_step(request, booking_id: str, *, preview_of, template: str):
    """The first step of a pay or a cancel: what it will do, with Confirm (POST confirm=1) and Back."""
    try:
        preview = preview_of(user=request.user, booking_id=booking_id, language=get_language())
    except BookingError as exc:
        booking = _own(request.user, booking_id)
        if request.htmx:
            if booking is None:
                return render(request, "bookings/partials/notice.html", {"error": exc})
            return render(request, "bookings/partials/row.html", {"booking": booking, "error": exc})
        messages.error(request, exc.message)
        return redirect("bookings:list")
    context = {"booking": _own(request.user, booking_id), "preview": preview}
    if request.htmx:
        return render(request, f"bookings/partials/{template}.html", context)
    return render(request, f"bookings/{template}.html", context)


def _row_or_list(request, booking_id: str, *, outcome, error, note: str, extra: dict | None = None):
    """After the second step: the row as it is now (HTMX), else the list with a message."""
    if request.htmx:
        booking = outcome.booking if outcome else _own(request.user, booking_id)
        if booking is None:
            return render(request, "bookings/partials/notice.html", {"error": error})
        context = {"booking": booking, "outcome": outcome, "error": error, **(extra or {})}
        return render(request, "bookings/partials/row.html", context)
    if error:
        messages.error(request, error.message)
    elif note:
        messages.success(request, note)
    return redirect("bookings:list")


@login_required
@require_http_methods(["GET", "POST"])
def booking_pay_view(request, booking_id: str):
    if request.method == "GET" or request.POST.get("confirm") != "1":
        return _first_step(request, booking_id, preview_of=booking_pay_preview, template="confirm_pay")
    error, outcome = None, None
    try:
        outcome = booking_pay(user=request.user, booking_id=booking_id)
    except BookingError as exc:
        error = exc
    note = ""
    if outcome is not None:
        note = (_("%(booking)s: paid already.") if outcome.already_paid else _("%(booking)s: paid and confirmed.")) % {
            "booking": outcome.booking.booking_id
        }
    return _row_or_list(request, booking_id, outcome=outcome, error=error, note=note, extra={"paid": outcome})


@login_required
@require_http_methods(["GET", "POST"])
def booking_cancel_view(request, booking_id: str):
    if request.method == "GET" or request.POST.get("confirm") != "1":
        return _first_step(request, booking_id, preview_of=booking_cancel_preview, template="confirm_cancel")
    error, outcome = None, None
    try:
        outcome = booking_cancel(user=request.user, booking_id=booking_id)
    except BookingError as exc:
        error = exc
    waiting = error is not None and error.code == Code.TICKET_PENDING
    ticket_no = (error.data or {}).get("ticket_no") if error is not None else None
    if waiting and not request.htmx:
        messages.info(
            request,
            _("%(booking)s: the cancellation waits for an approver (ticket %(ticket)s); nothing is cancelled yet.")
            % {"booking": normalise_booking_id(booking_id), "ticket": ticket_no},
        )
        return redirect("bookings:list")
    note = ""
    if outcome is not None:
        booking = outcome.booking.booking_id
        if outcome.already_cancelled:
            note = _("%(booking)s: already cancelled.") % {"booking": booking}
        elif outcome.call_the_hotel:
            note = _("%(booking)s: cancelled — please call the hotel to confirm.") % {"booking": booking}
        elif outcome.refund and outcome.refund.get("refund") is not None:
            note = _("%(booking)s: cancelled; %(refund)s of the %(paid)s paid is refunded under its fare rules.") % {
                "booking": booking,
                "refund": yuan(outcome.refund["refund"]),
                "paid": yuan(outcome.refund["paid"]),
            }
        else:
            note = _("%(booking)s: cancelled.") % {"booking": booking}
    extra = {"waiting": waiting, "ticket_no": ticket_no, "cancel": outcome}
    return _row_or_list(request, booking_id, outcome=outcome, error=error, note=note, extra=extra)
