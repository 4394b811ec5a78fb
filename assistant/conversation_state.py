"""The conversation state: what a turn is about, given the conversation's memory and what the sentence said.

The conversation keeps its current task (the intent being worked on) apart from its slots. One understood sentence
then does one of these, decided here and nowhere else (pure functions: no database, no cache):

- answers greetings, thanks, help or a refusal and leaves the task as it was;
- resumes a task a side question put aside (the contact for a booking, a pick among its options, a booking
  preference the task at hand cannot use);
- picks one of the options the last reply offered (the BOOK task goes on);
- answers the question the last reply asked (the task goes on with every slot);
- follows up: only changes slots of the task (那丽江呢, 改成四天吧, 要便宜一点的, not Sanya, I meant Suzhou);
- asks a side question while a task waits (the task is suspended and resumes later);
- or starts a new request: fresh with a place of its own, else with the place and time of the conversation.

A day said from the date the conversation has ("不对，是周四", "前一天", "the day after": the reading's `weekday` and
`day_offset`) is counted from that date, never from today. A sentence that only picks or says who travels keeps the
options on screen (`same_options`: they are not listed again).

A correction replaces the place and excludes the wrong one; a negation excludes places: excluded places are taken
out of the slots, given to the search as exclusions and remembered for the task (`assistant.excluded_places`).

Everything is decided from the reading that served the turn (the `Intent`, whichever reader gave it: `follow_up`,
`asks_activities`, `same_time`, `mobile`, `answer` …) and the memory: the sentence itself is only kept (the task's
request, the reason's words), never read again here, so a model's reading is the one that decides.

A refund or return request keeps the traveller's own words for why (`aftersale_words`, kept by code: a request
that says why, or whatever answers the question why); another order drops them.
"""

import datetime as dt
import math
from dataclasses import dataclass, replace
from typing import Any

from assistant.excluded_places import exclusions, names_a_place, only_exclusions, places_named, without_places
from assistant.llm.schema import PREFERENCE_SLOTS, Intent, IntentName, SortName
from assistant.memory import (
    MAX_QUEUED,
    MAX_REQUEST_CHARS,
    PLACE_AND_TIME_SLOTS,
    PLACE_SLOTS,
    Memory,
)
from assistant.reason_words import reason_words
from itinerary.refs import activity_of, is_activity_ref
from itinerary.travel_plans import DEFAULT_DAYS as DEFAULT_PLAN_DAYS

BOOK = IntentName.BOOK.value
OUT_OF_SCOPE = IntentName.OUT_OF_SCOPE.value
SEARCH = IntentName.SEARCH_ACTIVITIES.value
RECOMMEND = IntentName.RECOMMEND.value
WEATHER = IntentName.QUERY_WEATHER.value
TRAVEL_PLAN = IntentName.MAKE_TRAVEL_PLAN.value
ROUND_TRIP = IntentName.PLAN_ITINERARY.value
AFTERSALE = IntentName.AFTERSALE.value
PROGRESS = IntentName.QUERY_PROGRESS.value
CANCEL = IntentName.CANCEL_BOOKING.value
CHEAPEST, PRICIEST, TOP_RATED = SortName.CHEAPEST.value, SortName.PRICIEST.value, SortName.TOP_RATED.value

# Facts of a task that are not slots of the schema but belong to the task while it lasts.
TASK_FLAGS = (
    "rebook",
    "original_date",
    "day_shift",
    "booking_ordinal",
    "aftersale_reason",
    "aftersale_words",
    "pick",
    "complaint",
)
DATES = ("date_start", "date_end")
BOOKING_FACTS = ("biz_type", "origin", *PLACE_SLOTS, *DATES, "nights", "max_price", "passengers", "booking_id")

