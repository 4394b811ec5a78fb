"""Presenter of the round-trip comparison (kind `round_trip`, the `compare_round_trip` tool): the same text and
`plan_comparison` card in both channels.

Everything shown comes from the envelope's facts (the supplier's prices, the engine's plans, what the preference
reader understood); the words come from the reply templates (plan_result, plan_empty, plan_unavailable, plan_need
and the small plan_* pieces they include).
"""

import datetime as dt

from assistant.presenters.base import Presenter, merge_replies
from assistant.replies import compose, format_day
from assistant.turn import Reply, TurnContext
from itinerary.planning import PLAN_NAMES


def present_round_trip(envelopes: list[dict], context: TurnContext) -> Reply:
    return merge_replies(_present_one(envelope, context) for envelope in envelopes)


def _present_one(envelope: dict, context: TurnContext) -> Reply:
    data = envelope["data"]
    language = context.language
    trip = data.get("trip") or {}
    words = {
        "origin": trip.get("origin"),
        "destination": trip.get("destination"),
        "depart": _day(trip.get("depart_date"), language),
        "back": _day(trip.get("return_date"), language),
    }
    status = data.get("status")
    if status == "invalid":
        text = compose("plan_need", language, missing=data.get("problems") or [], **words)
        return Reply(text, "CLARIFY")
    failed = data.get("failures") or []
    if status == "unavailable":
        return Reply(compose("plan_unavailable", language, failed=failed, **words), "DEGRADED")
    comparison = data.get("comparison")
    if not comparison:
        no_plan = data.get("no_plan")
        text = compose(
            "plan_empty",
            language,
            lacking=data.get("lacking") or [],
            no_legal=no_plan == "no_legal",
            unusable=no_plan == "unusable",
            **words,
        )
        return Reply(text, "EMPTY")

    preferences = data.get("preferences") or {}
    read, stated = bool(preferences.get("read")), list(preferences.get("stated") or [])
    card = {"type": "plan_comparison", **comparison, "preferences": stated, "preferences_read": read}
    text = compose(
        "plan_result",
        language,
        card=card,
        best=_plan(card, "best_overall"),
        cheapest=_plan(card, "cheapest"),
        shared=_shared_titles(card),
        stated=stated,
        read=read,
        failed=failed,
        max_price=data.get("max_price"),
        **words,
    )
    outcome = "ANSWERED" if read and not failed else "DEGRADED"
    return Reply(text, outcome, cards=[card])


def _day(value: str | None, language: str) -> str:
    return format_day(dt.date.fromisoformat(value), language) if value else ""


def _shared_titles(card: dict) -> list[list[str]]:
    """The plan names won by one and the same plan, for each plan that won several (e.g. [["best_overall",
    "cheapest"]]); the template says them in words."""
    groups = {tuple(p["labels"]) for p in card["plans"] if len(p["labels"]) > 1}
    return [list(group) for group in sorted(groups, key=lambda g: PLAN_NAMES.index(g[0]))]


def _plan(card: dict, name: str) -> dict | None:
    return next((p for p in card["plans"] if p["name"] == name), None)


PRESENTERS: dict[str, Presenter] = {"round_trip": present_round_trip}
