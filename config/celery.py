"""The Celery app. Settings come from Django's settings (CELERY_* names); workers log through Django's LOGGING,
and run each task under the trace id it was sent with (core.tracing)."""

import logging.config
import os

from celery import Celery
from celery.signals import setup_logging, worker_process_init
from django.conf import settings

from core.tracing import connect_celery_signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("tripdesk")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# A task carries the trace id of the turn that sent it (message headers); the worker runs and logs it under that id.
connect_celery_signals()


@setup_logging.connect
def _configure_logging_from_django(**_) -> None:
    """A worker logs like the web: the same handlers, JSON format and secret filter (Celery's own setup is then
    skipped, so nothing logs around them)."""
    logging.config.dictConfig(settings.LOGGING)


@worker_process_init.connect
def _warm_the_supplier_program(**_) -> None:
    """Each worker process starts its warm sandbox supplier now, not on its first booking (bookings.supplier_program)."""
    from bookings.supplier_program import platform_warm_up  # here: this module loads before Django's apps are ready

    platform_warm_up()
