"""Logs as JSON lines (LOG_FORMAT=json, default) or plain text; secrets are scrubbed by a filter, and every line
carries the trace id of the turn, request or task that logged it (`trace_id`, empty outside one)."""

from config.settings import env

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "scrub_secrets": {"()": "config.logfilters.ScrubSecrets"},
        "trace_id": {"()": "config.logfilters.TraceIdFilter"},
    },
    "formatters": {
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(trace_id)s %(message)s",
            "rename_fields": {"asctime": "ts", "levelname": "level", "name": "logger"},
        },
        "text": {"format": "%(asctime)s %(levelname)-7s %(name)s [%(trace_id)s]: %(message)s"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json" if env.LOG_FORMAT == "json" else "text",
            "filters": ["trace_id", "scrub_secrets"],
        }
    },
    "root": {"handlers": ["console"], "level": env.LOG_LEVEL},
    "loggers": {
        "django.db.backends": {"level": "INFO"},
        "celery": {"level": "INFO"},
    },
}