# The kinds of activity a search or a plan is refined by ("换成摄影类的", "不要徒步", "有适合带父母的吗").
KINDS = ("interests", "avoid_interests", "audience")
# Tasks whose result a follow-up refines by order, kind or who comes along.
REFINED = frozenset((SEARCH, RECOMMEND, TRAVEL_PLAN))
# What each task reads of a follow-up: a slot a task cannot use does not continue it.
TASK_TAKES: dict[str, frozenset[str]] = {
    WEATHER: frozenset((*PLACE_SLOTS, *DATES, "day_shift")),
    SEARCH: frozenset((*PLACE_SLOTS, *DATES, "max_price", "sort", "exclude_places", *KINDS)),
    RECOMMEND: frozenset((*PLACE_SLOTS, *DATES, "max_price", "sort", "exclude_places", *KINDS)),
    TRAVEL_PLAN: frozenset((*PLACE_SLOTS, *DATES, "days", "max_price", "sort", "exclude_places", *KINDS)),
    ROUND_TRIP: frozenset(("origin", *PLACE_SLOTS, *DATES, "max_price", "biz_type", *PREFERENCE_SLOTS)),
    BOOK: frozenset(
        (
            *BOOKING_FACTS,
            *PREFERENCE_SLOTS,
            "pick",
            "rebook",
            "original_date",
            "day_shift",
            "booking_ordinal",
            "past_date",
        )
    ),
    CANCEL: frozenset(("booking_id", "biz_type", *DATES, "booking_ordinal")),
    AFTERSALE: frozenset(("order_id", "aftersale_action", "aftersale_reason", "aftersale_words")),
    PROGRESS: frozenset(("order_id", "aftersale_action")),
}
TAKES_EXCLUSIONS = frozenset((SEARCH, RECOMMEND))
# Questions answered on the side while a task waits; the task resumes afterwards.
SIDE_QUESTIONS = frozenset((WEATHER, SEARCH, RECOMMEND, TRAVEL_PLAN, PROGRESS))
# Tasks whose length a sentence may change by some days ("再加一天", "少住一晚", "one more day").
LENGTHENS = frozenset((TRAVEL_PLAN, ROUND_TRIP, BOOK))
# Tasks a follow-up may come back to after another question ("改成五天" after the weather of the planned place).
RESUMABLE = frozenset((TRAVEL_PLAN, ROUND_TRIP, SEARCH, BOOK))
# Tasks that go on over several turns even when the last reply asked nothing (options to pick, a comparison).
LASTING_TASKS = frozenset((BOOK, ROUND_TRIP))
# What a reply awaits when it asked why the traveller wants a refund or a return (assistant.presenters.aftersale).
ASKED_WHY = "reason"
# The reason of a request belongs to its order: another order drops it.
REASON_SLOTS = ("aftersale_reason", "aftersale_words")
# Slots that name one option of a search: a new search (another product, other dates) drops them.
OPTION_SLOTS = ("vendor", "avoid_vendor", "number", "seat_class", "star", "star_or_above", "pick")


@dataclass(frozen=True)
class Step:
    """One turn's decision: the intent to dispatch and the memory before the reply (task, slots, request, the
    options the turn may pick from, the suspended task, the exclusions). `keep`: the turn leaves the memory as
    it was (greetings, thanks, a refusal)."""

    intent: Intent
    memory: Memory
    keep: bool = False

    @property
    def request_text(self) -> str:
        return self.memory.request


def next_state(memory: Memory, understood: Intent, text: str) -> Step:
    """The intent to answer and the memory it is answered in, from the previous memory and the understood
    sentence (see the module's docstring for the rules)."""
    if memory.suspended and understood.length_change and memory.task not in LENGTHENS:
        memory = _restored(memory)  # "再加一天" after the weather of the planned place: the plan
    if understood.length_change:
        understood = _lengthened(memory, understood)
    if understood.weekday is not None or understood.day_offset:
        understood = _anchored(memory, understood)
    understood = _with_reason_words(memory, understood, text)
    new = own_slots(understood)
    if understood.past_date and not understood.date_start:  # "昨天" answers "which date?": it goes on the task
        new["past_date"] = understood.past_date.isoformat()
    name = understood.intent
    if understood.pay or understood.booking_status:
        return _about_bookings(memory, understood, new, text)
    if memory.suspended and _resumes(memory, understood, new):
        memory = _restored(memory)
    if understood.asks_option and memory.task == BOOK and memory.offered and not names_a_place(new):
        return _about_options(memory, understood, new, text)
    if name == OUT_OF_SCOPE and not (new or understood.exclude_places or understood.follow_up):
        answer = memory.awaiting and understood.mobile  # "13800000000" alone answers the booking question
        if not answer:
            return Step(understood, memory, keep=True)  # a greeting, thanks, a refusal: the task stays
    if understood.pick and _shows_activities(memory) and (understood.details or name in (OUT_OF_SCOPE, BOOK, SEARCH)):
        # "第一个的详情", "tell me more about the second one": that activity's details, never a booking
        return _continued(memory, memory.task or SEARCH, understood, {"pick": understood.pick}, text)
    if understood.pick and memory.offered and name in (OUT_OF_SCOPE, BOOK, SEARCH):
        return _continued(memory, BOOK, understood, new, text)
    if memory.task and memory.awaiting and _answers(memory, understood, new):
        return _continued(memory, memory.task, understood, new, text)
    if memory.task and _follows_up(memory, understood, new):
        return _continued(memory, _followed_task(memory.task, new), understood, new, text)
    if memory.task and name in SIDE_QUESTIONS and name != memory.task and task_waits(memory):
        return _side_question(memory, understood, new, text)
    return _new_request(memory, understood, new, text)


