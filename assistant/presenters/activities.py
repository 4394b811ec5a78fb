"""Presenters of the catalogue's envelopes: activity search and recommendation (kind `activities`) and one
activity in full (kind `activity_detail`). Text from the reply templates, cards from the envelope's facts."""

import datetime as dt

from assistant import cards
from assistant.knowledge import tip_for
from assistant.presenters.base import Presenter, merge_replies
from assistant.replies import compose, format_range
from assistant.turn import Reply, TurnContext, chip

DESTINATION_EXAMPLES = {"zh-hans": ["赛里木湖", "大理", "三亚"], "en": ["Dali", "Sanya", "West Lake"]}


def _date(value: str | None) -> dt.date | None:
    return dt.date.fromisoformat(value) if value else None


def clarify_destination(context: TurnContext, *, date_start=None, date_end=None, max_price=None) -> Reply:
    """Where to? (a search without a place), with what was already said and a few destinations to tap."""
    language = context.language
    said = []
    if date_start:
        said.append(format_range(date_start, date_end, language))
    if max_price:
        said.append(f"≤{max_price}元" if language == "zh-hans" else f"≤ ¥{max_price}")
    text = compose("clarify_destination", language, conditions="，".join(said))
    examples = DESTINATION_EXAMPLES.get(language, DESTINATION_EXAMPLES["en"])
    return Reply(text, "CLARIFY", suggestions=[chip(e) for e in examples], awaiting="destination")


def _conditions(query: dict, language: str) -> str:
    return compose(
        "conditions",
        language,
        place=query["place"],
        dates=format_range(_date(query["date_start"]), _date(query["date_end"]), language),
        defaulted_window=query["defaulted_window"],
        max_price=query["max_price"],
    )


def _widen_chips(query: dict, language: str) -> list[dict]:
    zh = language == "zh-hans"
    place, province = query["place"], query.get("province")
    chips = []
    if query["max_price"] or not query["defaulted_window"]:
        chips.append(chip(f"{place}有什么活动" if zh else f"Activities in {place}", fresh=True))
    if province and province != place:
        chips.append(chip(f"{province}有什么活动" if zh else f"Activities in {province}", fresh=True))
    chips.append(chip("推荐热门活动" if zh else "Recommend popular activities", fresh=True))
    return chips


def _search(data: dict, context: TurnContext) -> Reply:
    language, query = context.language, data["query"]
    conditions = _conditions(query, language)
    shown = data["activities"]
    if not shown:
        text = compose(
            "search_empty",
            language,
            conditions=conditions,
            max_price=query["max_price"],
            defaulted_window=query["defaulted_window"],
            province=query.get("province"),
            place=query["place"],
        )
        return Reply(text, "EMPTY", suggestions=_widen_chips(query, language))
    tip = tip_for(query["keywords"], language) if query["keywords"] else None
    text = compose(
        "search_hits",
        language,
        total=data["total"],
        shown=len(shown),
        place=query["place"],
        conditions=conditions,
        tip=tip,
    )
    return Reply(text, "ANSWERED", cards=[cards.activity_card(a) for a in shown])


def _recommend(data: dict, context: TurnContext) -> Reply:
    language, query = context.language, data["query"]
    dates = format_range(_date(query["date_start"]), _date(query["date_end"]), language) if query["asked_dates"] else ""
    shown = data["activities"]
    if not shown:
        return Reply(compose("recommend_empty", language, dates=dates), "EMPTY")
    text = compose("recommend", language, shown=len(shown), dates=dates)
    return Reply(text, "ANSWERED", cards=[cards.activity_card(a) for a in shown])


def _activities_reply(envelope: dict, context: TurnContext) -> Reply:
    data = envelope["data"]
    if not envelope["ok"]:  # a search without a place: ask where
        return clarify_destination(context)
    return _recommend(data, context) if data.get("mode") == "recommend" else _search(data, context)


def present_activities(envelopes: list[dict], context: TurnContext) -> Reply:
    """One reply per search or recommendation, in call order."""
    return merge_replies(_activities_reply(e, context) for e in envelopes)


def _detail_reply(envelope: dict, context: TurnContext) -> Reply:
    data = envelope["data"]
    if not envelope["ok"]:
        return Reply(compose("activity_not_found", context.language, activity_id=data.get("activity_id")), "EMPTY")
    facts = data["activity"]
    text = compose(
        "activity_detail",
        context.language,
        activity=facts,
        dates=format_range(_date(facts["start_date"]), _date(facts["end_date"]), context.language),
    )
    return Reply(text, "ANSWERED", cards=[cards.activity_detail_card(facts)])


def present_activity_detail(envelopes: list[dict], context: TurnContext) -> Reply:
    return merge_replies(_detail_reply(e, context) for e in envelopes)


PRESENTERS: dict[str, Presenter] = {"activities": present_activities, "activity_detail": present_activity_detail}
