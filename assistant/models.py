"""Conversations, their turns, the audit of every model call, and the writes waiting for the traveller's yes."""

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from core.models import StatusEvent
from core.tracing import current_trace_id


class Conversation(models.Model):
    """One chat between a traveller and the assistant; kept so the page survives reloads."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # The language the traveller last wrote in: a message that does not tell ("13800000000") is answered in it.
    language = models.CharField(max_length=8, blank=True, default="")

    class Meta:
        verbose_name = _("conversation")
        verbose_name_plural = _("conversations")
        ordering = ["-updated_at"]
        indexes = [models.Index(fields=["user", "-updated_at"], name="conversation_user_recent")]

    def __str__(self) -> str:
        return f"{self.user} {self.created_at:%Y-%m-%d %H:%M}"


class TurnOutcome(models.TextChoices):
    ANSWERED = "ANSWERED", "Answered"
    CLARIFY = "CLARIFY", "Asked a clarifying question"
    EMPTY = "EMPTY", "Nothing found"
    REFUSED = "REFUSED", "Out of scope"
    REJECTED = "REJECTED", "Business rejection"
    DEGRADED = "DEGRADED", "Degraded (a part was down)"
    RATE_LIMITED = "RATE_LIMITED", "Rate limited"
    HANDOVER = "HANDOVER", "Held by a person"
    ERROR = "ERROR", "Error"


class Turn(models.Model):
    """One user message and the assistant's answer: the audit row of a turn."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="turns")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="turns")
    message = models.TextField()
    intent = models.CharField(max_length=24, blank=True)
    understanding = models.JSONField(default=dict, blank=True)
    reply = models.TextField(blank=True)
    cards = models.JSONField(default=list, blank=True)
    outcome = models.CharField(max_length=16, choices=TurnOutcome.choices)
    provider = models.CharField(max_length=16, blank=True)
    model = models.CharField(max_length=100, blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    latency_ms = models.PositiveIntegerField(default=0)
    # The model failed (down, slow, invalid) and the offline engine answered this turn instead.
    fallback = models.BooleanField(default=False)
    # The turn's trace (core.tracing): the same id is on its model calls, tasks, supplier calls, events and logs.
    trace_id = models.CharField(_("trace id"), max_length=32, blank=True, db_index=True, default=current_trace_id)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("turn")
        verbose_name_plural = _("turns")
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["user", "-created_at"], name="turn_user_recent")]

    def __str__(self) -> str:
        return f"{self.user}: {self.message[:40]} → {self.intent or self.outcome}"


class LLMCall(models.Model):
    """One call to the model behind the LLM port. The API key is never stored."""

    class Outcome(models.TextChoices):
        OK = "OK", "OK"
        INVALID = "INVALID", "Invalid answer"
        TIMEOUT = "TIMEOUT", "Timed out"
        ERROR = "ERROR", "Error"

    turn = models.ForeignKey(Turn, on_delete=models.SET_NULL, null=True, blank=True, related_name="llm_calls")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    purpose = models.CharField(max_length=32, help_text="understand, agent, verdict, preference…")
    provider = models.CharField(max_length=16)
    model = models.CharField(max_length=100)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    latency_ms = models.PositiveIntegerField(default=0)
    outcome = models.CharField(max_length=8, choices=Outcome.choices)
    error = models.CharField(max_length=500, blank=True)
    # The endpoint reported more tokens than one call can use: the counts above were cut to that limit
    # (assistant.llm.errors.MAX_PROMPT_TOKENS_PER_CALL, MAX_COMPLETION_TOKENS_PER_CALL).
    tokens_clamped = models.BooleanField(
        _("tokens clamped"),
        default=False,
        help_text=_("The model reported more tokens than one call can use; the counts were cut to that limit."),
    )
    # Made by the offline engine because the model's own call failed (that call has its own row).
    fallback = models.BooleanField(default=False)
    trace_id = models.CharField(_("trace id"), max_length=32, blank=True, db_index=True, default=current_trace_id)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("model call")
        verbose_name_plural = _("model calls")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.provider}/{self.model} {self.purpose} {self.outcome} {self.latency_ms}ms"


class AgentStep(models.Model):
    """One tool call of a turn: which tool, with what (scrubbed) arguments, what it answered, how long it took.

    Written with the turn, in one insert (assistant.services), from the calls collected while the turn ran."""

    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="steps", verbose_name=_("turn"))
    iteration = models.PositiveSmallIntegerField(
        _("iteration"),
        default=0,
        help_text=_("The model round that asked for the call (1: the first); 0 for a call made by code."),
    )
    tool = models.CharField(_("tool"), max_length=64)
    arguments = models.JSONField(
        _("arguments"), default=dict, blank=True, help_text=_("Mobile numbers masked, keys and secrets removed.")
    )
    code = models.CharField(_("result code"), max_length=48, blank=True, help_text=_("Empty when the call succeeded."))
    ok = models.BooleanField(_("succeeded"), default=False)
    latency_ms = models.PositiveIntegerField(_("latency (ms)"), default=0)
    trace_id = models.CharField(_("trace id"), max_length=32, blank=True, default=current_trace_id)
    created_at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
        verbose_name = _("agent step")
        verbose_name_plural = _("agent steps")
        ordering = ["turn", "id"]

    def __str__(self) -> str:
        return f"{self.tool} {'ok' if self.ok else self.code} {self.latency_ms}ms"


