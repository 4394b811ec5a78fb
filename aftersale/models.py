"""Orders, their after-sale policies, human-approval tickets, and the events that changed them."""

from django.conf import settings
from django.db import models
from django.db.models import Case, DateTimeField, F, IntegerField, Q, Value, When
from django.utils.translation import get_language, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from core.models import StatusEvent
from core.tracing import current_trace_id


class OrderCategory(models.TextChoices):
    GOODS = "GOODS", _("Goods")
    ACTIVITY = "ACTIVITY", _("Activity ticket")


class OrderStatus(models.TextChoices):
    PAID = "PAID", _("Paid")
    DELIVERED = "DELIVERED", _("Delivered")
    COMPLETED = "COMPLETED", _("Completed")
    REFUNDED = "REFUNDED", _("Refunded")
    # An approver refunded less than the whole order (a partial refund): `refunded_amount` says how much.
    PART_REFUNDED = "PART_REFUNDED", _("Partly refunded")
    RETURNED = "RETURNED", _("Returned")
    CANCELLED = "CANCELLED", _("Cancelled")


# The only moves an order may make; `order_transition` checks every change against it.
ORDER_TRANSITIONS: dict[str, set[str]] = {
    OrderStatus.PAID: {
        OrderStatus.DELIVERED,
        OrderStatus.COMPLETED,
        OrderStatus.REFUNDED,
        OrderStatus.PART_REFUNDED,
        OrderStatus.CANCELLED,
    },
    OrderStatus.DELIVERED: {
        OrderStatus.COMPLETED,
        OrderStatus.RETURNED,
        OrderStatus.REFUNDED,
        OrderStatus.PART_REFUNDED,
    },
    OrderStatus.COMPLETED: set(),
    OrderStatus.REFUNDED: set(),
    # Settled: the request that refunded part of it is EXECUTED, and its key never executes again.
    OrderStatus.PART_REFUNDED: set(),
    OrderStatus.RETURNED: set(),
    OrderStatus.CANCELLED: set(),
}


class BizOrder(models.Model):
    """An order a traveller paid for: goods (gear) or an activity ticket."""

    order_id = models.CharField(_("order number"), max_length=32, unique=True, help_text=_("Like ORD-001."))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="orders", verbose_name=_("traveller")
    )
    category = models.CharField(_("category"), max_length=10, choices=OrderCategory.choices)
    items = models.JSONField(_("items"), default=list, blank=True, help_text='[{"name": …, "qty": …, "price": …}]')
    amount = models.DecimalField(_("amount"), max_digits=10, decimal_places=2)
    refunded_amount = models.DecimalField(
        _("refunded amount"),
        max_digits=10,
        decimal_places=2,
        default=0,
        help_text=_("What the executed refunds and returns paid back (less than the amount after a partial refund)."),
    )
    status = models.CharField(_("status"), max_length=16, choices=OrderStatus.choices, default=OrderStatus.PAID)
    activity = models.ForeignKey(
        "itinerary.Activity",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="orders",
        verbose_name=_("activity"),
    )
    service_date = models.DateField(
        _("service date"), null=True, blank=True, help_text=_("When an activity ticket is used.")
    )
    # The ticket whose refund or return holds the order's money while its execution runs: set, under the order's
    # row lock, before the supplier is asked; cleared with the order's move (or the ticket's failure). Another
    # ticket finds it held and is refused, so however many tickets an order has, its money is paid back once.
    # Keyed by the ticket number, so a reason can name the holder without a query.
    refund_claim = models.ForeignKey(
        "HitlTicket",
        to_field="ticket_no",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("refund in progress"),
        help_text=_("The request whose refund is being executed on this order right now."),
    )
    paid_at = models.DateTimeField(_("paid at"))
    delivered_at = models.DateTimeField(_("delivered at"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("order")
        verbose_name_plural = _("orders")
        ordering = ["-paid_at", "-id"]
        indexes = [models.Index(fields=["user", "-paid_at"], name="order_user_recent")]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gte=0), name="order_amount_not_negative"),
            models.CheckConstraint(condition=Q(status__in=OrderStatus.values), name="order_status_known"),
            models.CheckConstraint(condition=Q(category__in=OrderCategory.values), name="order_category_known"),
            models.CheckConstraint(
                condition=Q(refunded_amount__gte=0, refunded_amount__lte=F("amount")),
                name="order_refunded_within_amount",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.order_id} {self.get_category_display()} ¥{self.amount} {self.get_status_display()}"

    @property
    def item_names(self) -> list[str]:
        """What was bought, each item named in the active language (`item_name`)."""
        return [name for name in map(item_name, self.items or []) if name]


