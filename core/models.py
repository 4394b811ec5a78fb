"""The abstract event model: one row per change of a stateful thing (who, when, from, to, why).

Bookings, orders and tickets each have a concrete subclass naming the row it belongs to in `SUBJECT_FIELD`.
"""

from django.conf import settings
from django.db import models


class StatusEvent(models.Model):
    SUBJECT_FIELD = ""  # the foreign key to the row that changed, set by each subclass

    from_status = models.CharField(max_length=16, blank=True)
    to_status = models.CharField(max_length=16)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    reason = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{getattr(self, self.SUBJECT_FIELD)}: {self.from_status or '∅'} → {self.to_status}"
