"""The WSGI entry point. `scripts/run.sh --prod` has gunicorn load it once, in its master process (`--preload`),
and fork the web processes from it: what is built here is built once and shared by every process.

Built here is what the first request would otherwise build in each process, and only that: the URLconf (imported
on a first request; it imports every view, and through them the rules engine with its pinyin tables), the template
engines with their tag libraries, and the offline rules engine (the default reader of every turn; with a model, its
fallback) with its gazetteer, number reader, regular expressions, fitted intent scorer and English spelling
corrector, by reading two sentences; the catalogue's own
places need the database and are added on the first turn. Nothing here opens a connection or starts a thread (the
database and its pool, Redis, the broker, the model's HTTP client): neither survives a fork, so each process opens
its own on first use (tests/assistant/test_slow_model.py checks it).
"""

import os
from datetime import date

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()


def _build_what_the_first_request_would() -> None:
    from django.template import engines
    from django.urls import get_resolver

    from assistant.llm.factory import get_llm_port
    from assistant.llm.port import UnderstandContext

    get_resolver().url_patterns  # noqa: B018 - the property imports the URLconf
    engines.all()
    reader, context = get_llm_port("rules"), UnderstandContext(today=date.today())
    reader.understand("下周末去杭州玩三天，预算两千以内", context=context)
    # An English sentence with a slip builds the spelling corrector and the word-pair counts it asks about a rare
    # word (~20 MB, ~0.25 s), which the first such turn of each process would otherwise pay.
    reader.understand("wether in beijng this weekend", context=context)


_build_what_the_first_request_would()
