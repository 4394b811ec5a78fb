"""The admin's operations page: its figures are what the database holds, each links to the admin list of the rows it
counts, and only staff see it. `seed_demo --traffic` fills it with labelled, repeatable synthetic traffic."""

import datetime as dt
import re
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from aftersale.models import HitlTicket, TicketAction, TicketKind, TicketStatus
from assistant.models import Conversation, LLMCall, Turn, TurnOutcome
from assistant.services import chat_turn
from bookings.models import SupplierCall
from demo.traffic import seed_traffic
from operations.overview import changelist_url, operations_overview, percentile
from tests.support import fixtures
from tests.support.fake_openai import Reply
from tests.support.model import use_scripted_model

fake_openai = fixtures.fake_openai

pytestmark = pytest.mark.django_db

PAGE = "/admin/operations/"


@pytest.fixture
def staff_client(client, django_user_model):
    admin = django_user_model.objects.create_superuser("ops-admin", password="x")
    client.force_login(admin)
    return client


def _at(model, row, **moments) -> None:
    model.objects.filter(pk=row.pk).update(**moments)


@pytest.fixture
def small_site(django_user_model, settings):
    """Three turns in the window (one ERROR) and one older; four model calls; four supplier commands (one fault, one
    business rejection); two tickets waiting and two decided."""
    settings.LLM_PRICE_PER_1K_TOKENS = Decimal("0.002")
    now = timezone.now()
    user = django_user_model.objects.create_user("ops-traveller", password="x")
    conversation = Conversation.objects.create(user=user)
    turns = [
        Turn.objects.create(conversation=conversation, user=user, message=m, intent="BOOK", outcome=o)
        for m, o in [("a", TurnOutcome.ANSWERED), ("b", TurnOutcome.ANSWERED), ("c", TurnOutcome.ERROR)]
    ]
    old = Turn.objects.create(conversation=conversation, user=user, message="old", outcome=TurnOutcome.ERROR)
    _at(Turn, old, created_at=now - dt.timedelta(days=20))
    for ms in (100, 200, 300, 400):
        LLMCall.objects.create(
            turn=turns[0],
            purpose="understand",
            provider="openai",
            model="m",
            prompt_tokens=1000,
            completion_tokens=500,
            latency_ms=ms,
            outcome="OK",
        )
    for outcome, fault in [("OK", False), ("OK", False), ("REJECTED:SOLD_OUT", False), ("TIMEOUT", True)]:
        SupplierCall.objects.create(product="flight", action="saveOrder", outcome=outcome, fault=fault, latency_ms=9)

    def ticket(n: int, submitted_hours_ago: float, decided_hours_ago: float | None = None) -> HitlTicket:
        made = HitlTicket.objects.create(
            ticket_no=f"TOPS{n:04d}",
            kind=TicketKind.CHECKPOINT,
            idempotency_key=f"hitl:CANCEL_BOOKING:BK{n}",
            action=TicketAction.CANCEL_BOOKING,
            requested_by=user,
            entity=f"BK{n}",
            status=TicketStatus.PENDING if decided_hours_ago is None else TicketStatus.APPROVED,
            deadline=now + dt.timedelta(hours=40),
        )
        decided = None if decided_hours_ago is None else now - dt.timedelta(hours=decided_hours_ago)
        _at(HitlTicket, made, created_at=now - dt.timedelta(hours=submitted_hours_ago), decided_at=decided)
        return HitlTicket.objects.get(pk=made.pk)

    oldest = ticket(1, 3)
    ticket(2, 1)
    ticket(3, 5, decided_hours_ago=3)  # waited 2 h
    ticket(4, 2, decided_hours_ago=1.5)  # waited 30 min
    return {"now": now, "oldest": oldest}


def figure(text: str, url: str | None) -> str:
    return f'<a class="ops-figure" href="{url.replace("&", "&amp;")}">{text}</a>'


