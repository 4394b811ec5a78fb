"""My orders and requests: each order with refund / return buttons, and where each request stands."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from aftersale.selectors import orders_for_user, tickets_for_user
from aftersale.services.workflow import REJECTED, SUBMITTED, aftersale_request_submit
from core.envelope import Code

ACTIONS = {"REFUND", "RETURN"}
# Refusals about a number that is not the traveller's (unknown or someone else's answer alike, ORDER_NOT_FOUND)
# or not a number at all: the message does not repeat what was typed.
NOT_THEIRS = {Code.ORDER_NOT_FOUND, Code.INVALID_PARAM}


@login_required
def requests_page(request):
    context = {"orders": orders_for_user(user=request.user)[:50], "tickets": tickets_for_user(user=request.user)[:50]}
    return render(request, "aftersale/requests.html", context)


@login_required
@require_POST
def request_submit(request, order_id: str):
    """One refund or return request from the page: the same service as chat and the API, its answer as a message."""
    action = request.POST.get("action", "")
    if action not in ACTIONS:
        messages.error(request, "Choose a refund or a return.")
        return redirect("aftersale:requests")
    outcome = aftersale_request_submit(user=request.user, order_id=order_id, action=action)
    if outcome.status == REJECTED and outcome.code in NOT_THEIRS:
        messages.error(request, outcome.reason or outcome.code)  # a number that is not theirs is not echoed
    elif outcome.status == REJECTED:
        messages.error(request, f"{order_id}: {outcome.reason or outcome.code}")
    elif outcome.status == SUBMITTED:
        messages.success(request, f"{outcome.ticket.ticket_no}: submitted, waiting for review.")
    else:
        messages.info(request, f"{outcome.ticket.ticket_no}: already {outcome.ticket.get_status_display().lower()}.")
    return redirect("aftersale:requests")
