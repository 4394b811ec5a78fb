"""Metrics: prometheus_client's multiprocess directory, the scrape token of /metrics, and the model's price.

Every web process and Celery worker on a machine writes its samples to files in PROMETHEUS_MULTIPROC_DIR, and a
scrape of /metrics adds them up (core/metrics.py). prometheus_client picks its mode when it is first imported, so
the directory goes into the environment here, before any app is loaded; processes started from this one (the
supplier program, a test's workers) inherit it. `scripts/run.sh` empties it when the site starts.
"""

import os
from pathlib import Path

from config.settings import env

PROMETHEUS_MULTIPROC_DIR = os.environ["PROMETHEUS_MULTIPROC_DIR"] = env.PROMETHEUS_MULTIPROC_DIR
Path(PROMETHEUS_MULTIPROC_DIR).mkdir(parents=True, exist_ok=True)

# A Prometheus server sends it as `Authorization: Bearer <token>`; empty: only a signed-in staff user may read
# /metrics.
METRICS_TOKEN = env.METRICS_TOKEN
# The operations page's cost estimate: US dollars per 1,000 model tokens (prompt and completion alike).
LLM_PRICE_PER_1K_TOKENS = env.LLM_PRICE_PER_1K_TOKENS
