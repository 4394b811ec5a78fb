"""The assistant's writes: one chat turn end to end, and the audit of every model call."""

import datetime as dt
import functools
import logging
import time
import uuid
from dataclasses import replace

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from assistant import conf, progress
from assistant.actions import (
    conversation_bookings,
    pending_action_answer,
    pending_action_awaiting,
    pending_action_withdraw,
)
from assistant.agent.steps import steps_collected
from assistant.agent_turn import agent_turn
from assistant.booking_wants import booking_wants
from assistant.conversation_state import next_state, queued_after, refines, remembered, taken_up, task_waits
from assistant.dispatcher import dispatch
from assistant.handlers.unsure import did_you_mean
from assistant.handovers import handover_held, handover_news, handover_news_shown, handover_note
from assistant.llm.audit import audited
from assistant.llm.factory import OFFLINE, get_llm_port, is_offline
from assistant.llm.port import LLMError, LLMPort, UnderstandContext
from assistant.llm.schema import AnswerName, Intent, IntentName
from assistant.memory import Memory, memory_forget, memory_load, memory_save
from assistant.models import Conversation, TurnOutcome
from assistant.pending import as_uuid
from assistant.presenters.base import merge_replies
from assistant.presenters.bookings import NEAREST
from assistant.presenters.confirmation import present_decision
from assistant.presenters.handover import offer_person, staff_items
from assistant.ratelimit import turn_admitted
from assistant.replies import compose, format_day, reply_language
from assistant.selectors import catalogue_places
from assistant.turn import Reply, TurnContext
from assistant.turn_record import TurnResult, turn_audit_save, turn_finish
from bookings.requests import stay_after
from bookings.selectors import bookings_for_user
from bookings.targets import booking_target
from bookings.tools import KIND_CREATED
from core.envelope import Code
from core.errors import ApplicationError
from core.tracing import current_trace_id, trace
from itinerary.refs import is_activity_ref
from itinerary.words import place_name

logger = logging.getLogger("assistant.turn")

MAX_MESSAGE_CHARS = 2000


class InvalidMessage(ValueError):
    """The message cannot be a turn (empty, too long); nothing was recorded."""


def clean_message(raw: object) -> str:
    """The user's message without control characters; refuses empty and over-long messages."""
    if not isinstance(raw, str):
        raise InvalidMessage("message must be text")
    text = "".join(ch for ch in raw if ch.isprintable() or ch in "\n\t").strip()
    if not text:
        raise InvalidMessage("message is empty")
    if len(text) > MAX_MESSAGE_CHARS:
        raise InvalidMessage(f"message is longer than {MAX_MESSAGE_CHARS} characters")
    return text


def conversation_start(*, user) -> Conversation:
    """A new, empty conversation: nothing remembered from the previous one."""
    return Conversation.objects.create(user=user)


class ConversationNotFound(ApplicationError):
    """No such conversation for this user: an unknown, malformed or someone else's id, told apart by nobody."""

    def __init__(self) -> None:
        super().__init__(Code.NOT_FOUND, _("There is no such conversation."))


@transaction.atomic
def conversation_delete(*, user, conversation_id) -> int:
    """Delete one of the user's conversations with its turns and their stored steps, and its pending actions
    (CASCADE); the number of turns deleted. The audit rows of its model calls stay (without their turn), and so does
    everything the conversation did: bookings, requests, tickets. A confirmation being carried out right now finishes
    on the supplier's side and its booking is kept; only the action's row is gone. Its memory leaves the cache once
    committed. Another user's, an unknown or a malformed id: ConversationNotFound, and nothing changes."""
    pk = as_uuid(conversation_id)
    conversation = Conversation.objects.select_for_update().filter(pk=pk, user=user).first() if pk else None
    if conversation is None:
        raise ConversationNotFound()
    turns = conversation.turns.count()
    conversation.delete()
    transaction.on_commit(lambda: memory_forget(str(pk)))
    logger.info("conversation deleted", extra={"user_id": user.pk, "conversation": str(pk), "turns": turns})
    return turns


def conversation_for(*, user, conversation_id: str | None, remembered: Memory | None = None) -> Conversation:
    """The user's conversation with that id, or a new one (another user's id is never reused). A new one is not
    saved yet: its row is written with its first turn (`turn_finish`), or by the first pending action it keeps.
    `remembered`: the memory kept under that id; when it names this user as the owner, the conversation is known
    without reading its row (the memory is the user's own, written by their previous turn)."""
    pk = as_uuid(conversation_id) if conversation_id else None
    if pk is not None and remembered is not None and remembered.owner == user.pk:
        known = Conversation(pk=pk, user=user, language=remembered.language)
        known._state.adding = False  # the row exists: its previous turn wrote it
        return known
    if pk is not None:
        try:
            found = Conversation.objects.filter(pk=pk, user=user).first()
        except (ValidationError, ValueError):  # a malformed id is simply not found
            found = None
        if found:
            return found
    return Conversation(user=user)


