"""Presenters of the catalogue's envelopes: activity search and recommendation (kind `activities`) and one
activity in full (kind `activity_detail`). Text from the reply templates, cards from the envelope's facts.

An empty search says how to widen it: it names the keyword searched (a phrase the catalogue does not know, such as
日照金山, is searched whole), and offers chips to drop the dates or the budget, to look at a known place the phrase
names (one the catalogue has activities in), or to see popular activities. It never shows another place's cards.
"""

import datetime as dt
import logging

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, pgettext

from assistant import cards
from assistant.knowledge import tip_for
from assistant.presenters.base import Presenter, merge_replies
from assistant.replies import compose, format_range
from assistant.selectors import catalogue_places
from assistant.turn import Reply, TurnContext, chip
from itinerary.words import activity_description, activity_title, place_label, place_name

logger = logging.getLogger("assistant.presenters")

NEARBY_PLACES = 2
# Destinations to tap when the traveller named none (in the reply's language, as they would type them).
DESTINATION_EXAMPLES = (gettext_noop("Sayram Lake"), gettext_noop("Dali"), gettext_noop("Sanya"))


def _date(value: str | None) -> dt.date | None:
    return dt.date.fromisoformat(value) if value else None


def clarify_destination(context: TurnContext, *, date_start=None, date_end=None, max_price=None) -> Reply:
    """Where to? (a search without a place), with what was already said and a few destinations to tap."""
    language = context.language
    with translation.override(language):
        said = []
        if date_start:
            said.append(format_range(date_start, date_end, language))
        if max_price:
            said.append(_("up to ¥%(price)s") % {"price": max_price})
        examples = [_(example) for example in DESTINATION_EXAMPLES]
        conditions = _("; ").join(said)
    text = compose("clarify_destination", language, conditions=conditions)
    return Reply(text, "CLARIFY", suggestions=[chip(e) for e in examples], awaiting="destination")


def _conditions(query: dict, language: str) -> str:
    return compose(
        "conditions",
        language,
        place=place_label(query["place"], language) if query["place"] else query["place"],
        dates=format_range(_date(query["date_start"]), _date(query["date_end"]), language),
        defaulted_window=query["defaulted_window"],
        max_price=query["max_price"],
    )


# How the results are ordered when the traveller asked for an order (the search's `sort`).
ORDERS = {
    "CHEAPEST": gettext_noop("cheapest first"),
    "PRICIEST": gettext_noop("dearest first"),
    "POPULAR": gettext_noop("most popular and best rated first"),
}
AUDIENCES = {
    "KIDS": gettext_noop("suited to children"),
    "ELDERLY": gettext_noop("suited to older travellers (nothing strenuous)"),
}


def refinements(query: dict, language: str, *, first: bool = False) -> str:
    """What the traveller asked of the results beyond place, dates and budget, in words ("按价格从低到高；只看摄影；
    不含徒步"): the order, the kinds wanted and avoided, who comes along; "" when nothing was asked."""
    with translation.override(language):
        said = []
        if query.get("sort") in ORDERS:
            said.append(_(ORDERS[query["sort"]]))
        wanted = [str(cards.INTERESTS[k]) for k in query.get("interests") or [] if k in cards.INTERESTS]
        avoided = [str(cards.INTERESTS[k]) for k in query.get("avoid_interests") or [] if k in cards.INTERESTS]
        if wanted:  # a search shows only those kinds; a plan puts them first (`first`)
            kinds = {"kinds": _(", ").join(wanted)}
            said.append(_("%(kinds)s first") % kinds if first else _("only %(kinds)s") % kinds)
        if avoided:
            said.append(_("without %(kinds)s") % {"kinds": _(", ").join(avoided)})
        if query.get("audience") in AUDIENCES:
            said.append(_(AUDIENCES[query["audience"]]))
        return _("; ").join(said)


def activity_refs(shown: list[dict]) -> list[str]:
    """The activities shown as options on screen ("第二个的详情" then names one of them)."""
    return [a["ref"] for a in shown if isinstance(a, dict) and a.get("ref")]


def keyword_places(keywords: list[str], *, asked: tuple[str | None, ...] = ()) -> tuple[bool, list[str]]:
    """(whether a keyword is a phrase no place list knows whole, the known places it names where the catalogue has
    activities): the city, else the province, of a place inside the phrase ("泰山日出" → 泰安), at most
    NEARBY_PLACES, never the phrase itself nor a place already asked."""
    if not keywords:
        return False, []
    known = set(catalogue_places())
    try:
        from assistant.llm.places import places_in

        matches = {keyword: places_in(keyword) for keyword in keywords}
    except Exception:  # the place list helps the wording; it is never a reason to fail the answer
        logger.warning("no place list for an empty search's wording", exc_info=True)
        return False, []
    whole = any(
        keyword in known or any(m.start == 0 and m.end == len(keyword) for m in matches[keyword])
        for keyword in keywords
    )
    places: list[str] = []
    for keyword in keywords:
        for match in matches[keyword]:
            if match.start == 0 and match.end < len(keyword) and match.place.is_prefecture_city:
                continue  # "日照金山" is not about 日照: a city that only starts the phrase is no place to widen to
            for name in (match.place.name, match.place.city, match.place.province):
                if name and name in known and name not in keywords and name not in asked and name not in places:
                    places.append(name)
                    break
    return not whole, places[:NEARBY_PLACES]


