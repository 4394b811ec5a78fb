"""What a locked-out login answers (django-axes' AXES_LOCKOUT_CALLABLE): 429 with the cool-off, as a page in the
visitor's language or, for a client asking for JSON, the one error body; no password was checked."""

import math

from axes.helpers import get_cool_off
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from core.envelope import Code, fail

API_PREFIX = "/api/"  # a lockout met under it answers JSON


def _wants_json(request: HttpRequest) -> bool:
    if request.path.startswith(API_PREFIX) or request.headers.get("x-requested-with") == "XMLHttpRequest":
        return True
    return request.get_preferred_type(["text/html", "application/json"]) == "application/json"


def lockout_response(request: HttpRequest, original_response: HttpResponse | None, credentials: dict | None):
    """AXES_LOCKOUT_CALLABLE: 429 with the cool-off, as a page or as the one error body; no password was checked."""
    cool_off = get_cool_off(request)
    retry_after = math.ceil(cool_off.total_seconds()) if cool_off else None
    if retry_after:
        minutes = math.ceil(retry_after / 60)
        message = _("Too many failed logins. This account is locked from your address for %(minutes)d minutes.") % {
            "minutes": minutes
        }
    else:
        message = _(
            "Too many failed logins. This account is locked from your address until an administrator unlocks it."
        )
    if _wants_json(request):
        body = fail(Code.RATE_LIMITED, message, {"retry_after": retry_after})
        response = JsonResponse(body, status=429, json_dumps_params={"ensure_ascii": False})
    else:
        response = render(request, "registration/locked_out.html", {"message": message}, status=429)
    if retry_after:
        response["Retry-After"] = str(retry_after)
    return response