def _lengthened(memory: Memory, understood: Intent) -> Intent:
    """The sentence as a change of the task's length: a plan's days, a stay's or a round trip's last day (and
    nights). Unchanged when the conversation has no such task or no length to change."""
    if memory.task not in LENGTHENS:
        return understood
    change, slots = understood.length_change or 0, memory.slots
    start, end = _day(slots.get("date_start")), _day(slots.get("date_end"))
    update: dict[str, Any] = {"intent": memory.task, "length_change": None, "follow_up": True}
    if memory.task == TRAVEL_PLAN:
        days = slots.get("days") or ((end - start).days + 1 if start and end else DEFAULT_PLAN_DAYS)
        update["days"] = max(1, days + change)
    elif start and end and (end - start).days + change >= 1:
        update["date_end"] = end + dt.timedelta(days=change)
    elif start and slots.get("nights") and slots["nights"] + change >= 1:
        update["nights"] = slots["nights"] + change
    else:
        return understood  # nothing to lengthen yet: the handler asks for the dates as usual
    return understood.model_copy(update=update)


def _anchored(memory: Memory, understood: Intent) -> Intent:
    """A day said from the date the conversation already has: a weekday with no week named ("不对，是周四" after
    next Wednesday) is that day of the same week, never the next one from today; "前一天" / "the day after" is
    counted from that date. Unchanged when the conversation has no date, or the sentence is about another trip (a
    place of its own)."""
    said = _day(memory.slots.get("date_start"))
    new = own_slots(understood)
    other_trip = names_a_place(new) and not set(places_named(new)) <= set(places_named(memory.slots))
    if said is None or other_trip or understood.date_end is not None:
        return understood
    if understood.day_offset:
        day = said + dt.timedelta(days=understood.day_offset)
    else:
        day = said + dt.timedelta(days=(understood.weekday or 0) - said.weekday())
    return understood.model_copy(update={"date_start": day, "day_offset": None, "weekday": None})


def _with_reason_words(memory: Memory, understood: Intent, text: str) -> Intent:
    """The sentence with the traveller's own words for why they ask for a refund or a return, kept by code from it
    (`assistant.reason_words`): a request that says why, or an answer to the question why (not a greeting, not a
    reading's bare yes or no). Whatever a model put there is not kept: the approver reads the traveller's words."""
    asked = memory.task == AFTERSALE and memory.awaiting == ASKED_WHY
    answer = asked and understood.intent == OUT_OF_SCOPE and not understood.social
    recognised = understood.aftersale_reason is not None
    words = None
    if (understood.intent == AFTERSALE or answer) and (recognised or not (asked and understood.answer)):
        words = reason_words(text, asked=asked, recognised=recognised)
    if words == understood.aftersale_words:
        return understood
    return understood.model_copy(update={"aftersale_words": words})


def _day(value) -> dt.date | None:
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def remembered(step: Step, *, awaiting: str | None, offered: list[str]) -> Memory:
    """The memory after the reply: the step's, with what the reply asked for and the options it offered (a booking
    keeps its options while the reply offers no new ones, so "第二个" still picks; so do activities while the
    details of one are shown)."""
    if step.keep:
        return step.memory
    memory = step.memory
    slots = dict(memory.slots)
    if offered:
        slots.pop("pick", None)  # new options: an earlier pick meant one of the old ones
    # The activities shown stay on screen while one of them is looked at ("第一个的详情", then "第二个呢").
    looked_at = bool(slots.get("pick")) and _shows_activities(memory)
    kept = list(offered) or (list(memory.offered) if memory.task == BOOK or looked_at else [])
    return replace(memory, slots=slots, awaiting=awaiting, offered=kept)


