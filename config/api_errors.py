"""A request Django itself refuses (a body over DATA_UPLOAD_MAX_MEMORY_SIZE, too many fields, a malformed multipart
body: `RequestDataTooBig` and the other `SuspiciousOperation`s, `BadRequest`) is answered, under `/api/`, with the
API's one error body (413 or 400 INVALID_PARAM) instead of Django's HTML 400, and on the pages with a page that says
what happened (or, for the chat's HTMX post, the chat's error partial).

Two hooks, one answer: `ApiErrorBodyMiddleware.process_exception` for what a view raises (DRF reading a form body;
it works with DEBUG too), and `bad_request` (the URLconf's handler400) for what Django raises outside a view, e.g.
the CSRF check reading an oversized form post. `not_found` and `server_error` (handler404 / handler500) keep the
one error body under /api/ for a URL no route matches and for a failure nobody foresaw.
"""

import logging

from django.core.exceptions import BadRequest, RequestDataTooBig, SuspiciousOperation
from django.http import HttpResponseServerError, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.template import loader
from django.utils.translation import gettext as _
from django.views import defaults

# core.envelope, not core.api: middleware loads before DRF's views, whose settings import the auth classes.
from core.envelope import Code, fail
from core.parsers import body_too_large_message

logger = logging.getLogger(__name__)

API_PREFIX = "/api/"
REFUSED = (SuspiciousOperation, BadRequest)


def _is_api(request) -> bool:
    return request.path.startswith(API_PREFIX)


def _problem(exception) -> tuple[int, str]:
    if isinstance(exception, RequestDataTooBig):
        return 413, body_too_large_message()
    return 400, _("The request is malformed.")


def api_error_response(exception) -> JsonResponse:
    status, message = _problem(exception)
    return JsonResponse(fail(Code.INVALID_PARAM, message), status=status)


class ApiErrorBodyMiddleware:
    """Under /api/, a request Django refuses inside a view gets the one error body, not the HTML 400 page."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if _is_api(request) and isinstance(exception, REFUSED):
            return api_error_response(exception)
        return None


def bad_request(request, exception=None):
    """handler400: JSON under /api/; the chat's error partial for an HTMX post; otherwise the 400 page."""
    if _is_api(request):
        return api_error_response(exception)
    status, message = _problem(exception)
    if request.headers.get("HX-Request") == "true":
        # HTMX swaps only a 2xx answer, and the traveller must see why nothing was sent (as for a refused message).
        return render(request, "assistant/partials/error.html", {"error": message})
    return render(request, "400.html", {"message": message}, status=status)


def not_found(request, exception=None):
    """handler404: under /api/ (an URL no route matches, e.g. an id with a slash in it) the one error body."""
    if _is_api(request):
        return JsonResponse(fail(Code.NOT_FOUND, _("No such resource.")), status=404)
    return defaults.page_not_found(request, exception)


def server_error(request):
    """handler500: under /api/ the one error body (the error itself is logged by Django), never an HTML page;
    elsewhere templates/500.html in the request's language."""
    if _is_api(request):
        message = _("Something went wrong on our side; nothing more is known.")
        return JsonResponse(fail(Code.INTERNAL_ERROR, message), status=500)
    return server_error_page(request)


def server_error_page(request) -> HttpResponseServerError:
    """The 500 page, rendered from a plain context: no context processor runs, so nothing reads the session, the
    user or the database (which may be what failed); the language switcher gets its CSRF token from the cookie."""
    try:
        body = loader.get_template("500.html").render({"request": request, "csrf_token": get_token(request)})
    except Exception:  # the page itself failed: Django's bare one rather than no answer at all
        logger.exception("the 500 page could not be rendered")
        return HttpResponseServerError(defaults.ERROR_PAGE_TEMPLATE % {"title": "Server Error (500)", "details": ""})
    return HttpResponseServerError(body)
