"""The ASGI application: the live channel's event stream (config/live.py, a plain ASGI app) and Django for the rest.

`run.sh` serves it with uvicorn as the live server; the pages, the API and the admin are served by gunicorn
(config/wsgi.py), so in practice only /live/events reaches Django's ASGI side from here."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_application = get_asgi_application()

from config import live  # noqa: E402 - Django is set up first


async def application(scope, receive, send):
    if scope["type"] == "http" and scope["path"] == live.PATH:
        await live.events(scope, receive, send)
    else:
        await django_application(scope, receive, send)