def queued_after(memory: Memory, step: Step, understood: Intent) -> list[dict[str, Any]]:
    """The bookings kept for after the task: those kept before (less one of the product the traveller now books
    themselves), then the other products this sentence books besides its first ("机票和上海的酒店": the hotel), in
    the trip's place, from its day, for the nights said (the journey booked sets them again when it is taken up)."""
    if step.keep:
        return list(memory.queued)
    intent = step.intent
    booking = intent.biz_type if intent.intent == BOOK else None
    queued = [q for q in memory.queued if not (booking and q.get("slots", {}).get("biz_type") == booking)]
    if intent.intent != BOOK:
        return queued[:MAX_QUEUED]
    place = intent.city or next(iter(intent.destination_keywords), None)
    for biz_type in understood.also_book:
        if biz_type == booking or any(q["slots"].get("biz_type") == biz_type for q in queued):
            continue
        slots: dict[str, Any] = {"biz_type": biz_type, "city": place, "nights": intent.nights}
        slots["date_start"] = intent.date_start.isoformat() if intent.date_start else None
        queued.append({"task": BOOK, "slots": {k: v for k, v in slots.items() if v is not None}})
    return queued[:MAX_QUEUED]


def taken_up(memory: Memory, after: dict[str, Any]) -> Step | None:
    """The first booking kept for after the task, as the task now (its slots, with the place and day the journey
    just booked sets: `after`, and the travellers of the task before); None when none is kept."""
    if not memory.queued:
        return None
    first, rest = memory.queued[0], memory.queued[1:]
    slots = {**first.get("slots", {}), **{k: v for k, v in after.items() if v is not None}}
    if memory.slots.get("passengers") and "passengers" not in slots:
        slots["passengers"] = memory.slots["passengers"]
    start = _day(slots.get("date_start"))
    if start and slots.get("nights"):
        slots["date_end"] = (start + dt.timedelta(days=slots["nights"])).isoformat()
    intent = Intent.model_validate({"intent": first.get("task") or BOOK, **slots})
    state = Memory(task=intent.intent, request="", queued=list(rest))
    return Step(intent, replace(state, slots=own_slots(intent)))


def own_slots(intent: Intent) -> dict[str, Any]:
    """The sentence's slots and task facts (without the exclusions, kept apart)."""
    slots = intent.slots()
    slots.pop("exclude_places", None)
    dumped = intent.model_dump(mode="json", include=set(TASK_FLAGS))
    slots.update({key: value for key, value in dumped.items() if value not in (None, [], "", False)})
    return slots


# --- which rule applies -------------------------------------------------------------------------------------------


def _resumes(memory: Memory, understood: Intent, new: dict) -> bool:
    """Whether the sentence answers or continues the task a side question put aside."""
    task = memory.suspended or {}
    name = understood.intent
    if name == task.get("task"):
        return True
    if understood.pick and task.get("offered"):
        return True
    if task.get("awaiting") and name in (OUT_OF_SCOPE, SEARCH) and (understood.passengers or understood.mobile):
        return True
    preferences = set(new) - {"pick"}
    current = TASK_TAKES.get(memory.task or "", frozenset())
    aside = TASK_TAKES.get(task.get("task") or "", frozenset())
    return bool(preferences) and preferences <= aside and not preferences & current and name in (OUT_OF_SCOPE, SEARCH)


def _answers(memory: Memory, understood: Intent, new: dict) -> bool:
    """Whether the sentence answers the question the last reply asked (the contact for a booking, a missing
    place or date): the same task, or a sentence whose only content is slots."""
    name = understood.intent
    if name == memory.task:
        return True
    if name == OUT_OF_SCOPE:
        return bool(new) or bool(understood.mobile)
    return memory.task == BOOK and bool(understood.passengers or understood.mobile) and name == SEARCH


