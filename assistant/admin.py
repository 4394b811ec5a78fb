from django.contrib import admin

from assistant.models import AgentStep, Conversation, LLMCall, PendingAction, Turn
from core.admin import ReadOnlyAdmin, ReadOnlyInline


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
