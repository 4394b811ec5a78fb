"""Django's own settings: apps, middleware, templates, auth, i18n, static files."""

import warnings

from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from config.settings import env

BASE_DIR = env.BASE_DIR
SECRET_KEY = env.SECRET_KEY
DEBUG = env.DEBUG
ALLOWED_HOSTS = env.ALLOWED_HOSTS
CSRF_TRUSTED_ORIGINS = env.CSRF_TRUSTED_ORIGINS

INSTALLED_APPS = [
    "modeltranslation",  # before the admin: the catalogue's fields in every language (itinerary/translation.py)
    "config.admin_app.StaffAdminConfig",  # the admin, its sign-in with a second factor for staff (config/staff.py)
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files, served locally
    "csp",  # django-csp's system checks
    "django_htmx",
    "django_otp",  # staff's second factor (config/staff.py): TOTP devices and recovery codes, enrolled in the admin
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
    "axes",  # login lockout (config/settings/auth.py); its attempts are listed in the admin
    "core",  # the neutral core: its one table is each user's chosen language
    "itinerary",
    "bookings",
    "aftersale",
    "assistant",
    "demo",  # the demo and synthetic data (seed_demo, seed_bulk): above the apps, it writes every app's rows
    "operations",  # the operations page and /metrics: above the apps, it reads every app's rows
]

MIDDLEWARE = [
    "core.tracing.TraceMiddleware",  # a trace id per request (traceparent / X-Request-ID), on its logs and rows
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_permissions_policy.PermissionsPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "core.origin.ClientAddressMiddleware",  # the client's address, on the event rows a request writes
    "django_otp.middleware.OTPMiddleware",  # request.user.is_verified(): the admin opens to staff with a second factor
    "core.languages.UserLanguageMiddleware",  # a signed-in user's chosen language, on every device
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "axes.middleware.AxesMiddleware",  # turns a login lockout into the lockout page / JSON body (config/lockout.py)
    "config.api_errors.ApiErrorBodyMiddleware",  # a body Django refuses in an /api/ view: the JSON error body
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "config.live.context",
            ],
        },
    },
    # Reply texts (templates/assistant/replies): plain text, so nothing is escaped here; the page escapes a reply
    # once, where it shows it, and the JSON API carries it as it is.
    {
        "NAME": "text",
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates" / "assistant" / "replies", BASE_DIR / "templates"],
        "APP_DIRS": False,
        "OPTIONS": {"autoescape": False},
    },
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
# django-axes first: a locked-out username and address is refused before any password is hashed.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "assistant:chat"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "zh-hans"
# The project's own short date formats per language (config/formats/<lang>/formats.py), over Django's.
FORMAT_MODULE_PATH = ["config.formats"]
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600  # the switcher's choice outlives the browser session
LANGUAGES = [("zh-hans", _("简体中文")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
# The catalogue's text in both languages (django-modeltranslation, itinerary/translation.py): Chinese is the
# catalogue's own language, and what a reader sees where an activity has no text in theirs.
MODELTRANSLATION_DEFAULT_LANGUAGE = "zh-hans"
MODELTRANSLATION_FALLBACK_LANGUAGES = ("zh-hans",)
# A field per language is labelled with its language, in the reader's language ("title (Chinese)", "标题（英文）").
_FIELD_LANGUAGES = {
    "zh-hans": pgettext_lazy("a field's language", "Chinese"),
    "en": pgettext_lazy("a field's language", "English"),
}
MODELTRANSLATION_BUILD_LOCALIZED_VERBOSE_NAME = lambda verbose_name, language: format_lazy(  # noqa: E731
    _("{field} ({language})"), field=verbose_name, language=_FIELD_LANGUAGES[language]
)
TIME_ZONE = env.TIME_ZONE
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Before collectstatic has run (tests, a first run) whitenoise serves files through the finders instead.
WHITENOISE_USE_FINDERS = True
warnings.filterwarnings("ignore", message="No directory at", category=UserWarning)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
if env.PRODUCTION:
    # `run.sh --prod` has run collectstatic: whitenoise serves STATIC_ROOT only, under content-hashed names that
    # browsers may cache for a year (a new deploy gets new names).
    WHITENOISE_USE_FINDERS = False
    STORAGES["staticfiles"] = {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"}

# HTTPS (DJANGO_HTTPS), HSTS and the browser-facing security headers: config/settings/security.py.

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # DRF's session authentication with a WWW-Authenticate challenge: anonymous → 401, not allowed → 403.
        "core.authentication.SessionAuthentication",
        "config.throttling.AnonymousRateLimit",  # last: counts the requests nobody authenticated, per IP (auth.py)
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 20,
    "EXCEPTION_HANDLER": "core.api.exception_handler",
    # JSON bodies limited in size and depth (no RecursionError); form and multipart bodies as DRF's defaults.
    "DEFAULT_PARSER_CLASSES": [
        "core.parsers.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    # Reverse proxies whose X-Forwarded-For is trusted for the client address (throttles, login lockout).
    "NUM_PROXIES": env.NUM_PROXIES,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "TripDesk API",
    "DESCRIPTION": (
        "The travel service desk: chat, understanding, bookings, after-sale tickets, itineraries. "
        "Read it as [Swagger UI](/api/v1/docs/) or [ReDoc](/api/v1/docs/redoc/)."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # config.throttling.AnonymousRateLimit authenticates nobody: no security scheme (add a real one here, e.g. tokens).
    "AUTHENTICATION_WHITELIST": ["core.authentication.SessionAuthentication"],
    # Swagger UI and ReDoc from drf-spectacular-sidecar's static files, not a CDN: same-origin only (the CSP), works
    # offline (config/urls.py, templates/api/).
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Every operation that needs a signed-in caller documents 401 (and, for a write, 403) with the one error body.
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "core.api.document_auth_responses"],
}