def _joined(names: list[str], language: str) -> str:
    with translation.override(language):
        return pgettext("list separator", ", ").join(names)


def _widen_chips(query: dict, language: str, nearby: list[str]) -> list[dict]:
    """Ways to widen an empty search, as messages in the reply's language the understanding reads."""
    place, province = query["place"], query.get("province")

    def activities_in(name: str) -> str:
        return _("Activities in %(place)s") % {"place": place_name(name, language)}

    with translation.override(language):
        chips = []
        refined = any(query.get(key) for key in ("interests", "avoid_interests", "audience"))
        if query["max_price"] or not query["defaulted_window"] or refined:
            label = _("Search again without dates or budget") if query.get("keywords") else activities_in(place)
            chips.append(chip(label, activities_in(place), fresh=True))
        for name in nearby:
            chips.append(chip(activities_in(name), fresh=True))
        for wider in (query.get("city"), province):
            if wider and wider != place and wider not in nearby:
                chips.append(chip(activities_in(wider), fresh=True))
        chips.append(chip(_("Recommend popular activities"), fresh=True))
    return chips


def _search(data: dict, context: TurnContext) -> Reply:
    language, query = context.language, data["query"]
    conditions = _conditions(query, language)
    shown = data["activities"]
    if not shown:
        keywords = [k for k in query.get("keywords") or [] if k]
        unknown, nearby = keyword_places(keywords, asked=(query.get("city"), query.get("province")))
        province = query.get("province")
        more = bool(
            unknown
            or query["max_price"]
            or not query["defaulted_window"]
            or nearby
            or (province and query["place"] != province)
        )
        text = compose(
            "search_empty",
            language,
            conditions=conditions,
            max_price=query["max_price"],
            defaulted_window=query["defaulted_window"],
            province=query.get("province"),
            place=query["place"],
            keyword="、".join(keywords),
            unknown_keyword=unknown,
            nearby=_joined([place_label(name, language) for name in nearby], language),
            more=more,
            refined=refinements(query, language),
        )
        return Reply(text, "EMPTY", suggestions=_widen_chips(query, language, nearby))
    tip = tip_for(query["keywords"], language) if query["keywords"] else None
    text = compose(
        "search_hits",
        language,
        total=data["total"],
        shown=len(shown),
        place=place_label(query["place"], language) if query["place"] else query["place"],
        conditions=conditions,
        tip=tip,
        refined=refinements(query, language),
    )
    return Reply(
        text,
        "ANSWERED",
        cards=[cards.activity_card(a, language=language) for a in shown],
        offered=activity_refs(shown),
    )


def _recommend(data: dict, context: TurnContext) -> Reply:
    language, query = context.language, data["query"]
    dates = format_range(_date(query["date_start"]), _date(query["date_end"]), language) if query["asked_dates"] else ""
    shown = data["activities"]
    refined = refinements(query, language)
    if query.get("max_price"):
        with translation.override(language):
            budget = _("up to ¥%(price)s") % {"price": query["max_price"]}
        refined = _join(language, budget, refined)
    if not shown:
        return Reply(compose("recommend_empty", language, dates=dates, refined=refined), "EMPTY")
    text = compose("recommend", language, shown=len(shown), dates=dates, refined=refined)
    return Reply(
        text,
        "ANSWERED",
        cards=[cards.activity_card(a, language=language) for a in shown],
        offered=activity_refs(shown),
    )


def _join(language: str, *parts: str) -> str:
    with translation.override(language):
        return _("; ").join(p for p in parts if p)


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
        activity={
            **facts,
            "title": activity_title(facts, context.language),
            "description": activity_description(facts, context.language),
        },
        dates=format_range(_date(facts["start_date"]), _date(facts["end_date"]), context.language),
    )
    return Reply(text, "ANSWERED", cards=[cards.activity_detail_card(facts, language=context.language)])


def present_activity_detail(envelopes: list[dict], context: TurnContext) -> Reply:
    return merge_replies(_detail_reply(e, context) for e in envelopes)


PRESENTERS: dict[str, Presenter] = {"activities": present_activities, "activity_detail": present_activity_detail}
