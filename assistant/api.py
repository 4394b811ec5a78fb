"""The assistant's JSON API: one chat turn, and understanding alone."""

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ParseError
from rest_framework.response import Response
from rest_framework.views import APIView

from assistant.audit import understand_audited
from assistant.llm.factory import get_llm_port
from assistant.llm.port import UnderstandContext
from assistant.ratelimit import turn_admitted
from assistant.services import MAX_MESSAGE_CHARS, InvalidMessage, chat_turn, clean_message
from config.api import DetailSerializer


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()


class ChatRequestSerializer(serializers.Serializer):
    message = serializers.CharField(max_length=MAX_MESSAGE_CHARS)
    session_id = serializers.CharField(required=False, allow_null=True, allow_blank=True, max_length=64)
    fresh = serializers.BooleanField(default=False, help_text="Start without the conversation's remembered slots.")


class ChatResponseSerializer(serializers.Serializer):
    reply = serializers.CharField()
    intent = serializers.JSONField(allow_null=True)
    cards = serializers.ListField(child=serializers.DictField())
    suggestions = serializers.ListField(child=serializers.DictField())
    session_id = serializers.CharField()
    outcome = serializers.CharField()
    meta = serializers.DictField()


class UnderstandRequestSerializer(serializers.Serializer):
    message = serializers.CharField(max_length=MAX_MESSAGE_CHARS)
    today = serializers.DateField(required=False, help_text="Resolve relative dates against this day (YYYY-MM-DD).")


def _invalid(message: str) -> Response:
    return Response({"code": "INVALID_PARAM", "message": message}, status=status.HTTP_400_BAD_REQUEST)


def _first_error(errors: dict) -> str:
    field, problems = next(iter(errors.items()))
    return f"{field}: {problems[0]}"


class ChatView(APIView):
    @extend_schema(
        request=ChatRequestSerializer,
        responses={200: ChatResponseSerializer, 400: ErrorSerializer, 401: DetailSerializer},
        summary="Send one message to the assistant",
    )
    def post(self, request):
        try:
            body = request.data
        except ParseError as exc:  # answered in this API's own error shape, as documented
            return _invalid(f"malformed JSON: {exc.detail}")
        incoming = ChatRequestSerializer(data=body)
        if not incoming.is_valid():
            return _invalid(_first_error(incoming.errors))
        try:
            result = chat_turn(
                user=request.user,
                message=incoming.validated_data["message"],
                conversation_id=incoming.validated_data.get("session_id") or None,
                page_language=request.LANGUAGE_CODE,
                fresh=incoming.validated_data["fresh"],
            )
        except InvalidMessage as exc:
            return _invalid(str(exc))
        body = {
            "reply": result.reply,
            "intent": result.intent,
            "cards": result.cards,
            "suggestions": result.suggestions,
            "session_id": result.conversation_id,
            "outcome": result.outcome,
            "meta": result.meta,
        }
        return Response(ChatResponseSerializer(body).data)


class UnderstandView(APIView):
    @extend_schema(
        request=UnderstandRequestSerializer,
        responses={
            200: serializers.JSONField,
            400: ErrorSerializer,
            401: DetailSerializer,
            429: ErrorSerializer,
            503: ErrorSerializer,
        },
        summary="Understand one sentence: the intent JSON, nothing done",
    )
    def post(self, request):
        try:
            body = request.data
        except ParseError as exc:
            return _invalid(f"malformed JSON: {exc.detail}")
        incoming = UnderstandRequestSerializer(data=body)
        if not incoming.is_valid():
            return _invalid(_first_error(incoming.errors))
        try:
            text = clean_message(incoming.validated_data["message"])
        except InvalidMessage as exc:
            return _invalid(str(exc))
        today = incoming.validated_data.get("today") or timezone.localdate()
        if not turn_admitted(user_id=request.user.pk, today=timezone.localdate()):
            return Response(
                {"code": "RATE_LIMITED", "message": "Today's message limit is reached."},
                status=status.HTTP_429_TOO_MANY_REQUESTS,
            )
        port = get_llm_port()
        understanding, error, _ = understand_audited(
            port=port, text=text, context=UnderstandContext(today=today), user=request.user
        )
        if error is not None:
            return Response(
                {"code": "LLM_UNAVAILABLE", "message": f"The model gave no usable answer ({error.kind})."},
                status=status.HTTP_503_SERVICE_UNAVAILABLE,
            )
        return Response(understanding.intent.model_dump(mode="json"))
