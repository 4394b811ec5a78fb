"""Synthetic traffic for the operations page: `manage.py seed_demo --traffic`.

Fourteen days (today included) of chat turns with their model calls, the supplier commands of booking turns, and
refund requests on synthetic orders that an approver decided (or has not yet). Everything is labelled:

| rows | label |
| --- | --- |
| users | `traffic-traveller-1` … `-4` and `traffic-approver` (unusable passwords: nobody logs in as them) |
| turns | the message starts with `[synthetic YYYY-MM-DD #NN]`; their model calls and supplier commands share the turn's trace id |
| orders | `ORD-SYN-YYYYMMDD-NN` |
| tickets | `TSYNYYYYMMDDNN`, the traveller's reason starting with `[synthetic]` |

Each day's rows are a pure function of its date (a random generator seeded with it), and every row has a natural key
with that date, so running it twice adds nothing; a later run adds the days that are new since. Today's rows fall
between midnight and the moment of the run. This is demo data written around the services on purpose (like a bulk
import): each ticket and order gets the event rows its history would have.
"""

import datetime as dt
import hashlib
import random
from dataclasses import dataclass, field
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import transaction
from django.utils import timezone

from aftersale.models import (
    BizOrder,
    HitlTicket,
    OrderCategory,
    OrderEvent,
    OrderStatus,
    TicketAction,
    TicketEvent,
    TicketKind,
    TicketStatus,
    Verdict,
)
from assistant.llm.schema import IntentName
from assistant.models import Conversation, LLMCall, Turn, TurnOutcome
from bookings.models import SupplierCall

DAYS = 14
TRAVELLERS = [f"traffic-traveller-{n}" for n in range(1, 5)]
APPROVER = "traffic-approver"
MARKER = "[synthetic"
PROVIDER, MODEL = "openai", "gpt-4o-mini"
TIMEOUT_MS = 20_000

# (intent, weight, sample message)
INTENTS = [
    (IntentName.SEARCH_ACTIVITIES, 30, "Hiking near Dali next weekend under 2000"),
    (IntentName.QUERY_WEATHER, 12, "What's the weather in Lijiang on Saturday?"),
    (IntentName.MAKE_TRAVEL_PLAN, 10, "Plan 4 days in Xi'an"),
    (IntentName.BOOK, 18, "Book a flight from Shanghai to Chengdu on Friday"),
    (IntentName.CANCEL_BOOKING, 4, "Cancel my train ticket"),
    (IntentName.AFTERSALE, 8, "I want a refund for my order"),
    (IntentName.QUERY_PROGRESS, 6, "Where is my refund?"),
    (IntentName.OUT_OF_SCOPE, 12, "Tell me a joke"),
]
OUTCOMES = [
    (TurnOutcome.ANSWERED, 72),
    (TurnOutcome.CLARIFY, 8),
    (TurnOutcome.EMPTY, 6),
    (TurnOutcome.REJECTED, 6),
    (TurnOutcome.DEGRADED, 4),
    (TurnOutcome.RATE_LIMITED, 1),
    (TurnOutcome.ERROR, 3),
]
SUPPLIER_PRODUCTS = ["flight", "hotel", "train"]


@dataclass
class TrafficCount:
    created: dict[str, int] = field(default_factory=dict)
    present: dict[str, int] = field(default_factory=dict)

    def add(self, label: str, created: int = 0, present: int = 0) -> None:
        self.created[label] = self.created.get(label, 0) + created
        self.present[label] = self.present.get(label, 0) + present

    def as_counts(self) -> dict[str, tuple[int, int]]:
        return {f"traffic {label}": (self.created[label], self.present.get(label, 0)) for label in self.created}


def turn_key(day: dt.date, n: int) -> str:
    return f"{MARKER} {day:%Y-%m-%d} #{n:02d}]"


def order_id_for(day: dt.date, n: int) -> str:
    return f"ORD-SYN-{day:%Y%m%d}-{n:02d}"


def ticket_no_for(day: dt.date, n: int) -> str:
    return f"TSYN{day:%Y%m%d}{n:02d}"


