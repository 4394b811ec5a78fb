"""Channel 2 (ASSISTANT_AGENT_ENABLED): the model calls tools; code composes the reply from what they returned.

Same tools, same guards (validation and bounds, what a call needs, the cap on changes, hooks, the services' own
checks), same presenters and cards as channel 1: the reply is `present()` over the envelopes of the calls, so several
tools in one request give one merged reply. The model's own words are kept for the audit, never shown as facts.

The model is told what the code holds, never what the offline engine thought: today, and the options the previous
reply put on screen (OPTIONS ON SCREEN), so "the second one" can name the second ref. The offline `rules` adapter
(the stand-in for a model) has no flow of its own: it is handed channel 1's, out of band (`ChatState.next_call`:
the dispatcher's handlers for the dialogue's reading, replayed over the calls made so far), so every flow is written
once, in channel 1's handlers.
"""

import logging
from dataclasses import replace
from functools import cache

from django.conf import settings
from django.utils import timezone

from assistant import conf, progress
from assistant.agent import default_registry, run_agent
from assistant.dispatcher import dispatch
from assistant.handlers.activities import social_reply
from assistant.handlers.base import next_call, tool_context
from assistant.llm.port import Answered, ChatState, NextCallFunction
from assistant.llm.schema import Intent, IntentName, SocialName
from assistant.presenters import present_run
from assistant.selectors import conversation_history
from assistant.turn import Reply, TurnContext
from bookings.selectors import booking_skill_document

logger = logging.getLogger("assistant.agent")

PROMPT_FILE = settings.BASE_DIR / "assistant" / "llm" / "prompts" / "agent_system.md"
HISTORY_TURNS = 4
# The block of the system message naming the options on screen, built by code from the remembered refs.
OPTIONS_ON_SCREEN = (
    "OPTIONS ON SCREEN (the previous reply offered these, numbered as the traveller sees them; "
    '"the second one" is number 2; pass its ref exactly):'
)
# What a booking's `data.missing` names when the passengers' contact is incomplete (bookings.services.passengers).
CONTACT_FACTS = {"name", "mobile"}


@cache
def _system_prompt() -> str:
    return PROMPT_FILE.read_text(encoding="utf-8") + "\n\n" + booking_skill_document()


def options_on_screen(refs: list[str], shown: dict[str, dict] | None = None) -> str:
    """The OPTIONS ON SCREEN block for these refs (a ref names the option: type, number, day, route or stay, seat),
    each with what its card showed (`shown`: option cards by ref: times, hotel, price), since the replies' text no
    longer lists them; empty when nothing is on screen."""
    if not refs:
        return ""
    shown = shown or {}
    lines = [f"{n}. {ref}{_card_facts(shown.get(ref))}" for n, ref in enumerate(refs, start=1)]
    return "\n".join([OPTIONS_ON_SCREEN, *lines])


def _card_facts(card: dict | None) -> str:
    """What an option card showed beside its ref, in a parenthesis after it, with the English names:
    " (Beijing → Shanghai, 厦门航空 / Xiamen Airlines, 18:05–20:15, 2 h 10 min, ¥450.00)"."""
    if not card:
        return ""
    # Its names as the card showed them and in English, so a model replying in English can name it.
    names = " / ".join(dict.fromkeys(str(n) for n in (card.get("name"), card.get("name_en")) if n))
    if card.get("biz_type") == "HOTEL":
        star = f" {card['star']}★" if card.get("star") else ""
        facts = [f"{names or card.get('title')}{star}", f"{card.get('nights')} nights"]
    else:
        facts = [f"{card.get('depart_time')}–{card.get('arrive_time')}", str(card.get("duration") or "")]
        if card.get("biz_type") == "FLIGHT" and names:
            facts.insert(0, names)
        if card.get("route_en"):
            facts.insert(0, str(card["route_en"]))
    facts.append(f"¥{card.get('total')}")
    return " (" + ", ".join(f for f in facts if f) + ")"


