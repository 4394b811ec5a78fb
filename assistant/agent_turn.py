"""Channel 2 (ASSISTANT_AGENT_ENABLED): the model calls tools; code composes the reply from what they returned.

Same tools, same guards (schemas, hooks, ownership checks inside the services), same cards as channel 1. The
model's own words are kept for the audit, never shown as facts.
"""

from functools import cache

from django.conf import settings
from django.utils import timezone

from aftersale.selectors import tickets_for_user
from assistant import cards
from assistant.agent import default_registry, run_agent
from assistant.dispatcher import Reply, TurnContext
from assistant.handlers.bookings import booking_reply, cancel_result_reply, record_agent_calls, skill_document
from assistant.handlers.bookings import card_for as booking_card_for
from assistant.llm.schema import Intent, IntentName
from assistant.replies import compose
from assistant.selectors import conversation_history
from bookings.selectors import bookings_for_user
from core.tools import ToolContext
from itinerary.models import Activity

PROMPT_FILE = settings.BASE_DIR / "assistant" / "llm" / "prompts" / "agent_system.md"
HISTORY_TURNS = 4


@cache
def _system_prompt() -> str:
    return PROMPT_FILE.read_text(encoding="utf-8") + "\n\n" + skill_document()


def agent_turn(context: TurnContext) -> Reply:
    """Run the agent over every registered tool for one message, then tell the user what the tools did."""
    history = []
    for turn in conversation_history(user=context.user, conversation_id=context.conversation_id, limit=HISTORY_TURNS):
        history += [{"role": "user", "content": turn.message}, {"role": "assistant", "content": turn.reply}]
    messages = [
        {"role": "system", "content": f"{_system_prompt()}\nTODAY: {context.today}"},
        *history,
        {"role": "user", "content": context.request_text},
    ]
    started = timezone.now()
    tool_context = ToolContext(
        user=context.user, conversation_id=context.conversation_id, language=context.language, today=context.today
    )
    result = run_agent(
        port=context.port,
        registry=default_registry(),
        context=tool_context,
        messages=messages,
        max_iterations=settings.ASSISTANT_AGENT_MAX_ITERATIONS,
    )
    calls = record_agent_calls(context, result)
    steps = [s for s in result.steps if s.envelope.get("code") != "DUPLICATE_CALL"]
    platform_steps = [s for s in steps if s.tool == "execute_platform_command"]
    if platform_steps:
        product = platform_steps[-1].arguments.get("command", "").split()[2:3]
        biz_type = product[0].upper() if product and product[0].upper() in ("FLIGHT", "HOTEL", "TRAIN") else None
        booking_context = TurnContext(
            intent=Intent(intent=IntentName.BOOK, biz_type=biz_type),
            user=context.user,
            today=context.today,
            language=context.language,
            port=context.port,
            conversation_id=context.conversation_id,
            request_text=context.request_text,
        )
        return booking_reply(booking_context, result, started, calls)
    if not steps:
        if result.error is not None:
            return Reply(
                compose("llm_unavailable", context.language, kind=result.error.kind), "DEGRADED", llm_calls=calls
            )
        return Reply(compose("agent_no_action", context.language), "REFUSED", llm_calls=calls)
    return _reply_for_step(context, steps[-1], calls)


def _reply_for_step(context: TurnContext, step, calls) -> Reply:
    envelope, language = step.envelope, context.language
    data = envelope.get("data") or {}
    if step.tool in ("search_activities", "recommend_activities") and envelope["ok"]:
        ids = data.get("activity_ids") or []
        by_id = Activity.objects.filter(pk__in=ids, is_published=True).in_bulk()
        activity_cards = [cards.activity_card(by_id[i]) for i in ids if i in by_id]
        text = compose("agent_activities", language, count=len(activity_cards))
        return Reply(text, "ANSWERED" if activity_cards else "EMPTY", cards=activity_cards, llm_calls=calls)
    if step.tool == "list_my_bookings" and envelope["ok"]:
        wanted = [b["booking_id"] for b in data.get("bookings", [])]
        rows = bookings_for_user(user=context.user).filter(booking_id__in=wanted)
        booking_cards = [booking_card_for(b) for b in rows]
        return Reply(
            compose("agent_bookings", language, count=len(booking_cards)),
            "ANSWERED",
            cards=booking_cards,
            llm_calls=calls,
        )
    if step.tool == "cancel_booking":
        text, card = cancel_result_reply(context, envelope, step.arguments.get("booking_id", ""))
        return Reply(text, "ANSWERED" if envelope["ok"] else "REJECTED", cards=[card] if card else [], llm_calls=calls)
    if step.tool == "request_aftersale":
        return _aftersale_reply(context, step, calls)
    if step.tool == "query_progress" and envelope["ok"]:
        wanted = [t["ticket_no"] for t in data.get("tickets", [])]
        tickets = tickets_for_user(user=context.user).filter(ticket_no__in=wanted)
        ticket_cards = [cards.ticket_card(t) for t in tickets]
        text = compose("progress", language, count=len(ticket_cards), tickets=ticket_cards, order_id=None)
        return Reply(text, "ANSWERED" if ticket_cards else "EMPTY", cards=ticket_cards, llm_calls=calls)
    # Tools of other areas compose their own message from rows (code, not the model).
    return Reply(
        envelope.get("message") or compose("agent_no_action", language),
        "ANSWERED" if envelope["ok"] else "REJECTED",
        llm_calls=calls,
    )


def _aftersale_reply(context: TurnContext, step, calls) -> Reply:
    from assistant.handlers.aftersale import ACTION_EN, ACTION_ZH

    envelope, data = step.envelope, step.envelope.get("data") or {}
    action = step.arguments.get("action", "REFUND")
    ticket = (
        tickets_for_user(user=context.user).filter(ticket_no=data.get("ticket_no")).first() if envelope["ok"] else None
    )
    card = cards.ticket_card(ticket) if ticket else None
    text = compose(
        "aftersale_result",
        context.language,
        status=data.get("outcome") if envelope["ok"] else "REJECTED",
        code=envelope["code"],
        order_id=data.get("order_id") or step.arguments.get("order_id", ""),
        ticket=card,
        ticket_status_zh=card["status_label_zh"] if card else "",
        ticket_status_en=card["status_label"].lower() if card else "",
        reason=data.get("reason", ""),
        policy=(data.get("policies") or [{}])[0].get("title", ""),
        action_zh=ACTION_ZH.get(action, "退款"),
        action_en=ACTION_EN.get(action, "refund"),
    )
    return Reply(text, "ANSWERED" if envelope["ok"] else "REJECTED", cards=[card] if card else [], llm_calls=calls)