def _follows_up(memory: Memory, understood: Intent, new: dict) -> bool:
    """Whether the sentence only changes slots of the task at hand."""
    name = understood.intent
    takes = TASK_TAKES.get(memory.task or "", frozenset())
    given = set(new) | ({"exclude_places"} if understood.exclude_places else set())
    fits = bool(given & takes) or not given
    if understood.correction:
        return fits or name == OUT_OF_SCOPE
    new_place = names_a_place(new) and not set(places_named(new)) <= set(places_named(memory.slots))
    if new_place and understood.asks_activities:
        return False  # "三亚 1块钱以内的活动": a request of its own for another place, not "那丽江呢"
    if understood.follow_up:
        return fits or name == OUT_OF_SCOPE
    if name == OUT_OF_SCOPE:
        return bool(given)  # slots alone, no request of their own
    if name == memory.task:
        # The same request again goes on, unless it names a place of its own (then it is a new one).
        same_place = set(places_named(new)) <= set(places_named(memory.slots))
        return not names_a_place(new) or same_place or only_exclusions(understood, new)
    if memory.task in REFINED and name in (BOOK, RECOMMEND, SEARCH) and given and given <= takes:
        # "something more upscale?", "cheaper options?", "有适合带孩子的吗": only an order, a kind, a budget or who
        # comes along, which the activities or the plan on screen take (no product, no place of its own)
        return not names_a_place(new)
    if name == SEARCH and memory.task != SEARCH:
        # Slots the task takes, and no place of their own ("预算每个活动不超过300" after a plan, "1000以内的" after
        # flights): they change the task, whatever words come with them.
        if given and given <= takes and not names_a_place(new):
            return True
        # "不想去三亚" while another task waits: the search goes on without the place, for that task.
        return fits and only_exclusions(understood, new) and not understood.asks_activities
    return False


def task_waits(memory: Memory) -> bool:
    """Whether the task at hand waits for the traveller (a question, options to pick, a comparison). Activities
    shown are no options waiting for a pick: a search is answered once shown."""
    return bool(memory.awaiting or (memory.offered and not _shows_activities(memory))) or memory.task in LASTING_TASKS


def refines(memory: Memory, understood: Intent) -> bool:
    """Whether the reading refines the result on screen: kinds, an order or who comes along for activities or a
    plan, a follow-up of its slots, a pick among the activities shown, the weather's day moved or what to wear. The conversation then says
    what the sentence means, however unsure the reading of its words alone was."""
    if memory.task in REFINED:
        kinds = understood.interests or understood.avoid_interests or understood.audience or understood.sort
        # (a follow-up that only changes the slots, "那下周呢", "那丽江呢", redoes the result on screen too)
        return bool(kinds or understood.follow_up or (understood.pick and _shows_activities(memory)))
    if memory.task == WEATHER:
        return bool(understood.day_shift or understood.packing)
    return False


def _shows_activities(memory: Memory) -> bool:
    """Whether the options on screen are activities of a search or a recommendation (their refs say so)."""
    return memory.task in (SEARCH, RECOMMEND) and bool(memory.offered) and all(map(is_activity_ref, memory.offered))


def _followed_task(task: str, new: dict) -> str:
    """The task a follow-up continues: a recommendation given a place becomes a search of it."""
    if task == RECOMMEND and names_a_place(new):
        return SEARCH
    return task


# --- the new state ------------------------------------------------------------------------------------------------


def _continued(memory: Memory, task: str, understood: Intent, new: dict, text: str) -> Step:
    """The task goes on: the new slots over the task's own, the wrong place replaced, exclusions applied."""
    slots = _refined(memory, task, _merged(dict(memory.slots), new), new)
    excluded = exclusions(memory.excluded, understood, before=memory.slots, new=new)
    request = _joined(memory.request, text)
    state = replace(memory, task=task, request=request, excluded=excluded)
    # Only an order among the options shown ("ok the cheapest", "最早的那班"): the traveller takes the nearest.
    accept_nearest = task == BOOK and bool(memory.offered) and set(new) == {"sort"}
    # A pick or who travels, nothing more: the search finds the options on screen again (not listed again).
    same_options = task == BOOK and bool(memory.offered) and not set(new) - {"pick", "passengers"}
    return _step(state, task, slots, understood, accept_nearest=accept_nearest, same_options=same_options)


