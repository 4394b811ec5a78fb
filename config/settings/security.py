"""What the browser may do with our pages (CSP, Permissions-Policy, referrer, opener) and HTTPS behind a TLS proxy.

`manage.py check --deploy` is clean with TRIPDESK_PRODUCTION=1 DJANGO_HTTPS=1 and a secret key of the site's own
(tests/security/test_headers.py runs it); the README's Deployment section explains each warning left without HTTPS.
"""

from urllib.parse import urlsplit

from csp.constants import NONCE, NONE, SELF

from config.settings import env


def _origins(url: str) -> list[str]:
    """The origin of an absolute URL, as a CSP source ([] for a path on this site)."""
    parts = urlsplit(url)
    return [f"{parts.scheme}://{parts.netloc}"] if parts.netloc else []


# No inline script, no inline style, no eval: the pages' behaviour is in static/js/tripdesk.js, htmx runs with
# `allowEval` off (templates/base.html), the API docs pages load Swagger UI, ReDoc and their init scripts from this site.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
        # The live channel may be served from its own address (TRIPDESK_LIVE_URL, config/live.py): that origin too.
        "connect-src": [SELF, *_origins(env.LIVE_URL)],
    },
}

# What the ReDoc page (/api/v1/docs/redoc/, config/urls.py) adds to that policy, for that page only. ReDoc styles
# itself with <style> elements: those of its components carry the response's nonce (passed to ReDoc by
# static/js/api-redoc.js); the one its bundle inserts as it loads, before it knows the nonce (perfect-scrollbar's
# CSS), is allowed by its hashes: empty as created, then filled. They belong to drf-spectacular-sidecar 2026.10.1's
# ReDoc (tests/browser/test_page_finish.py fails on a new bundle's). Its search runs in a worker made from a blob: URL.
# The one outside file its bundle names is Redocly's logo on its "API docs by Redocly" link: allowed by its exact URL,
# so the page is whole online (offline ReDoc hides the image, as it does when the logo fails); nothing else leaves the
# site, and the Referrer-Policy sends it no address of ours.
REDOCLY_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
REDOC_CSP_UPDATE = {
    "img-src": [REDOCLY_LOGO],
    "style-src": [
        NONCE,
        "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='",
        "'sha256-QMIg+bpjm3JdElJ388KYke01izlUW0UoNOeKjpMxdgc='",
    ],
    "worker-src": [SELF, "blob:"],
}

# Powerful browser features no TripDesk page uses, denied to the pages and to anything they might embed.
PERMISSIONS_POLICY = {
    feature: []
    for feature in (
        "accelerometer",
        "autoplay",
        "browsing-topics",
        "camera",
        "display-capture",
        "encrypted-media",
        "geolocation",
        "gyroscope",
        "hid",
        "idle-detection",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "picture-in-picture",
        "publickey-credentials-get",
        "screen-wake-lock",
        "serial",
        "usb",
        "xr-spatial-tracking",
    )
}

# Django's defaults, stated: other sites learn nothing of our URLs (booking and ticket numbers are in them), and a
# page opened from another site cannot reach back into ours through window.opener.
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

if env.HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # load balancers probe over plain HTTP
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    # DJANGO_HTTPS=1 says every page of this host is served over TLS, so browsers may insist on it. Subdomains of
    # the desk's own host name are covered too; `preload` only has an effect once the domain's owner submits the
    # registrable domain to the browsers' preload list (a desk on a subdomain, desk.example.com, cannot be).
    SECURE_HSTS_SECONDS = env.HSTS_SECONDS
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
