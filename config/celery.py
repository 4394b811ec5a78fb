"""The Celery app. Settings come from Django's settings (CELERY_* names); workers log through Django's LOGGING."""

import logging.config
import os

from celery import Celery
from celery.signals import setup_logging
from django.conf import settings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("tripdesk")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@setup_logging.connect
def _configure_logging_from_django(**_) -> None:
    """A worker logs like the web: the same handlers, JSON format and secret filter (Celery's own setup is then
    skipped, so nothing logs around them)."""
    logging.config.dictConfig(settings.LOGGING)
