"""What every presenter shares: which kind an envelope is, and how several replies become one."""

from collections.abc import Callable, Iterable

from assistant.replies import compose
from assistant.turn import Reply, TurnContext

# A presenter turns the envelopes of one kind (in call order) into a reply: text from templates, cards from rows.
Presenter = Callable[[list[dict], TurnContext], Reply]

# When several replies are merged, the turn's outcome is the first of these that any of them has.
OUTCOME_ORDER = ("ANSWERED", "DEGRADED", "CLARIFY", "EMPTY", "REJECTED", "REFUSED")
MAX_SUGGESTIONS = 6


def kind_of(envelope: dict) -> str | None:
    """The kind a tool put in its envelope's data (`data["kind"]`), or None (a refusal of the registry itself)."""
    data = envelope.get("data")
    kind = data.get("kind") if isinstance(data, dict) else None
    return kind if isinstance(kind, str) else None


def merge_replies(replies: Iterable[Reply]) -> Reply:
    """One reply from several (a request in two parts): texts in order, cards and chips together."""
    replies = [r for r in replies if r is not None]
    if len(replies) == 1:
        return replies[0]
    outcomes = {r.outcome for r in replies}
    outcome = next((o for o in OUTCOME_ORDER if o in outcomes), replies[0].outcome if replies else "REFUSED")
    suggestions, seen = [], set()
    for reply in replies:
        for chip in reply.suggestions:
            if chip["message"] not in seen and len(suggestions) < MAX_SUGGESTIONS:
                seen.add(chip["message"])
                suggestions.append(chip)
    return Reply(
        text="\n\n".join(r.text for r in replies if r.text),
        outcome=outcome,
        cards=[card for r in replies for card in r.cards],
        suggestions=suggestions,
        awaiting=next((r.awaiting for r in replies if r.awaiting), None),
        llm_calls=[call for r in replies for call in r.llm_calls],
        offered=list(dict.fromkeys(ref for r in replies for ref in r.offered)),
    )


def present_refusal(envelopes: list[dict], context: TurnContext) -> Reply:
    """Envelopes without a kind: the registry refused the call (unknown tool, bad arguments, over the cap)."""
    envelope = envelopes[-1]
    text = compose("tool_refused", context.language, code=envelope.get("code"), message=envelope.get("message", ""))
    return Reply(text, "REJECTED")
