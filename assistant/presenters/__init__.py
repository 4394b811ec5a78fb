"""Replies from tool envelopes, the same for both channels.

A use case is a service of the app that owns it; its tool (in the app's `tools.py`) turns the service's answer into
an envelope whose `data["kind"]` names what it is. Channel 1 calls the tool with the understood slots, channel 2
lets the model call it; either way `present` turns the envelopes into the reply with one presenter per kind, so both
channels show the same text and the same cards.
"""

from itertools import groupby

from assistant.dispatcher import Reply, TurnContext
from assistant.presenters import activities, aftersale, bookings, plans, travel
from assistant.presenters.base import Presenter, kind_of, merge_replies, present_refusal

PRESENTERS: dict[str, Presenter] = {
    **activities.PRESENTERS,
    **travel.PRESENTERS,
    **plans.PRESENTERS,
    **bookings.PRESENTERS,
    **aftersale.PRESENTERS,
}


def present(envelopes: list[dict], context: TurnContext) -> Reply:
    """One reply for the envelopes of a turn: each run of envelopes of one kind goes to that kind's presenter, in
    call order; envelopes of a kind seen before join its first run (a search repeated after a booking step)."""
    order: list[str | None] = []
    by_kind: dict[str | None, list[dict]] = {}
    for kind, group in groupby(envelopes, key=kind_of):
        if kind not in by_kind:
            order.append(kind)
            by_kind[kind] = []
        by_kind[kind].extend(group)
    replies = []
    for kind in order:
        presenter = PRESENTERS.get(kind) if kind else None
        replies.append((presenter or present_refusal)(by_kind[kind], context))
    return merge_replies(replies)
