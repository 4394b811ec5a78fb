"""The API's JSON parser (REST_FRAMEWORK's DEFAULT_PARSER_CLASSES), `BoundedJSONParser`: no request body larger than
DATA_UPLOAD_MAX_MEMORY_SIZE is read, and the body is decoded by `core.bounded_json.bounded_loads` (nothing nested
deeper than MAX_JSON_DEPTH reaches `json.loads`). A refused body is DRF's ParseError, which
`core.api.exception_handler` turns into the one error body (400 INVALID_PARAM, 413 when too large).
"""

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.utils.translation import gettext as _
from rest_framework import status
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser, get_encoding
from rest_framework.utils.json import strict_constant

from core.bounded_json import MAX_JSON_DEPTH, JSONTooDeep, bounded_loads


class RequestBodyTooLarge(ParseError):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is too large."
    default_code = "request_too_large"


def body_too_large_message() -> str:
    return _("The request body is larger than %(limit)s bytes.") % {"limit": settings.DATA_UPLOAD_MAX_MEMORY_SIZE}


def body_too_large() -> RequestBodyTooLarge:
    return RequestBodyTooLarge(body_too_large_message())


class BoundedJSONParser(JSONParser):
    """DRF's JSONParser with a depth limit (MAX_JSON_DEPTH) and a size limit (DATA_UPLOAD_MAX_MEMORY_SIZE; DRF reads
    `request.body` for a JSONParser, where Django checks it first and `config.api_errors` answers; the stream is
    still read at most one byte past the limit here): a refusal is a ParseError, never a RecursionError."""

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = get_encoding(parser_context or {})
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        try:
            raw = stream.read() if limit is None else stream.read(limit + 1)
        except RequestDataTooBig:
            raise body_too_large() from None
        if limit is not None and len(raw) > limit:
            raise body_too_large()
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError as exc:
            raise ParseError(_("JSON parse error - %(error)s") % {"error": exc}) from None
        parse_constant = strict_constant if self.strict else None  # NaN and Infinity are not JSON
        try:
            return bounded_loads(text, parse_constant=parse_constant)
        except JSONTooDeep:
            message = _("JSON parse error - nested deeper than %(limit)s levels") % {"limit": MAX_JSON_DEPTH}
            raise ParseError(message) from None
        except ValueError as exc:
            raise ParseError(_("JSON parse error - %(error)s") % {"error": exc}) from None