def trace_id_for(key: str) -> str:
    """A stable W3C-shaped trace id for a synthetic turn (its model calls and supplier commands carry it too)."""
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def _pick(rng: random.Random, weighted: list[tuple]):
    """One item of `weighted` ((item, weight, …) tuples), drawn by weight."""
    return weighted[rng.choices(range(len(weighted)), weights=[entry[1] for entry in weighted])[0]]


def _users() -> tuple[list, object, int]:
    user_model = get_user_model()
    unusable = make_password(None)
    created = 0
    users = []
    for username in [*TRAVELLERS, APPROVER]:
        user, made = user_model.objects.get_or_create(
            username=username, defaults={"password": unusable, "first_name": "Synthetic", "last_name": "traffic"}
        )
        created += made
        users.append(user)
    return users[:-1], users[-1], created


def _moment(rng: random.Random, start: dt.datetime, end: dt.datetime) -> dt.datetime:
    return start + (end - start) * rng.random()


def _day_span(day: dt.date, now: dt.datetime) -> tuple[dt.datetime, dt.datetime]:
    zone = timezone.get_current_timezone()
    start = timezone.make_aware(dt.datetime.combine(day, dt.time.min), zone)
    return start, min(start + dt.timedelta(days=1), now)


def _stamp(model, rows: list, stamps: list[dict]) -> None:
    """Give created rows their historical times (auto_now_add set them to now on insert)."""
    names = sorted({name for stamp in stamps for name in stamp})
    for row, stamp in zip(rows, stamps, strict=True):
        for name, value in stamp.items():
            setattr(row, name, value)
    if rows and names:
        model.objects.bulk_update(rows, names, batch_size=500)


