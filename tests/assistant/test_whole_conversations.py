"""Whole conversations (tests/assistant/eval/conversations-28.json), each in both channels with the real sandbox
supplier: what the traveller wanted is what the database holds at the end (the bookings made, the one cancelled, a
hand-over opened), or what the last answer shows when nothing is to be written; and nothing is written on a turn that
is not a yes. The set is written by the team apart from the readers, so its score is a measure, not a tuning target."""

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path

import pytest

from assistant.models import PendingAction
from bookings.facts import details_facts
from bookings.models import BookingRecord, BookingStatus
from itinerary.models import Activity
from itinerary.tagging import system_tags_for
from tests.assistant.conftest import Chat
from tests.bookings.test_booking_life import book_flight
from tests.factories import ActivityFactory

pytestmark = [pytest.mark.django_db]

SET = json.loads((Path(__file__).parent / "eval" / "conversations-28.json").read_text(encoding="utf-8"))
CONVERSATIONS = {c["id"]: c for c in SET["conversations"]}
HAN = range(0x4E00, 0xA000)


@pytest.fixture
def catalogue():
    for activity in SET["activities"]:
        ActivityFactory(
            title=activity["title"],
            city=activity["city"],
            province="浙江",
            price=Decimal(activity["price"]),
            tags=activity["tags"],
            system_tags=system_tags_for(activity["title"], activity["tags"]),
            popularity=activity["popularity"],
        )


def snapshot() -> list[tuple[str, str]]:
    return list(BookingRecord.objects.order_by("booking_id").values_list("booking_id", "status"))


def cards(answer: dict, kind: str) -> list[dict]:
    return [c for c in answer["cards"] if c["type"] == kind]


def catalogue_title(card: dict) -> str:
    """The Chinese title of a card's activity, as the set names it (an English reply shows the card in English)."""
    return Activity.objects.get(pk=card["id"]).title_zh_hans


def english(text: str) -> bool:
    """No Chinese outside a place name's own characters: at most the names the sentence itself gave."""
    return sum(1 for ch in text if ord(ch) in HAN) <= 8


def handovers(user) -> int:
    from assistant import models

    model = getattr(models, "Handover", None)
    return model.objects.filter(user=user).count() if model else 0


@pytest.mark.parametrize("name", list(CONVERSATIONS))
def test_the_conversation_ends_as_the_traveller_wanted(name, alice, channel, supplier_sandbox, settings, catalogue):
    settings.BOOKING_REFRESH_SECONDS = 0
    conversation, chat = CONVERSATIONS[name], Chat(alice)
    setup = book_flight(alice) if conversation.get("setup") == "flight" else None
    answers = []
    for turn, sentence in enumerate(conversation["turns"]):
        before = snapshot()
        answers.append(chat.say(sentence))
        if turn not in conversation["yes"]:
            assert snapshot() == before, f"turn {turn} {sentence!r} wrote without a yes: {answers[-1]['reply']!r}"

    expect, last = conversation["expect"], answers[-1]
    said = "\n".join(f"> {s}\n{a['reply']}" for s, a in zip(conversation["turns"], answers, strict=True))
    made = BookingRecord.objects.exclude(pk=getattr(setup, "pk", None)).order_by("created_at")
    if "booked" in expect:
        found = [(b.biz_type, b.details) for b in made]
        assert made.count() == len(expect["booked"]), (said, found)
        fits = [_fits(booking, want, setup, answers) for booking, want in zip(made, expect["booked"], strict=True)]
        assert fits == [True] * len(fits), (said, found)
    elif not expect.get("cancelled_setup"):
        assert not made.exists(), said
    if setup is not None:
        setup.refresh_from_db()
        assert (setup.status == BookingStatus.CANCELLED) is bool(expect.get("cancelled_setup")), said
    if expect.get("handover"):
        assert handovers(alice) == 1, said
    for kind in expect.get("cards", []):
        assert cards(last, kind), said
    if expect.get("language") == "en":
        assert english(last["reply"]) and last["reply"].strip(), said
    if "reply_any" in expect:
        assert any(word in last["reply"] for word in expect["reply_any"]), said
    if setup is not None and expect.get("reply_has_setup"):
        assert setup.booking_id in last["reply"] or setup.booking_id in json.dumps(last["cards"]), said
    if "first_activity" in expect:
        assert catalogue_title(cards(last, "activity")[0]) == expect["first_activity"], said
    if "no_activity" in expect:
        assert expect["no_activity"] not in [catalogue_title(c) for c in cards(last, "activity")], said
    if "nth_details" in expect:
        wanted = cards(answers[-2], "activity")[expect["nth_details"] - 1]["title"]
        assert wanted in last["reply"] or wanted in [c.get("title") for c in last["cards"]], said
        assert not PendingAction.objects.exists() and not BookingRecord.objects.exists()


def _fits(booking: BookingRecord, want: dict, setup: BookingRecord | None, answers: list[dict]) -> bool:
    facts = details_facts(booking.details)
    day = want["date"]
    if day == "setup+1":
        day = (details_facts(setup.details).day + dt.timedelta(days=1)).isoformat()
    checks = [booking.biz_type == want["biz_type"], str(facts.day) == day]
    checks += [getattr(facts, key) == want[key] for key in ("origin", "destination", "city", "nights") if key in want]
    if "passengers" in want:
        checks.append(len(facts.passengers) == want["passengers"])
    if want.get("cheapest"):
        shown = [Decimal(str(c["unit_price"])) for c in cards(answers[0], "option")]
        checks.append(bool(shown) and Decimal(str(facts.unit_price)) == min(shown))
    return all(checks)
