from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.text import Truncator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from aftersale.selectors import orders_for_user, tickets_for_user
from assistant.handovers import (
    ANSWER_PERMISSION,
    MAX_BODY_CHARS,
    QUEUE_ORDER,
    HandoverError,
    handover_close,
    handover_queue,
    handover_reply,
    handover_take,
)
from assistant.models import AgentStep, Conversation, Handover, HandoverEvent, LLMCall, PendingAction, Turn
from bookings.selectors import bookings_for_user
from core.admin import (
    BoundedSearchMixin,
    ReadOnlyAdmin,
    ReadOnlyInline,
    ReadOnlyMixin,
    object_change_url,
    object_view_url,
)


class AgentStepInline(ReadOnlyInline):
    """The tool calls of the turn, in order: which tool, with what (scrubbed) arguments, what it answered, how long."""

    model = AgentStep
    fields = readonly_fields = ("iteration", "tool", "arguments", "ok", "code", "latency_ms", "created_at")
    ordering = ("id",)


@admin.register(Turn)
class TurnAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "user", "intent", "outcome", "provider", "latency_ms", "prompt_tokens")
    list_filter = ("outcome", "intent", "provider")
    search_fields = ("user__username", "message", "=trace_id")
    list_select_related = ("user",)
    inlines = [AgentStepInline]
    list_per_page = 50
    show_full_result_count = False


@admin.register(LLMCall)
class LLMCallAdmin(ReadOnlyAdmin):
    list_display = (
        "created_at",
        "provider",
        "model",
        "purpose",
        "outcome",
        "latency_ms",
        "prompt_tokens",
        "completion_tokens",
        "tokens_clamped",
    )
    list_filter = ("provider", "outcome", "purpose", "tokens_clamped")
    search_fields = ("=trace_id",)
    list_per_page = 50
    show_full_result_count = False


@admin.register(Conversation)
class ConversationAdmin(ReadOnlyAdmin):
    list_display = ("id", "user", "created_at", "updated_at")
    search_fields = ("user__username",)
    list_select_related = ("user",)
    list_per_page = 50
    show_full_result_count = False


@admin.register(PendingAction)
class PendingActionAdmin(ReadOnlyAdmin):
    """Writes that waited for (or got) a traveller's confirmation: evidence of who confirmed what, and when."""

    list_display = ("created_at", "status", "tool", "user", "expires_at", "decided_at")
    list_filter = ("status", "tool")
    search_fields = ("user__username",)
    list_select_related = ("user",)
    readonly_fields = (
        "id",
        "user",
        "conversation",
        "tool",
        "status",
        "arguments",
        "preview",
        "result",
        "turn_id",
        "created_at",
        "expires_at",
        "decided_at",
        "claimed_until",
    )
    list_per_page = 50
    show_full_result_count = False


# -- hand-overs: the support queue --------------------------------------------------------------------------------

RECENT_TURNS = 10
LISTED_ROWS = 10


class HandoverEventInline(ReadOnlyInline):
    """Every move of the hand-over: opened, taken, closed (who, when)."""

    model = HandoverEvent
    fields = readonly_fields = ("created_at", "from_status", "to_status", "actor", "reason")
    ordering = ("created_at", "id")


class ReplyForm(forms.Form):
    body = forms.CharField(
        label=gettext_lazy("Your reply"), widget=forms.Textarea(attrs={"rows": 3}), max_length=MAX_BODY_CHARS
    )


