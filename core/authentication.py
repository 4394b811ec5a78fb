"""How the JSON API knows who is calling: the signed-in session of the pages (settings: REST_FRAMEWORK
DEFAULT_AUTHENTICATION_CLASSES). Loaded by DRF's settings, so it imports nothing of rest_framework.views (a circular
import).
"""

from rest_framework import authentication

# The challenge of a 401: a scheme of our own, as no registered one fits a session cookie (and for an unknown scheme
# no browser shows a password prompt, as it would for Basic).
CHALLENGE = 'Session realm="TripDesk"'


class SessionAuthentication(authentication.SessionAuthentication):
    """DRF's session authentication, CSRF check of a signed-in unsafe request included, which also names a
    `WWW-Authenticate` challenge.

    DRF answers a request nobody authenticated with 401 only when the first authentication class has a challenge;
    DRF's own session class has none, so every anonymous call was a 403. With one, 401 NOT_AUTHENTICATED means "sign
    in" (as the schema documents) and 403 PERMISSION_DENIED is left for a signed-in caller who may not do it (a post
    without its CSRF token, an approver's refusal).
    """

    def authenticate_header(self, request) -> str:
        return CHALLENGE