def test_the_pages_numbers_are_what_the_database_holds_and_link_to_the_rows(staff_client, small_site):
    response = staff_client.get(PAGE, HTTP_ACCEPT_LANGUAGE="en")

    assert response.status_code == 200
    page = response.content.decode()
    overview = response.context["overview"]
    start, end = overview.buckets[0].start, overview.buckets[-1].end
    window = {"created_at__gte": start, "created_at__lt": end}
    # Turns: 3 in the window (the one 20 days old is not), 1 of them an error.
    assert figure("3", changelist_url(Turn, **window)) in page
    assert figure("1", changelist_url(Turn, outcome__exact="ERROR", **window)) in page
    assert Turn.objects.filter(**window).count() == 3
    # Model latency: PostgreSQL's percentile_cont of 100, 200, 300, 400 ms, and the tokens with their cost.
    calls = changelist_url(LLMCall, **window)
    assert figure("250 ms", calls) in page and figure("385 ms", calls) in page
    assert figure("6000", calls) in page and "US$0.0120" in page
    # The supplier: 1 fault of 4 commands (25 %); the refusal is a business rejection, not a fault.
    assert figure("1", changelist_url(SupplierCall, fault__exact=1, **window)) in page
    assert figure("4", changelist_url(SupplierCall, **window)) in page
    assert "<strong>25 %</strong>" in page
    rejected = changelist_url(SupplierCall, outcome__startswith="REJECTED:", fault__exact=0, **window)
    assert figure("1", rejected) in page
    # Tickets: 2 waiting, the oldest for 3 hours (a link to it); decisions took 2 h and 30 min.
    assert figure("2", changelist_url(HitlTicket, status__exact="PENDING")) in page
    assert figure("3 h 0 min", f"/admin/aftersale/hitlticket/{small_site['oldest'].pk}/change/") in page
    decided = changelist_url(HitlTicket, decided_at__gte=start, decided_at__lt=end)
    assert figure("1 h 15 min", decided) in page and figure("1 h 55 min", decided) in page
    assert figure("2", decided) in page


def test_a_number_opens_the_admin_list_of_exactly_the_rows_it_counts(staff_client, small_site):
    overview = operations_overview()

    errors = staff_client.get(overview.turns.errors.url)
    faults = staff_client.get(overview.supplier.total_faults.url)
    waiting = staff_client.get(overview.backlog.pending.url)

    assert errors.status_code == faults.status_code == waiting.status_code == 200
    assert [t.message for t in errors.context["cl"].result_list] == ["c"]
    assert [c.outcome for c in faults.context["cl"].result_list] == ["TIMEOUT"]
    assert sorted(t.ticket_no for t in waiting.context["cl"].result_list) == ["TOPS0001", "TOPS0002"]


def test_a_model_that_reports_a_hundred_million_tokens_is_counted_at_one_call_s_limit_and_listed(
    staff_client, settings, fake_openai, django_user_model
):
    settings.LLM_PRICE_PER_1K_TOKENS = Decimal("0.002")
    use_scripted_model(settings, fake_openai, timeout=5.0)
    traveller = django_user_model.objects.create_user("ops-inflated", password="x")
    fake_openai.enqueue(
        Reply(content={"intent": "RECOMMEND"}, prompt_tokens=10**8, completion_tokens=10**8),
        Reply(content={"intent": "RECOMMEND"}, prompt_tokens=300, completion_tokens=20),
    )
    chat_turn(user=traveller, message="推荐点好玩的")
    chat_turn(user=traveller, message="再推荐点")

    response = staff_client.get(PAGE, HTTP_ACCEPT_LANGUAGE="en")

    inflated, honest = LLMCall.objects.order_by("id")
    assert (inflated.prompt_tokens, inflated.completion_tokens, inflated.tokens_clamped) == (200_000, 32_768, True)
    assert (honest.prompt_tokens, honest.completion_tokens, honest.tokens_clamped) == (300, 20, False)
    page = response.content.decode()
    overview = response.context["overview"]
    window = {"created_at__gte": overview.buckets[0].start, "created_at__lt": overview.buckets[-1].end}
    assert figure("233088", changelist_url(LLMCall, **window)) in page
    assert "US$0.4662" in page  # not US$400: each call counted at most at what one call can use
    clamped = changelist_url(LLMCall, tokens_clamped__exact=1, **window)
    text = "1 model call reported more tokens than one call can use: counted at the limit"
    assert figure(text, clamped) in page
    listed = staff_client.get(clamped)
    assert [call.pk for call in listed.context["cl"].result_list] == [inflated.pk]


def test_the_page_says_nothing_of_clamped_calls_when_there_are_none(staff_client, small_site):
    page = staff_client.get(PAGE, HTTP_ACCEPT_LANGUAGE="en").content.decode()

    assert "more tokens than one call can use" not in page
    assert not LLMCall.objects.filter(tokens_clamped=True).exists()


