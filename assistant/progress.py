"""A turn's progress on the traveller's open page: each tool call as it starts ("Searching trains 北京 → 上海…"),
then what it found ("3 found") with its cards, pushed on the live channel (`core.live`) while the turn goes on. The
turn's reply then comes as before, with the same cards, and takes their place: progress is shown, never kept.

Only a turn sent from a page whose live channel is open carries a token (`live_token`, set by static/js/tripdesk.js
and checked against TOKEN); the way in follows the turn with it (`following`), and both channels report their calls
(`assistant.handlers.base.run_tool` in channel 1, the agent loop's `on_step` in channel 2). Without a token nothing
is pushed and nothing is presented twice.
"""

import json
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from assistant.presenters import present
from assistant.turn import TurnContext
from core import live
from itinerary.words import place_name

logger = logging.getLogger(__name__)

TOKEN = re.compile(r"[A-Za-z0-9_-]{8,64}")
# Calls that are the conversation itself (asking the traveller, handing over): no step to show.
QUIET = frozenset({"ask_traveller", "hand_over_to_person"})


@dataclass(frozen=True)
class _Follower:
    user_id: int
    token: str


_following: ContextVar[_Follower | None] = ContextVar("assistant_progress", default=None)


@contextmanager
def following(*, user_id: int, token: str | None) -> Iterator[None]:
    """Push the progress of the turn run inside to the user's open page that sent it (its `token`); a missing or
    malformed token follows nothing."""
    if not (token and TOKEN.fullmatch(token) and live.enabled()):
        yield
        return
    reset = _following.set(_Follower(user_id, token))
    try:
        yield
    finally:
        _following.reset(reset)


def turn_started(language: str) -> None:
    """The turn is admitted and being read: the page's first step, before any model call."""
    _show(language, "the start of a turn", lambda: {"line": _("Reading your message…")})


def step_started(name: str, arguments: dict, context: TurnContext) -> None:
    """A call of the turn starts: what it does, on the page."""
    if name not in QUIET:
        _show(context.language, name, lambda: {"line": _label(name, arguments, context.language)})


def step_done(name: str, envelope: dict, context: TurnContext) -> None:
    """A call of the turn ended: how many it found and their cards, on the page (nothing for a failure: the reply
    tells it)."""
    if name not in QUIET and envelope.get("ok"):
        _show(context.language, name, lambda: _found(envelope, context))


def _found(envelope: dict, context: TurnContext) -> dict | None:
    """What a call found, as the step's line and cards; None when it found nothing to show."""
    cards = present([envelope], context).cards
    if not cards:
        return None
    data = envelope.get("data") if isinstance(envelope.get("data"), dict) else {}
    found = data["total"] if isinstance(data.get("total"), int) else len(cards)
    return {
        "line": ngettext("%(count)s found", "%(count)s found", found) % {"count": found},
        "cards": cards,
        "done": True,
    }


def _show(language: str, what: str, step) -> None:
    """Push one step (`step()`: its template context, or None for nothing) to the page following this turn, in the
    turn's language; without a page following it nothing is worked out. Progress is a courtesy: it never fails the
    turn."""
    follower = _following.get()
    if follower is None:
        return
    try:
        with translation.override(language):
            shown = step()
            if shown is None:
                return
            html = render_to_string("assistant/partials/progress.html", shown)
        _push(follower, html)
    except Exception:
        logger.exception("the progress of %s could not be shown", what)


def _push(follower: _Follower, html: str) -> None:
    live.push(follower.user_id, live.PROGRESS, json.dumps({"token": follower.token, "html": html}))


def _label(name: str, arguments: dict, language: str) -> str:
    """What the step does, in the turn's language, from the call's own arguments (places in that language)."""

    def place(key: str) -> str:
        value = arguments.get(key)
        return place_name(str(value), language) if value else ""

    if name == "find_booking_options":
        kind = arguments.get("biz_type")
        if kind == "HOTEL":
            return (
                _("Searching hotels in %(city)s…") % {"city": place("city")}
                if place("city")
                else _("Searching hotels…")
            )
        route = {"origin": place("origin"), "destination": place("destination")}
        if kind == "TRAIN":
            return (
                _("Searching trains %(origin)s → %(destination)s…") % route
                if all(route.values())
                else _("Searching trains…")
            )
        return (
            _("Searching flights %(origin)s → %(destination)s…") % route
            if all(route.values())
            else _("Searching flights…")
        )
    if name in ("search_activities", "recommend_activities"):
        where = place("city") or place("province")
        return _("Looking for activities in %(place)s…") % {"place": where} if where else _("Looking for activities…")
    if name == "weather_report":
        return _("Checking the weather in %(place)s…") % {"place": place("place")}
    if name == "make_travel_plan":
        return _("Planning a trip to %(place)s…") % {"place": place("destination")}
    if name == "compare_round_trip":
        route = {"origin": place("origin"), "destination": place("destination")}
        return _("Comparing round trips %(origin)s ⇄ %(destination)s…") % route
    return {
        "activity_detail": _("Reading the activity's details…"),
        "list_my_bookings": _("Reading your bookings…"),
        "check_my_bookings": _("Reading your bookings…"),
        "describe_options": _("Reading the options…"),
        "query_progress": _("Looking up your requests…"),
        "cancel_booking": _("Preparing the cancellation…"),
        "rebook_booking": _("Preparing the change…"),
        "pay_booking": _("Preparing the payment…"),
        "request_aftersale": _("Preparing your request…"),
    }.get(name, _("Preparing the booking…") if name.startswith("book") else _("Working on it…"))
