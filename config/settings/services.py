"""Database, cache and Celery: embedded defaults when nothing is configured, real services when it is.

No variables: a SQLite file, the database cache (shared by every process on the machine) and Celery
running tasks in-process. DATABASE_URL: PostgreSQL. REDIS_URL: Redis for cache, sessions, rate limits
and the Celery broker, with a real worker.
"""

import dj_database_url

from config.settings import env

DATABASES = {
    "default": dj_database_url.parse(env.DATABASE_URL, conn_max_age=env.DATABASE_CONN_MAX_AGE, conn_health_checks=True)
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env.DATABASE_POOL_MAX_SIZE > 0:
    # One pool per process, shared by its threads: a thread takes a connection for its database work and gives it
    # back when Django closes it (end of request, or before a remote model call). A thread that finds every
    # connection taken waits up to `timeout` seconds. Pooling replaces persistent connections.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": min(2, env.DATABASE_POOL_MAX_SIZE),
        "max_size": env.DATABASE_POOL_MAX_SIZE,
        "timeout": 10,
    }
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several processes (web + worker) share the file: wait for locks instead of failing at once.
    DATABASES["default"]["OPTIONS"] = {"timeout": 20, "transaction_mode": "IMMEDIATE"}

REDIS_URL = env.REDIS_URL
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "core.cache.SharedClientRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "tripdesk",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "tripdesk_cache",
        }
    }

# Login sessions live in the database: a Redis outage must not log everyone out. With Redis they are read from it
# (core.sessions: one query less per request, the row still the record); without it, from their rows. Conversation
# slots live in the cache (Redis), with a TTL, and degrade to single-turn when it is down.
SESSION_ENGINE = "core.sessions" if REDIS_URL else "django.contrib.sessions.backends.db"

# A page's live channel (config/live.py, core.live): fed through Redis, so only with it.
LIVE_URL = env.LIVE_URL if REDIS_URL else ""

CELERY_BROKER_URL = env.CELERY_BROKER_URL or "memory://"
CELERY_TASK_ALWAYS_EAGER = not env.CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
# Results are kept only by tasks that ask (the platform task, whose caller waits for its answer), for an hour.
CELERY_RESULT_BACKEND = REDIS_URL or None
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_EXPIRES = 3600
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = 120
CELERY_TASK_SOFT_TIME_LIMIT = 100
CELERY_TASK_DEFAULT_QUEUE = "default"
# Supplier calls and after-sale execution have queues of their own, so a slow supplier never holds up the rest.
CELERY_TASK_ROUTES = {"bookings.tasks.*": {"queue": "platform"}, "aftersale.tasks.*": {"queue": "aftersale"}}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 300}
CELERY_TIMEZONE = env.TIME_ZONE
# Celery beat: time out pending tickets past their deadline; re-enqueue approved tickets whose task was lost and
# executions whose worker died (both safe to run any number of times, on any number of beat instances).
CELERY_BEAT_SCHEDULE: dict = {
    "aftersale-timeout-sweep": {
        "task": "aftersale.tasks.time_out_tickets",
        "schedule": env.AFTERSALE_TIMEOUT_SWEEP_SECONDS,
    },
    "aftersale-resume-stalled": {
        "task": "aftersale.tasks.resume_stalled_tickets",
        "schedule": env.AFTERSALE_TIMEOUT_SWEEP_SECONDS,
    },
    # Bookings in step with the supplier: expiries, its own cancels and schedule changes, orders we failed to record.
    "bookings-sync": {
        "task": "bookings.tasks.sync_bookings",
        "schedule": env.BOOKING_SYNC_SECONDS,
    },
    # Pending actions never stay in flight: one left EXECUTING past its claim is settled with the supplier.
    "assistant-settle-stalled-actions": {
        "task": "assistant.tasks.settle_stalled_actions",
        "schedule": env.ASSISTANT_ACTION_SWEEP_SECONDS,
    },
}
