"""My bookings: the list, and a cancel button per booking (HTMX swaps the row; a plain post works too)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from bookings.selectors import bookings_for_user
from bookings.services import BookingError, booking_cancel


@login_required
def booking_list(request):
    bookings = bookings_for_user(user=request.user)[:100]
    return render(request, "bookings/list.html", {"bookings": bookings})


@login_required
@require_POST
def booking_cancel_view(request, booking_id: str):
    error, outcome = None, None
    try:
        outcome = booking_cancel(user=request.user, booking_id=booking_id)
    except BookingError as exc:
        error = exc
    if request.htmx:
        booking = (
            outcome.booking if outcome else bookings_for_user(user=request.user).filter(booking_id=booking_id).first()
        )
        if booking is None:
            return render(request, "bookings/partials/notice.html", {"error": error})
        return render(request, "bookings/partials/row.html", {"booking": booking, "outcome": outcome, "error": error})
    if error:
        messages.error(request, error.message)
    elif outcome.call_the_hotel:
        messages.info(request, f"{outcome.booking.booking_id}: cancelled — please call the hotel to confirm.")
    else:
        messages.success(request, f"{outcome.booking.booking_id}: cancelled.")
    return redirect("bookings:list")