def _traced_turn(function):
    """Run a turn under the trace of the request that sent it (core.tracing.TraceMiddleware) or, without one, a fresh
    trace; the tool calls it makes are collected and stored with its Turn row (AgentStep)."""

    @functools.wraps(function)
    def turn(*args, **kwargs):
        with trace(current_trace_id() or None), steps_collected():
            return function(*args, **kwargs)

    return turn


@_traced_turn
def chat_turn(
    *,
    user,
    message: str,
    conversation_id: str | None = None,
    page_language: str = "zh-hans",
    fresh: bool = False,
    port: LLMPort | None = None,
    today: dt.date | None = None,
    action_id: str | None = None,
    answer: str | None = None,
    choice: str | None = None,
) -> TurnResult:
    """Answer one message: limit, understand, remember, dispatch, record. Raises InvalidMessage for bad input.

    `action_id`: the pending action a confirmation card's button answers; `answer` ("YES" / "NO"): what that button
    says, so it is not read (without it the message is read like any other: its reading's yes or no).
    `choice`: what a card's button chose (a compared plan to book): the button says exactly what it asks, so the
    sentence is not read by a model, in either channel; the plan's handler prepares it."""
    started = time.monotonic()
    turn_id = uuid.uuid4().hex
    text = clean_message(message)
    today = today or timezone.localdate()
    if not turn_admitted(user_id=user.pk, today=today):
        # Refused before it becomes a turn: the limit's counter moved, and nothing is read or written.
        language = reply_language(text, page_language)
        reply = compose("rate_limited", language, limit=conf.daily_turn_limit())
        return TurnResult(str(conversation_id or ""), reply, None, [], [], TurnOutcome.RATE_LIMITED, language=language)

    asked = as_uuid(conversation_id) if conversation_id else None
    remembered = memory_load(str(asked)) if asked else Memory()
    conversation = conversation_for(user=user, conversation_id=asked, remembered=remembered)
    language = reply_language(text, page_language, conversation_language=conversation.language)
    progress.turn_started(language)  # the page that sent it sees the turn begin (`assistant.progress`)
    # Every model call of the turn is audited (one LLMCall row each), inserted with the Turn row (`turn_finish`).
    port = audited(port or get_llm_port(), user=user, deferred=True)
    held, news = None, []
    if not conversation._state.adding and (remembered.owner != user.pk or remembered.handover):
        # A person holds or held this conversation (or its memory is gone): whether they still do, and what they
        # wrote since. A conversation in memory that was never handed over asks nothing more.
        held = handover_held(conversation_id=conversation.pk)
        news = list(handover_news(user=user, conversation_id=conversation.pk))
    try:
        if held is not None:
            result = _held(conversation, user, text, language, held, port, started)
        else:
            result = _answer(
                conversation=conversation,
                memory=Memory() if fresh or conversation.pk != asked else remembered,  # a new one remembers nothing
                user=user,
                text=text,
                language=language,
                today=today,
                port=port,
                turn_id=turn_id,
                started=started,
                action_id=action_id,
                answer=answer,
                choice=choice,
            )
    except BaseException:
        turn_audit_save(port)  # the model calls of a turn that failed are still on record
        raise
    if news:
        result.staff = staff_items(news, language)
        handover_news_shown(user=user, message_ids=[m.pk for m in news])
    return result


def _held(conversation, user, text: str, language: str, held, port, started) -> TurnResult:
    """A person holds the conversation: the message is theirs to read (kept on the hand-over); nothing is read,
    called or written by the assistant, and the traveller is told once that a person will answer."""
    tell = handover_note(handover_id=held.pk, user=user, text=text)
    reply = Reply(compose("handover_waiting", language) if tell else "", TurnOutcome.HANDOVER)
    return turn_finish(conversation, user, language, text, None, reply, port, started)


