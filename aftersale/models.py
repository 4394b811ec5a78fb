"""Orders, their after-sale policies, human-approval tickets, and the events that changed them."""

from django.conf import settings
from django.db import models
from django.db.models import Case, DateTimeField, F, IntegerField, Q, Value, When

from core.models import StatusEvent


class OrderCategory(models.TextChoices):
    GOODS = "GOODS", "Goods"
    ACTIVITY = "ACTIVITY", "Activity ticket"


class OrderStatus(models.TextChoices):
    PAID = "PAID", "Paid"
    DELIVERED = "DELIVERED", "Delivered"
    COMPLETED = "COMPLETED", "Completed"
    REFUNDED = "REFUNDED", "Refunded"
    RETURNED = "RETURNED", "Returned"
    CANCELLED = "CANCELLED", "Cancelled"


# The only moves an order may make; `order_transition` checks every change against it.
ORDER_TRANSITIONS: dict[str, set[str]] = {
    OrderStatus.PAID: {OrderStatus.DELIVERED, OrderStatus.COMPLETED, OrderStatus.REFUNDED, OrderStatus.CANCELLED},
    OrderStatus.DELIVERED: {OrderStatus.COMPLETED, OrderStatus.RETURNED, OrderStatus.REFUNDED},
    OrderStatus.COMPLETED: set(),
    OrderStatus.REFUNDED: set(),
    OrderStatus.RETURNED: set(),
    OrderStatus.CANCELLED: set(),
}


class BizOrder(models.Model):
    """An order a traveller paid for: goods (gear) or an activity ticket."""

    order_id = models.CharField(max_length=32, unique=True, help_text="Like ORD-001.")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="orders")
    category = models.CharField(max_length=10, choices=OrderCategory.choices)
    items = models.JSONField(default=list, blank=True, help_text='[{"name": …, "qty": …, "price": …}]')
    amount = models.DecimalField(max_digits=10, decimal_places=2)
    status = models.CharField(max_length=10, choices=OrderStatus.choices, default=OrderStatus.PAID)
    activity = models.ForeignKey(
        "itinerary.Activity", on_delete=models.SET_NULL, null=True, blank=True, related_name="orders"
    )
    service_date = models.DateField(null=True, blank=True, help_text="When an activity ticket is used.")
    paid_at = models.DateTimeField()
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-paid_at", "-id"]
        indexes = [models.Index(fields=["user", "-paid_at"], name="order_user_recent")]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gte=0), name="order_amount_not_negative"),
            models.CheckConstraint(condition=Q(status__in=OrderStatus.values), name="order_status_known"),
            models.CheckConstraint(condition=Q(category__in=OrderCategory.values), name="order_category_known"),
        ]

    def __str__(self) -> str:
        return f"{self.order_id} {self.get_category_display()} ¥{self.amount} {self.get_status_display()}"


class OrderEvent(StatusEvent):
    """One change of an order: who, when, from, to, why."""

    SUBJECT_FIELD = "order"

    order = models.ForeignKey(BizOrder, on_delete=models.CASCADE, related_name="events")

    class Meta(StatusEvent.Meta):
        pass

    def __str__(self) -> str:
        return f"{self.order.order_id}: {self.from_status or '∅'} → {self.to_status}"


class Policy(models.Model):
    """An after-sale rule in words; the verdict reads it, the ticket keeps the passages it used."""

    title = models.CharField(max_length=200, unique=True)
    text = models.TextField()
    tags = models.JSONField(default=list, blank=True)
    category = models.CharField(max_length=10, choices=OrderCategory.choices)
    is_active = models.BooleanField(default=True)

    class Meta:
        verbose_name_plural = "policies"
        ordering = ["category", "title"]

    def __str__(self) -> str:
        return self.title


class TicketKind(models.TextChoices):
    WORKFLOW = "WORKFLOW", "After-sale workflow"
    CHECKPOINT = "CHECKPOINT", "Paused tool call"


class TicketAction(models.TextChoices):
    REFUND = "REFUND", "Refund"
    RETURN = "RETURN", "Return"
    CANCEL_BOOKING = "CANCEL_BOOKING", "Cancel booking"


class TicketStatus(models.TextChoices):
    PENDING = "PENDING", "Pending review"
    APPROVED = "APPROVED", "Approved"
    REJECTED = "REJECTED", "Rejected"
    TIMEOUT = "TIMEOUT", "Timed out"
    EXECUTING = "EXECUTING", "Executing"
    EXECUTED = "EXECUTED", "Executed"
    FAILED = "FAILED", "Failed"


# The only moves a ticket may make; `ticket_transition` checks every change against it.
TICKET_TRANSITIONS: dict[str, set[str]] = {
    TicketStatus.PENDING: {TicketStatus.APPROVED, TicketStatus.REJECTED, TicketStatus.TIMEOUT},
    TicketStatus.APPROVED: {TicketStatus.EXECUTING},
    TicketStatus.EXECUTING: {TicketStatus.EXECUTED, TicketStatus.FAILED},
    TicketStatus.FAILED: {TicketStatus.EXECUTING},
    TicketStatus.EXECUTED: set(),
    TicketStatus.REJECTED: set(),
    TicketStatus.TIMEOUT: set(),
}