def _turns_of_day(day: dt.date, now: dt.datetime, travellers: list, count: TrafficCount) -> None:
    rng = random.Random(f"tripdesk-traffic:turns:{day.isoformat()}")
    total = rng.randint(18, 34)
    keys = [turn_key(day, n) for n in range(1, total + 1)]
    present = set(
        Turn.objects.filter(user__in=travellers, message__startswith=f"{MARKER} {day:%Y-%m-%d} #").values_list(
            "message", flat=True
        )
    )
    present_keys = {key for key in keys for message in present if message.startswith(key)}
    start, end = _day_span(day, now)
    conversations = {}
    turns, turn_stamps, calls, call_stamps, supplier, supplier_stamps = [], [], [], [], [], []
    plans = []
    for key in keys:
        # Every draw happens whether or not the row exists, so each row is the same on every run.
        intent, _weight, sample = _pick(rng, INTENTS)
        outcome = _pick(rng, OUTCOMES)[0]
        if intent == IntentName.OUT_OF_SCOPE and outcome == TurnOutcome.ANSWERED:
            outcome = TurnOutcome.REFUSED
        traveller = travellers[rng.randrange(len(travellers))]
        at = _moment(rng, start, end)
        latency = TIMEOUT_MS if outcome == TurnOutcome.DEGRADED else int(rng.lognormvariate(6.55, 0.6))
        prompt, completion = rng.randint(350, 900), rng.randint(25, 160)
        confidence = round(rng.uniform(0.55, 0.99), 2)
        supplier_plan = []
        if intent in (IntentName.BOOK, IntentName.CANCEL_BOOKING) and outcome != TurnOutcome.RATE_LIMITED:
            product = SUPPLIER_PRODUCTS[rng.randrange(3)]
            actions = ["search", "saveOrder"] if intent == IntentName.BOOK else ["queryOrder", "cancelOrder"]
            for position, action in enumerate(actions):
                last = position == len(actions) - 1
                if last and outcome == TurnOutcome.REJECTED:
                    result = "REJECTED:" + ("SOLD_OUT" if intent == IntentName.BOOK else "ORDER_NOT_CANCELLABLE")
                elif last and outcome in (TurnOutcome.DEGRADED, TurnOutcome.ERROR):
                    result = rng.choice(["TIMEOUT", "UNAVAILABLE", "INVALID_RESPONSE"])
                else:
                    result = "OK"
                wait = 15_000 if result == "TIMEOUT" else int(rng.lognormvariate(5.8, 0.5))
                supplier_plan.append((product, action, result, wait))
        plans.append(
            (key, intent, sample, outcome, traveller, at, latency, prompt, completion, confidence, supplier_plan)
        )

    for key, intent, sample, outcome, traveller, at, latency, prompt, completion, confidence, supplier_plan in plans:
        if key in present_keys:
            continue
        conversation = conversations.get(traveller.pk)
        if conversation is None:
            conversation = conversations[traveller.pk] = Conversation.objects.create(user=traveller)
        rate_limited = outcome == TurnOutcome.RATE_LIMITED
        trace_id = trace_id_for(key)
        understood = {"intent": str(intent), "confidence": confidence}
        turns.append(
            Turn(
                conversation=conversation,
                user=traveller,
                message=f"{key} {sample}",
                intent="" if rate_limited else str(intent),
                understanding={} if rate_limited else understood,
                reply="(synthetic traffic)",
                outcome=outcome,
                provider=PROVIDER,
                model=MODEL,
                prompt_tokens=0 if rate_limited else prompt,
                completion_tokens=0 if rate_limited else completion,
                latency_ms=0 if rate_limited else latency + 40,
                fallback=outcome == TurnOutcome.DEGRADED,
                trace_id=trace_id,
            )
        )
        turn_stamps.append({"created_at": at})
        if not rate_limited:
            calls.append(
                (
                    len(turns) - 1,
                    LLMCall(
                        user=traveller,
                        purpose="understand",
                        provider=PROVIDER,
                        model=MODEL,
                        prompt_tokens=prompt,
                        completion_tokens=0 if outcome == TurnOutcome.DEGRADED else completion,
                        latency_ms=latency,
                        outcome=LLMCall.Outcome.TIMEOUT if outcome == TurnOutcome.DEGRADED else LLMCall.Outcome.OK,
                        error="synthetic timeout" if outcome == TurnOutcome.DEGRADED else "",
                        trace_id=trace_id,
                    ),
                )
            )
            call_stamps.append({"created_at": at})
        offset = dt.timedelta(seconds=1)
        for product, action, result, wait in supplier_plan:
            supplier.append(
                SupplierCall(
                    product=product,
                    action=action,
                    outcome=result,
                    fault=result in ("TIMEOUT", "UNAVAILABLE", "INVALID_RESPONSE"),
                    latency_ms=wait,
                    trace_id=trace_id,
                )
            )
            supplier_stamps.append({"created_at": at + offset})
            offset += dt.timedelta(milliseconds=wait + 200)

    made = Turn.objects.bulk_create(turns)
    _stamp(Turn, made, turn_stamps)
    for index, call in calls:
        call.turn = made[index]
    made_calls = LLMCall.objects.bulk_create([call for _, call in calls])
    _stamp(LLMCall, made_calls, call_stamps)
    made_supplier = SupplierCall.objects.bulk_create(supplier)
    _stamp(SupplierCall, made_supplier, supplier_stamps)
    count.add("turns", len(made), len(present_keys))
    count.add("model calls", len(made_calls))
    count.add("supplier commands", len(made_supplier))


def _tickets_of_day(day: dt.date, now: dt.datetime, travellers: list, approver, count: TrafficCount) -> None:
    rng = random.Random(f"tripdesk-traffic:tickets:{day.isoformat()}")
    total = rng.randint(2, 5)
    numbers = [ticket_no_for(day, n) for n in range(1, total + 1)]
    present = set(HitlTicket.objects.filter(ticket_no__in=numbers).values_list("ticket_no", flat=True))
    start, end = _day_span(day, now)
    for n, ticket_no in enumerate(numbers, start=1):
        traveller = travellers[rng.randrange(len(travellers))]
        submitted = _moment(rng, start, end)
        wait = dt.timedelta(seconds=min(rng.lognormvariate(9.9, 0.9), 40 * 3600))  # median about 5.5 h
        fate = rng.choices(["approve", "reject", "ignore"], weights=[70, 24, 6])[0]
        amount = Decimal(rng.randrange(80, 2400)).quantize(Decimal("1.00"))
        verdict = Verdict.PASS if fate == "approve" else rng.choice([Verdict.REJECTED, Verdict.UNCERTAIN])
        if ticket_no in present:
            continue
        _ticket(day, n, ticket_no, traveller, approver, submitted, wait, fate, amount, verdict, now)
        count.add("tickets", 1)
    count.add("tickets", 0, len(present))


