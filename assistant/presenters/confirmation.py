"""Presenters of pending actions, the same for both channels: `confirmation` (a write waiting for the traveller's
yes: the card with the exact facts and Confirm / Change) and `pending_action` (declined, expired, in progress, not
found). `present_decision` tells the answer to a confirmation: the executed tool's envelope goes to its own kind's
presenter, a replay is said to be done already.
"""

import logging

from django.utils import translation
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _

from assistant.presenters.base import Presenter, merge_replies
from assistant.replies import compose, format_moment
from assistant.turn import Reply, TurnContext, chip
from core.envelope import Code

logger = logging.getLogger("assistant.agent")

CARD = "confirmation"
AFTERSALE_SUBJECT = "aftersale"  # the subject of a refund or return request's card (aftersale_request_preview)
KIND_CONFIRMATION = "confirmation"
KIND_ACTION = "pending_action"
STATE_TEMPLATES = {
    Code.ACTION_EXPIRED: "confirm_expired",
    Code.ACTION_IN_PROGRESS: "confirm_in_progress",
    Code.ACTION_DECLINED: "confirm_declined",
    Code.ACTION_NOT_FOUND: "confirm_not_found",
}


def _data(envelope: dict) -> dict:
    data = envelope.get("data")
    return data if isinstance(data, dict) else {}


def expires_label(expires_at: str | None, language: str) -> str:
    """When the confirmation expires, in local time, as the traveller reads it."""
    moment = parse_datetime(expires_at) if isinstance(expires_at, str) else None
    return format_moment(moment, language) if moment is not None else ""


def confirmation_card(data: dict, language: str, status: str = "PENDING") -> dict:
    """The card of a pending action: what will be done, its facts, the total, the terms, until when."""
    preview = data.get("preview") if isinstance(data.get("preview"), dict) else {}
    rows = [
        [str(row[0]), str(row[1])]
        for row in preview.get("rows") or []
        if isinstance(row, list | tuple) and len(row) == 2
    ]
    return {
        "type": CARD,
        "pending_id": str(data.get("pending_id") or ""),
        "tool": str(data.get("tool") or ""),
        "title": str(preview.get("title") or ""),
        "rows": rows,
        "amount": preview.get("amount"),
        "terms": str(preview.get("terms") or ""),
        "expires_at": data.get("expires_at"),
        "expires_label": expires_label(data.get("expires_at"), language),
        "status": status,
        **_button_words(language),
    }


def _button_words(language: str) -> dict:
    """The message each button sends, in the reply's language: what a traveller would type ("确认" / "Confirm")."""
    with translation.override(language):
        return {"confirm_message": _("Confirm"), "change_message": _("Change")}


def present_confirmation(envelopes: list[dict], context: TurnContext) -> Reply:
    """A write waits for the traveller: the last one of the turn (an older one is superseded) as a card, and a
    text with the same facts that says how to confirm or change it."""
    data = _data(envelopes[-1])
    card = confirmation_card(data, context.language)
    preview = data.get("preview") if isinstance(data.get("preview"), dict) else {}
    subject = preview.get("subject") if isinstance(preview.get("subject"), dict) else {}
    text = compose(
        "confirm_ask",
        context.language,
        title=card["title"],
        rows=card["rows"],
        amount=card["amount"],
        terms=card["terms"],
        expires=card["expires_label"],
        request=subject.get("action") == AFTERSALE_SUBJECT,  # a request for review: "submit", not "book"
    )
    return Reply(text, "ANSWERED", cards=[card])


def present_action(envelopes: list[dict], context: TurnContext) -> Reply:
    """An answer about the action itself: declined (nothing done), or why it cannot be confirmed now."""
    envelope = envelopes[-1]
    data = _data(envelope)
    preview = data.get("preview") if isinstance(data.get("preview"), dict) else {}
    title = str(preview.get("title") or "")
    if envelope.get("ok"):
        subject = preview.get("subject") if isinstance(preview.get("subject"), dict) else {}
        request = subject.get("action") == AFTERSALE_SUBJECT
        return Reply(compose("confirm_declined", context.language, title=title, request=request), "ANSWERED")
    code = envelope.get("code")
    name = STATE_TEMPLATES.get(code, "confirm_not_found")
    superseded = data.get("status") == "SUPERSEDED"
    # A yes while options wait for a pick (no card yet): pick one first, a chip each.
    picking = code == Code.ACTION_NOT_FOUND and bool(context.offered)
    text = compose(name, context.language, title=title, already=True, superseded=superseded, options=picking)
    picks = [chip(compose("option_pick", context.language, n=n)) for n in range(1, len(context.offered) + 1)]
    outcome = "ANSWERED" if code == Code.ACTION_IN_PROGRESS else "REJECTED"
    return Reply(text, "CLARIFY" if picking else outcome, suggestions=picks if picking else [])


def present_decision(envelope: dict, context: TurnContext) -> Reply:
    """The reply to a confirmation answer: what the carried-out tool did (its own presenter), said to be done
    already when it was (a replay), or the pending-action answer (declined, expired …)."""
    from assistant.presenters import present  # the registry of presenters includes this module

    try:
        reply = present([envelope], context)
    except Exception:
        if _data(envelope).get("kind") in (KIND_ACTION, KIND_CONFIRMATION):
            raise  # nothing was carried out: the failure is the turn's, as any other
        # The tool ran (or had run): the turn must still answer, and say not to send it again.
        logger.exception("presenting a carried-out confirmation failed")
        return Reply(compose("agent_unpresentable", context.language), "DEGRADED")
    if _data(envelope).get("action_replay"):
        return merge_replies([Reply(compose("confirm_done_already", context.language), reply.outcome), reply])
    return reply


PRESENTERS: dict[str, Presenter] = {KIND_CONFIRMATION: present_confirmation, KIND_ACTION: present_action}