@admin.register(Handover)
class HandoverAdmin(ReadOnlyMixin, BoundedSearchMixin, admin.ModelAdmin):
    """The support queue: conversations handed to staff, those waiting first (the longest waiting first). Staff
    with `assistant.answer_handover` (the "support" group) read the conversation, the traveller's bookings, orders
    and requests, take it, answer it (the traveller sees the reply in the chat) and close it (the assistant answers
    again). Every change goes through `assistant.handovers`; nothing here edits a row through a form."""

    change_form_template = "admin/assistant/handover/change_form.html"
    list_display = ("id", "user", "status", "reason", "words_short", "opened_at", "taken_by", "closed_at")
    list_filter = ("status", "reason")
    search_fields = ("user__username", "words")
    list_select_related = ("user", "taken_by")
    list_per_page = 50
    show_full_result_count = False
    inlines = [HandoverEventInline]
    actions = ["take_handovers", "close_handovers"]
    readonly_fields = (
        "user",
        "conversation",
        "status",
        "reason",
        "words",
        "opened_at",
        "taken_by",
        "taken_at",
        "closed_by",
        "closed_at",
        "messages_display",
        "turns_display",
        "bookings_display",
        "orders_display",
        "tickets_display",
    )
    fieldsets = (
        (
            gettext_lazy("Hand-over"),
            {
                "fields": (
                    ("user", "status", "reason"),
                    "words",
                    ("opened_at", "taken_by", "taken_at"),
                    ("closed_by", "closed_at"),
                    "conversation",
                )
            },
        ),
        (gettext_lazy("Messages while held"), {"fields": ("messages_display",)}),
        (gettext_lazy("The conversation's recent turns"), {"fields": ("turns_display",)}),
        (
            gettext_lazy("The traveller's bookings, orders and requests"),
            {"fields": ("bookings_display", "orders_display", "tickets_display")},
        ),
    )

    ordering = QUEUE_ORDER

    def get_queryset(self, request):
        return handover_queue()

    # -- permissions: seeing and answering the queue is the support permission ----------------------------------

    def has_answer_permission(self, request) -> bool:
        return request.user.is_active and request.user.is_staff and request.user.has_perm(ANSWER_PERMISSION)

    def has_view_permission(self, request, obj=None):
        return self.has_answer_permission(request)

    def has_module_permission(self, request):
        return self.has_answer_permission(request)

    # -- what staff read ----------------------------------------------------------------------------------------

    @admin.display(description=gettext_lazy("the traveller's words"))
    def words_short(self, handover: Handover) -> str:
        return Truncator(handover.words).chars(40)

    @admin.display(description=gettext_lazy("messages"))
    def messages_display(self, handover: Handover) -> SafeString:
        rows = [
            (
                timezone.localtime(m.created_at).strftime("%Y-%m-%d %H:%M:%S"),
                m.get_role_display(),
                m.author or "",
                m.body,
            )
            for m in handover.messages.select_related("author").order_by("created_at", "id")
        ]
        return _table((_("when"), _("from"), _("who"), _("message")), rows)

    @admin.display(description=gettext_lazy("turns"))
    def turns_display(self, handover: Handover) -> SafeString:
        turns = Turn.objects.filter(conversation_id=handover.conversation_id).order_by("-created_at", "-id")
        rows = [
            (timezone.localtime(t.created_at).strftime("%Y-%m-%d %H:%M:%S"), t.message, t.reply, t.outcome)
            for t in reversed(list(turns[:RECENT_TURNS]))
        ]
        return _table((_("when"), _("traveller"), _("assistant"), _("outcome")), rows)

    @admin.display(description=gettext_lazy("bookings"))
    def bookings_display(self, handover: Handover) -> SafeString:
        rows = [
            (_link("admin:bookings_bookingrecord_change", b.pk, b.booking_id), b.get_biz_type_display(),
             b.get_status_display(), b.amount)
            for b in bookings_for_user(user=handover.user)[:LISTED_ROWS]
        ]  # fmt: skip
        return _table((_("booking"), _("type"), _("status"), _("amount")), rows)

    @admin.display(description=gettext_lazy("after-sale orders"))
    def orders_display(self, handover: Handover) -> SafeString:
        rows = [
            (_link("admin:aftersale_bizorder_change", o.pk, o.order_id), o.get_category_display(),
             o.get_status_display(), o.amount)
            for o in orders_for_user(user=handover.user)[:LISTED_ROWS]
        ]  # fmt: skip
        return _table((_("order"), _("category"), _("status"), _("amount")), rows)

    @admin.display(description=gettext_lazy("after-sale tickets"))
    def tickets_display(self, handover: Handover) -> SafeString:
        rows = [
            (_link("admin:aftersale_hitlticket_change", t.pk, t.ticket_no), t.get_action_display(),
             t.get_status_display(), t.order.order_id if t.order_id else "")
            for t in tickets_for_user(user=handover.user)[:LISTED_ROWS]
        ]  # fmt: skip
        return _table((_("ticket"), _("action"), _("status"), _("order")), rows)

    # -- take, reply, close -------------------------------------------------------------------------------------

    def change_view(self, request, object_id, form_url="", extra_context=None):
        extra_context = {
            **(extra_context or {}),
            "can_answer": self.has_answer_permission(request),
            "reply_form": ReplyForm(),
        }
        return super().change_view(request, object_id, form_url, extra_context=extra_context)

    def get_urls(self):
        return [object_view_url(self, "answer", self.answer_view), *super().get_urls()]

    def answer_view(self, request, object_id):
        """One hand-over's buttons on its change page: take it, send the reply typed, or close it (POST only)."""
        if request.method != "POST" or not self.has_answer_permission(request):
            raise PermissionDenied
        handover = self.get_object(request, unquote(object_id))
        if handover is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        change_url = object_change_url(self, handover)
        step = request.POST.get("step")
        try:
            if step == "take":
                handover_take(handover_id=handover.pk, staff=request.user)
                self.message_user(request, _("You took this hand-over."), messages.SUCCESS)
            elif step == "reply":
                form = ReplyForm(request.POST)
                if not form.is_valid():
                    self.message_user(request, _("Write a reply first."), messages.ERROR)
                else:
                    handover_reply(handover_id=handover.pk, staff=request.user, body=form.cleaned_data["body"])
                    self.message_user(request, _("Your reply was sent to the traveller's chat."), messages.SUCCESS)
            elif step == "close":
                handover_close(handover_id=handover.pk, staff=request.user)
                self.message_user(request, _("Closed: the assistant answers this traveller again."), messages.SUCCESS)
            else:
                self.message_user(request, _("Choose to take, answer or close the hand-over."), messages.ERROR)
        except HandoverError as exc:
            self.message_user(request, exc.message, messages.ERROR)
        return HttpResponseRedirect(change_url)

    @admin.action(description=gettext_lazy("Take selected hand-overs"), permissions=["answer"])
    def take_handovers(self, request, queryset):
        self._each(request, queryset, handover_take, _("Took %(count)d hand-over(s)."))

    @admin.action(description=gettext_lazy("Close selected hand-overs"), permissions=["answer"])
    def close_handovers(self, request, queryset):
        self._each(request, queryset, handover_close, _("Closed %(count)d hand-over(s)."))

    def _each(self, request, queryset, service, done: str) -> None:
        count = 0
        for handover in queryset:
            try:
                service(handover_id=handover.pk, staff=request.user)
                count += 1
            except HandoverError as exc:
                self.message_user(request, f"#{handover.pk}: {exc.message}", messages.ERROR)
        if count:
            self.message_user(request, done % {"count": count}, messages.SUCCESS)


def _link(url_name: str, pk, label) -> SafeString:
    return format_html('<a href="{}">{}</a>', reverse(url_name, args=[pk]), label)


def _table(headers: tuple, rows: list[tuple]) -> SafeString:
    """A small read-only table (cells escaped; links built by `_link` stay links)."""
    if not rows:
        return format_html("<span>{}</span>", "—")
    head = format_html_join("", "<th>{}</th>", ((h,) for h in headers))
    body = format_html_join(
        "", "<tr>{}</tr>", ((format_html_join("", "<td>{}</td>", ((cell,) for cell in row)),) for row in rows)
    )
    return format_html('<table class="handover-table"><thead><tr>{}</tr></thead><tbody>{}</tbody></table>', head, body)