def _refined(memory: Memory, task: str, slots: dict, new: dict) -> dict:
    """A refinement of the result on screen, made concrete from what it showed: "cheaper" is the cheapest first
    under the dearest price shown; "pricier" or "better rated" lifts a cap; a weather's day moved by some days
    ("and the day after?") is counted from the day it showed (or, with none, from today: the handler's)."""
    if task in (SEARCH, RECOMMEND):
        prices = [found[1] for ref in memory.offered if (found := activity_of(ref))]
        if new.get("sort") == CHEAPEST and "max_price" not in new and prices:
            slots["max_price"] = math.ceil(max(prices)) - 1 or 1
        elif new.get("sort") in (PRICIEST, TOP_RATED) and "max_price" not in new:
            slots.pop("max_price", None)
        for kind in ("interests", "avoid_interests"):  # a kind wanted now is no longer avoided, and the other way
            other = "avoid_interests" if kind == "interests" else "interests"
            if new.get(kind) and slots.get(other):
                slots[other] = [tag for tag in slots[other] if tag not in new[kind]]
        if "avoid_interests" in new and "interests" not in new and memory.slots.get("avoid_interests"):
            slots["avoid_interests"] = list(dict.fromkeys([*memory.slots["avoid_interests"], *new["avoid_interests"]]))
    if task == WEATHER and new.get("day_shift") and "date_start" not in new:
        start = _day(memory.slots.get("date_start"))
        if start is not None:
            day = start + dt.timedelta(days=new["day_shift"])
            slots.update(date_start=day.isoformat(), date_end=day.isoformat())
            slots.pop("day_shift", None)
        else:  # no day shown yet: counted from today by the handler, and further moves add up
            slots["day_shift"] = (memory.slots.get("day_shift") or 0) + new["day_shift"]
    return slots


def _about_options(memory: Memory, understood: Intent, new: dict, text: str) -> Step:
    """A question about the options on screen ("第一个多少钱？", "is the second one direct?"): the booking goes on
    with its slots and options as they were; only a pick said with it ("那就订它吧") moves it."""
    chosen = {"pick": new["pick"]} if new.get("pick") else {}
    step = _continued(memory, BOOK, understood, chosen, text)
    asked = {"asks_option": understood.asks_option, "asked_option": understood.asked_option}
    intent = step.intent.model_copy(update={**asked, "asked_order": understood.asked_order, "pick": new.get("pick")})
    return Step(intent, step.memory)


def _side_question(memory: Memory, understood: Intent, new: dict, text: str) -> Step:
    """Answer a question on the side and put the waiting task aside (it resumes with all its slots)."""
    aside = _aside(memory)
    carried = {k: v for k, v in memory.slots.items() if k in PLACE_AND_TIME_SLOTS}
    if names_a_place(new):
        carried = {k: v for k, v in carried.items() if k in DATES} if understood.same_time else {}
    slots = _merged(carried, new)
    excluded = exclusions([], understood, before={}, new=new)
    state = Memory(task=understood.intent, request=text, suspended=aside, excluded=excluded)
    return _step(state, understood.intent, slots, understood)


def _about_bookings(memory: Memory, understood: Intent, new: dict, text: str) -> Step:
    """Paying a booking or asking how bookings stand: about the traveller's own bookings, with only this sentence's
    facts (a remembered date or booking never picks which one to pay); a task at hand is put aside and resumes."""
    suspended = memory.suspended or (_aside(memory) if memory.task in RESUMABLE else None)
    state = Memory(task=understood.intent, request=text, suspended=suspended)
    return _step(state, understood.intent, dict(new), understood)


def _new_request(memory: Memory, understood: Intent, new: dict, text: str) -> Step:
    """A request of its own: fresh when it names a place (no stale dates, budget or keywords); without one, the
    place and time of the conversation. An after-sale question keeps its order."""
    name = understood.intent
    # Which booking a cancel means is told by its own sentence: a place or a date of an earlier task is no hint.
    fresh = names_a_place(new) or not memory.task or name == CANCEL
    carried = {} if fresh else {k: v for k, v in memory.slots.items() if k in PLACE_AND_TIME_SLOTS}
    if name in (PROGRESS, AFTERSALE) and memory.task in (AFTERSALE, PROGRESS) and "order_id" not in new:
        carried.update({k: v for k, v in memory.slots.items() if k in ("order_id", "aftersale_action")})
    slots = _merged(carried, new)
    previous = [] if fresh else memory.excluded
    excluded = exclusions(previous, understood, before={}, new=new)
    # A read question on the side of a task keeps the task aside (a waiting one first, else the task just answered:
    # "帮我规划大理三天" → "那边天气怎么样" → "改成五天" goes back to the plan); a new task of its own replaces it.
    suspended = None
    if name in SIDE_QUESTIONS:
        suspended = memory.suspended or (_aside(memory) if memory.task in RESUMABLE and memory.task != name else None)
    state = Memory(task=name, request=text, suspended=suspended, excluded=excluded)
    step = _step(state, name, slots, understood)
    if name in SIDE_QUESTIONS and BOOK in understood.also:
        # "北京明天天气怎么样，顺便帮我订张去北京的火车票": the weather is answered, the booking is what goes on.
        return Step(step.intent, replace(step.memory, task=BOOK, suspended=None))
    return step