def item_name(item: object) -> str:
    """An order item's name in the active language: its English name (`name_en`, kept beside the name by the shop
    and by the demo) on an English page, else the name as the shop wrote it; "" for an item without a name."""
    if not isinstance(item, dict):
        return ""
    name = str(item.get("name") or "").strip()
    english = str(item.get("name_en") or "").strip()
    return english if english and (get_language() or "").startswith("en") else name


class OrderEvent(StatusEvent):
    """One change of an order: who, when, from, to, why."""

    SUBJECT_FIELD = "order"

    order = models.ForeignKey(BizOrder, on_delete=models.CASCADE, related_name="events", verbose_name=_("order"))

    class Meta(StatusEvent.Meta):
        verbose_name = _("order event")
        verbose_name_plural = _("order events")

    def __str__(self) -> str:  # the caption of its row in the console: statuses by their labels
        return f"{self.order.order_id}: {_status_word(OrderStatus, self.from_status)} → {_status_word(OrderStatus, self.to_status)}"


class Policy(models.Model):
    """An after-sale rule in words; the verdict reads it, the ticket keeps the passages it used."""

    title = models.CharField(_("title"), max_length=200, unique=True)
    text = models.TextField(_("text"))
    tags = models.JSONField(_("tags"), default=list, blank=True)
    category = models.CharField(_("category"), max_length=10, choices=OrderCategory.choices)
    is_active = models.BooleanField(_("active"), default=True)

    class Meta:
        verbose_name = _("after-sale policy")
        verbose_name_plural = _("after-sale policies")
        ordering = ["category", "title"]

    def __str__(self) -> str:
        return self.title


class TicketKind(models.TextChoices):
    WORKFLOW = "WORKFLOW", _("Refund or return request")
    CHECKPOINT = "CHECKPOINT", _("Action awaiting approval")


class TicketAction(models.TextChoices):
    REFUND = "REFUND", _("Refund")
    RETURN = "RETURN", _("Return")
    CANCEL_BOOKING = "CANCEL_BOOKING", _("Cancel booking")


# Actions that pay money back on an order: the approver may approve less than the amount asked (a partial refund).
MONEY_ACTIONS = frozenset({TicketAction.REFUND, TicketAction.RETURN})
# A return of goods sends the item back: once approved, its refund waits until staff mark the item received
# (`aftersale.services.decisions.ticket_item_received`), so no money leaves before the goods come back.
ITEM_BACK = Q(action=TicketAction.RETURN, order__category=OrderCategory.GOODS)
AWAITING_ITEM = ITEM_BACK & Q(item_received_at__isnull=True)


# Where a request stands reads the same to its traveller (the chat's ticket card, their requests page) and to the
# approver, in one translation context.
STATUS_CONTEXT = "ticket status, as the traveller reads it"


class TicketStatus(models.TextChoices):
    PENDING = "PENDING", pgettext_lazy(STATUS_CONTEXT, "Pending review")
    APPROVED = "APPROVED", pgettext_lazy(STATUS_CONTEXT, "Approved")
    REJECTED = "REJECTED", pgettext_lazy(STATUS_CONTEXT, "Rejected")
    TIMEOUT = "TIMEOUT", pgettext_lazy(STATUS_CONTEXT, "Timed out")
    EXECUTING = "EXECUTING", pgettext_lazy(STATUS_CONTEXT, "Executing")
    EXECUTED = "EXECUTED", pgettext_lazy(STATUS_CONTEXT, "Executed")
    FAILED = "FAILED", pgettext_lazy(STATUS_CONTEXT, "Failed")


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
# Where a ticket may still move on its own (a decision, a worker): the traveller's page keeps asking about these.
MOVING_TICKET_STATUSES = frozenset({TicketStatus.PENDING, TicketStatus.APPROVED, TicketStatus.EXECUTING})


class ReasonKind(models.TextChoices):
    """Why the traveller wants money back, as understood; `aftersale.policy` picks the policy for it."""

    QUALITY = "QUALITY", _("Quality problem")
    NO_REASON = "NO_REASON", _("No-reason return")
    TICKET = "TICKET", _("Ticket or activity refund")
    NOT_RECEIVED = "NOT_RECEIVED", _("Not received")


REQUEST_REASON_MAX_CHARS = 500


class Verdict(models.TextChoices):
    PASS = "PASS", _("Pass")
    REJECTED = "REJECTED", _("Does not qualify")
    UNCERTAIN = "UNCERTAIN", _("Uncertain")


