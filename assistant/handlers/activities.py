"""Activities: search, recommend, and the refusal of what is out of scope."""

from assistant import cards
from assistant.dispatcher import Reply, TurnContext, chip, handles
from assistant.knowledge import tip_for
from assistant.llm.schema import Intent, IntentName
from assistant.replies import compose, format_range
from itinerary.matching import personalised, viewer_for
from itinerary.selectors import ActivityQuery, activity_popular, activity_search

MAX_CARDS = 6


def _place_label(intent: Intent) -> str:
    return "、".join(intent.destination_keywords) or intent.city or intent.province or ""


def _conditions(context: TurnContext, query: ActivityQuery) -> str:
    return compose(
        "conditions",
        context.language,
        place=_place_label(context.intent),
        dates=format_range(query.date_start, query.date_end, context.language),
        defaulted_window=query.defaulted_window,
        max_price=query.max_price,
    )


@handles(IntentName.SEARCH_ACTIVITIES)
def search_activities(context: TurnContext) -> Reply:
    intent, language = context.intent, context.language
    has_place = bool(intent.destination_keywords or intent.province or intent.city)
    if not has_place:
        said = []
        if intent.date_start:
            said.append(format_range(intent.date_start, intent.date_end, language))
        if intent.max_price:
            said.append(f"≤{intent.max_price}元" if language == "zh-hans" else f"≤ ¥{intent.max_price}")
        text = compose("clarify_destination", language, conditions="，".join(said))
        examples = ["赛里木湖", "大理", "三亚"] if language == "zh-hans" else ["Dali", "Sanya", "West Lake"]
        return Reply(text, "CLARIFY", suggestions=[chip(e) for e in examples], awaiting="destination")

    query = ActivityQuery.build(
        today=context.today,
        keywords=intent.destination_keywords,
        province=intent.province if not intent.destination_keywords else None,
        city=intent.city if not intent.destination_keywords else None,
        date_start=intent.date_start,
        date_end=intent.date_end,
        max_price=intent.max_price,
    )
    # Personalisation: the traveller's hard filters (age, gender) and interests, over the catalogue's order.
    shown, total = personalised(
        activity_search(query), viewer=viewer_for(user=context.user, today=context.today), limit=MAX_CARDS
    )
    place = _place_label(intent)
    conditions = _conditions(context, query)
    if not shown:
        text = compose(
            "search_empty",
            language,
            conditions=conditions,
            max_price=query.max_price,
            defaulted_window=query.defaulted_window,
            province=intent.province,
            place=place,
        )
        return Reply(text, "EMPTY", suggestions=_widen_chips(context, place))
    tip = tip_for(intent.destination_keywords or [place], language) if intent.destination_keywords else None
    text = compose("search_hits", language, total=total, shown=len(shown), place=place, conditions=conditions, tip=tip)
    return Reply(text, "ANSWERED", cards=[cards.activity_card(a) for a in shown])


def _widen_chips(context: TurnContext, place: str) -> list[dict]:
    zh = context.language == "zh-hans"
    chips = []
    if context.intent.max_price or context.intent.date_start:
        chips.append(chip(f"{place}有什么活动" if zh else f"Activities in {place}", fresh=True))
    if context.intent.province and context.intent.province != place:
        province = context.intent.province
        chips.append(chip(f"{province}有什么活动" if zh else f"Activities in {province}", fresh=True))
    chips.append(chip("推荐热门活动" if zh else "Recommend popular activities", fresh=True))
    return chips


@handles(IntentName.RECOMMEND)
def recommend(context: TurnContext) -> Reply:
    intent, language = context.intent, context.language
    shown, _ = personalised(
        activity_popular(today=context.today, date_start=intent.date_start, date_end=intent.date_end),
        viewer=viewer_for(user=context.user, today=context.today),
        limit=MAX_CARDS,
    )
    dates = format_range(intent.date_start, intent.date_end, language) if intent.date_start else ""
    if not shown:
        return Reply(compose("recommend_empty", language, dates=dates), "EMPTY")
    text = compose("recommend", language, shown=len(shown), dates=dates)
    return Reply(text, "ANSWERED", cards=[cards.activity_card(a) for a in shown])


@handles(IntentName.OUT_OF_SCOPE)
def out_of_scope(context: TurnContext) -> Reply:
    zh = context.language == "zh-hans"
    examples = (
        ["推荐热门活动", "大理有什么活动", "我的退款到哪一步了"]
        if zh
        else ["Recommend something fun", "Activities in Dali", "Where is my refund?"]
    )
    return Reply(
        compose("out_of_scope", context.language), "REFUSED", suggestions=[chip(e, fresh=True) for e in examples]
    )
