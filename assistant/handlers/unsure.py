"""When the reading of a sentence is unsure: one short "did you mean …?" with a chip for each likely reading.

Rasa's two-stage fallback is the model: below `ASSISTANT_CLARIFY_BELOW` nothing runs on the guess (no search, no
booking, no refusal); the traveller taps the reading they meant, or says it in other words. Each chip is a sentence
the engine reads with certainty, built from the slots understood ("大理有什么活动", "订北京到上海的票").
"""

from assistant.llm.tool_calls import place_of
from assistant.replies import compose
from assistant.turn import Reply, TurnContext, chip

MAX_CHOICES = 3
GUESS_BELOW = 0.45


def did_you_mean(context: TurnContext) -> Reply:
    """The question and its chips for the understood intent and its alternatives (most likely first)."""
    intent, language = context.intent, context.language
    place, _city = place_of(intent)
    destination = intent.city or next(iter(intent.destination_keywords), None)
    # A mere guess (a bare route) offers the other readings first; otherwise the likeliest one leads.
    guess = (intent.confidence or 0) < GUESS_BELOW
    ordered = (*intent.alternatives, intent.intent) if guess else (intent.intent, *intent.alternatives)
    readings = [name for name in ordered if name != "OUT_OF_SCOPE"]
    chips = []
    for name in dict.fromkeys(readings):
        said = compose(
            "rephrase", language, intent=name, place=place, origin=intent.origin, destination=destination
        ).strip()
        if said and said not in (c["message"] for c in chips):
            chips.append(chip(said, fresh=True))
    chips = chips[:MAX_CHOICES]
    text = compose("did_you_mean", language, options=[c["label"] for c in chips])
    return Reply(text, "CLARIFY", suggestions=chips)