def _answer(
    *, conversation, memory: Memory, user, text, language, today, port, turn_id, started, action_id, answer, choice
) -> TurnResult:
    """The turn once admitted: understand, remember, dispatch, record."""
    # The nearest options offered (none met every want, none prepared): a bare yes takes the first. Options that
    # met every want wait for a pick: a bare "确认" then confirms nothing (there is no card) and does nothing.
    choosing = memory.task == IntentName.BOOK and bool(memory.offered) and memory.awaiting == NEAREST
    choice = str(choice or "").strip()[:200]

    def context_for(intent: Intent, request_text: str = text, offered: list[str] = ()) -> TurnContext:
        return TurnContext(
            intent=intent,
            user=user,
            today=today,
            language=language,
            port=port,
            conversation_id=str(conversation.pk),
            request_text=request_text,
            turn_id=turn_id,
            offered=list(offered),
            choice=choice,
        )

    context = UnderstandContext(
        today=today, pending_intent=memory.task if task_waits(memory) else None, places=catalogue_places()
    )
    agent = conf.agent_enabled() and not choice  # a card's button says what it asks: channel 1 serves it
    model_failed = False
    # A yes or no to the confirmation card decides the pending action, in both channels; the memory stays as it was
    # (a declined booking is still the task). The card's buttons say which (`answer`); a typed message is read by
    # the reader that serves the turn (its `answer`), so a model's reading decides when there is a model. With a
    # model in channel 2 the model reads the sentence for that only when a card is open; anything else goes on.
    reading: tuple[Intent, bool] | None = None
    said = answer if answer in AnswerName.__members__ else None
    if said is None and not choice:
        model_leads = agent and not is_offline(port)
        if not model_leads or action_id or pending_action_awaiting(user=user, conversation_id=str(conversation.pk)):
            reader = port if model_leads or not agent else get_llm_port(OFFLINE)
            try:
                reading = _understood(text, context, reader=reader, port=port, user=user)
            except LLMError as error:  # the offline engine never raises; should it, the honest degraded reply
                reply = Reply(compose("llm_unavailable", language, kind=error.kind), TurnOutcome.DEGRADED)
                return turn_finish(conversation, user, language, text, None, reply, port, started)
            said = reading[0].answer
    decided = pending_action_answer(
        user=user,
        conversation_id=str(conversation.pk),
        answer=said,
        action_id=action_id,
        language=language,
        today=today,
        port=port,
        choosing=choosing,
    )
    if decided is not None:
        # (the options on screen, when a booking waits for a pick: a yes with no card is asked to pick first)
        offered = memory.offered if memory.task == IntentName.BOOK else []
        reply = present_decision(decided, context_for(Intent(intent=IntentName.OUT_OF_SCOPE), text, offered))
        if (after := _journey_booked(decided)) is not None and (step := taken_up(memory, after)) is not None:
            # The journey is booked: the hotel asked for in the same sentence is taken up now, as the task.
            turn = context_for(step.intent, text)
            lead = Reply(compose("booking_queued", language, taking_up=True, biz_type=step.intent.biz_type), "ANSWERED")
            reply = merge_replies([reply, lead, _dispatched(turn, agent=agent)])
            kept = remembered(step, awaiting=reply.awaiting, offered=reply.offered)
            reply = _after(reply, kept, conversation=conversation, user=user, language=language)
        return turn_finish(conversation, user, language, text, None, reply, port, started)
    if agent and not is_offline(port):
        # Channel 2 with a model: the model reads the sentence and calls the tools; nothing reads it offline.
        reply = agent_turn(context_for(MODEL_READS, text, memory.offered), reading=None)
        if reply is not None:
            if reply.offered and not _prepared(reply) and not all(map(is_activity_ref, reply.offered)):
                # New options and no new card: the traveller moved on from the open card, so "确认" must not
                # carry it out (what `_withdraw_stale_action` does for a reading; here the reply tells). Activities
                # shown on the side are no other options for the card.
                pending_action_withdraw(user=user, conversation_id=str(conversation.pk))
            kept = replace(memory, awaiting=reply.awaiting, offered=reply.offered or memory.offered)
            reply = _after(reply, kept, conversation=conversation, user=user, language=language)
            return turn_finish(conversation, user, language, text, None, reply, port, started)
        agent, model_failed = False, True  # before anything changed: the offline reading serves the turn now
    if choice:
        understood, fallback = CHOICE_INTENT, False
    elif reading is not None and not model_failed:
        understood, fallback = reading  # the reading that looked for a yes or a no serves the turn
    else:
        # Channel 2 with the rules provider: the rules adapter stands in for the model, and its reading (unaudited:
        # its calls are audited as the agent's) is the dialogue's; the agent turn hands it channel 1's flow for that
        # reading, so follow-ups continue there too.
        reader = None if model_failed else get_llm_port(OFFLINE) if agent else port
        try:
            understood, fallback = _understood(text, context, reader=reader, port=port, user=user)
        except LLMError as error:  # the offline engine never raises; should it, the honest degraded reply
            reply = Reply(compose("llm_unavailable", language, kind=error.kind), TurnOutcome.DEGRADED)
            return turn_finish(conversation, user, language, text, None, reply, port, started)
    if choosing and not understood.pick and understood.answer == AnswerName.YES:
        understood = understood.model_copy(update={"pick": 1})  # "好的" to the nearest options: the first one

    # The dialogue's rules (assistant.conversation_state): which task this sentence continues, resumes or starts, its slots.
    step = next_state(memory, understood, text)
    if _unsure(understood, step, memory) and not (
        understood.intent == memory.task and pending_action_awaiting(user=user, conversation_id=str(conversation.pk))
    ):  # a word more on the card at hand ("其实是因为生病了") is no new request
        # Too unsure to act or refuse: one "did you mean …?" with chips; the conversation stays where it was.
        unsure = step.intent.model_copy(
            update={"confidence": understood.confidence, "alternatives": understood.alternatives}
        )
        reply = _after(
            did_you_mean(context_for(unsure)), memory, conversation=conversation, user=user, language=language
        )
        return turn_finish(conversation, user, language, text, step.intent, reply, port, started, fallback=fallback)
    intent = _conversation_booking(step.intent, user=user, conversation_id=str(conversation.pk))
    # The request as channel 1 reads it (an earlier question's answers included) in both channels: with the rules
    # provider, channel 2 runs channel 1's flow over the same context.
    turn = context_for(intent, step.request_text or text, step.memory.offered)
    social = intent.intent == IntentName.OUT_OF_SCOPE and intent.social  # a greeting is answered by code
    reply = agent_turn(turn, reading=intent) if agent and not social else None
    if reply is None:
        fallback = fallback or agent and not social  # the rules adapter failed: channel 1 answers from its reading
        reply = dispatch(turn)
    _withdraw_stale_action(intent, reply, task=memory.task, user=user, conversation_id=str(conversation.pk))
    queued = queued_after(memory, step, understood)
    if added := queued[len([q for q in queued if q in memory.queued]) :]:
        # Another product asked for in the same sentence is kept, and the traveller is told so (never dropped).
        said = [_queued_note(q["slots"], language) for q in added]
        reply = replace(reply, text="\n\n".join([reply.text, *said]))
    kept = replace(remembered(step, awaiting=reply.awaiting, offered=reply.offered), queued=queued)
    reply = _after(reply, kept, conversation=conversation, user=user, language=language, social=bool(intent.social))
    return turn_finish(
        conversation, user, language, text, None if agent else intent, reply, port, started, fallback=fallback
    )


