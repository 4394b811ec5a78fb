"""What a flood of anonymous API requests runs into, and the one notion of the client's address (settings:
config/settings/auth.py). Loaded by DRF's settings: it imports nothing of rest_framework.views (a circular import).

- `client_ip`: the client's address, shared by django-axes and DRF's throttles.
- `AnonymousRateLimit`: every anonymous API request counts against a per-IP rate, checked before permissions.
"""

import logging

from django.conf import settings
from django.http import HttpRequest
from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication
from rest_framework.throttling import AnonRateThrottle, BaseThrottle

logger = logging.getLogger(__name__)


def client_ip(request: HttpRequest) -> str | None:
    """REMOTE_ADDR, or the address the trusted proxies (REST_FRAMEWORK["NUM_PROXIES"]) put in X-Forwarded-For."""
    return BaseThrottle().get_ident(request) or None


class AnonymousApiThrottle(AnonRateThrottle):
    """DRF's per-IP throttle for anonymous clients, at the rate of settings.API_ANON_RATE (read per request)."""

    def get_rate(self):
        return settings.API_ANON_RATE

    def get_cache_key(self, request, view):
        # Only ever asked once no authenticator has recognised the client (so not request.user: that would recurse).
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class AnonymousRateLimit(BaseAuthentication):
    """The last of DEFAULT_AUTHENTICATION_CLASSES: reached only when no authenticator recognised the client, it counts
    the request against API_ANON_RATE per client IP and refuses past it (429, RATE_LIMITED, Retry-After).

    An authentication class because DRF runs authentication before permissions on every view, whereas its own
    throttles run after permissions, so an anonymous request refused with 403 would never be counted. It
    authenticates nobody.
    """

    def authenticate(self, request):
        throttle = AnonymousApiThrottle()
        try:
            allowed = throttle.allow_request(request, None)
        except Exception:  # the cache (Redis) is down: the API keeps answering, unlimited, as the log says
            logger.warning("anonymous API rate limit skipped: the cache is unreachable", exc_info=True)
            return None
        if not allowed:
            raise exceptions.Throttled(wait=throttle.wait(), detail=_("Too many requests. Please slow down."))
        return None
