"""The chat page: a full page on GET, the new turn as an HTMX partial on POST (a plain form post works too).

What the supplier changed on its side (a booking expired, cancelled or moved: `bookings` notices) is told in the chat
too: the unread notices come after the conversation on the page and after the next reply, once each."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from assistant import cards as card_builders
from assistant.actions import pending_action_statuses
from assistant.selectors import conversation_latest, conversation_turns
from assistant.services import InvalidMessage, chat_turn, conversation_start
from bookings.selectors import bookings_for_user, notices_for_user
from bookings.services import booking_notices_mark_read

SESSION_KEY = "assistant_conversation_id"
NOTICES_IN_CHAT = 5

STARTERS = {
    "zh-hans": ["本周末，预算2000", "大理有什么活动", "推荐热门活动", "下周去黄山徒步，两千以内"],
    "en": ["Recommend something fun", "What can I do in Dali next weekend?", "Tours to West Lake, budget 2k"],
}


def _conversation_id(request) -> str | None:
    cid = request.session.get(SESSION_KEY)
    if cid:
        return cid
    latest = conversation_latest(user=request.user)
    return str(latest.pk) if latest else None


def _show_current_status(user, turns) -> None:
    """Confirmation cards of earlier turns show their action's state now (done, declined, expired: no buttons)."""
    cards = [card for turn in turns for card in turn.cards or [] if card.get("type") == "confirmation"]
    statuses = pending_action_statuses(user=user, pending_ids=[card.get("pending_id") for card in cards])
    for card in cards:
        card["status"] = statuses.get(str(card.get("pending_id")), "EXPIRED")


def _show_current_bookings(user, turns) -> None:
    """Booking cards of earlier turns show the booking as it is now (paid, expired, its new times)."""
    found = [card for turn in turns for card in turn.cards or [] if card.get("type") == "booking"]
    wanted = {card.get("booking_id") for card in found}
    rows = bookings_for_user(user=user).filter(booking_id__in=wanted).in_bulk(field_name="booking_id")
    for card in found:
        if card.get("booking_id") in rows:
            card.update(card_builders.booking_card(rows[card["booking_id"]]))


def _unread_notices(user) -> list:
    """The notices not shown yet, now marked shown (the caller shows them)."""
    notices = list(notices_for_user(user=user, unread=True)[:NOTICES_IN_CHAT])
    booking_notices_mark_read(user=user, notice_ids=[n.pk for n in notices])
    return notices


@login_required
def chat_page(request):
    cid = _conversation_id(request)
    turns = list(conversation_turns(user=request.user, conversation_id=cid)) if cid else []
    _show_current_status(request.user, turns)
    _show_current_bookings(request.user, turns)
    starters = STARTERS.get(request.LANGUAGE_CODE, STARTERS["zh-hans"])
    context = {"turns": turns, "starters": starters, "conversation_id": cid, "notices": _unread_notices(request.user)}
    return render(request, "assistant/chat.html", context)


@login_required
@require_POST
def chat_send(request):
    try:
        result = chat_turn(
            user=request.user,
            message=request.POST.get("message", ""),
            conversation_id=_conversation_id(request),
            page_language=request.LANGUAGE_CODE,
            fresh=request.POST.get("fresh") == "1",
            action_id=request.POST.get("action_id") or None,
        )
    except InvalidMessage as exc:
        if request.htmx:
            return render(request, "assistant/partials/error.html", {"error": str(exc)})
        messages.error(request, str(exc))
        return redirect("assistant:chat")
    request.session[SESSION_KEY] = result.conversation_id
    if request.htmx:
        context = {"result": result, "message": request.POST["message"], "notices": _unread_notices(request.user)}
        return render(request, "assistant/partials/exchange.html", context)
    return redirect("assistant:chat")


@login_required
@require_POST
def chat_new(request):
    conversation = conversation_start(user=request.user)
    request.session[SESSION_KEY] = str(conversation.pk)
    return redirect("assistant:chat")