# A key may have many tickets over time, but only one that is still alive (not rejected, not timed out).
LIVE_TICKET_STATUSES = [
    TicketStatus.PENDING,
    TicketStatus.APPROVED,
    TicketStatus.EXECUTING,
    TicketStatus.EXECUTED,
    TicketStatus.FAILED,
]


class ReasonKind(models.TextChoices):
    """Why the traveller wants money back, as understood; `aftersale.policy` picks the policy for it."""

    QUALITY = "QUALITY", "Quality problem"
    NO_REASON = "NO_REASON", "No-reason return"
    TICKET = "TICKET", "Ticket or activity refund"
    NOT_RECEIVED = "NOT_RECEIVED", "Not received"


REQUEST_REASON_MAX_CHARS = 500


class Verdict(models.TextChoices):
    PASS = "PASS", "Pass"
    REJECTED = "REJECTED", "Rejected"
    UNCERTAIN = "UNCERTAIN", "Uncertain"


class HitlTicket(models.Model):
    """A request waiting for, or decided by, a human approver."""

    ticket_no = models.CharField(max_length=24, unique=True)
    kind = models.CharField(max_length=10, choices=TicketKind.choices)
    idempotency_key = models.CharField(max_length=200, db_index=True)
    action = models.CharField(max_length=16, choices=TicketAction.choices)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tickets")
    order = models.ForeignKey(BizOrder, on_delete=models.PROTECT, null=True, blank=True, related_name="tickets")
    entity = models.CharField(max_length=64, help_text="The order or booking id the ticket is about.")
    amount = models.DecimalField(max_digits=10, decimal_places=2, null=True, blank=True)
    arguments = models.JSONField(default=dict, blank=True, help_text="A paused tool call's saved arguments.")
    request_reason = models.TextField(
        blank=True, max_length=REQUEST_REASON_MAX_CHARS, help_text="The traveller's own words for why they ask."
    )
    reason_kind = models.CharField(
        max_length=16, choices=ReasonKind.choices, blank=True, help_text="The reason as understood (picks the policy)."
    )
    status = models.CharField(max_length=10, choices=TicketStatus.choices, default=TicketStatus.PENDING)
    verdict = models.CharField(max_length=10, choices=Verdict.choices, blank=True)
    verdict_reason = models.TextField(blank=True)
    evidence = models.JSONField(default=dict, blank=True, help_text="Order facts and policy passages used.")
    flagged = models.BooleanField(default=False, help_text="Review closely: the verdict failed or was uncertain.")
    deadline = models.DateTimeField()
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="decided_tickets"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_reason = models.TextField(blank=True)
    execution_result = models.JSONField(default=dict, blank=True)
    execution_started_at = models.DateTimeField(
        null=True, blank=True, help_text="When the current execution claimed the ticket (its lease starts here)."
    )
    attempts = models.PositiveSmallIntegerField(default=0, help_text="Executions started, retries included.")
    executed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        permissions = [("decide_ticket", "Can approve or reject after-sale tickets")]
        indexes = [
            models.Index(fields=["status", "deadline"], name="ticket_status_deadline"),
            models.Index(fields=["requested_by", "-created_at"], name="ticket_user_recent"),
            # The approval console's order (aftersale/admin.py `HitlTicketAdmin.ordering`, then the changelist's
            # "-pk"): pending first, flagged first, oldest pending first, then newest. With it a page of the list
            # reads 50 index entries instead of sorting every ticket; keep the two in step.
            models.Index(
                Case(When(status=TicketStatus.PENDING, then=Value(0)), default=Value(1), output_field=IntegerField()),
                F("flagged").desc(),
                Case(When(status=TicketStatus.PENDING, then=F("created_at")), output_field=DateTimeField()),
                F("created_at").desc(),
                F("id").desc(),
                name="ticket_console_order",
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["idempotency_key"],
                condition=Q(status__in=LIVE_TICKET_STATUSES),
                name="ticket_one_live_per_key",
            ),
            models.CheckConstraint(condition=Q(status__in=TicketStatus.values), name="ticket_status_known"),
            models.CheckConstraint(condition=Q(kind__in=TicketKind.values), name="ticket_kind_known"),
            models.CheckConstraint(condition=Q(action__in=TicketAction.values), name="ticket_action_known"),
            models.CheckConstraint(
                condition=Q(verdict="") | Q(verdict__in=Verdict.values), name="ticket_verdict_known"
            ),
            models.CheckConstraint(
                condition=Q(reason_kind="") | Q(reason_kind__in=ReasonKind.values), name="ticket_reason_kind_known"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.ticket_no} {self.get_action_display()} {self.entity} ({self.get_status_display()})"


class TicketEvent(StatusEvent):
    """One change of a ticket: who, when, from, to, why."""

    SUBJECT_FIELD = "ticket"

    ticket = models.ForeignKey(HitlTicket, on_delete=models.CASCADE, related_name="events")

    class Meta(StatusEvent.Meta):
        pass

    def __str__(self) -> str:
        return f"{self.ticket.ticket_no}: {self.from_status or '∅'} → {self.to_status}"