def _option_cards(turns) -> dict[str, dict]:
    """The option cards the turns showed, by ref (a later turn's card over an earlier one's)."""
    found: dict[str, dict] = {}
    for turn in turns:
        for card in turn.cards or []:
            if isinstance(card, dict) and card.get("type") == "option" and card.get("ref"):
                found[card["ref"]] = card
    return found


def agent_messages(context: TurnContext) -> list[dict]:
    """The system prompt (with the skill document, today and the options on screen), the last turns of the
    conversation, the request (for a model the message; for the rules adapter the request as channel 1 reads it)."""
    history = []
    turns = conversation_history(user=context.user, conversation_id=context.conversation_id, limit=HISTORY_TURNS)
    for turn in turns:
        history += [{"role": "user", "content": turn.message}, {"role": "assistant", "content": turn.reply}]
    on_screen = options_on_screen(context.offered, _option_cards(turns))
    system = "\n".join(s for s in (_system_prompt(), f"TODAY: {context.today}", on_screen) if s)
    return [
        {"role": "system", "content": system},
        *history,
        {"role": "user", "content": context.request_text},
    ]


def agent_turn(context: TurnContext, *, reading: Intent | None) -> Reply | None:
    """Run the agent over every registered tool for one message, then tell the user what the tools did.

    `reading`: the dialogue's reading of the turn when the offline `rules` adapter stands in for the model (it is
    handed channel 1's flow for this context, out of band); None when a model reads the sentence itself. None is
    returned when the model failed before anything changed: the caller answers the turn from the offline reading
    (channel 1), audited as the fallback, so the traveller gets the answer the code can give, not "nothing was
    done"."""
    context = replace(context, started=context.started or timezone.now())
    result = run_agent(
        port=context.port,
        registry=default_registry(),
        context=tool_context(context),
        messages=agent_messages(context),
        max_iterations=conf.agent_max_iterations(),
        state=ChatState(next_call=_channel_one(context)) if reading is not None else None,
        on_start=lambda name, arguments: progress.step_started(name, arguments, context),
        on_done=lambda name, envelope: progress.step_done(name, envelope, context),
    )
    if result.error is not None and result.writes == 0 and not result.pending:
        logger.warning("the agent's model failed (%s): channel 1 answers this turn", result.error.kind)
        return None
    if not result.steps and reading is not None and reading.intent != IntentName.OUT_OF_SCOPE:
        # Channel 1's flow called no tool for a travel request (it asks for a missing slot): its question is the
        # answer, so the traveller gets the same question in both channels.
        return dispatch(context)
    if not result.steps and reading is None and result.error is None:
        # A model that called no tool (a greeting, small talk, or it only talked): what the assistant can do, from
        # the templates, never the model's own words.
        return replace(social_reply(SocialName.HELP, context.language), channel=2)
    reply = present_run(result, context)
    return replace(reply, offered=_kept_choice(result, reply.offered), channel=2)


def _channel_one(context: TurnContext) -> NextCallFunction:
    """Channel 1's flow for this turn as the rules adapter's next call: the dispatcher's handlers replayed over the
    calls answered so far."""

    def flow_next_call(answered: list[Answered]) -> tuple[str, dict] | None:
        return next_call(lambda: dispatch(context), answered)

    return flow_next_call


def _kept_choice(result, offered: list[str]) -> list[str]:
    """The options the reply leaves on screen. A choice the traveller made that waits for their contact (the write
    was refused naming it) is kept alone until the contact comes, as channel 1 keeps it: the next turn prepares it,
    not the first option."""
    for step in reversed(result.steps):
        data = step.envelope.get("data") if isinstance(step.envelope.get("data"), dict) else {}
        ref = data.get("option_ref")
        if not step.ok and CONTACT_FACTS & set(_needs(data)) and ref in offered[1:]:
            return [ref]
    return offered


def _needs(data: dict) -> list[str]:
    missing = data.get("missing")
    return [str(m) for m in missing] if isinstance(missing, list) else []