class HitlTicket(models.Model):
    """A request waiting for, or decided by, a human approver."""

    ticket_no = models.CharField(_("ticket number"), max_length=24, unique=True)
    kind = models.CharField(_("kind"), max_length=10, choices=TicketKind.choices)
    idempotency_key = models.CharField(_("idempotency key"), max_length=200, db_index=True)
    action = models.CharField(_("action"), max_length=16, choices=TicketAction.choices)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tickets", verbose_name=_("requested by")
    )
    order = models.ForeignKey(
        BizOrder, on_delete=models.PROTECT, null=True, blank=True, related_name="tickets", verbose_name=_("order")
    )
    entity = models.CharField(
        _("about"), max_length=64, help_text=_("The order or booking number the ticket is about.")
    )
    amount = models.DecimalField(_("amount asked"), max_digits=10, decimal_places=2, null=True, blank=True)
    # A return of goods: the refund waits until staff mark the item received back (`ticket_item_received`).
    item_received_at = models.DateTimeField(
        _("item received back"),
        null=True,
        blank=True,
        help_text=_("When staff marked the returned item received; the refund is made only then."),
    )
    approved_amount = models.DecimalField(
        _("amount approved"),
        max_digits=10,
        decimal_places=2,
        null=True,
        blank=True,
        help_text=_("What the approver approved to pay back: the amount asked, or less (a partial refund)."),
    )
    arguments = models.JSONField(
        _("saved call"), default=dict, blank=True, help_text=_("The saved arguments of an action awaiting approval.")
    )
    request_reason = models.TextField(
        _("traveller's reason"),
        blank=True,
        max_length=REQUEST_REASON_MAX_CHARS,
        help_text=_("The traveller's own words for why they ask."),
    )
    reason_kind = models.CharField(
        _("reason as understood"),
        max_length=16,
        choices=ReasonKind.choices,
        blank=True,
        help_text=_("The reason as understood (picks the policy)."),
    )
    status = models.CharField(_("status"), max_length=10, choices=TicketStatus.choices, default=TicketStatus.PENDING)
    verdict = models.CharField(_("verdict"), max_length=10, choices=Verdict.choices, blank=True)
    verdict_reason = models.TextField(_("verdict reason"), blank=True)
    evidence = models.JSONField(
        _("evidence"), default=dict, blank=True, help_text=_("Order facts and policy passages used.")
    )
    flagged = models.BooleanField(
        _("flagged"), default=False, help_text=_("Review closely: the verdict failed or was uncertain.")
    )
    deadline = models.DateTimeField(_("deadline"))
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="decided_tickets",
        verbose_name=_("decided by"),
    )
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    decision_reason = models.TextField(_("approver's note"), blank=True)
    # Four eyes (above AFTERSALE_FOUR_EYES_ABOVE): the first of the two approvals, while the ticket stays PENDING;
    # the second approver (another person) approves this amount and becomes `decided_by`.
    first_approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="first_approved_tickets",
        verbose_name=_("first approval by"),
    )
    first_approved_at = models.DateTimeField(_("first approval at"), null=True, blank=True)
    first_approved_amount = models.DecimalField(
        _("amount of the first approval"), max_digits=10, decimal_places=2, null=True, blank=True
    )
    first_approval_reason = models.TextField(_("first approver's note"), blank=True)
    execution_result = models.JSONField(_("execution result"), default=dict, blank=True)
    execution_started_at = models.DateTimeField(
        _("execution started at"),
        null=True,
        blank=True,
        help_text=_("When the current execution claimed the ticket (its lease starts here)."),
    )
    attempts = models.PositiveSmallIntegerField(
        _("attempts"), default=0, help_text=_("Executions started, retries included.")
    )
    executed_at = models.DateTimeField(_("executed at"), null=True, blank=True)
    trace_id = models.CharField(
        _("trace id"),
        max_length=32,
        blank=True,
        db_index=True,
        default=current_trace_id,
        help_text=_("The trace of the chat turn or request that opened the ticket."),
    )
    created_at = models.DateTimeField(_("submitted at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("refund or return request")
        verbose_name_plural = _("Refund and return requests")
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
            # Four eyes are two people: the second approval is never the first approver's.
            models.CheckConstraint(
                condition=Q(first_approved_by__isnull=True)
                | Q(decided_by__isnull=True)
                | ~Q(first_approved_by=F("decided_by")),
                name="ticket_four_eyes_two_people",
            ),
            # A partial refund is more than nothing and never more than was asked.
            models.CheckConstraint(
                condition=Q(approved_amount__isnull=True)
                | Q(approved_amount__gt=0, amount__isnull=False, approved_amount__lte=F("amount")),
                name="ticket_approved_within_amount",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.ticket_no} {self.get_action_display()} {self.entity} ({self.get_status_display()})"

    @property
    def refund_amount(self):
        """What an execution pays back: the approved amount, or (approved before partial refunds existed) the
        amount asked."""
        return self.approved_amount if self.approved_amount is not None else self.amount

    @property
    def sends_item_back(self) -> bool:
        """A return of goods (`ITEM_BACK`): the traveller sends the item back before the refund."""
        return (
            self.action == TicketAction.RETURN and self.order is not None and self.order.category == OrderCategory.GOODS
        )

    @property
    def awaits_item(self) -> bool:
        """Approved (or about to be) and the item not received back yet: the refund waits (`AWAITING_ITEM`)."""
        return self.sends_item_back and self.item_received_at is None

    @property
    def is_partial(self) -> bool:
        """Approved for less than was asked."""
        return self.approved_amount is not None and self.amount is not None and self.approved_amount < self.amount

    @property
    def reason_for_traveller(self) -> str:
        """The approver's words as the traveller may read them: when they explain a "no" or a smaller refund; a note
        on a plain approval is for the team."""
        return self.decision_reason if self.status == TicketStatus.REJECTED or self.is_partial else ""


class ApprovalLimit(models.Model):
    """The most one approver may approve alone: set for a person or for a group (an approver's limit is the highest
    of their own and their groups'; without any, AFTERSALE_APPROVAL_LIMIT). Read by `aftersale.services.limits`."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="approval_limit",
        verbose_name=_("approver"),
    )
    group = models.OneToOneField(
        "auth.Group",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="approval_limit",
        verbose_name=_("group"),
    )
    max_amount = models.DecimalField(
        _("approves up to (¥)"),
        max_digits=10,
        decimal_places=2,
        help_text=_("The largest refund this approver (or every member of this group) may approve alone."),
    )
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("approval limit")
        verbose_name_plural = _("approval limits")
        ordering = ["group__name", "user__username"]
        constraints = [
            models.CheckConstraint(
                condition=Q(user__isnull=False, group__isnull=True) | Q(user__isnull=True, group__isnull=False),
                name="approval_limit_one_holder",
            ),
            models.CheckConstraint(condition=Q(max_amount__gte=0), name="approval_limit_not_negative"),
        ]

    def __str__(self) -> str:
        holder = self.user.get_username() if self.user_id else (self.group.name if self.group_id else "?")
        return f"{holder}: ¥{self.max_amount}"


class TicketEvent(StatusEvent):
    """One change of a ticket: who, when, from, to, why."""

    SUBJECT_FIELD = "ticket"

    ticket = models.ForeignKey(HitlTicket, on_delete=models.CASCADE, related_name="events", verbose_name=_("ticket"))

    class Meta(StatusEvent.Meta):
        verbose_name = _("ticket event")
        verbose_name_plural = _("ticket events")

    def __str__(self) -> str:  # the caption of its row in the console: statuses by their labels
        return (
            f"{self.ticket.ticket_no}: {_status_word(TicketStatus, self.from_status)} → "
            f"{_status_word(TicketStatus, self.to_status)}"
        )


class StaffAction(TicketEvent):
    """A ticket event made by staff (a decision, a first approval, a retry, an item received), for the console's list
    of who did what, when and from where."""

    class Meta:
        proxy = True
        verbose_name = _("staff action")
        verbose_name_plural = _("staff actions")
        ordering = ["-created_at", "-id"]


def _status_word(choices, code: str) -> str:
    if not code:
        return "∅"
    return str(choices(code).label) if code in choices.values else code


class NoticeKind(models.TextChoices):
    """What a traveller is told about their request, once each time it happens."""

    APPROVED = "APPROVED", pgettext_lazy(STATUS_CONTEXT, "Approved")
    PART_APPROVED = "PART_APPROVED", _("Partly approved")
    REJECTED = "REJECTED", pgettext_lazy(STATUS_CONTEXT, "Rejected")
    EXECUTED = "EXECUTED", pgettext_lazy(STATUS_CONTEXT, "Executed")
    FAILED = "FAILED", _("Could not be completed")
    TIMEOUT = "TIMEOUT", _("Not decided in time")


class AftersaleNotice(models.Model):
    """A decision about a traveller's request, told to them in the app (on their requests page and in the chat).
    `facts` hold what the text needs (numbers, the approver's words), never sentences: the text is composed in
    the reader's language when it is shown (templates/aftersale/partials/notice_text.html)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="aftersale_notices",
        verbose_name=_("traveller"),
    )
    ticket = models.ForeignKey(HitlTicket, on_delete=models.CASCADE, related_name="notices", verbose_name=_("ticket"))
    kind = models.CharField(_("kind"), max_length=16, choices=NoticeKind.choices)
    facts = models.JSONField(_("facts"), default=dict, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    read_at = models.DateTimeField(_("read at"), null=True, blank=True)

    class Meta:
        verbose_name = _("request notice")
        verbose_name_plural = _("request notices")
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "read_at"], name="aftersale_notice_user_unread")]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=NoticeKind.values), name="aftersale_notice_kind_known"),
        ]

    def __str__(self) -> str:
        return f"{self.ticket.ticket_no}: {self.get_kind_display()}"
