"""The assistant's JSON API: one chat turn, understanding alone, the traveller's answer to a confirmation, and their
conversations (list, one with its turns, delete). Someone else's conversation answers 404 NOT_FOUND, byte for byte
like an unknown id."""

from django.utils import timezone, translation
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from assistant.actions import pending_action_get
from assistant.handovers import handover_replies
from assistant.llm.audit import audited
from assistant.llm.factory import get_llm_port
from assistant.llm.port import LLMError, UnderstandContext
from assistant.llm.schema import AnswerName
from assistant.presenters.handover import staff_items
from assistant.ratelimit import turn_admitted
from assistant.replies import LANGUAGES
from assistant.selectors import CONVERSATION_TITLE_CHARS, conversation_get, conversation_turns, conversations_for_user
from assistant.services import (
    MAX_MESSAGE_CHARS,
    ConversationNotFound,
    InvalidMessage,
    chat_turn,
    clean_message,
    conversation_delete,
)
from core.api import error_responses
from core.envelope import Code
from core.errors import ApplicationError


class ChatRequestSerializer(serializers.Serializer):
    message = serializers.CharField(max_length=MAX_MESSAGE_CHARS)
    session_id = serializers.CharField(required=False, allow_null=True, allow_blank=True, max_length=64)
    fresh = serializers.BooleanField(default=False, help_text="Start without the conversation's remembered slots.")


class StaffMessageSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(
        choices=["staff", "back"], help_text="staff: a person wrote it; back: the assistant answers again."
    )
    author = serializers.CharField(allow_blank=True, help_text="The member of staff who wrote it (empty for back).")
    text = serializers.CharField()
    created_at = serializers.DateTimeField()


class ChatResponseSerializer(serializers.Serializer):
    reply = serializers.CharField(allow_blank=True)
    intent = serializers.JSONField(allow_null=True)
    cards = serializers.ListField(child=serializers.DictField())
    suggestions = serializers.ListField(child=serializers.DictField())
    session_id = serializers.CharField()
    outcome = serializers.CharField()
    meta = serializers.DictField()
    staff = StaffMessageSerializer(
        many=True,
        help_text="What staff wrote in this conversation since the traveller last saw it (a hand-over), oldest first.",
    )


class UnderstandRequestSerializer(serializers.Serializer):
    message = serializers.CharField(max_length=MAX_MESSAGE_CHARS)
    today = serializers.DateField(required=False, help_text="Resolve relative dates against this day (YYYY-MM-DD).")


def _validated(serializer_class: type[serializers.Serializer], data) -> dict:
    """The request body, validated; the first problem becomes the one error body (400 INVALID_PARAM)."""
    incoming = serializer_class(data=data)
    if not incoming.is_valid():
        field, problems = next(iter(incoming.errors.items()))
        raise ApplicationError(Code.INVALID_PARAM, f"{field}: {problems[0]}", data=incoming.errors)
    return incoming.validated_data


def _clean(message: str) -> str:
    try:
        return clean_message(message)
    except InvalidMessage as exc:
        raise ApplicationError(Code.INVALID_PARAM, str(exc)) from None


class ChatView(APIView):
    @extend_schema(
        request=ChatRequestSerializer,
        responses={200: ChatResponseSerializer, **error_responses(400, 401)},
        summary="Send one message to the assistant",
    )
    def post(self, request):
        given = _validated(ChatRequestSerializer, request.data)  # malformed JSON: DRF's ParseError, the same body
        try:
            result = chat_turn(
                user=request.user,
                message=given["message"],
                conversation_id=given.get("session_id") or None,
                page_language=request.LANGUAGE_CODE,
                fresh=given["fresh"],
            )
        except InvalidMessage as exc:
            raise ApplicationError(Code.INVALID_PARAM, str(exc)) from None
        return Response(ChatResponseSerializer(_turn_body(result)).data)


def _turn_body(result) -> dict:
    """What the API answers of one chat turn (`chat_turn`'s result)."""
    return {
        "reply": result.reply,
        "intent": result.intent,
        "cards": result.cards,
        "suggestions": result.suggestions,
        "session_id": result.conversation_id,
        "outcome": result.outcome,
        "meta": result.meta,
        "staff": result.staff,
    }


class UnderstandView(APIView):
    @extend_schema(
        request=UnderstandRequestSerializer,
        responses={
            200: OpenApiTypes.OBJECT,  # the intent JSON (a free-form object, as JSONField gave, without a warning)
            **error_responses(400, 401, 429, 503),
        },
        summary="Understand one sentence: the intent JSON, nothing done",
    )
    def post(self, request):
        given = _validated(UnderstandRequestSerializer, request.data)
        text = _clean(given["message"])
        today = given.get("today") or timezone.localdate()
        if not turn_admitted(user_id=request.user.pk, today=timezone.localdate()):
            raise ApplicationError(Code.RATE_LIMITED, "Today's message limit is reached.")
        port = audited(get_llm_port(), user=request.user)
        try:
            understanding = port.understand(text, context=UnderstandContext(today=today))
        except LLMError as error:
            raise ApplicationError(Code.LLM_UNAVAILABLE, f"The model gave no usable answer ({error.kind}).") from None
        return Response(understanding.intent.model_dump(mode="json"))