class PendingActionStatus(models.TextChoices):
    PENDING = "PENDING", "Waiting for the traveller"
    EXECUTING = "EXECUTING", "Being carried out"
    EXECUTED = "EXECUTED", "Done"
    FAILED = "FAILED", "Carried out, failed"
    DECLINED = "DECLINED", "Declined by the traveller"
    EXPIRED = "EXPIRED", "Expired"
    SUPERSEDED = "SUPERSEDED", "Replaced by a newer one"


class PendingAction(models.Model):
    """A write the assistant prepared (book, cancel, rebook) that runs only once the traveller confirms it.

    It keeps the validated arguments and the preview the traveller was shown; `assistant.actions` moves it from
    PENDING to EXECUTING with a compare-and-set update (so it runs at most once), then to EXECUTED or FAILED with
    the tool's envelope in `result`. `claimed_until` lets a crashed execution be claimed again after the supplier's
    timeout and a margin (the supplier's idempotency key, `turn_id = action-<id>`, answers a repeat with its first
    result).
    """

    Status = PendingActionStatus

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pending_actions")
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="pending_actions")
    tool = models.CharField(max_length=64)
    arguments = models.JSONField(default=dict)
    preview = models.JSONField(default=dict)
    status = models.CharField(max_length=12, choices=PendingActionStatus.choices, default=PendingActionStatus.PENDING)
    result = models.JSONField(null=True, blank=True)
    turn_id = models.CharField(max_length=64, blank=True, help_text="The chat turn that prepared it.")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)
    claimed_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("pending action")
        verbose_name_plural = _("pending actions")
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["user", "-created_at"], name="pending_action_user_recent")]
        constraints = [
            models.UniqueConstraint(
                fields=["conversation"],
                condition=Q(status=PendingActionStatus.PENDING),
                name="pending_action_one_open_per_conversation",
            ),
            models.CheckConstraint(
                condition=Q(status__in=PendingActionStatus.values), name="pending_action_status_known"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tool} {self.status} ({self.user})"


class HandoverStatus(models.TextChoices):
    OPEN = "OPEN", _("Waiting for staff")
    TAKEN = "TAKEN", _("Taken by staff")
    CLOSED = "CLOSED", _("Closed")


# Which moves a hand-over may make (core.transitions): staff take an open one, close it taken or not.
HANDOVER_TRANSITIONS: dict[str, set[str]] = {
    HandoverStatus.OPEN: {HandoverStatus.TAKEN, HandoverStatus.CLOSED},
    HandoverStatus.TAKEN: {HandoverStatus.TAKEN, HandoverStatus.CLOSED},
    HandoverStatus.CLOSED: set(),
}


class HandoverReason(models.TextChoices):
    ASKED = "ASKED", _("Asked for a person")
    COMPLAINT = "COMPLAINT", _("Complaint")


class Handover(models.Model):
    """A conversation handed to staff: while it is open (or taken) the assistant stays quiet in that conversation;
    the traveller's messages are kept here, and staff answer from the admin (`assistant.handovers`)."""

    Status = HandoverStatus

    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="handovers", verbose_name=_("conversation")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="handovers", verbose_name=_("traveller")
    )
    status = models.CharField(
        _("status"), max_length=8, choices=HandoverStatus.choices, default=HandoverStatus.OPEN, db_index=True
    )
    reason = models.CharField(_("why"), max_length=12, choices=HandoverReason.choices, default=HandoverReason.ASKED)
    words = models.TextField(_("the traveller's words"), blank=True)
    opened_at = models.DateTimeField(_("opened at"), auto_now_add=True)
    taken_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("taken by"),
    )
    taken_at = models.DateTimeField(_("taken at"), null=True, blank=True)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("closed by"),
    )
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    # Whether the traveller was told a person will answer (said once per hand-over, not after every message).
    told_waiting = models.BooleanField(default=False)

    class Meta:
        verbose_name = _("hand-over")
        verbose_name_plural = _("hand-overs")
        ordering = ["opened_at", "id"]
        permissions = [("answer_handover", "Can take, answer and close hand-overs to staff")]
        constraints = [
            models.UniqueConstraint(
                fields=["conversation"],
                condition=~Q(status="CLOSED"),
                name="handover_one_held_per_conversation",
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.user} {self.get_status_display()}"

    @property
    def held(self) -> bool:
        return self.status != HandoverStatus.CLOSED


class HandoverEvent(StatusEvent):
    """Every move of a hand-over: opened, taken, closed (who, when, why)."""

    SUBJECT_FIELD = "handover"
    handover = models.ForeignKey(Handover, on_delete=models.CASCADE, related_name="events")

    class Meta(StatusEvent.Meta):
        verbose_name = _("hand-over event")
        verbose_name_plural = _("hand-over events")


class HandoverMessage(models.Model):
    """One message of a hand-over: what the traveller wrote while a person held the conversation, what staff
    answered, or the word that the assistant is back. Staff and system messages reach the traveller's chat once
    (`shown_at`)."""

    class Role(models.TextChoices):
        TRAVELLER = "TRAVELLER", _("Traveller")
        STAFF = "STAFF", _("Staff")
        BACK = "BACK", _("The assistant is back")

    handover = models.ForeignKey(Handover, on_delete=models.CASCADE, related_name="messages")
    role = models.CharField(_("from"), max_length=10, choices=Role.choices)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("author"),
    )
    body = models.TextField(_("message"), blank=True)
    created_at = models.DateTimeField(_("when"), auto_now_add=True)
    shown_at = models.DateTimeField(_("shown to the traveller"), null=True, blank=True)

    class Meta:
        verbose_name = _("hand-over message")
        verbose_name_plural = _("hand-over messages")
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.get_role_display()}: {self.body[:40]}"
