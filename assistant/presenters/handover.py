"""A person when the traveller asks for one: the reply that the conversation went to staff, the chip the assistant
offers after it could not help twice, and what staff wrote, framed for the traveller's chat (`assistant.handovers`)."""

from django.utils import translation
from django.utils.translation import gettext as _

from assistant.models import HandoverMessage
from assistant.presenters.base import present_refusal
from assistant.replies import compose
from assistant.tools import KIND_HANDOVER
from assistant.turn import Reply, TurnContext, chip


def present_handover(envelopes: list[dict], context: TurnContext) -> Reply:
    envelope = envelopes[-1]
    if not envelope.get("ok"):
        return present_refusal(envelopes, context)
    data = envelope["data"]
    text = compose("handover_opened", context.language, opened=data.get("opened"), complaint=data.get("complaint"))
    return Reply(text, "HANDOVER")


def offer_person(language: str) -> dict:
    """The chip that asks for a person: the request as a traveller would type it, read like any message."""
    with translation.override(language):
        return chip(_("Talk to a person"), fresh=True)


def staff_items(messages: list[HandoverMessage], language: str) -> list[dict]:
    """What staff wrote (their words as written), and the word that the assistant is back (in the reader's
    language), as the chat shows them: oldest first."""
    items = []
    with translation.override(language):
        for message in messages:
            back = message.role == HandoverMessage.Role.BACK
            items.append(
                {
                    "kind": "back" if back else "staff",
                    "author": "" if back else _staff_name(message.author),
                    "text": _("The assistant is back: ask me anything.") if back else message.body,
                    "created_at": message.created_at.isoformat(),
                }
            )
    return items


def _staff_name(author) -> str:
    """How a member of staff signs: their first name, else a plain "Support"."""
    return (getattr(author, "first_name", "") or "").strip() or _("Support")


PRESENTERS = {KIND_HANDOVER: present_handover}
