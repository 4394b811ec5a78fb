"""The abstract event model: one row per change of a stateful thing (who, when, from, to, why).

Bookings, orders and tickets each have a concrete subclass naming the row it belongs to in `SUBJECT_FIELD`.
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from core.origin import current_client_address
from core.tracing import current_trace_id


class StatusEvent(models.Model):
    SUBJECT_FIELD = ""  # the foreign key to the row that changed, set by each subclass

    from_status = models.CharField(_("from"), max_length=16, blank=True)
    to_status = models.CharField(_("to"), max_length=16)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("by"),
    )
    reason = models.CharField(_("reason"), max_length=500, blank=True)
    # The trace of the turn, request or task that made the change (core.tracing).
    trace_id = models.CharField(_("trace id"), max_length=32, blank=True, db_index=True, default=current_trace_id)
    # The address of the request that made the change (core.origin); none for a worker's or a command's change.
    client_address = models.GenericIPAddressField(
        _("from address"), null=True, blank=True, default=current_client_address
    )
    created_at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
        abstract = True
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{getattr(self, self.SUBJECT_FIELD)}: {self.from_status or '∅'} → {self.to_status}"


class LanguagePreference(models.Model):
    """The language a user chose with the switcher, so it follows them to every device (a cookie only remembers
    one browser). Without one, the browser's Accept-Language decides."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="language_preference")
    language = models.CharField(max_length=10)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.user}: {self.language}"
