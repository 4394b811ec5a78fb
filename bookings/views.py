"""My bookings: the list, and a cancel button per booking (HTMX swaps the row; a plain post works too).

Cancelling is two steps, as everywhere (issue 13): the button shows what cancelling will do
(`booking_cancel_preview`: the booking's facts, a refund or a call to the hotel, an approver above the amount) with
Confirm and Back; only a POST carrying `confirm=1` goes through `booking_cancel`, like chat and the API.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from bookings.selectors import bookings_for_user
from bookings.services import BookingError, booking_cancel, booking_cancel_preview
from core.envelope import Code
from core.ids import normalise_booking_id


@login_required
def booking_list(request):
    bookings = bookings_for_user(user=request.user)[:100]
    return render(request, "bookings/list.html", {"bookings": bookings})


def _confirm_step(request, booking_id: str):
    """The first step: what cancelling will do, with Confirm (POST confirm=1) and Back. Nothing changes."""
    try:
        preview = booking_cancel_preview(user=request.user, booking_id=booking_id, language=get_language())
    except BookingError as exc:
        booking = _own_booking(request.user, booking_id)
        if request.htmx:
            if booking is None:
                return render(request, "bookings/partials/notice.html", {"error": exc})
            return render(request, "bookings/partials/row.html", {"booking": booking, "error": exc})
        messages.error(request, exc.message)
        return redirect("bookings:list")
    booking = _own_booking(request.user, booking_id)
    context = {"booking": booking, "preview": preview}
    if request.htmx:
        return render(request, "bookings/partials/confirm_cancel.html", context)
    return render(request, "bookings/confirm_cancel.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def booking_cancel_view(request, booking_id: str):
    if request.method == "GET" or request.POST.get("confirm") != "1":
        return _confirm_step(request, booking_id)
    error, outcome = None, None
    try:
        outcome = booking_cancel(user=request.user, booking_id=booking_id)
    except BookingError as exc:
        error = exc
    waiting = error is not None and error.code == Code.TICKET_PENDING
    ticket_no = (error.data or {}).get("ticket_no") if error is not None else None
    if request.htmx:
        booking = outcome.booking if outcome else _own_booking(request.user, booking_id)
        if booking is None:
            return render(request, "bookings/partials/notice.html", {"error": error})
        context = {"booking": booking, "outcome": outcome, "error": error, "waiting": waiting, "ticket_no": ticket_no}
        return render(request, "bookings/partials/row.html", context)
    if waiting:
        messages.info(
            request,
            _("%(booking)s: the cancellation waits for an approver (ticket %(ticket)s); nothing is cancelled yet.")
            % {"booking": normalise_booking_id(booking_id), "ticket": ticket_no},
        )
    elif error:
        messages.error(request, error.message)
    elif outcome.already_cancelled:
        messages.info(request, _("%(booking)s: already cancelled.") % {"booking": outcome.booking.booking_id})
    elif outcome.call_the_hotel:
        messages.info(
            request,
            _("%(booking)s: cancelled — please call the hotel to confirm.") % {"booking": outcome.booking.booking_id},
        )
    else:
        messages.success(request, _("%(booking)s: cancelled.") % {"booking": outcome.booking.booking_id})
    return redirect("bookings:list")


def _own_booking(user, booking_id: str):
    bid = normalise_booking_id(booking_id)
    return bookings_for_user(user=user).filter(booking_id=bid).first() if bid else None
