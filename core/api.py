"""The one error body of every JSON API view, `{"ok": false, "code", "message", "data"}`, and the one DRF exception
handler that produces it from an `ApplicationError` or from DRF's own exceptions (settings: EXCEPTION_HANDLER)."""

import logging

from drf_spectacular.authentication import SessionScheme
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from core.envelope import Code, fail
from core.errors import ApplicationError

logger = logging.getLogger(__name__)

# The HTTP status of a business refusal, by its code; a code not listed answers 400.
HTTP_STATUS = {
    Code.INVALID_PARAM: status.HTTP_400_BAD_REQUEST,
    Code.INVALID_TRANSITION: status.HTTP_409_CONFLICT,
    Code.NOT_AUTHENTICATED: status.HTTP_401_UNAUTHORIZED,
    Code.PERMISSION_DENIED: status.HTTP_403_FORBIDDEN,
    Code.NOT_FOUND: status.HTTP_404_NOT_FOUND,
    Code.BOOKING_NOT_FOUND: status.HTTP_404_NOT_FOUND,
    Code.ORDER_NOT_FOUND: status.HTTP_404_NOT_FOUND,
    Code.PLAN_NOT_FOUND: status.HTTP_404_NOT_FOUND,
    Code.METHOD_NOT_ALLOWED: status.HTTP_405_METHOD_NOT_ALLOWED,
    Code.INELIGIBLE: status.HTTP_409_CONFLICT,
    Code.CANCEL_IN_PROGRESS: status.HTTP_409_CONFLICT,
    Code.TICKET_PENDING: status.HTTP_202_ACCEPTED,
    Code.RATE_LIMITED: status.HTTP_429_TOO_MANY_REQUESTS,
    Code.PLATFORM_CANCEL_FAILED: status.HTTP_502_BAD_GATEWAY,
    Code.PLATFORM_UNAVAILABLE: status.HTTP_502_BAD_GATEWAY,
    Code.PLATFORM_REJECTED: status.HTTP_502_BAD_GATEWAY,
    Code.LLM_UNAVAILABLE: status.HTTP_503_SERVICE_UNAVAILABLE,
    Code.PLAN_STORE_UNAVAILABLE: status.HTTP_503_SERVICE_UNAVAILABLE,
    Code.INTERNAL_ERROR: status.HTTP_500_INTERNAL_SERVER_ERROR,
    Code.CONFIRMATION_REQUIRED: status.HTTP_409_CONFLICT,
    Code.ACTION_NOT_FOUND: status.HTTP_404_NOT_FOUND,
    Code.ACTION_EXPIRED: status.HTTP_410_GONE,
    Code.ACTION_IN_PROGRESS: status.HTTP_409_CONFLICT,
    Code.ACTION_DECLINED: status.HTTP_409_CONFLICT,
    Code.BOOKING_EXPIRED: status.HTTP_409_CONFLICT,
    Code.PAYMENT_FAILED: status.HTTP_502_BAD_GATEWAY,
}
# DRF's own exceptions, by class, as envelope codes.
DRF_CODES = (
    (exceptions.NotAuthenticated, Code.NOT_AUTHENTICATED),
    (exceptions.AuthenticationFailed, Code.NOT_AUTHENTICATED),
    (exceptions.PermissionDenied, Code.PERMISSION_DENIED),
    (exceptions.NotFound, Code.NOT_FOUND),
    (exceptions.MethodNotAllowed, Code.METHOD_NOT_ALLOWED),
    (exceptions.Throttled, Code.RATE_LIMITED),
    (exceptions.ParseError, Code.INVALID_PARAM),
    (exceptions.UnsupportedMediaType, Code.INVALID_PARAM),
    (exceptions.ValidationError, Code.INVALID_PARAM),
)


class ErrorSerializer(serializers.Serializer):
    """The one error body of every API view (and the envelope of DESIGN.md)."""

    ok = serializers.BooleanField(default=False)
    code = serializers.CharField()
    message = serializers.CharField()
    data = serializers.JSONField(allow_null=True)


def error_responses(*statuses: int) -> dict:
    """What a view documents for the refusals it may answer (`@extend_schema(responses={200: …,
    **error_responses(400, 404)})`): the one error body under each status."""
    return {status_code: ErrorSerializer for status_code in statuses}


def error_response(exc: ApplicationError) -> Response:
    """The response of a refused request (views that catch the error themselves use this too)."""
    http = HTTP_STATUS.get(exc.code, status.HTTP_400_BAD_REQUEST)
    return Response(fail(exc.code, exc.message, exc.data), status=http)


def exception_handler(exc, context):
    """DRF's EXCEPTION_HANDLER: domain errors and DRF's own errors become the one error body."""
    if isinstance(exc, ApplicationError):
        return error_response(exc)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # not an API error: Django's 500 handling (and its logging) takes over
    code = next((c for cls, c in DRF_CODES if isinstance(exc, cls)), Code.INVALID_PARAM)
    detail = response.data
    if isinstance(detail, dict) and set(detail) == {"detail"}:
        message, data = str(detail["detail"]), None
    else:
        message, data = "The request is not valid.", detail
    response.data = fail(code, message, data)
    return response


# -- what the OpenAPI schema says about authentication (settings: SPECTACULAR_SETTINGS) -----------------------------


class TripDeskSessionScheme(SessionScheme):
    """The schema's `cookieAuth` for core.authentication.SessionAuthentication, as drf-spectacular's for DRF's own."""

    target_class = "core.authentication.SessionAuthentication"


WRITES = {"post", "put", "patch", "delete"}
NOT_SIGNED_IN = "Not signed in (NOT_AUTHENTICATED): sign in on the site first; its session cookie authenticates."
NOT_ALLOWED = (
    "Signed in, but not allowed (PERMISSION_DENIED): e.g. a write without its CSRF token (the X-CSRFToken header)."
)


def document_auth_responses(result, generator, request, public):
    """drf-spectacular postprocessing hook: every operation that needs a signed-in caller documents what the API
    answers without one (401 and its WWW-Authenticate challenge) and, for a write, a signed-in caller the session's
    CSRF check refuses (403), both with the one error body, as views that list them already do."""
    if "Error" not in result.get("components", {}).get("schemas", {}):
        return result
    for item in result.get("paths", {}).values():
        for method, operation in item.items():
            security = operation.get("security") if isinstance(operation, dict) else None
            if not security or {} in security:
                continue  # anyone may call it
            responses = operation.setdefault("responses", {})
            unauthenticated = _error_response(responses, "401", NOT_SIGNED_IN)
            unauthenticated.setdefault("headers", {})["WWW-Authenticate"] = {
                "description": "The challenge: sign in to the site (a session cookie).",
                "schema": {"type": "string"},
            }
            if method in WRITES:
                _error_response(responses, "403", NOT_ALLOWED)
    return result


def _error_response(responses: dict, status_code: str, description: str) -> dict:
    response = responses.setdefault(
        status_code, {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    )
    if not response.get("description"):
        response["description"] = description
    return response
