from config.celery import app as celery_app
from core import clock

clock.start_from_environment()  # a test run's clock in every process it starts (core/clock.py); outside tests nothing

__all__ = ("celery_app",)