class ActionAnswerResponseSerializer(ChatResponseSerializer):
    conversation_id = serializers.CharField()


class _ActionAnswerView(APIView):
    """The traveller's yes or no to one of their pending actions, as one turn of its conversation: the same answer
    as the chat endpoint (reply, cards, conversation), so a replay or a double click answers what was done."""

    said = ""  # AnswerName: what this endpoint answers, so the words are not read

    def answer(self) -> str:
        """What the traveller says, in the page's language (the turn's message, as the chat shows it)."""
        raise NotImplementedError

    def post(self, request, pending_id):
        action = pending_action_get(user=request.user, pending_id=pending_id)
        if action is None:
            raise ApplicationError(Code.ACTION_NOT_FOUND, "There is no such confirmation for you.")
        language = request.LANGUAGE_CODE if request.LANGUAGE_CODE in LANGUAGES else "zh-hans"
        with translation.override(language):
            message = self.answer()
        result = chat_turn(
            user=request.user,
            message=message,
            conversation_id=str(action.conversation_id),
            page_language=language,
            action_id=str(action.pk),
            answer=self.said,
        )
        body = {**_turn_body(result), "conversation_id": result.conversation_id}
        return Response(ActionAnswerResponseSerializer(body).data)


def _answer_schema(summary: str):
    """The schema of a pending action's answer: no body, the turn's answer, 401 or 404."""
    responses = {200: ActionAnswerResponseSerializer, **error_responses(401, 404)}
    return extend_schema_view(post=extend_schema(request=None, responses=responses, summary=summary))


@_answer_schema("Confirm a pending action (runs it at most once; a repeat answers what was done)")
class ActionConfirmView(_ActionAnswerView):
    said = AnswerName.YES

    def answer(self) -> str:
        return _("Confirm")


@_answer_schema("Decline a pending action (nothing is done)")
class ActionDeclineView(_ActionAnswerView):
    said = AnswerName.NO

    def answer(self) -> str:
        return _("No, thanks")


class ConversationSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    title = serializers.CharField(
        help_text=(
            f"The first message, cut to {CONVERSATION_TITLE_CHARS} characters (empty for a conversation without turns)."
        )
    )
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField(source="last_active", help_text="The last activity: its latest turn.")
    turn_count = serializers.IntegerField()


class ConversationTurnSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    message = serializers.CharField(help_text="What the traveller wrote.")
    reply = serializers.CharField(allow_blank=True)
    cards = serializers.ListField(child=serializers.DictField(), help_text="The cards as the reply showed them.")
    outcome = serializers.CharField()
    created_at = serializers.DateTimeField()


class ConversationDetailSerializer(ConversationSerializer):
    turns = ConversationTurnSerializer(many=True, help_text="Oldest first.")
    staff = StaffMessageSerializer(many=True, help_text="What staff wrote while a person held it, oldest first.")


@extend_schema_view(
    get=extend_schema(
        responses={200: ConversationSerializer(many=True), **error_responses(401, 404)},
        summary="My conversations, the most recently active first (those with at least one turn)",
    )
)
class ConversationListView(generics.ListAPIView):
    serializer_class = ConversationSerializer

    def get_queryset(self):
        return conversations_for_user(user=self.request.user)


class ConversationView(APIView):
    @extend_schema(
        responses={200: ConversationDetailSerializer, **error_responses(401, 404)},
        summary="One of my conversations with its turns (message, reply, cards, outcome)",
    )
    def get(self, request, conversation_id):
        conversation = conversation_get(user=request.user, conversation_id=conversation_id)
        if conversation is None:
            raise ConversationNotFound()
        turns = conversation_turns(user=request.user, conversation_id=conversation.pk)
        language = request.LANGUAGE_CODE if request.LANGUAGE_CODE in LANGUAGES else "zh-hans"
        staff = staff_items(list(handover_replies(user=request.user, conversation_id=conversation.pk)), language)
        body = {
            **ConversationSerializer(conversation).data,
            "turns": ConversationTurnSerializer(turns, many=True).data,
            "staff": StaffMessageSerializer(staff, many=True).data,
        }
        return Response(body)

    @extend_schema(
        request=None,
        responses={204: None, **error_responses(401, 403, 404)},
        summary="Delete one of my conversations with its turns (bookings and requests made in it stay)",
    )
    def delete(self, request, conversation_id):
        conversation_delete(user=request.user, conversation_id=conversation_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