def _step(
    state: Memory, task: str, slots: dict, understood: Intent, *, accept_nearest: bool = False, same_options=False
) -> Step:
    slots = without_places(slots, state.excluded)
    if slots.pop("past_date", None) and not understood.date_start:
        for key in DATES:  # a day already over replaces the day said before: a new one is asked for
            slots.pop(key, None)
    task = _followed_task(task, slots)  # "有什么好玩的" after the weather of 丽江: the activities of 丽江
    takes_exclusions = task in TAKES_EXCLUSIONS
    data = {
        "intent": task,
        **slots,
        "exclude_places": state.excluded if takes_exclusions else [],
        "also": understood.also,  # this sentence only
        "social": understood.social,
        "correction": understood.correction,
        "follow_up": understood.follow_up,
        "accept_nearest": accept_nearest,  # this sentence only
        "same_options": same_options,  # this sentence only
        "pay": understood.pay,  # this sentence only
        "packing": understood.packing,  # this sentence only: what to wear, with this weather
        "past_date": understood.past_date if task == BOOK else None,  # this sentence only
        "booking_status": understood.booking_status,
    }
    intent = Intent.model_validate(data)
    return Step(intent, replace(state, task=task, slots=own_slots(intent)))


def _merged(carried: dict, new: dict) -> dict:
    """The new slots over the carried ones: a new place replaces the whole place, a new start date or length
    its end, a new product the option it named."""
    if names_a_place(new):
        for key in PLACE_SLOTS:
            carried.pop(key, None)
    if ("date_start" in new or "days" in new or "nights" in new) and "date_end" not in new:
        carried.pop("date_end", None)
    if "day_shift" in new:  # "往后推一天": counted from the booking's day, not from a day said before
        for key in (*DATES, "original_date"):
            carried.pop(key, None)
    elif "date_start" in new:
        carried.pop("day_shift", None)
    if "date_end" in new:  # "改成12号退房", "back on the 9th": the new last day sets the length
        for key in ("days", "nights"):
            if key not in new:
                carried.pop(key, None)
    if "biz_type" in new and carried.get("biz_type") and new["biz_type"] != carried["biz_type"]:
        # another product: the option its wants named is gone (the wants said before the product was known stay)
        for key in OPTION_SLOTS:
            carried.pop(key, None)
    if new.get("order_id") and carried.get("order_id") not in (None, new["order_id"]):
        for key in REASON_SLOTS:  # another order: the reason given for the other one is not this one's
            carried.pop(key, None)
    if set(new) - {"pick", "passengers"} and "pick" not in new:
        carried.pop("pick", None)  # a new search: the earlier pick meant one of the old options
    carried.update(new)
    return carried


def _aside(memory: Memory) -> dict:
    """The task at hand, put aside whole (it resumes with all its slots)."""
    return {
        "task": memory.task,
        "slots": memory.slots,
        "awaiting": memory.awaiting,
        "request": memory.request,
        "offered": list(memory.offered),
        "excluded": list(memory.excluded),
    }


def _restored(memory: Memory) -> Memory:
    aside = memory.suspended or {}
    return Memory(
        task=aside.get("task"),
        slots=dict(aside.get("slots") or {}),
        awaiting=aside.get("awaiting"),
        request=aside.get("request") or "",
        offered=list(aside.get("offered") or []),
        excluded=list(aside.get("excluded") or []),
    )


def _joined(request: str, text: str) -> str:
    return (f"{request}\n{text}" if request else text)[-MAX_REQUEST_CHARS:]


__all__ = ["Step", "next_state", "own_slots", "queued_after", "refines", "remembered", "taken_up"]