def _queued_note(slots: dict, language: str) -> str:
    """What the reply says of a booking kept for later: what, where, from when, for how long."""
    start = slots.get("date_start")
    day = format_day(dt.date.fromisoformat(start), language) if isinstance(start, str) and start else ""
    return compose(
        "booking_queued",
        language,
        biz_type=slots.get("biz_type"),
        city=place_name(slots.get("city") or "", language),
        day=day,
        nights=slots.get("nights") or 0,
    )


def _journey_booked(decided: dict) -> dict | None:
    """The place and day a stay after this confirmed journey takes (`bookings.requests.stay_after`), when the
    confirmation just booked a flight or a train (not a replay); None otherwise."""
    data = decided.get("data") if isinstance(decided.get("data"), dict) else {}
    if not decided.get("ok") or data.get("kind") != KIND_CREATED or data.get("action_replay"):
        return None
    if data.get("biz_type") not in ("FLIGHT", "TRAIN"):
        return None
    after = stay_after(data.get("details"))
    return {**after, "date_start": after["date_start"].isoformat()} if after.get("date_start") else after


def _dispatched(turn: TurnContext, *, agent: bool) -> Reply:
    """The reply to a task the code starts itself (a kept booking taken up): channel 2's agent with the rules
    adapter replaying channel 1's flow, else channel 1."""
    reply = agent_turn(turn, reading=turn.intent) if agent and is_offline(turn.port) else None
    return reply or dispatch(turn)


# What a turn the assistant could not help with ends as: it did not understand (and asked back), or refused.
MISSES = (TurnOutcome.CLARIFY, TurnOutcome.REFUSED)
# After this many such turns in a row the reply offers a person (a chip: the request for one, as typed).
MISSES_BEFORE_OFFER = 2


