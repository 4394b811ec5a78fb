"""The chat page: a full page on GET, the new turn as an HTMX partial on POST (a plain form post works too).

What changed without the traveller asking is told in the chat too: what the supplier changed on its side (a booking
expired, cancelled or moved: `bookings` notices) and what an approver decided about a request or what became of it
(`aftersale` notices), and what staff wrote while a person held a conversation (`assistant.handovers`). The unread
notices come after the conversation on the page, after the next reply, and, while the page is open, from `chat_live`,
which the page asks when its live channel says something changed (`config.live`), or every few seconds without one
(HTMX polling); each is shown once. A turn's steps reach the page that sent it while it runs (`assistant.progress`). Staff messages also stay in the
conversation, after the turn they answered.
Ticket cards of earlier turns show the request as it stands now.

The page also lists the traveller's recent conversations (`HISTORY_SHOWN`, the most recently active first, in a panel
that stays folded until opened, so a phone shows the chat first): one is reopened as the session's current
conversation (`chat_open`) or deleted after a confirmation (`chat_delete`). Someone else's conversation answers the
404 page, exactly like an unknown id."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import QuerySet
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from django.views.decorators.http import require_GET, require_POST

from aftersale.selectors import aftersale_notices_for_user, tickets_for_user
from aftersale.services.notices import aftersale_notices_mark_read
from assistant import cards as card_builders
from assistant import progress
from assistant.actions import pending_action_statuses
from assistant.handovers import handover_news, handover_news_shown, handover_replies
from assistant.presenters.handover import staff_items
from assistant.replies import reply_language
from assistant.selectors import conversation_get, conversation_latest, conversation_turns, conversations_for_user
from assistant.services import (
    ConversationNotFound,
    InvalidMessage,
    chat_turn,
    conversation_delete,
    conversation_start,
)
from bookings.selectors import bookings_for_user, notices_for_user
from bookings.services.notices import booking_notices_mark_read

SESSION_KEY = "assistant_conversation_id"
NOTICES_IN_CHAT = 5
MAX_ASK_CHARS = 300
# The conversations the page lists, the most recently active first; older ones are kept (the API pages through all).
HISTORY_SHOWN = 30
# Set for the next page after a deletion: the list is shown unfolded, saying so, with what is left.
HISTORY_DELETED_KEY = "assistant_history_deleted"

# Suggestions on an empty chat, in the page's language (what a traveller might type first).
STARTERS = (
    gettext_noop("This weekend, budget 2000"),
    gettext_noop("Activities in Dali"),
    gettext_noop("Recommend popular activities"),
    gettext_noop("Hiking in Huangshan next week, under 2000"),
)


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


def _show_current(turns, card_type: str, key: str, rows: QuerySet, card_of) -> None:
    """Cards of `card_type` in earlier turns show their row as it is now (`rows` holds this user's, by `key`)."""
    found = [card for turn in turns for card in turn.cards or [] if card.get("type") == card_type]
    current = rows.filter(**{f"{key}__in": {card.get(key) for card in found}}).in_bulk(field_name=key)
    for card in found:
        if card.get(key) in current:
            card.update(card_of(current[card[key]]))


def _show_languages(turns, page_language: str) -> None:
    """Each earlier turn is shown in the language it was answered in, its cards too, whatever the page's: read from
    its message as the turn read it (`reply_language`; a message of place names alone keeps the turn before's)."""
    language = None
    for turn in turns:
        language = reply_language(turn.message, page_language, conversation_language=language)
        turn.language = language


def _show_current_bookings(user, turns) -> None:
    """Booking cards of earlier turns show the booking as it is now (paid, expired, its new times)."""
    _show_current(turns, "booking", "booking_id", bookings_for_user(user=user), card_builders.booking_card)


def _show_current_tickets(user, turns) -> None:
    """Ticket cards of earlier turns show the request as it stands now (approved, refunded, rejected and why)."""
    _show_current(turns, "ticket", "ticket_no", tickets_for_user(user=user), card_builders.ticket_card)


def _unread_notices(request) -> dict:
    """The notices not shown yet, now marked shown (the caller shows them): the context of the notices partial.
    What staff wrote is framed in the page's language."""
    user = request.user
    bookings = list(notices_for_user(user=user, unread=True)[:NOTICES_IN_CHAT])
    booking_notices_mark_read(user=user, notice_ids=[n.pk for n in bookings])
    aftersale = list(aftersale_notices_for_user(user=user, unread=True)[:NOTICES_IN_CHAT])
    aftersale_notices_mark_read(user=user, notice_ids=[n.pk for n in aftersale])
    staff = list(handover_news(user=user))
    handover_news_shown(user=user, message_ids=[m.pk for m in staff])
    return {
        "notices": bookings,
        "aftersale_notices": aftersale,
        "staff_messages": staff_items(staff, request.LANGUAGE_CODE),
    }


def _show_staff_replies(request, cid, turns) -> None:
    """What staff wrote in this conversation, each after the turn it followed (`turn.staff`); shown now, so the
    live part of the page does not show it again."""
    replies = list(handover_replies(user=request.user, conversation_id=cid))
    handover_news_shown(user=request.user, message_ids=[m.pk for m in replies if m.shown_at is None])
    for turn in turns:
        turn.staff = []
    for reply in replies:
        before = [turn for turn in turns if turn.created_at <= reply.created_at]
        if before:  # framed in the language of the turn it follows, like the rest of that turn
            language = getattr(before[-1], "language", None) or request.LANGUAGE_CODE
            before[-1].staff.extend(staff_items([reply], language))


@login_required
def chat_page(request):
    cid = _conversation_id(request)
    turns = list(conversation_turns(user=request.user, conversation_id=cid)) if cid else []
    _show_current_status(request.user, turns)
    _show_current_bookings(request.user, turns)
    _show_current_tickets(request.user, turns)
    _show_languages(turns, request.LANGUAGE_CODE)
    if cid:
        _show_staff_replies(request, cid, turns)
    starters = [_(starter) for starter in STARTERS]
    context = {"turns": turns, "starters": starters, "conversation_id": cid, **_unread_notices(request)}
    context["history"] = list(conversations_for_user(user=request.user)[:HISTORY_SHOWN])
    context["history_shown"] = HISTORY_SHOWN
    context["history_deleted"] = request.session.pop(HISTORY_DELETED_KEY, False)
    # A question drafted elsewhere ("ask the assistant about this" on an activity page), left for the traveller to send.
    context["ask"] = request.GET.get("ask", "")[:MAX_ASK_CHARS]
    return render(request, "assistant/chat.html", context)


@login_required
@require_POST
def chat_send(request):
    try:
        # A page with its live channel open sends a token: the turn's steps reach it as they happen.
        with progress.following(user_id=request.user.pk, token=request.POST.get("live_token")):
            result = chat_turn(
                user=request.user,
                message=request.POST.get("message", ""),
                conversation_id=_conversation_id(request),
                page_language=request.LANGUAGE_CODE,
                fresh=request.POST.get("fresh") == "1",
                action_id=request.POST.get("action_id") or None,
                answer=request.POST.get("answer") or None,
                choice=request.POST.get("choice") or None,
            )
    except InvalidMessage as exc:
        if request.htmx:
            return render(request, "assistant/partials/error.html", {"error": str(exc)})
        messages.error(request, str(exc))
        return redirect("assistant:chat")
    if result.conversation_id and request.session.get(SESSION_KEY) != result.conversation_id:
        request.session[SESSION_KEY] = result.conversation_id  # a session written only when it changes
    if request.htmx:
        context = {"result": result, "message": request.POST["message"], **_unread_notices(request)}
        return render(request, "assistant/partials/exchange.html", context)
    return redirect("assistant:chat")


@login_required
@require_GET
def chat_live(request):
    """What happened since the page was drawn (the page polls this): the unread notices, or 204 when there are none,
    so that HTMX leaves the page as it is."""
    context = _unread_notices(request)
    if not any(context.values()):
        return HttpResponse(status=204)
    return render(request, "assistant/partials/notices.html", context)


@login_required
@require_POST
def chat_new(request):
    conversation = conversation_start(user=request.user)
    request.session[SESSION_KEY] = str(conversation.pk)
    return redirect("assistant:chat")


@login_required
@require_POST
def chat_open(request, conversation_id):
    """Reopen one of the traveller's conversations: it becomes the current one, shown with its turns and cards, and
    the next message continues it."""
    conversation = conversation_get(user=request.user, conversation_id=conversation_id)
    if conversation is None:
        raise Http404
    request.session[SESSION_KEY] = str(conversation.pk)
    return redirect("assistant:chat")


@login_required
@require_POST
def chat_delete(request, conversation_id):
    """Delete one of the traveller's conversations (the page asked first); the current one gives way to a new one."""
    current = _conversation_id(request)
    try:
        conversation_delete(user=request.user, conversation_id=conversation_id)
    except ConversationNotFound:
        raise Http404 from None
    if current == str(conversation_id):
        request.session[SESSION_KEY] = str(conversation_start(user=request.user).pk)
    request.session[HISTORY_DELETED_KEY] = True
    return redirect("assistant:chat")
