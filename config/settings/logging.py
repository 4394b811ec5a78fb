"""Logs as JSON lines (LOG_FORMAT=json, default) or plain text; secrets are scrubbed by a filter."""

from config.settings import env

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"scrub_secrets": {"()": "config.logfilters.ScrubSecrets"}},
    "formatters": {
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
            "rename_fields": {"asctime": "ts", "levelname": "level", "name": "logger"},
        },
        "text": {"format": "%(asctime)s %(levelname)-7s %(name)s: %(message)s"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json" if env.LOG_FORMAT == "json" else "text",
            "filters": ["scrub_secrets"],
        }
    },
    "root": {"handlers": ["console"], "level": env.LOG_LEVEL},
    "loggers": {
        "django.db.backends": {"level": "INFO"},
        "celery": {"level": "INFO"},
    },
}
