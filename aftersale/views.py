"""My orders and requests: each order with refund / return buttons, where each request stands, and the decisions
about them (notices).

The page keeps itself current without a reload: its live part asks for itself again (`requests_live`) when the
page's live channel says something changed (config/live.py), and, while a request may still move on its own
(pending review, approved, being processed) and the channel is not open, every few seconds (HTMX `every 5s`);
once every request is settled the polling stops.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from aftersale import conf
from aftersale.models import MOVING_TICKET_STATUSES
from aftersale.selectors import aftersale_notices_for_user, orders_for_user, tickets_for_user
from aftersale.services.notices import aftersale_notices_mark_read
from aftersale.services.workflow import CONFIRMED_ON_PAGE, REJECTED, SUBMITTED, aftersale_request_submit
from core.envelope import Code

ACTIONS = {"REFUND", "RETURN"}
LISTED = 50
NOTICES_SHOWN = 10
# Refusals about a number that is not the traveller's (unknown or someone else's answer alike, ORDER_NOT_FOUND)
# or not a number at all: the message does not repeat what was typed.
NOT_THEIRS = {Code.ORDER_NOT_FOUND, Code.INVALID_PARAM}


def _live_context(user) -> dict:
    """The page's live part: the latest notices (now read: they are being shown), the requests, the orders, and
    whether any request may still move (then the part asks for itself again)."""
    notices = list(aftersale_notices_for_user(user=user)[:NOTICES_SHOWN])
    aftersale_notices_mark_read(user=user, notice_ids=[n.pk for n in notices if n.read_at is None])
    tickets = list(tickets_for_user(user=user)[:LISTED])
    return {
        "aftersale_notices": notices,
        "tickets": tickets,
        "orders": orders_for_user(user=user)[:LISTED],
        "polling": any(t.status in MOVING_TICKET_STATUSES for t in tickets),
        "return_address": conf.return_address(),  # where an approved return's item is sent back
    }


@login_required
def requests_page(request):
    return render(request, "aftersale/requests.html", _live_context(request.user))


@login_required
@require_GET
def requests_live(request):
    """The live part again (HTMX polling); a plain GET goes to the page."""
    if not request.htmx:
        return redirect("aftersale:requests")
    return render(request, "aftersale/partials/live.html", _live_context(request.user))


@login_required
@require_POST
def request_submit(request, order_id: str):
    """One refund or return request from the page: the same service as chat and the API, its answer as a message."""
    action = request.POST.get("action", "")
    if action not in ACTIONS:
        messages.error(request, _("Choose a refund or a return."))
        return redirect("aftersale:requests")
    # The traveller's own form on their own order (its amount on the row) is their confirmation.
    outcome = aftersale_request_submit(
        user=request.user,
        order_id=order_id,
        action=action,
        reason=request.POST.get("reason", ""),
        confirmed_via=CONFIRMED_ON_PAGE,
    )
    if outcome.status == REJECTED and outcome.code in NOT_THEIRS:
        messages.error(request, outcome.reason or outcome.code)  # a number that is not theirs is not echoed
    elif outcome.status == REJECTED:
        messages.error(request, f"{order_id}: {outcome.reason or outcome.code}")
    elif outcome.status == SUBMITTED:
        messages.success(
            request, _("%(ticket)s: submitted, waiting for review.") % {"ticket": outcome.ticket.ticket_no}
        )
    else:
        messages.info(
            request,
            _("%(ticket)s: already %(status)s.")
            % {"ticket": outcome.ticket.ticket_no, "status": outcome.ticket.get_status_display()},
        )
    return redirect("aftersale:requests")
