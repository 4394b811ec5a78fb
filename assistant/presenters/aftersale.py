"""Presenters of the after-sale tools: a refund/return request (`aftersale`) and where requests stand (`progress`).

Text comes from the reply templates, ticket cards from the ticket facts the tools put in their envelopes (rows the
service read), never from model text; both channels show the same.
"""

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from aftersale.policy import policy_reason_text
from aftersale.services.workflow import MISSING_REASON
from assistant import cards
from assistant.presenters.base import Presenter, merge_replies
from assistant.replies import compose
from assistant.turn import Reply, TurnContext, chip
from core.envelope import Code
from core.languages import bilingual

ACTIONS = ("REFUND", "RETURN")
ANSWERED_BY_TICKET = ("REUSED", "ALREADY_DONE")
PROGRESS_CARDS = 10
# What a traveller would type to ask about one order's requests (chips, read by the engine as typed).
PROGRESS_OF = gettext_noop("progress of order %(order)s")


def present_aftersale(envelopes: list[dict], context: TurnContext) -> Reply:
    """One reply per request: submitted / under review / already done, why it was refused (with the policy), or
    the question why the traveller asks (nothing is prepared without their reason)."""
    return merge_replies(_request_reply(envelope, context) for envelope in envelopes)


def _request_reply(envelope: dict, context: TurnContext) -> Reply:
    data = envelope.get("data") or {}
    judged_by = data.get("policy") if isinstance(data.get("policy"), dict) else {}
    action = data.get("action") if data.get("action") in ACTIONS else "REFUND"
    if data.get("missing") == MISSING_REASON and data.get("order_id"):
        # Nothing is prepared without the traveller's reason: one question, and their answer is the reason.
        text = compose("aftersale_need", context.language, need="reason", order_id=data["order_id"], action=action)
        return Reply(text, "CLARIFY", awaiting="reason")
    # Answered by a ticket: a new one, or (before any card) the one already under review or decided.
    answered = envelope.get("ok") or (
        envelope.get("code") == Code.TICKET_PENDING and data.get("outcome") in ANSWERED_BY_TICKET
    )
    facts = data.get("ticket") if answered and isinstance(data.get("ticket"), dict) else None
    card = cards.ticket_card(facts) if facts else None
    text = compose(
        "aftersale_result",
        context.language,
        status=data.get("outcome") if answered else "REJECTED",
        code=envelope.get("code"),
        order_id=data.get("order_id") or "",
        ticket=card,
        reason=_refusal_reason(data, context.language),
        policy=_reader_half((data.get("policies") or [{}])[0].get("title", ""), context.language),
        judged_by=_reader_half(judged_by.get("title", ""), context.language) if envelope.get("ok") else "",
        action=action,
    )
    return Reply(text, "ANSWERED" if answered else "REJECTED", cards=[card] if card else [])


def present_progress(envelopes: list[dict], context: TurnContext) -> Reply:
    """The traveller's tickets with where each stands (the last progress call of the turn answers)."""
    envelope = envelopes[-1]
    data = envelope.get("data") or {}
    if not envelope.get("ok"):
        text = compose("progress", context.language, invalid=True, code=envelope.get("code"))
        return Reply(text, "REJECTED")
    ticket_cards = [cards.ticket_card(facts) for facts in (data.get("tickets") or [])[:PROGRESS_CARDS]]
    if data.get("open"):
        return _open_progress(data, ticket_cards, context)
    text = compose(
        "progress", context.language, count=len(ticket_cards), tickets=ticket_cards, order_id=data.get("order_id")
    )
    return Reply(text, "ANSWERED" if ticket_cards else "EMPTY", cards=ticket_cards)


def _open_progress(data: dict, ticket_cards: list[dict], context: TurnContext) -> Reply:
    """Progress asked with no order: one open request is the answer, as if its order had been named; several are
    listed to choose from (a chip each); with none, that none is open, and how the latest one ended."""
    language = context.language
    if len(ticket_cards) == 1:
        order_id = ticket_cards[0]["entity"]
        text = compose("progress", language, count=1, tickets=ticket_cards, order_id=order_id)
        return Reply(text, "ANSWERED", cards=ticket_cards)
    latest = cards.ticket_card(data["latest"]) if isinstance(data.get("latest"), dict) else None
    text = compose("progress", language, open=True, count=len(ticket_cards), tickets=ticket_cards, latest=latest)
    if not ticket_cards:
        return Reply(text, "ANSWERED" if latest else "EMPTY", cards=[latest] if latest else [])  # how it ended
    with translation.override(language):
        orders = dict.fromkeys(card["entity"] for card in ticket_cards)
        chips = [chip(_(PROGRESS_OF) % {"order": order_id}) for order_id in orders]
    return Reply(text, "CLARIFY", cards=ticket_cards, suggestions=chips)


PRESENTERS: dict[str, Presenter] = {"aftersale": present_aftersale, "progress": present_progress}


def _refusal_reason(data: dict, language: str) -> str:
    """Why the policy refused, worded now in the reply's language from its code and facts (the tool may have run
    under another language); a reason without a code (a model's own words) as it was given."""
    code = data.get("reason_code")
    if not code:
        return data.get("reason") or ""
    facts = data.get("reason_facts") if isinstance(data.get("reason_facts"), dict) else {}
    with translation.override(language):
        return policy_reason_text(code, facts)


def _reader_half(title: str, language: str) -> str:
    """A bilingual policy title ("质量问题退换货 / Returns for quality problems"): the half in the reply's language."""
    with translation.override(language):
        return bilingual(title)