def test_the_last_hour_counts_the_last_hour_only(staff_client, small_site):
    response = staff_client.get(PAGE, {"window": "1h"}, HTTP_ACCEPT_LANGUAGE="en")

    overview = response.context["overview"]
    assert overview.window == "1h" and len(overview.buckets) == 12
    assert overview.buckets[-1].end > small_site["now"] >= overview.buckets[0].start + dt.timedelta(minutes=1)
    assert overview.turns.total.value == 3 and overview.supplier.total_calls.value == 4
    # decided 3 h and 1.5 h ago: outside the hour
    assert overview.decisions.total.value == 0 and overview.decisions.p50.total.value is None
    assert '<strong class="ops-window-current">Last hour</strong>' in response.content.decode()


def test_the_charts_are_inline_svg_with_a_link_on_every_bar_and_point(staff_client, small_site):
    page = staff_client.get(PAGE).content.decode()

    charts = re.findall(r'<svg class="ops-chart" data-chart="(\w+)"', page)
    assert charts == ["turns", "latency", "tokens", "supplier", "backlog", "decisions"]
    assert page.count('class="ops-bar ') >= 4 and page.count('class="ops-dot ') >= 2
    assert "<script" not in page.split('<div id="content-main"', 1)[1]
    assert ' style="' not in page  # the CSP forbids style attributes


def test_only_staff_see_the_page(client, django_user_model):
    anonymous = client.get(PAGE)
    client.force_login(django_user_model.objects.create_user("ops-nobody", password="x"))
    traveller = client.get(PAGE)

    assert anonymous.status_code == traveller.status_code == 302
    assert "/admin/login/" in anonymous["Location"] and "/admin/login/" in traveller["Location"]


def test_the_admin_links_to_the_page(staff_client):
    index = staff_client.get("/admin/").content.decode()

    assert f'<a id="operations-link" href="{PAGE}">' in index


def test_percentiles_interpolate_as_postgresql_does():
    assert percentile([100, 200, 300, 400], 0.5) == 250
    assert percentile([100, 200, 300, 400], 0.95) == pytest.approx(385)
    assert percentile([7], 0.95) == 7 and percentile([], 0.5) is None


# --- seed_demo --traffic -----------------------------------------------------------------------------------------


def test_traffic_is_labelled_spread_over_fourteen_days_and_seeding_twice_adds_nothing():
    out = StringIO()
    call_command("seed_demo", "--traffic", stdout=out)
    counts = (Turn.objects.count(), LLMCall.objects.count(), SupplierCall.objects.count(), HitlTicket.objects.count())

    again = StringIO()
    call_command("seed_demo", "--traffic", stdout=again)

    assert (
        Turn.objects.count(),
        LLMCall.objects.count(),
        SupplierCall.objects.count(),
        HitlTicket.objects.count(),
    ) == counts
    assert "Done: 0 rows created." in again.getvalue() and "traffic turns: 0 created" in again.getvalue()
    assert min(counts) > 0
    turns = Turn.objects.select_related("user")
    assert all(t.message.startswith("[synthetic ") and t.user.username.startswith("traffic-") for t in turns)
    assert len({timezone.localdate(t.created_at) for t in turns}) == 14
    assert max(t.created_at for t in turns) <= timezone.now()
    synthetic_traces = set(turns.values_list("trace_id", flat=True))
    assert set(SupplierCall.objects.values_list("trace_id", flat=True)) <= synthetic_traces
    assert not LLMCall.objects.exclude(turn__message__startswith="[synthetic ").exists()
    tickets = HitlTicket.objects.all()
    assert all(t.ticket_no.startswith("TSYN") and t.request_reason.startswith("[synthetic]") for t in tickets)
    assert {t.status for t in tickets} >= {TicketStatus.EXECUTED, TicketStatus.REJECTED}
    # every decision's history is in its events: submitted, then decided, at the ticket's own moments
    for ticket in tickets.filter(decided_at__isnull=False):
        moments = dict(ticket.events.values_list("to_status", "created_at"))
        assert moments[TicketStatus.PENDING] == ticket.created_at and ticket.decided_at in moments.values()


def test_traffic_is_the_same_every_time_for_the_same_days():
    now = timezone.now()
    seed_traffic(now=now)

    def turns():
        return list(Turn.objects.order_by("message").values_list("message", "intent", "outcome", "latency_ms"))

    first = turns()
    LLMCall.objects.all().delete()
    Turn.objects.all().delete()
    SupplierCall.objects.all().delete()

    counts = seed_traffic(now=now)

    assert turns() == first
    assert counts["traffic tickets"] == (0, HitlTicket.objects.count())