@transaction.atomic
def _ticket(day, n, ticket_no, traveller, approver, submitted, wait, fate, amount, verdict, now) -> None:
    deadline = submitted + dt.timedelta(hours=48)
    decided = submitted + wait
    order = BizOrder.objects.create(
        order_id=order_id_for(day, n),
        user=traveller,
        category=OrderCategory.GOODS,
        items=[{"name": "[synthetic] rain jacket", "qty": 1, "price": str(amount)}],
        amount=amount,
        paid_at=submitted - dt.timedelta(days=3),
    )
    order_events = [
        (OrderEvent(order=order, from_status="", to_status=OrderStatus.PAID, reason="[synthetic]"), order.paid_at)
    ]
    events = [("", TicketStatus.PENDING, submitted, traveller, "[synthetic] refund requested")]
    fields = {}
    if fate != "ignore" and decided <= now and decided < deadline:
        status = TicketStatus.APPROVED if fate == "approve" else TicketStatus.REJECTED
        fields.update(decided_by=approver, decided_at=decided, decision_reason="[synthetic] decided")
        events.append((TicketStatus.PENDING, status, decided, approver, "[synthetic] decided"))
        executed = decided + dt.timedelta(seconds=20)
        if status == TicketStatus.APPROVED and executed <= now:
            status = TicketStatus.EXECUTED
            fields.update(approved_amount=amount, executed_at=executed, attempts=1)
            events.append((TicketStatus.APPROVED, TicketStatus.EXECUTING, executed - dt.timedelta(seconds=5), None, ""))
            events.append((TicketStatus.EXECUTING, TicketStatus.EXECUTED, executed, None, "[synthetic] refunded"))
            order.status, order.refunded_amount = OrderStatus.REFUNDED, amount
            order.save(update_fields=["status", "refunded_amount"])
            order_events.append(
                (
                    OrderEvent(
                        order=order, from_status=OrderStatus.PAID, to_status=OrderStatus.REFUNDED, reason="[synthetic]"
                    ),
                    executed,
                )
            )
    elif deadline <= now:
        status = TicketStatus.TIMEOUT
        events.append((TicketStatus.PENDING, TicketStatus.TIMEOUT, deadline, None, "deadline passed"))
    else:
        status = TicketStatus.PENDING
    ticket = HitlTicket.objects.create(
        ticket_no=ticket_no,
        kind=TicketKind.WORKFLOW,
        idempotency_key=f"wfa:{TicketAction.REFUND}:{order.order_id}",
        action=TicketAction.REFUND,
        requested_by=traveller,
        order=order,
        entity=order.order_id,
        amount=amount,
        request_reason="[synthetic] the jacket leaks",
        status=status,
        verdict=verdict,
        verdict_reason="[synthetic]",
        deadline=deadline,
        trace_id=trace_id_for(ticket_no),
        **fields,
    )
    last_change = events[-1][2]
    _stamp(HitlTicket, [ticket], [{"created_at": submitted, "updated_at": last_change}])
    made = TicketEvent.objects.bulk_create(
        TicketEvent(ticket=ticket, from_status=a, to_status=b, actor=actor, reason=reason, trace_id=ticket.trace_id)
        for a, b, _at, actor, reason in events
    )
    _stamp(TicketEvent, made, [{"created_at": at} for _a, _b, at, _actor, _reason in events])
    made_orders = OrderEvent.objects.bulk_create(event for event, _at in order_events)
    _stamp(OrderEvent, made_orders, [{"created_at": at} for _event, at in order_events])
    _stamp(BizOrder, [order], [{"created_at": order.paid_at, "updated_at": order_events[-1][1]}])


def seed_traffic(*, now: dt.datetime | None = None, days: int = DAYS) -> dict[str, tuple[int, int]]:
    """Create the synthetic traffic of the last `days` days that is missing; {label: (created, already present)}."""
    now = now or timezone.now()
    today = timezone.localdate(now)
    count = TrafficCount()
    with transaction.atomic():
        travellers, approver, users_created = _users()
        count.add("users", users_created, len(TRAVELLERS) + 1 - users_created)
    for offset in range(days - 1, -1, -1):
        day = today - dt.timedelta(days=offset)
        with transaction.atomic():  # a day at a time: an interrupted run keeps whole days
            _turns_of_day(day, now, travellers, count)
            _tickets_of_day(day, now, travellers, approver, count)
    return count.as_counts()
