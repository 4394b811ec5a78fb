"""The places a turn names, corrects or excludes, for the conversation state (`assistant.conversation_state`).

A correction replaces the place and excludes the wrong one; a negation excludes places: excluded places are taken
out of the slots, given to the search as exclusions and remembered for the task (at most MAX_EXCLUDED).
"""

from assistant.llm.schema import Intent
from assistant.memory import MAX_EXCLUDED, PLACE_SLOTS


def exclusions(previous: list[str], understood: Intent, *, before: dict, new: dict) -> list[str]:
    """The task's excluded places: the earlier ones and the sentence's, and in a correction the replaced place;
    a place the traveller names again (not as an exclusion) is no longer excluded."""
    excluded = [*previous, *understood.exclude_places]
    if understood.correction and names_a_place(new):  # "actually make it 4 nights" corrects no place
        excluded += [p for p in places_named(before) if p not in places_named(new)]
    named = set(places_named(new)) - set(understood.exclude_places)
    return [p for p in dict.fromkeys(excluded) if p not in named][:MAX_EXCLUDED]


def without_places(slots: dict, excluded: list[str]) -> dict:
    if not excluded:
        return slots
    slots = dict(slots)
    keywords = [k for k in slots.get("destination_keywords") or [] if k not in excluded]
    if keywords:
        slots["destination_keywords"] = keywords
    else:
        slots.pop("destination_keywords", None)
    for key in ("city", "province"):
        if slots.get(key) in excluded:
            slots.pop(key)
    return slots


def places_named(slots: dict) -> list[str]:
    return [*(slots.get("destination_keywords") or []), *(p for p in (slots.get("city"), slots.get("province")) if p)]


def names_a_place(slots: dict) -> bool:
    return any(slots.get(key) for key in PLACE_SLOTS)


def only_exclusions(understood: Intent, new: dict) -> bool:
    """ "不想去三亚": the only places the sentence names are the excluded ones."""
    return bool(understood.exclude_places) and set(places_named(new)) <= set(understood.exclude_places)