def _after(reply: Reply, kept: Memory, *, conversation, user, language: str, social: bool = False) -> Reply:
    """Save the memory the turn leaves, with whether a person now holds the conversation and how many turns in a row
    the assistant could not help; the second such turn offers a person. A question the task asks on purpose ("which
    date?") is no miss: only an unsure reading ("did you mean …?") and a refusal are."""
    missed = (
        reply.outcome == TurnOutcome.REFUSED
        and not social
        or (reply.outcome == TurnOutcome.CLARIFY and not reply.awaiting)
    )
    misses = kept.misses + 1 if missed else 0
    memory_save(
        str(conversation.pk),
        replace(
            kept,
            owner=user.pk,
            language=language,
            handover=reply.outcome == TurnOutcome.HANDOVER,
            misses=misses,
        ),
    )
    if misses >= MISSES_BEFORE_OFFER:
        reply = replace(reply, suggestions=[*reply.suggestions, offer_person(language)])
    return reply


def _understood(text: str, context: UnderstandContext, *, reader, port, user) -> tuple[Intent, bool]:
    """The sentence as `reader` reads it, and whether the offline engine stood in: when the model is down, slow or
    talking nonsense (or `reader` is None: the agent's model failed already), the offline engine reads it now,
    audited as the fallback, and the traveller is answered as usual. Raises LLMError only if that fails too."""
    if reader is not None:
        try:
            return reader.understand(text, context=context).intent, False
        except LLMError:
            pass
    offline = audited(get_llm_port(OFFLINE), user=user, fallback=True, deferred=True)
    try:
        return offline.understand(text, context=context).intent, True
    finally:
        port.calls += offline.calls


# What a turn's intent is when a model reads the sentence itself in channel 2: no reading was made by code.
MODEL_READS = Intent(intent=IntentName.OUT_OF_SCOPE)


# What a card's button choice asks for: the plan's handler reads the choice itself (`TurnContext.choice`).
CHOICE_INTENT = Intent(intent=IntentName.PLAN_ITINERARY)


def _unsure(understood: Intent, step, memory: Memory) -> bool:
    """Whether a new request was read with too little confidence to act on (or to refuse)."""
    confidence = understood.confidence
    if confidence is None or confidence >= conf.clarify_below() or understood.social:
        return False
    if refines(memory, understood):  # "换成摄影类的" on activities shown: the conversation says what it means
        return False
    return step.intent.intent == understood.intent and not task_waits(memory)


# The intents whose task is a write the traveller confirms (a booking, a rebooking, a cancel, a refund or return
# request).
WRITE_TASKS = (IntentName.BOOK, IntentName.CANCEL_BOOKING, IntentName.AFTERSALE)


def _conversation_booking(intent: Intent, *, user, conversation_id: str) -> Intent:
    """A cancel or a change that names no booking means the one this conversation booked, when exactly one of those
    is active and of that kind (and of that day, when named: `bookings.targets.booking_target`, the rule the
    handlers apply to all of the traveller's bookings): "取消我的火车票" right after booking a train. Otherwise it
    stays open and the handler asks which (the confirmation card shows the booking either way)."""
    if intent.booking_id or not (
        intent.intent == IntentName.CANCEL_BOOKING or (intent.intent == IntentName.BOOK and intent.rebook)
    ):
        return intent
    made = conversation_bookings(user=user, conversation_id=conversation_id)
    if not made:
        return intent
    rows = bookings_for_user(user=user).filter(booking_id__in=made).in_bulk(field_name="booking_id")
    booking, _candidates = booking_target([rows[i] for i in made if i in rows], booking_wants(intent), named=True)
    return intent.model_copy(update={"booking_id": booking.booking_id}) if booking is not None else intent


def _withdraw_stale_action(
    intent: Intent | None, reply: Reply, *, task: str | None, user, conversation_id: str
) -> None:
    """A turn that goes on with the write task the card belongs to (the booking) but prepared no new card — the
    traveller changed a fact that no option meets, or asked for other options — withdraws the open card: "确认"
    must never carry out what they moved on from. Another task (a side question, the weather) leaves it open; a
    cancel while a booking's card waits and nothing else was prepared ("算了，不订了，取消吧") withdraws it too."""
    if intent is not None and intent.intent == IntentName.CANCEL_BOOKING and task == IntentName.BOOK:
        if not _prepared(reply):
            pending_action_withdraw(user=user, conversation_id=conversation_id)
        return
    if intent is None or intent.intent not in WRITE_TASKS or intent.intent != task:
        return
    if intent.asks_option and not intent.pick:
        return  # a question about the options on screen moves nothing: the card stays open
    if not _prepared(reply):
        pending_action_withdraw(user=user, conversation_id=conversation_id)


def _prepared(reply: Reply) -> bool:
    """Whether the reply shows a confirmation card this turn prepared."""
    return any(card.get("type") == "confirmation" for card in reply.cards)
