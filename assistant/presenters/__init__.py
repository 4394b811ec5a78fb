"""Replies from tool envelopes, the same for both channels.

A use case is a service of the app that owns it; its tool (in the app's `tools.py`) turns the service's answer into
an envelope whose `data["kind"]` names what it is. Channel 1 calls the tool with the understood slots, channel 2
lets the model call it; either way `present` turns the envelopes into the reply with one presenter per kind, so both
channels show the same text and the same cards.
"""

import json
import logging
from itertools import groupby

from assistant.presenters import activities, aftersale, ask, bookings, confirmation, handover, plans, travel
from assistant.presenters.base import Presenter, kind_of, merge_replies, present_refusal
from assistant.presenters.confirmation import KIND_CONFIRMATION
from assistant.replies import compose
from assistant.turn import Reply, TurnContext
from bookings.tools import KIND_BOOKINGS

logger = logging.getLogger("assistant.agent")

PRESENTERS: dict[str, Presenter] = {
    **activities.PRESENTERS,
    **travel.PRESENTERS,
    **plans.PRESENTERS,
    **bookings.PRESENTERS,
    **aftersale.PRESENTERS,
    **confirmation.PRESENTERS,
    **ask.PRESENTERS,
    **handover.PRESENTERS,
}


# Kinds that only look something up for a write (the traveller's bookings list).
LOOKUPS = frozenset({KIND_BOOKINGS})


def present(envelopes: list[dict], context: TurnContext) -> Reply:
    """One reply for the envelopes of a turn: each run of envelopes of one kind goes to that kind's presenter, in
    call order; envelopes of a kind seen before join its first run (a search repeated after a booking step)."""
    envelopes = bookings.read_together(envelopes, context)
    order: list[str | None] = []
    by_kind: dict[str | None, list[dict]] = {}
    for kind, group in groupby(envelopes, key=kind_of):
        if kind not in by_kind:
            order.append(kind)
            by_kind[kind] = []
        by_kind[kind].extend(group)
    if KIND_CONFIRMATION in by_kind:
        # The traveller's bookings read on the way to a confirmation card (which one to change) are context, not the
        # answer: the card names the booking.
        order = [kind for kind in order if kind not in LOOKUPS]
    replies = []
    for kind in order:
        presenter = PRESENTERS.get(kind) if kind else None
        replies.append((presenter or present_refusal)(by_kind[kind], context))
    return merge_replies(replies)


def present_run(result, context: TurnContext) -> Reply:
    """What one run of the agent achieved, for both channels (channel 1's booking agent too).

    A model that broke before it finished, with nothing changed yet, gets the honest degraded reply: what it had
    read so far (a search) is no answer, and presenting it as one would ask the traveller for the wrong thing.
    Once something changed, the change is told whatever happened to the model afterwards.
    """
    envelopes = _distinct(result.steps)
    if result.error is not None and result.writes == 0 and not result.pending:  # a card waits: show it
        return Reply(compose("llm_unavailable", context.language, kind=result.error.kind), "DEGRADED")
    if envelopes:
        return _present(envelopes, context, acted=result.writes > 0)
    return Reply(compose("agent_no_action", context.language), "REFUSED")


def _distinct(steps) -> list[dict]:
    """The envelopes to present, in call order: a call repeated with the same arguments in one run (a model reading
    the same thing again until the cap) is shown once, and a repeated change the loop refused is not shown."""
    seen: set[tuple[str, str]] = set()
    envelopes = []
    for step in steps:
        key = (step.tool, json.dumps(step.arguments, sort_keys=True, ensure_ascii=False, default=str))
        if step.duplicate or key in seen:
            continue
        seen.add(key)
        envelopes.append(step.envelope)
    return envelopes


def _present(envelopes: list[dict], context: TurnContext, *, acted: bool) -> Reply:
    """The reply for the steps. Once a call changed something the turn must still answer (and be recorded), so a
    presenter that fails then is logged and the traveller is told to look at their pages, not to send it again."""
    if not acted:
        return present(envelopes, context)
    try:
        return present(envelopes, context)
    except Exception:
        logger.exception("presenting the agent's steps failed after a change was made")
        return Reply(compose("agent_unpresentable", context.language), "DEGRADED")
